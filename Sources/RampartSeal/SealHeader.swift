import Foundation
import RampartCrypto

/// The header of a sealed stream: format version, cipher, segment size, salt, nonce prefix and the wrapped data key.
///
/// The layout (docs/seal-format.md, all integers big-endian):
///
/// ```
/// magic          8   89 52 53 45 41 4C 0D 0A  ("\x89RSEAL\r\n")
/// version        1   1
/// algorithm      1   1 = AES-256-GCM, 2 = ChaCha20-Poly1305
/// header length  2   L: every header byte, MAC included; 12 < L ≤ 1024
/// segment size   4   plaintext bytes per segment, 256 … 4 MiB
/// salt          32   HKDF salt of the file's keys
/// nonce prefix   7   first 7 bytes of every segment nonce
/// key source     1   1 = passphrase, 2 = key-encryption key
/// stanza         …   passphrase: kdf ‖ costs ‖ 16-byte KDF salt, where kdf ‖ costs is one of
///                      1 (Argon2id) ‖ m u32 ‖ t u32 ‖ p u32
///                      2 (scrypt)   ‖ log2 N u8 ‖ r u32 ‖ p u32
///                      3 (PBKDF2-HMAC-SHA256) ‖ iterations u32
///                    key:        id length u8 (1…255) ‖ id (ASCII [A-Za-z0-9._:/@+-])
/// wrapped key   60   AES-256-GCM(KEK, data key; AD = magic ‖ version ‖ key source ‖ stanza) as nonce ‖ ct ‖ tag
/// MAC           32   HMAC-SHA256(HKDF(data key, salt, "rampart-seal v1 header"), every byte before it)
/// ```
///
/// Parsing is strict: the declared length must equal the bytes given, every field is checked against its limit
/// before use, and trailing bytes are an error. A parsed header is not yet authenticated: its MAC is checked only
/// once the data key has been unwrapped.
public struct SealHeader: Sendable, Hashable {
    /// The 8 bytes every sealed stream starts with.
    public static let magic: [UInt8] = [0x89, 0x52, 0x53, 0x45, 0x41, 0x4C, 0x0D, 0x0A]
    /// The format version this library writes and reads.
    public static let currentVersion: UInt8 = 1
    /// Bytes before the stanza-independent part is known: magic, version, algorithm and header length.
    public static let prefixByteCount = 12
    /// DoS limit: a header is at most 1 KiB, so a reader never buffers more than that before authenticating.
    public static let maximumByteCount = 1024
    /// The smallest segment size a header may declare.
    public static let minimumSegmentSize = 256
    /// The largest segment size a header may declare (4 MiB): bounds the memory a reader allocates.
    public static let maximumSegmentSize = 4 << 20
    /// The default segment size, 64 KiB.
    public static let defaultSegmentSize = 64 << 10
    /// DoS limit: a key id is at most 255 bytes.
    public static let maximumKeyIDByteCount = 255

    static let saltByteCount = 32
    static let noncePrefixByteCount = 7
    static let passwordSaltByteCount = 16
    static let wrappedKeyByteCount = Box.overhead + 32
    static let macByteCount = 32
    static let stanzaOffset = 55

    enum KeySourceID {
        static let passphrase: UInt8 = 1
        static let key: UInt8 = 2
    }

    /// Where the key-encryption key comes from.
    enum KeySource: Hashable, Sendable {
        case passphrase(PasswordKDF, salt: [UInt8])
        case key(id: String)
    }

    /// The cipher of the segments.
    public let algorithm: SealAlgorithm
    /// Plaintext bytes per segment; the last segment holds 0 … `segmentSize` bytes.
    public let segmentSize: Int
    /// The HKDF salt of the file's keys (32 bytes).
    public let salt: [UInt8]
    /// The 7-byte prefix of every segment nonce.
    public let noncePrefix: [UInt8]
    let keySource: KeySource
    /// The wrapped data key: `nonce ‖ ciphertext ‖ tag`.
    let wrappedKey: [UInt8]
    /// The header bytes exactly as read or written, MAC included.
    public let bytes: [UInt8]
    /// The range of the stanza within ``bytes`` (bound into the wrap).
    let stanzaRange: Range<Int>

    /// The KDF that turns a passphrase into the key-encryption key, when the file was sealed with a passphrase.
    public var passwordKDF: PasswordKDF? {
        if case .passphrase(let kdf, _) = keySource { return kdf }
        return nil
    }

    /// The id of the key-encryption key, when the file was sealed with a key or keyset.
    public var keyID: String? {
        if case .key(let id) = keySource { return id }
        return nil
    }

    /// The MAC, the last 32 bytes.
    var mac: [UInt8] { Array(bytes.suffix(Self.macByteCount)) }

    /// The associated data of the key wrap: magic ‖ version ‖ key source ‖ stanza.
    var wrapAssociatedData: [UInt8] {
        Self.magic + [Self.currentVersion] + Array(bytes[stanzaRange])
    }

    /// Reads the header length from the first ``prefixByteCount`` bytes of a stream.
    ///
    /// - Parameter prefix: The first 12 bytes.
    /// - Returns: The declared header length, checked against ``maximumByteCount``.
    /// - Throws: ``SealError/Code/malformedHeader`` for a wrong magic or length,
    ///   ``SealError/Code/unsupportedVersion`` for another version.
    public static func declaredByteCount(prefix: [UInt8]) throws -> Int {
        var reader = ByteReader(prefix, what: "sealed header", code: .malformedHeader)
        guard try reader.readBytes(magic.count) == magic else {
            throw SealError.malformedHeader(
                "this is not a Rampart sealed file: it does not start with the \\x89RSEAL magic")
        }
        let version = try reader.readByte()
        guard version == currentVersion else {
            throw SealError.unsupportedVersion(
                "the file uses sealed format version \(version); this build reads version \(currentVersion)")
        }
        _ = try reader.readByte()
        let length = Int(try reader.readUInt16())
        try reader.finish()
        let minimum = stanzaOffset + 2 + wrappedKeyByteCount + macByteCount
        guard length >= minimum, length <= maximumByteCount else {
            throw SealError.malformedHeader(
                "the header declares \(length) bytes; a version-1 header is \(minimum)…\(maximumByteCount) bytes")
        }
        return length
    }

    /// Parses a complete header.
    ///
    /// - Parameter bytes: Exactly the header's bytes (its declared length).
    /// - Throws: ``SealError/Code/malformedHeader`` for any structural fault or trailing bytes,
    ///   ``SealError/Code/unsupportedVersion``, ``SealError/Code/unsupportedAlgorithm``, or
    ///   ``SealError/Code/limitExceeded`` for KDF costs above the limits.
    public init(bytes: [UInt8]) throws {
        guard bytes.count <= Self.maximumByteCount else {
            throw SealError.limitExceeded("a sealed header is at most \(Self.maximumByteCount) bytes")
        }
        guard bytes.count >= Self.prefixByteCount else {
            throw SealError.malformedHeader("a sealed header is at least \(Self.prefixByteCount) bytes")
        }
        let declared = try Self.declaredByteCount(prefix: Array(bytes.prefix(Self.prefixByteCount)))
        guard declared == bytes.count else {
            throw SealError.malformedHeader("the header declares \(declared) bytes but \(bytes.count) were given")
        }
        var reader = ByteReader(bytes, what: "sealed header", code: .malformedHeader)
        _ = try reader.readBytes(Self.magic.count + 1)
        let algorithmID = try reader.readByte()
        guard let algorithm = SealAlgorithm(headerID: algorithmID) else {
            throw SealError.unsupportedAlgorithm(
                "the header names cipher \(algorithmID), which this build does not know")
        }
        _ = try reader.readUInt16()
        let segmentSize = Int(try reader.readUInt32())
        guard segmentSize >= Self.minimumSegmentSize, segmentSize <= Self.maximumSegmentSize else {
            throw SealError.malformedHeader(
                "the header's segment size \(segmentSize) is outside "
                    + "\(Self.minimumSegmentSize)…\(Self.maximumSegmentSize) bytes")
        }
        let salt = try reader.readBytes(Self.saltByteCount)
        let noncePrefix = try reader.readBytes(Self.noncePrefixByteCount)
        let stanzaStart = reader.offset
        let keySource: KeySource
        switch try reader.readByte() {
        case KeySourceID.passphrase:
            let kdf = try PasswordKDF(reading: &reader)
            keySource = .passphrase(kdf, salt: try reader.readBytes(Self.passwordSaltByteCount))
        case KeySourceID.key:
            let length = Int(try reader.readByte())
            let idBytes = try reader.readBytes(length)
            guard let id = Self.keyID(idBytes) else {
                throw SealError.malformedHeader(
                    "the header's key id must be 1…255 characters from A-Z a-z 0-9 . _ : / @ + -")
            }
            keySource = .key(id: id)
        case let other:
            throw SealError.malformedHeader("the header names key source \(other); 1 (passphrase) or 2 (key) expected")
        }
        let stanzaRange = stanzaStart..<reader.offset
        let wrappedKey = try reader.readBytes(Self.wrappedKeyByteCount)
        _ = try reader.readBytes(Self.macByteCount)
        try reader.finish()
        self.algorithm = algorithm
        self.segmentSize = segmentSize
        self.salt = salt
        self.noncePrefix = noncePrefix
        self.keySource = keySource
        self.wrappedKey = wrappedKey
        self.bytes = bytes
        self.stanzaRange = stanzaRange
    }

    /// Builds and MACs a header around a data key.
    ///
    /// - Parameters:
    ///   - algorithm: The cipher.
    ///   - segmentSize: Plaintext bytes per segment.
    ///   - salt: 32 random bytes.
    ///   - noncePrefix: 7 random bytes.
    ///   - keySource: Passphrase KDF or key id.
    ///   - dataKey: The file's random data key.
    ///   - keyEncryptionKey: The key that wraps it.
    /// - Throws: ``SealError/Code/invalidParameter`` for a bad segment size or key id.
    init(
        algorithm: SealAlgorithm,
        segmentSize: Int,
        salt: [UInt8],
        noncePrefix: [UInt8],
        keySource: KeySource,
        dataKey: SymmetricKey,
        keyEncryptionKey: SymmetricKey
    ) throws {
        guard segmentSize >= Self.minimumSegmentSize, segmentSize <= Self.maximumSegmentSize,
            let segment32 = UInt32(exactly: segmentSize)
        else {
            throw SealError.invalidParameter(
                "the segment size must be \(Self.minimumSegmentSize)…\(Self.maximumSegmentSize) bytes; "
                    + "got \(segmentSize)")
        }
        var writer = ByteWriter()
        writer.append(contentsOf: Self.magic)
        writer.append(Self.currentVersion)
        writer.append(algorithm.headerID)
        writer.append(UInt16(0))
        writer.append(segment32)
        writer.append(contentsOf: salt)
        writer.append(contentsOf: noncePrefix)
        let stanzaStart = writer.bytes.count
        switch keySource {
        case .passphrase(let kdf, let passwordSalt):
            writer.append(KeySourceID.passphrase)
            kdf.serialize(into: &writer)
            writer.append(contentsOf: passwordSalt)
        case .key(let id):
            guard Self.keyID(Array(id.utf8)) != nil else {
                throw SealError.invalidParameter(
                    "a key id must be 1…255 characters from A-Z a-z 0-9 . _ : / @ + -")
            }
            writer.append(KeySourceID.key)
            writer.append(UInt8(truncatingIfNeeded: id.utf8.count))
            writer.append(contentsOf: Array(id.utf8))
        }
        let stanzaRange = stanzaStart..<writer.bytes.count
        let associatedData = Self.magic + [Self.currentVersion] + Array(writer.bytes[stanzaRange])
        let wrapped = try dataKey.withUnsafeBytes { keyBytes in
            try Box.seal(keyBytes, using: keyEncryptionKey, authenticating: associatedData)
        }
        writer.append(contentsOf: wrapped)
        let total = writer.bytes.count + Self.macByteCount
        guard let total16 = UInt16(exactly: total), total <= Self.maximumByteCount else {
            throw SealError.invalidParameter("the header would exceed \(Self.maximumByteCount) bytes")
        }
        writer.patch(total16, at: Self.magic.count + 2)
        let macKey = try FileKeys.headerKey(dataKey: dataKey, salt: salt)
        writer.append(contentsOf: HMAC.authenticationCode(for: writer.bytes, key: macKey))
        try self.init(bytes: writer.bytes)
    }

    /// Whether `bytes` is a valid key id, returning it as a string.
    static func keyID(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty, bytes.count <= maximumKeyIDByteCount else { return nil }
        let allowed = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._:/@+-".utf8))
        guard bytes.allSatisfy({ allowed.contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Unwraps the data key with a key-encryption key, then checks the header MAC.
    ///
    /// - Parameter keyEncryptionKey: The passphrase-derived key or the keyset's key.
    /// - Returns: The data key.
    /// - Throws: ``SealError/Code/wrongKey`` when the unwrap fails, ``SealError/Code/headerTampered`` when the MAC
    ///   does not verify.
    func unwrapDataKey(with keyEncryptionKey: SymmetricKey) throws -> SymmetricKey {
        let dataKeyBytes: [UInt8]
        do {
            dataKeyBytes = try Box.open(wrappedKey, using: keyEncryptionKey, authenticating: wrapAssociatedData)
        } catch let error as SealError where error.code == .authenticationFailure {
            throw SealError.wrongKey()
        }
        let dataKey = SymmetricKey(bytes: dataKeyBytes)
        let macKey = try FileKeys.headerKey(dataKey: dataKey, salt: salt)
        guard HMAC.isValidAuthenticationCode(mac, for: bytes.dropLast(Self.macByteCount), key: macKey) else {
            throw SealError.headerTampered()
        }
        return dataKey
    }
}

/// The keys a file's data key expands into (HKDF-SHA256, RFC 5869).
enum FileKeys {
    static func headerKey(dataKey: SymmetricKey, salt: [UInt8]) throws -> SymmetricKey {
        SymmetricKey(bytes: try expand(dataKey, salt: salt, info: "rampart-seal v1 header"))
    }

    static func payloadKey(dataKey: SymmetricKey, salt: [UInt8], algorithm: SealAlgorithm) throws -> SymmetricKey {
        SymmetricKey(bytes: try expand(dataKey, salt: salt, info: "rampart-seal v1 payload", algorithm.headerID))
    }

    private static func expand(
        _ key: SymmetricKey, salt: [UInt8], info: String, _ extra: UInt8? = nil
    ) throws
        -> [UInt8]
    {
        var infoBytes = Array(info.utf8)
        if let extra { infoBytes.append(extra) }
        do {
            return try HKDF.deriveKey(inputKeyMaterial: key, salt: salt, info: infoBytes, outputByteCount: 32)
        } catch {
            throw SealError.invalidParameter("HKDF failed: \(error)")
        }
    }
}
