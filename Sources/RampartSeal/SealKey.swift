public import Foundation
public import RampartCrypto

/// What seals and opens a stream: a passphrase, a named key-encryption key, or a keyset.
///
/// Every sealed stream has its own random 32-byte data key; a `SealKey` only wraps (seals) or unwraps (opens) that
/// data key. With a keyset, sealing uses the primary key and opening picks the key named by the header's key id, so
/// files sealed before a rotation still open.
public struct SealKey: Sendable {
    enum Kind: Sendable {
        case passphrase(SymmetricKey, PasswordKDF, KDFLimits)
        case key(SymmetricKey, id: String)
        case keyset(Keyset)
    }

    let kind: Kind

    /// A passphrase, stretched by `kdf` when sealing; opening uses the KDF and costs stored in the header, within
    /// `limits`.
    ///
    /// - Parameters:
    ///   - passphrase: The passphrase bytes (UTF-8 for text); copied into memory that is wiped on release.
    ///   - kdf: The KDF for sealing; ``PasswordKDF/argon2id`` (OWASP costs) by default.
    ///   - limits: The most memory and work a header may ask of the KDF (checked before deriving anything when
    ///     opening, and against `kdf` when sealing); ``KDFLimits/standard`` by default.
    /// - Returns: The key.
    public static func passphrase(
        _ passphrase: some ContiguousBytes, kdf: PasswordKDF = .argon2id, limits: KDFLimits = .standard
    ) -> SealKey {
        SealKey(kind: .passphrase(SymmetricKey(bytes: passphrase), kdf, limits))
    }

    /// A passphrase given as text (its UTF-8 bytes).
    ///
    /// - Parameters:
    ///   - passphrase: The passphrase.
    ///   - kdf: The KDF for sealing.
    ///   - limits: The most memory and work a header may ask of the KDF.
    /// - Returns: The key.
    public static func passphrase(
        _ passphrase: String, kdf: PasswordKDF = .argon2id, limits: KDFLimits = .standard
    ) -> SealKey {
        .passphrase(Array(passphrase.utf8), kdf: kdf, limits: limits)
    }

    /// A 32-byte key-encryption key and the id stored in the header to name it.
    ///
    /// - Parameters:
    ///   - key: The key-encryption key.
    ///   - id: 1…255 characters from `A-Z a-z 0-9 . _ : / @ + -`.
    /// - Returns: The key.
    public static func key(_ key: SymmetricKey, id: String) -> SealKey {
        SealKey(kind: .key(key, id: id))
    }

    /// A keyset: seals with its primary key, opens with whichever key the header names.
    ///
    /// - Parameter keyset: The keyset.
    /// - Returns: The key.
    public static func keyset(_ keyset: Keyset) -> SealKey {
        SealKey(kind: .keyset(keyset))
    }

    /// Builds the header of a stream around `dataKey`; a fresh salt and nonce prefix unless given (re-wrapping keeps
    /// the old ones, which the body's keys and nonces depend on).
    func makeHeader(
        algorithm: SealAlgorithm,
        segmentSize: Int,
        dataKey: SymmetricKey,
        salt: [UInt8] = SecureRandom.bytes(count: SealHeader.saltByteCount),
        noncePrefix: [UInt8] = SecureRandom.bytes(count: SealHeader.noncePrefixByteCount)
    ) throws -> SealHeader {
        let source: SealHeader.KeySource
        let keyEncryptionKey: SymmetricKey
        switch kind {
        case .passphrase(let passphrase, let kdf, let limits):
            guard passphrase.byteCount > 0 else { throw SealError.invalidParameter("the passphrase is empty") }
            try kdf.checkStrength()
            try limits.check(kdf, what: "sealing")
            let salt = SecureRandom.bytes(count: SealHeader.passwordSaltByteCount)
            keyEncryptionKey = try kdf.deriveKey(passphrase: passphrase, salt: salt)
            source = .passphrase(kdf, salt: salt)
        case .key(let key, let id):
            keyEncryptionKey = key
            source = .key(id: id)
        case .keyset(let keyset):
            keyEncryptionKey = keyset.primaryKey
            source = .key(id: keyset.primaryID)
        }
        guard keyEncryptionKey.byteCount == 32 else {
            throw SealError.invalidParameter("a key-encryption key must be 32 bytes; got \(keyEncryptionKey.byteCount)")
        }
        return try SealHeader(
            algorithm: algorithm, segmentSize: segmentSize, salt: salt, noncePrefix: noncePrefix, keySource: source,
            dataKey: dataKey, keyEncryptionKey: keyEncryptionKey)
    }

    /// Finds the key-encryption key for `header` and unwraps its data key.
    func unwrapDataKey(of header: SealHeader) throws -> SymmetricKey {
        switch (header.keySource, kind) {
        case (.passphrase(let kdf, let salt), .passphrase(let passphrase, _, let limits)):
            // The header is not authenticated yet: bound what it may cost before deriving.
            try limits.check(kdf, what: "the header")
            return try header.unwrapDataKey(with: kdf.deriveKey(passphrase: passphrase, salt: salt))
        case (.key(let headerID), .key(let key, let id)):
            guard headerID == id else {
                throw SealError.unknownKeyID(
                    "the file was sealed with key '\(headerID)', not '\(id)'; give the key with that id")
            }
            return try header.unwrapDataKey(with: key)
        case (.key(let headerID), .keyset(let keyset)):
            guard let key = keyset.key(id: headerID) else {
                throw SealError.unknownKeyID(
                    "the file was sealed with key '\(headerID)', which keyset '\(keyset.name)' does not hold "
                        + "(it holds \(keyset.keyIDs.joined(separator: ", ")))")
            }
            return try header.unwrapDataKey(with: key)
        case (.passphrase, _):
            throw SealError.wrongKeyKind(
                "the file was sealed with a passphrase, not a key; open it with its passphrase (--passphrase-file)")
        case (.key(let headerID), .passphrase):
            let keyset = headerID.split(separator: "/").first.map(String.init) ?? headerID
            throw SealError.wrongKeyKind(
                "the file was sealed with key '\(headerID)', not a passphrase; open it with the keyset that holds it "
                    + "(--vault FILE --vault-passphrase-file F --key \(keyset))")
        }
    }
}
