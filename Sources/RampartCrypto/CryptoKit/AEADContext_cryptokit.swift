#if !canImport(COpenSSL) || RAMPART_CRYPTOKIT_BACKEND
internal import Foundation

/// A keyed AEAD context that seals or opens many messages in caller-owned buffers (the CryptoKit backend's twin of
/// the OpenSSL one: CryptoKit keeps no key schedule across calls, so each message is one `seal`/`open`).
///
/// - Important: One context serves one thread at a time, and the caller must never repeat a nonce under its key.
package final class AEADContext {
    private let algorithm: AEADAlgorithm
    private let key: SymmetricKey
    private let encrypting: Bool

    /// Keys a context for sealing or for opening.
    ///
    /// - Parameters:
    ///   - algorithm: The cipher.
    ///   - key: A key of `algorithm.keyByteCount` bytes.
    ///   - encrypting: `true` to seal, `false` to open.
    /// - Throws: ``CryptoError/Code/invalidKey`` for a key of the wrong size.
    package init(algorithm: AEADAlgorithm, key: SymmetricKey, encrypting: Bool) throws {
        guard key.byteCount == algorithm.keyByteCount else {
            throw CryptoError.invalidKey(
                "\(algorithm.rawValue) needs a \(algorithm.keyByteCount)-byte key; got \(key.byteCount)")
        }
        self.algorithm = algorithm
        self.key = key
        self.encrypting = encrypting
    }

    /// Encrypts `input` into `output` (which may be the same memory) and writes the 16-byte tag.
    ///
    /// - Parameters:
    ///   - input: The plaintext.
    ///   - output: Receives the ciphertext; as long as `input`.
    ///   - nonce: The 12-byte nonce.
    ///   - associatedData: Authenticated but not encrypted; may be empty.
    ///   - tag: Receives the 16-byte tag.
    /// - Throws: ``CryptoError/Code/invalidParameter`` for wrong sizes.
    package func seal(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer,
        tag: UnsafeMutableRawBufferPointer
    ) throws {
        precondition(encrypting, "seal on a context keyed for opening")
        try check(input: input, output: output, nonce: nonce, tagCount: tag.count)
        let box = try aeadSeal(
            algorithm, key: key, nonce: Array(nonce), plaintext: Array(input), aad: Array(associatedData))
        box.ciphertext.withUnsafeBytes { output.copyMemory(from: $0) }
        box.tag.withUnsafeBytes { tag.copyMemory(from: $0) }
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
    /// - Throws: ``CryptoError/Code/invalidParameter`` for wrong sizes.
    package func open(
        _ input: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer,
        tag: UnsafeRawBufferPointer
    ) throws -> Bool {
        precondition(!encrypting, "open on a context keyed for sealing")
        guard tag.count == AEADAlgorithm.tagByteCount else { return false }
        try check(input: input, output: UnsafeMutableRawBufferPointer(output), nonce: nonce, tagCount: tag.count)
        let box = SealedBox(nonce: Array(nonce), ciphertext: Array(input), tag: Array(tag))
        do {
            var plaintext = try aeadOpen(algorithm, key: key, box: box, aad: Array(associatedData))
            defer { plaintext.withUnsafeMutableBytes { cleanse($0) } }
            plaintext.withUnsafeBytes { output.copyMemory(from: $0) }
            return true
        } catch let error as CryptoError where error.code == .authenticationFailure {
            cleanse(output)
            return false
        }
    }

    private func check(
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
    package static func wipe(_ buffer: UnsafeMutableRawBufferPointer) { cleanse(buffer) }
}
#endif
