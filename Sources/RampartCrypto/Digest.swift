public import Foundation

/// A SHA-2 hash function.
public enum DigestAlgorithm: String, Sendable, CaseIterable, Hashable {
    /// SHA-256 (FIPS 180-4), 32-byte output.
    case sha256
    /// SHA-384 (FIPS 180-4), 48-byte output.
    case sha384
    /// SHA-512 (FIPS 180-4), 64-byte output.
    case sha512

    /// The length of the digest in bytes.
    public var byteCount: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// Hashes `data` in one call.
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: The digest, ``byteCount`` bytes long.
    public func hash(_ data: some ContiguousBytes) -> [UInt8] {
        // One context, finished itself: a hasher's `finalize()` copies its context first so that it may go on, which
        // a one-shot hash never does (with OpenSSL, a context allocated and its state copied per hash, about 2,000
        // instructions, five hashes per protected request).
        let context = Backend.DigestContext(self)
        data.withUnsafeBytes { context.update($0) }
        return context.finalize()
    }
}

/// SHA-256, the hash of SPKI pins, App Attest nonces and client data.
public enum SHA256 {
    /// 32.
    public static let byteCount = 32

    /// Hashes `data` with SHA-256.
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: The 32-byte digest.
    public static func hash(_ data: some ContiguousBytes) -> [UInt8] { DigestAlgorithm.sha256.hash(data) }
}

/// SHA-384.
public enum SHA384 {
    /// Hashes `data` with SHA-384.
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: The 48-byte digest.
    public static func hash(_ data: some ContiguousBytes) -> [UInt8] { DigestAlgorithm.sha384.hash(data) }
}

/// SHA-512.
public enum SHA512 {
    /// Hashes `data` with SHA-512.
    ///
    /// - Parameter data: The bytes to hash.
    /// - Returns: The 64-byte digest.
    public static func hash(_ data: some ContiguousBytes) -> [UInt8] { DigestAlgorithm.sha512.hash(data) }
}

/// An incremental hash, for inputs that arrive in pieces (files, streams).
///
/// Copying a hasher copies its state, so one prefix can be finished two ways.
public struct DigestHasher {
    private var context: Backend.DigestContext
    /// The algorithm this hasher computes.
    public let algorithm: DigestAlgorithm

    /// Starts a new hash.
    ///
    /// - Parameter algorithm: The hash function.
    public init(_ algorithm: DigestAlgorithm) {
        self.algorithm = algorithm
        self.context = Backend.DigestContext(algorithm)
    }

    /// Feeds more bytes into the hash.
    ///
    /// - Parameter data: The next bytes of the input.
    public mutating func update(_ data: some ContiguousBytes) {
        if !isKnownUniquelyReferenced(&context) { context = context.copy() }
        data.withUnsafeBytes { context.update($0) }
    }

    /// Finishes the hash. The hasher must not be updated afterwards.
    ///
    /// - Returns: The digest, `algorithm.byteCount` bytes long.
    public func finalize() -> [UInt8] { context.copy().finalize() }
}

extension DigestAlgorithm: CustomStringConvertible {
    /// `SHA-256`, `SHA-384` or `SHA-512`.
    public var description: String {
        switch self {
        case .sha256: "SHA-256"
        case .sha384: "SHA-384"
        case .sha512: "SHA-512"
        }
    }
}
