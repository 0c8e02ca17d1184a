public import Foundation
internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/digest
/// A type that represents the output of a hash.
public protocol Digest: ContiguousBytes, Hashable, Sequence, Sendable where Element == UInt8 {
    // https://developer.apple.com/documentation/cryptokit/digest/bytecount
    /// The number of bytes in the digest.
    static var byteCount: Int { get }
}

/// ``Digest`` under a second name, so that ``HashFunction`` can constrain its `Digest` associated type to it (the
/// module's `RampartAppleSimulation` enum hides the module-qualified spelling). Not an Apple declaration.
public typealias DigestProtocol = Digest

// https://developer.apple.com/documentation/cryptokit/hashfunction
/// A type that performs cryptographically secure hashing.
public protocol HashFunction {
    /// The digest type the function produces.
    associatedtype Digest: DigestProtocol
    // https://developer.apple.com/documentation/cryptokit/hashfunction/blockbytecount
    /// The number of bytes that represents the hash function's internal state.
    static var blockByteCount: Int { get }
    // https://developer.apple.com/documentation/cryptokit/hashfunction/init()
    /// Creates a hash function.
    init()
    // https://developer.apple.com/documentation/cryptokit/hashfunction/update(bufferpointer:)
    /// Incrementally updates the hash function with the contents of the buffer.
    ///
    /// - Parameter bufferPointer: A pointer to the next block of data for the ongoing digest calculation.
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    // https://developer.apple.com/documentation/cryptokit/hashfunction/finalize()
    /// Finalizes the hash function and returns the computed digest.
    ///
    /// - Returns: The computed digest of the data.
    func finalize() -> Digest
}

extension HashFunction {
    // https://developer.apple.com/documentation/cryptokit/hashfunction/hash(data:)
    /// Computes a digest of the data.
    ///
    /// - Parameter data: The data to be hashed.
    /// - Returns: The computed digest of the data.
    public static func hash<D: DataProtocol>(data: D) -> Digest {
        var hasher = Self()
        hasher.update(data: data)
        return hasher.finalize()
    }

    // https://developer.apple.com/documentation/cryptokit/hashfunction/update(data:)
    /// Incrementally updates the hash function with the given data.
    ///
    /// - Parameter data: The next block of data for the ongoing digest calculation.
    public mutating func update<D: DataProtocol>(data: D) {
        for region in data.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }
}

// https://developer.apple.com/documentation/cryptokit/sha256
/// An implementation of Secure Hashing Algorithm 2 (SHA-2) hashing with a 256-bit digest.
public struct SHA256: HashFunction {
    private var hasher = RampartCrypto.DigestHasher(.sha256)
    // https://developer.apple.com/documentation/cryptokit/sha256/blockbytecount
    /// The number of bytes that represents the hash function's internal state.
    public static let blockByteCount = 64
    // https://developer.apple.com/documentation/cryptokit/sha256/bytecount
    /// The number of bytes in a SHA256 digest.
    public static let byteCount = 32
    /// Creates a SHA256 hash function.
    public init() {}
    /// Incrementally updates the hash function with the contents of the buffer.
    ///
    /// - Parameter bufferPointer: The next bytes.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { hasher.update(bufferPointer) }
    /// Finalizes the hash function and returns the computed digest.
    ///
    /// - Returns: The digest.
    public func finalize() -> SHA256Digest { SHA256Digest(bytes: hasher.finalize()) }
}

// https://developer.apple.com/documentation/cryptokit/sha384
/// An implementation of Secure Hashing Algorithm 2 (SHA-2) hashing with a 384-bit digest.
public struct SHA384: HashFunction {
    private var hasher = RampartCrypto.DigestHasher(.sha384)
    // https://developer.apple.com/documentation/cryptokit/sha384/blockbytecount
    /// The number of bytes that represents the hash function's internal state.
    public static let blockByteCount = 128
    // https://developer.apple.com/documentation/cryptokit/sha384/bytecount
    /// The number of bytes in a SHA384 digest.
    public static let byteCount = 48
    /// Creates a SHA384 hash function.
    public init() {}
    /// Incrementally updates the hash function with the contents of the buffer.
    ///
    /// - Parameter bufferPointer: The next bytes.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { hasher.update(bufferPointer) }
    /// Finalizes the hash function and returns the computed digest.
    ///
    /// - Returns: The digest.
    public func finalize() -> SHA384Digest { SHA384Digest(bytes: hasher.finalize()) }
}

// https://developer.apple.com/documentation/cryptokit/sha512
/// An implementation of Secure Hashing Algorithm 2 (SHA-2) hashing with a 512-bit digest.
public struct SHA512: HashFunction {
    private var hasher = RampartCrypto.DigestHasher(.sha512)
    // https://developer.apple.com/documentation/cryptokit/sha512/blockbytecount
    /// The number of bytes that represents the hash function's internal state.
    public static let blockByteCount = 128
    // https://developer.apple.com/documentation/cryptokit/sha512/bytecount
    /// The number of bytes in a SHA512 digest.
    public static let byteCount = 64
    /// Creates a SHA512 hash function.
    public init() {}
    /// Incrementally updates the hash function with the contents of the buffer.
    ///
    /// - Parameter bufferPointer: The next bytes.
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) { hasher.update(bufferPointer) }
    /// Finalizes the hash function and returns the computed digest.
    ///
    /// - Returns: The digest.
    public func finalize() -> SHA512Digest { SHA512Digest(bytes: hasher.finalize()) }
}

// https://developer.apple.com/documentation/cryptokit/sha256digest
/// The output of a Secure Hashing Algorithm 2 (SHA-2) hash with a 256-bit digest.
public struct SHA256Digest: Digest {
    let bytes: [UInt8]
    // https://developer.apple.com/documentation/cryptokit/sha256digest/bytecount
    /// The number of bytes in the digest.
    public static let byteCount = 32
    /// Calls `body` with the digest bytes.
    ///
    /// - Parameter body: The closure.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    /// An iterator over the digest bytes.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
}

// https://developer.apple.com/documentation/cryptokit/sha384digest
/// The output of a Secure Hashing Algorithm 2 (SHA-2) hash with a 384-bit digest.
public struct SHA384Digest: Digest {
    let bytes: [UInt8]
    // https://developer.apple.com/documentation/cryptokit/sha384digest/bytecount
    /// The number of bytes in the digest.
    public static let byteCount = 48
    /// Calls `body` with the digest bytes.
    ///
    /// - Parameter body: The closure.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    /// An iterator over the digest bytes.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
}

// https://developer.apple.com/documentation/cryptokit/sha512digest
/// The output of a Secure Hashing Algorithm 2 (SHA-2) hash with a 512-bit digest.
public struct SHA512Digest: Digest {
    let bytes: [UInt8]
    // https://developer.apple.com/documentation/cryptokit/sha512digest/bytecount
    /// The number of bytes in the digest.
    public static let byteCount = 64
    /// Calls `body` with the digest bytes.
    ///
    /// - Parameter body: The closure.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
    /// An iterator over the digest bytes.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
}

/// Which RampartCrypto digest a simulated hash function is.
protocol RampartDigestNaming {
    static var rampartAlgorithm: DigestAlgorithm { get }
}

extension SHA256: RampartDigestNaming { static var rampartAlgorithm: DigestAlgorithm { .sha256 } }
extension SHA384: RampartDigestNaming { static var rampartAlgorithm: DigestAlgorithm { .sha384 } }
extension SHA512: RampartDigestNaming { static var rampartAlgorithm: DigestAlgorithm { .sha512 } }
