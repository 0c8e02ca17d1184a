public import Foundation

/// An authenticated cipher with associated data.
public enum AEADAlgorithm: String, Sendable, CaseIterable, Hashable {
    /// AES-128 in Galois/Counter Mode (16-byte key).
    case aes128GCM = "AES-128-GCM"
    /// AES-256 in Galois/Counter Mode (32-byte key).
    case aes256GCM = "AES-256-GCM"
    /// ChaCha20-Poly1305, RFC 8439 (32-byte key, 12-byte nonce).
    case chaCha20Poly1305 = "ChaCha20-Poly1305"

    /// The key length in bytes.
    public var keyByteCount: Int { self == .aes128GCM ? 16 : 32 }
    /// The standard nonce length in bytes (12 for all three).
    public static let nonceByteCount = 12
    /// The longest AES-GCM nonce accepted: 128 bytes, OpenSSL 3's limit (longer nonces are hashed to 12 bytes by
    /// GCM anyway and bring nothing).
    public static let maximumGCMNonceByteCount = 128
    /// The tag length in bytes (16 for all three).
    public static let tagByteCount = 16
}

/// The output of an AEAD seal: ciphertext and tag, with the nonce that produced them.
public struct SealedBox: Sendable, Hashable {
    /// The nonce, usually 12 bytes.
    public let nonce: [UInt8]
    /// The ciphertext, as long as the plaintext.
    public let ciphertext: [UInt8]
    /// The 16-byte authentication tag.
    public let tag: [UInt8]

    /// Assembles a box from its parts.
    ///
    /// - Parameters:
    ///   - nonce: The nonce.
    ///   - ciphertext: The ciphertext.
    ///   - tag: The 16-byte tag.
    public init(nonce: [UInt8], ciphertext: [UInt8], tag: [UInt8]) {
        self.nonce = nonce
        self.ciphertext = ciphertext
        self.tag = tag
    }

    /// `nonce ‖ ciphertext ‖ tag`: the layout of CryptoKit's `AES.GCM.SealedBox.combined` when the nonce is 12 bytes.
    public var combined: [UInt8] { nonce + ciphertext + tag }

    /// Splits a combined box (`12-byte nonce ‖ ciphertext ‖ 16-byte tag`).
    ///
    /// - Parameter combined: The combined bytes.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` when the input is shorter than nonce plus tag.
    public init(combined: some ContiguousBytes) throws {
        let bytes = combined.withUnsafeBytes { Array($0) }
        let overhead = AEADAlgorithm.nonceByteCount + AEADAlgorithm.tagByteCount
        guard bytes.count >= overhead else {
            throw CryptoError.invalidEncoding(
                "a sealed box needs at least \(overhead) bytes (nonce and tag); got \(bytes.count)")
        }
        self.nonce = Array(bytes.prefix(AEADAlgorithm.nonceByteCount))
        self.ciphertext = Array(bytes.dropFirst(AEADAlgorithm.nonceByteCount).dropLast(AEADAlgorithm.tagByteCount))
        self.tag = Array(bytes.suffix(AEADAlgorithm.tagByteCount))
    }
}

/// Seal and open with an ``AEADAlgorithm``.
public enum AEAD {
    /// Encrypts and authenticates `plaintext`, binding `associatedData`.
    ///
    /// - Warning: Never reuse a nonce with the same key. Leave `nonce` nil to draw a fresh random 12-byte one.
    /// - Parameters:
    ///   - plaintext: The data to encrypt.
    ///   - key: A key of `algorithm.keyByteCount` bytes.
    ///   - nonce: The nonce; 12 random bytes when nil. AES-GCM accepts 1…``AEADAlgorithm/maximumGCMNonceByteCount``
    ///     bytes, ChaCha20-Poly1305 only 12.
    ///   - associatedData: Authenticated but not encrypted.
    ///   - algorithm: The cipher; AES-256-GCM by default.
    /// - Returns: The sealed box.
    /// - Throws: ``CryptoError/Code/invalidKey`` or ``CryptoError/Code/invalidParameter`` for wrong sizes.
    public static func seal(
        _ plaintext: some ContiguousBytes,
        using key: SymmetricKey,
        nonce: [UInt8]? = nil,
        authenticating associatedData: some ContiguousBytes = [UInt8](),
        algorithm: AEADAlgorithm = .aes256GCM
    ) throws -> SealedBox {
        let nonce = nonce ?? SecureRandom.bytes(count: AEADAlgorithm.nonceByteCount)
        try check(key: key, nonce: nonce, algorithm: algorithm)
        return try Backend.aeadSeal(algorithm, key: key, nonce: nonce, plaintext: plaintext, aad: associatedData)
    }

    /// Checks the tag and decrypts.
    ///
    /// - Parameters:
    ///   - box: The sealed box.
    ///   - key: The key it was sealed with.
    ///   - associatedData: The same associated data given to ``seal(_:using:nonce:authenticating:algorithm:)``.
    ///   - algorithm: The cipher; AES-256-GCM by default.
    /// - Returns: The plaintext. Nothing is returned unless the tag verifies.
    /// - Throws: ``CryptoError/Code/authenticationFailure`` when anything was altered or the key is wrong.
    public static func open(
        _ box: SealedBox,
        using key: SymmetricKey,
        authenticating associatedData: some ContiguousBytes = [UInt8](),
        algorithm: AEADAlgorithm = .aes256GCM
    ) throws -> [UInt8] {
        try check(key: key, nonce: box.nonce, algorithm: algorithm)
        guard box.tag.count == AEADAlgorithm.tagByteCount else {
            throw CryptoError.authenticationFailure(
                "the tag must be \(AEADAlgorithm.tagByteCount) bytes; got \(box.tag.count)")
        }
        return try Backend.aeadOpen(algorithm, key: key, box: box, aad: associatedData)
    }

    private static func check(key: SymmetricKey, nonce: [UInt8], algorithm: AEADAlgorithm) throws {
        guard key.byteCount == algorithm.keyByteCount else {
            throw CryptoError.invalidKey(
                "\(algorithm.rawValue) needs a \(algorithm.keyByteCount)-byte key; got \(key.byteCount)")
        }
        switch algorithm {
        case .chaCha20Poly1305:
            guard nonce.count == AEADAlgorithm.nonceByteCount else {
                throw CryptoError.invalidParameter("ChaCha20-Poly1305 needs a 12-byte nonce; got \(nonce.count)")
            }
        case .aes128GCM, .aes256GCM:
            guard !nonce.isEmpty, nonce.count <= AEADAlgorithm.maximumGCMNonceByteCount else {
                throw CryptoError.invalidParameter(
                    "AES-GCM needs a nonce of 1…\(AEADAlgorithm.maximumGCMNonceByteCount) bytes (12 recommended); "
                        + "got \(nonce.count)")
            }
        }
    }
}
