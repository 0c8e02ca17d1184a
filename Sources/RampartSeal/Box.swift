public import Foundation
public import RampartCrypto

/// The AEAD ciphers RampartSeal encrypts with: both take a 32-byte key, a 12-byte nonce and give a 16-byte tag.
public enum SealAlgorithm: String, Sendable, CaseIterable, Hashable {
    /// AES-256 in Galois/Counter Mode; the default, hardware-accelerated on every current CPU.
    case aes256GCM = "AES-256-GCM"
    /// ChaCha20-Poly1305 (RFC 8439); fast in software where AES instructions are missing.
    case chaCha20Poly1305 = "ChaCha20-Poly1305"

    /// The ``RampartCrypto`` cipher that implements it.
    var aead: AEADAlgorithm {
        switch self {
        case .aes256GCM: .aes256GCM
        case .chaCha20Poly1305: .chaCha20Poly1305
        }
    }

    /// The byte that names the algorithm in a sealed header (docs/seal-format.md).
    var headerID: UInt8 {
        switch self {
        case .aes256GCM: 1
        case .chaCha20Poly1305: 2
        }
    }

    init?(headerID: UInt8) {
        switch headerID {
        case 1: self = .aes256GCM
        case 2: self = .chaCha20Poly1305
        default: return nil
        }
    }
}

/// One-shot authenticated encryption of small values in CryptoKit's combined format.
///
/// A box is `12-byte nonce ‖ ciphertext ‖ 16-byte tag`: exactly the bytes of CryptoKit's
/// `AES.GCM.SealedBox.combined` (and `ChaChaPoly.SealedBox.combined`), so a box sealed by an iOS app with CryptoKit
/// opens here and the reverse. Use boxes for tokens, records and settings; use ``SealedStream`` for files.
///
/// ```swift
/// let key = SymmetricKey(randomByteCount: 32)
/// let box = try Box.seal(Array("card 4242".utf8), using: key, authenticating: Array("user-17".utf8))
/// let plaintext = try Box.open(box, using: key, authenticating: Array("user-17".utf8))
/// ```
///
/// - Warning: Each seal draws a random 96-bit nonce. Rotate a key before it has sealed about 2³² boxes, the bound
///   NIST SP 800-38D sets for random nonces.
public enum Box {
    /// The bytes a box adds to its plaintext: a 12-byte nonce and a 16-byte tag.
    public static let overhead = AEADAlgorithm.nonceByteCount + AEADAlgorithm.tagByteCount

    /// Encrypts and authenticates `plaintext`, binding `associatedData`.
    ///
    /// - Parameters:
    ///   - plaintext: The value to protect.
    ///   - key: A 32-byte key.
    ///   - associatedData: Context that must match on open (a user id, a record name); not encrypted.
    ///   - algorithm: The cipher; AES-256-GCM by default.
    /// - Returns: The combined box, `nonce ‖ ciphertext ‖ tag`, ``overhead`` bytes longer than `plaintext`.
    /// - Throws: ``SealError/Code/invalidParameter`` when the key is not 32 bytes.
    public static func seal(
        _ plaintext: some ContiguousBytes,
        using key: SymmetricKey,
        authenticating associatedData: some ContiguousBytes = [UInt8](),
        algorithm: SealAlgorithm = .aes256GCM
    ) throws -> [UInt8] {
        try checkKey(key)
        do {
            return try AEAD.seal(plaintext, using: key, authenticating: associatedData, algorithm: algorithm.aead)
                .combined
        } catch let error as CryptoError {
            throw SealError.invalidParameter("\(algorithm.rawValue) could not seal: \(error.reason)")
        }
    }

    /// Checks the tag of a combined box and decrypts it.
    ///
    /// - Parameters:
    ///   - box: `nonce ‖ ciphertext ‖ tag`, as returned by ``seal(_:using:authenticating:algorithm:)`` or CryptoKit's
    ///     `combined`.
    ///   - key: The key it was sealed with.
    ///   - associatedData: The associated data given when sealing.
    ///   - algorithm: The cipher it was sealed with.
    /// - Returns: The plaintext; nothing is returned unless the tag verifies.
    /// - Throws: ``SealError/Code/malformedBox`` when the box is shorter than ``overhead``;
    ///   ``SealError/Code/authenticationFailure`` when the key, associated data or any byte is wrong;
    ///   ``SealError/Code/invalidParameter`` when the key is not 32 bytes.
    public static func open(
        _ box: some ContiguousBytes,
        using key: SymmetricKey,
        authenticating associatedData: some ContiguousBytes = [UInt8](),
        algorithm: SealAlgorithm = .aes256GCM
    ) throws -> [UInt8] {
        try checkKey(key)
        let count = box.withUnsafeBytes { $0.count }
        guard count >= overhead else {
            throw SealError.malformedBox(
                "a box holds at least \(overhead) bytes (12-byte nonce and 16-byte tag); got \(count)")
        }
        do {
            let sealed = try SealedBox(combined: box)
            return try AEAD.open(sealed, using: key, authenticating: associatedData, algorithm: algorithm.aead)
        } catch let error as CryptoError where error.code == .authenticationFailure {
            throw SealError.authenticationFailure()
        } catch let error as CryptoError {
            throw SealError.invalidParameter("\(algorithm.rawValue) could not open: \(error.reason)")
        }
    }

    private static func checkKey(_ key: SymmetricKey) throws {
        guard key.byteCount == 32 else {
            throw SealError.invalidParameter("a box key must be 32 bytes; got \(key.byteCount)")
        }
    }
}
