public import Foundation

/// HMAC (RFC 2104) over a SHA-2 hash.
public enum HMAC {
    /// Computes the authentication code of `data` under `key`.
    ///
    /// - Parameters:
    ///   - data: The message.
    ///   - key: The MAC key (any length).
    ///   - algorithm: The hash function; SHA-256 by default.
    /// - Returns: The full-length tag (`algorithm.byteCount` bytes).
    public static func authenticationCode(
        for data: some ContiguousBytes,
        key: SymmetricKey,
        using algorithm: DigestAlgorithm = .sha256
    ) -> [UInt8] {
        key.withUnsafeBytes { keyBytes in
            data.withUnsafeBytes { Backend.hmac(algorithm, key: keyBytes, data: $0) }
        }
    }

    /// Checks a tag in constant time.
    ///
    /// A truncated tag is accepted only if it is at least half the digest length and at least 10 bytes
    /// (RFC 2104 section 5), and it must equal the leading bytes of the full code.
    ///
    /// - Parameters:
    ///   - code: The tag to check.
    ///   - data: The message it claims to authenticate.
    ///   - key: The MAC key.
    ///   - algorithm: The hash function; SHA-256 by default.
    /// - Returns: `true` when the tag is valid.
    public static func isValidAuthenticationCode(
        _ code: some ContiguousBytes,
        for data: some ContiguousBytes,
        key: SymmetricKey,
        using algorithm: DigestAlgorithm = .sha256
    ) -> Bool {
        let expected = authenticationCode(for: data, key: key, using: algorithm)
        let given = code.withUnsafeBytes { Array($0) }
        let minimum = max(10, algorithm.byteCount / 2)
        guard given.count >= minimum, given.count <= expected.count else { return false }
        return ConstantTime.isEqual(Array(expected.prefix(given.count)), given)
    }
}

/// HKDF (RFC 5869), extract-then-expand.
public enum HKDF {
    /// Derives `outputByteCount` bytes from input key material.
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: The secret to stretch.
    ///   - salt: Optional salt; empty means a string of zeros as long as the hash (RFC 5869 section 2.2).
    ///   - info: Context that binds the output to its purpose.
    ///   - outputByteCount: How many bytes to derive, 1 … 255 × hash length.
    ///   - algorithm: The hash function; SHA-256 by default.
    /// - Returns: The derived bytes.
    /// - Throws: ``CryptoError/Code/invalidParameter`` when the length is out of range.
    public static func deriveKey(
        inputKeyMaterial: SymmetricKey,
        salt: some ContiguousBytes,
        info: some ContiguousBytes,
        outputByteCount: Int,
        using algorithm: DigestAlgorithm = .sha256
    ) throws -> [UInt8] {
        guard outputByteCount > 0, outputByteCount <= 255 * algorithm.byteCount else {
            throw CryptoError.invalidParameter(
                "HKDF can derive 1…\(255 * algorithm.byteCount) bytes with \(algorithm), not \(outputByteCount)"
            )
        }
        let saltBytes = salt.withUnsafeBytes { Array($0) }
        let infoBytes = info.withUnsafeBytes { Array($0) }
        return try inputKeyMaterial.withUnsafeBytes { ikm throws in
            try Backend.hkdf(algorithm, key: Array(ikm), salt: saltBytes, info: infoBytes, length: outputByteCount)
        }
    }
}

/// An HMAC key prepared for many authentication codes, such as a service's token-sealing key.
///
/// ``HMAC/authenticationCode(for:key:using:)`` keys a new HMAC for every call: it hashes the key's inner and outer
/// pads, two compression-function blocks, before the message. An `HMACKey` keeps up to four keyed contexts ready
/// and only restarts one per code, which for a short message is about a third of the work. The codes are the same
/// bytes for every input.
///
/// The kept contexts hold the padded key's hash states, which are as secret as the key itself and live exactly as
/// long as this object; OpenSSL wipes them when the object goes away (`EVP_MAC_CTX_free`). Safe to use from any
/// number of threads: each context has one user at a time.
public final class HMACKey: Sendable {
    /// The hash function.
    public let algorithm: DigestAlgorithm
    private let prepared: Backend.PreparedHMAC

    /// Prepares `key` for HMAC over `algorithm`.
    ///
    /// - Parameters:
    ///   - key: The MAC key (any length).
    ///   - algorithm: The hash function; SHA-256 by default.
    public init(_ key: SymmetricKey, using algorithm: DigestAlgorithm = .sha256) {
        self.algorithm = algorithm
        prepared = Backend.PreparedHMAC(key: key, algorithm: algorithm)
    }

    /// Computes the authentication code of `data` under this key.
    ///
    /// - Parameter data: The message.
    /// - Returns: The full-length tag (`algorithm.byteCount` bytes).
    public func authenticationCode(for data: some ContiguousBytes) -> [UInt8] {
        data.withUnsafeBytes { prepared.authenticationCode(for: $0) }
    }
}
