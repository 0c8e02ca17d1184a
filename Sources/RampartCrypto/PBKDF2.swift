public import Foundation

/// PBKDF2 with HMAC-SHA-2 (RFC 8018 section 5.2), for password-based keys where scrypt or Argon2id cannot be used.
///
/// Prefer ``Scrypt`` (memory-hard) for new password storage; PBKDF2 is here for interoperability (PKCS#12, Apple's
/// keychain exports, existing databases). See <doc:ChoosingPrimitives>.
public enum PBKDF2 {
    /// The most iterations accepted (DoS bound: ten million HMAC-SHA-512 calls take several seconds).
    public static let maximumIterationCount = 10_000_000
    /// The most output bytes one call derives (DoS bound; more than any key needs).
    public static let maximumOutputByteCount = 1024
    /// The longest password or salt accepted, in bytes (DoS bound).
    public static let maximumInputByteCount = 1 << 20

    /// The iteration count OWASP's Password Storage Cheat Sheet (2023) recommends for `algorithm`: 600,000 for
    /// SHA-256 and 210,000 for SHA-512 (SHA-384 shares SHA-512's block function and count).
    ///
    /// - Parameter algorithm: The HMAC hash.
    /// - Returns: The recommended count.
    public static func recommendedIterationCount(for algorithm: DigestAlgorithm) -> Int {
        algorithm == .sha256 ? 600_000 : 210_000
    }

    /// Derives `outputByteCount` bytes from a password.
    ///
    /// - Parameters:
    ///   - password: The password bytes (for text, its UTF-8 after any normalisation you apply consistently).
    ///   - salt: A unique, random salt per password; at least 16 bytes is good practice, at least 1 is required.
    ///   - iterationCount: 1…``maximumIterationCount``; use ``recommendedIterationCount(for:)`` for new hashes.
    ///   - outputByteCount: 1…``maximumOutputByteCount``.
    ///   - algorithm: The HMAC hash; SHA-256 by default.
    /// - Returns: The derived bytes.
    /// - Throws: ``CryptoError/Code/invalidParameter`` when a parameter is outside those bounds.
    public static func deriveKey(
        password: some ContiguousBytes,
        salt: some ContiguousBytes,
        iterationCount: Int,
        outputByteCount: Int,
        using algorithm: DigestAlgorithm = .sha256
    ) throws -> [UInt8] {
        guard iterationCount >= 1, iterationCount <= maximumIterationCount else {
            throw CryptoError.invalidParameter(
                "PBKDF2 needs 1…\(maximumIterationCount) iterations; got \(iterationCount)")
        }
        guard outputByteCount >= 1, outputByteCount <= maximumOutputByteCount else {
            throw CryptoError.invalidParameter(
                "PBKDF2 derives 1…\(maximumOutputByteCount) bytes; got \(outputByteCount)")
        }
        var passwordBytes = password.withUnsafeBytes { Array($0) }
        defer { passwordBytes.withUnsafeMutableBytes { Backend.cleanse($0) } }
        let saltBytes = salt.withUnsafeBytes { Array($0) }
        guard passwordBytes.count <= maximumInputByteCount, saltBytes.count <= maximumInputByteCount else {
            throw CryptoError.invalidParameter(
                "PBKDF2 passwords and salts are limited to \(maximumInputByteCount) bytes")
        }
        guard !saltBytes.isEmpty else {
            throw CryptoError.invalidParameter("PBKDF2 needs a salt; draw 16 random bytes per password")
        }
        return try Backend.pbkdf2(
            algorithm, password: passwordBytes, salt: saltBytes, iterations: iterationCount, length: outputByteCount)
    }
}
