public import Foundation

/// Secret key material that is wiped from memory when the last copy goes away.
///
/// `description` never shows the bytes.
public struct SymmetricKey: Sendable {
    private let storage: SecretStorage

    /// Wraps existing key bytes.
    ///
    /// - Parameter bytes: The key; its length decides the variant (for example 16 or 32 bytes for AES-GCM).
    public init(bytes: some ContiguousBytes) {
        self.storage = SecretStorage(bytes.withUnsafeBytes { Array($0) })
    }

    /// Generates a fresh random key from OpenSSL's CSPRNG.
    ///
    /// - Parameter byteCount: The key length in bytes (32 for AES-256 and ChaCha20-Poly1305).
    public init(randomByteCount byteCount: Int = 32) {
        self.storage = SecretStorage(SecureRandom.bytes(count: byteCount))
    }

    /// The key length in bytes.
    public var byteCount: Int { storage.bytes.count }

    /// Calls `body` with the raw key bytes. Do not let them escape.
    ///
    /// - Parameter body: A closure that reads the key.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.bytes.withUnsafeBytes(body)
    }
}

extension SymmetricKey: CustomStringConvertible {
    /// `SymmetricKey(<n> bytes)`, never the key itself.
    public var description: String { "SymmetricKey(\(byteCount) bytes)" }
}

/// Owns a copy of secret bytes and wipes them with `OPENSSL_cleanse` on release.
///
/// `@unchecked Sendable`: the bytes are immutable after `init` and only read.
final class SecretStorage: @unchecked Sendable {
    private(set) var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    deinit { bytes.withUnsafeMutableBytes { Backend.cleanse($0) } }
}
