/// A keyed AEAD context that seals or opens many messages in caller-owned buffers, keying the backend once.
///
/// ``AEAD`` builds fresh arrays for every call. Streaming encryption seals thousands of segments under one key, so
/// this context keeps the backend's keyed state (OpenSSL's key schedule) and works on caller-owned buffers, so that a
/// segment is encrypted where it was read. It is `package`: only Rampart's own streaming code uses it. Every size is
/// checked here, once, for both backends.
///
/// - Important: One context serves one thread at a time, and the caller must never repeat a nonce under its key.
package final class AEADContext {
    private let context: Backend.AEADContext
    private let encrypting: Bool

    /// Keys a context for sealing or for opening.
    ///
    /// - Parameters:
    ///   - algorithm: The cipher.
    ///   - key: A key of `algorithm.keyByteCount` bytes.
    ///   - encrypting: `true` to seal, `false` to open.
    /// - Throws: ``CryptoError/Code/invalidKey`` for a key of the wrong size, or a backend failure.
    package init(algorithm: AEADAlgorithm, key: SymmetricKey, encrypting: Bool) throws {
        guard key.byteCount == algorithm.keyByteCount else {
            throw CryptoError.invalidKey(
                "\(algorithm.rawValue) needs a \(algorithm.keyByteCount)-byte key; got \(key.byteCount)")
        }
        self.context = try Backend.AEADContext(algorithm: algorithm, key: key, encrypting: encrypting)
        self.encrypting = encrypting
    }

    /// Encrypts `input` into `output` (which may be the same memory) and writes the 16-byte tag.
    ///
    /// - Parameters:
    ///   - input: The plaintext.
    ///   - output: Receives the ciphertext; as long as `input`, and either the same memory or not overlapping it.
    ///   - nonce: The 12-byte nonce.
    ///   - associatedData: Authenticated but not encrypted; may be empty.
    ///   - tag: Receives the 16-byte tag.
    /// - Throws: ``CryptoError/Code/invalidParameter`` for wrong sizes, or a backend failure.
    package func seal(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer
    ) throws {
        precondition(encrypting, "seal on a context keyed for opening")
        try Self.check(input: input, output: output, nonce: nonce, tagCount: tag.count)
        try context.seal(input, into: output, nonce: nonce, associatedData: associatedData, tag: tag)
    }

    /// Checks the tag and decrypts `input` into `output` (which may be the same memory).
    ///
    /// - Parameters:
    ///   - input: The ciphertext.
    ///   - output: Receives the plaintext; as long as `input`; wiped when the tag does not verify.
    ///   - nonce: The 12-byte nonce.
    ///   - associatedData: The associated data given when sealing.
    ///   - tag: The 16-byte tag.
    /// - Returns: `true` when the tag verified; `false` leaves `output` zeroed.
    /// - Throws: ``CryptoError/Code/invalidParameter`` for wrong sizes, or a backend failure.
    package func open(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer,
        tag: UnsafeRawBufferPointer
    ) throws -> Bool {
        precondition(!encrypting, "open on a context keyed for sealing")
        guard tag.count == AEADAlgorithm.tagByteCount else { return false }
        try Self.check(input: input, output: output, nonce: nonce, tagCount: tag.count)
        return try context.open(input, into: output, nonce: nonce, associatedData: associatedData, tag: tag)
    }

    private static func check(
        input: UnsafeRawBufferPointer,
        output: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer,
        tagCount: Int
    ) throws {
        guard nonce.count == AEADAlgorithm.nonceByteCount else {
            throw CryptoError.invalidParameter("the nonce must be \(AEADAlgorithm.nonceByteCount) bytes")
        }
        guard tagCount == AEADAlgorithm.tagByteCount else {
            throw CryptoError.invalidParameter("the tag buffer must hold \(AEADAlgorithm.tagByteCount) bytes")
        }
        guard output.count == input.count else {
            throw CryptoError.invalidParameter("the output buffer must be as long as the input")
        }
    }
}

@available(*, unavailable)
extension AEADContext: Sendable {}

/// Wipes secret bytes in caller-owned buffers with a call the compiler may not remove.
package enum SecureMemory {
    /// Overwrites `buffer` with zeros.
    ///
    /// - Parameter buffer: The memory to wipe.
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) { Backend.cleanse(buffer) }
}
