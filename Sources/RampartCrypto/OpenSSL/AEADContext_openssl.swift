#if canImport(COpenSSL)
internal import COpenSSL

extension OpenSSLBackend {
    /// A keyed AEAD cipher context that seals or opens many messages in place, keying OpenSSL once.
    ///
    /// ``AEAD`` builds a fresh `EVP_CIPHER_CTX` and fresh arrays for every call. Streaming encryption seals thousands of
    /// segments under one key, so this context keeps the key schedule and only sets a new nonce per message, and works
    /// on caller-owned buffers so that a segment is encrypted where it was read. The front end
    /// (``RampartCrypto/AEADContext``) has checked every size.
    ///
    /// - Important: One context serves one thread at a time, and the caller must never repeat a nonce under its key.
    final class AEADContext: CryptoBackendAEADContext {
        private let context: OpaquePointer
        private let algorithm: AEADAlgorithm
        private let encrypting: Bool

        /// Keys a context for sealing or for opening.
        ///
        /// - Parameters:
        ///   - algorithm: The cipher.
        ///   - key: A key of `algorithm.keyByteCount` bytes.
        ///   - encrypting: `true` to seal, `false` to open.
        /// - Throws: An OpenSSL failure.
        init(algorithm: AEADAlgorithm, key: SymmetricKey, encrypting: Bool) throws {
            // EVP_CIPHER_CTX_new returns an owned context released with EVP_CIPHER_CTX_free in deinit.
            guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new failed") }
            self.context = context
            self.algorithm = algorithm
            self.encrypting = encrypting
            let mode: Int32 = encrypting ? 1 : 0
            // The key is copied into the context's key schedule; the Swift buffer need not outlive the call.
            let status = key.withUnsafeBytes { keyBytes in
                EVP_CipherInit_ex(
                    context, algorithm.evpCipher, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), nil,
                    mode)
            }
            guard status == 1 else { throw CryptoError.openSSL("could not key \(algorithm.rawValue)") }
        }

        deinit { EVP_CIPHER_CTX_free(context) }

        /// Encrypts `input` into `output` (which may be the same memory) and writes the 16-byte tag.
        ///
        /// - Parameters:
        ///   - input: The plaintext.
        ///   - output: Receives the ciphertext; as long as `input`, and either the same memory or not overlapping it.
        ///   - nonce: The 12-byte nonce.
        ///   - associatedData: Authenticated but not encrypted; may be empty.
        ///   - tag: Receives the 16-byte tag.
        /// - Throws: An OpenSSL failure, or ``CryptoError/Code/invalidParameter`` for a message of 2 GiB or more.
        func seal(
            _ input: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            associatedData: UnsafeRawBufferPointer,
            tag: UnsafeMutableRawBufferPointer
        ) throws {
            try start(nonce: nonce, associatedData: associatedData)
            try update(input, into: output)
            var finalBlock = [UInt8](repeating: 0, count: 32)
            var written: Int32 = 0
            guard EVP_CipherFinal_ex(context, &finalBlock, &written) == 1, written == 0,
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(tag.count), tag.baseAddress) == 1
            else { throw CryptoError.openSSL("\(algorithm.rawValue) seal failed") }
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
        /// - Throws: An OpenSSL failure, or ``CryptoError/Code/invalidParameter`` for a message of 2 GiB or more.
        func open(
            _ input: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            associatedData: UnsafeRawBufferPointer,
            tag: UnsafeRawBufferPointer
        ) throws -> Bool {
            try start(nonce: nonce, associatedData: associatedData)
            try update(input, into: output)
            // EVP_CTRL_AEAD_SET_TAG copies the tag; the pointer is only read during the call.
            guard
                EVP_CIPHER_CTX_ctrl(
                    context, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), UnsafeMutableRawPointer(mutating: tag.baseAddress)
                )
                    == 1
            else { throw CryptoError.openSSL("could not set the \(algorithm.rawValue) tag") }
            var finalBlock = [UInt8](repeating: 0, count: 32)
            var written: Int32 = 0
            // EVP_CipherFinal_ex returns 0 when the tag does not verify; the plaintext must then be discarded.
            guard EVP_CipherFinal_ex(context, &finalBlock, &written) == 1 else {
                _ = drainOpenSSLErrors()
                cleanse(output)
                return false
            }
            return true
        }

        private func start(nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer) throws {
            // Passing only the IV keeps the key schedule set up in init.
            guard
                EVP_CipherInit_ex(
                    context, nil, nil, nil, nonce.baseAddress?.assumingMemoryBound(to: UInt8.self), encrypting ? 1 : 0)
                    == 1
            else { throw CryptoError.openSSL("could not set the \(algorithm.rawValue) nonce") }
            if !associatedData.isEmpty {
                var written: Int32 = 0
                guard let base = associatedData.baseAddress, let count = Int32(exactly: associatedData.count),
                    EVP_CipherUpdate(context, nil, &written, base.assumingMemoryBound(to: UInt8.self), count) == 1
                else { throw CryptoError.openSSL("could not add associated data") }
            }
        }

        private func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws {
            guard let inBase = input.baseAddress, let outBase = output.baseAddress, !input.isEmpty else { return }
            guard let count = Int32(exactly: input.count) else {
                throw CryptoError.invalidParameter("a message must be shorter than 2 GiB")
            }
            var written: Int32 = 0
            // In-place operation (out == in) is supported by OpenSSL's GCM and ChaCha20-Poly1305 implementations.
            guard
                EVP_CipherUpdate(
                    context, outBase.assumingMemoryBound(to: UInt8.self), &written,
                    inBase.assumingMemoryBound(to: UInt8.self), count) == 1, written == count
            else {
                throw CryptoError.openSSL("EVP_CipherUpdate failed")
            }
        }
    }
}

@available(*, unavailable)
extension OpenSSLBackend.AEADContext: Sendable {}
#endif
