public import Foundation
internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/symmetrickey
/// A symmetric cryptographic key (simulated over RampartCrypto's wiped key storage).
public struct SymmetricKey: ContiguousBytes, Sendable {
    let key: RampartCrypto.SymmetricKey

    // https://developer.apple.com/documentation/cryptokit/symmetrickey/init(data:)
    /// Creates a key from the given data.
    ///
    /// - Parameter data: The contiguous bytes from which to create the key.
    public init<D: ContiguousBytes>(data: D) {
        self.key = RampartCrypto.SymmetricKey(bytes: data)
    }

    // https://developer.apple.com/documentation/cryptokit/symmetrickey/init(size:)
    /// Generates a new random key of the given size.
    ///
    /// - Parameter size: The size of the key to generate.
    public init(size: SymmetricKeySize) {
        self.key = RampartCrypto.SymmetricKey(randomByteCount: size.bitCount / 8)
    }

    // https://developer.apple.com/documentation/cryptokit/symmetrickey/bitcount
    /// The number of bits in the key.
    public var bitCount: Int { key.byteCount * 8 }

    // https://developer.apple.com/documentation/cryptokit/symmetrickey/withunsafebytes(_:)
    /// Invokes the given closure with a buffer pointer covering the raw bytes of the key.
    ///
    /// - Parameter body: A closure that takes a raw buffer pointer to the bytes of the key.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try key.withUnsafeBytes(body)
    }
}

// https://developer.apple.com/documentation/cryptokit/symmetrickeysize
/// The sizes that a symmetric cryptographic key can take.
public struct SymmetricKeySize: Sendable {
    // https://developer.apple.com/documentation/cryptokit/symmetrickeysize/bitcount
    /// The number of bits in the key.
    public let bitCount: Int

    // https://developer.apple.com/documentation/cryptokit/symmetrickeysize/init(bitcount:)
    /// Creates a new key size of the given length.
    ///
    /// - Parameter bitCount: The number of bits in the key; a positive multiple of 8.
    public init(bitCount: Int) {
        precondition(bitCount > 0 && bitCount % 8 == 0, "a key size is a positive multiple of 8 bits")
        self.bitCount = bitCount
    }

    // https://developer.apple.com/documentation/cryptokit/symmetrickeysize/bits128
    /// A size of 128 bits.
    public static let bits128 = SymmetricKeySize(bitCount: 128)
    // https://developer.apple.com/documentation/cryptokit/symmetrickeysize/bits192
    /// A size of 192 bits.
    public static let bits192 = SymmetricKeySize(bitCount: 192)
    // https://developer.apple.com/documentation/cryptokit/symmetrickeysize/bits256
    /// A size of 256 bits.
    public static let bits256 = SymmetricKeySize(bitCount: 256)
}
