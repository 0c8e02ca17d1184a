#if canImport(COpenSSL)
internal import COpenSSL
internal import Foundation

extension AEADAlgorithm {
    /// The OpenSSL cipher; a static object owned by OpenSSL.
    var evpCipher: OpaquePointer? {
        switch self {
        case .aes128GCM: EVP_aes_128_gcm()
        case .aes256GCM: EVP_aes_256_gcm()
        case .chaCha20Poly1305: EVP_chacha20_poly1305()
        }
    }
}

/// Owns an `EVP_CIPHER_CTX`; freed in `deinit`.
private final class CipherContext {
    let ctx: OpaquePointer

    init() throws {
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new failed") }
        self.ctx = ctx
    }

    deinit { EVP_CIPHER_CTX_free(ctx) }

    func start(_ algorithm: AEADAlgorithm, key: SymmetricKey, nonce: [UInt8], encrypt: Bool) throws {
        let mode: Int32 = encrypt ? 1 : 0
        guard EVP_CipherInit_ex(ctx, algorithm.evpCipher, nil, nil, nil, mode) == 1,
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, Int32(nonce.count), nil) == 1
        else { throw CryptoError.openSSL("could not set up \(algorithm.rawValue)") }
        let status = key.withUnsafeBytes { keyBytes in
            nonce.withUnsafeBufferPointer { iv in
                EVP_CipherInit_ex(
                    ctx, nil, nil, keyBytes.baseAddress?.assumingMemoryBound(to: UInt8.self), iv.baseAddress, mode)
            }
        }
        guard status == 1 else { throw CryptoError.openSSL("could not key \(algorithm.rawValue)") }
    }

    func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer?) throws {
        var offset = 0
        while offset < input.count {
            let chunk = min(input.count - offset, 1 << 30)
            var written: Int32 = 0
            let inPointer = input.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            let outPointer = output?.baseAddress?.advanced(by: offset).assumingMemoryBound(to: UInt8.self)
            guard EVP_CipherUpdate(ctx, outPointer, &written, inPointer, Int32(chunk)) == 1 else {
                throw CryptoError.openSSL("EVP_CipherUpdate failed")
            }
            offset += chunk
        }
    }
}

extension OpenSSLBackend {
    static func aeadSeal(
        _ algorithm: AEADAlgorithm,
        key: SymmetricKey,
        nonce: [UInt8],
        plaintext: some ContiguousBytes,
        aad: some ContiguousBytes
    ) throws -> SealedBox {
        let context = try CipherContext()
        try context.start(algorithm, key: key, nonce: nonce, encrypt: true)
        try aad.withUnsafeBytes { (bytes) throws in try context.update(bytes, into: nil) }
        var ciphertext = [UInt8]()
        try plaintext.withUnsafeBytes { (input) throws in
            ciphertext = [UInt8](repeating: 0, count: input.count)
            try ciphertext.withUnsafeMutableBytes { (output) throws in
                try context.update(input, into: output)
            }
        }
        var finalBlock = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        var tag = [UInt8](repeating: 0, count: AEADAlgorithm.tagByteCount)
        guard EVP_CipherFinal_ex(context.ctx, &finalBlock, &written) == 1, written == 0,
            EVP_CIPHER_CTX_ctrl(context.ctx, EVP_CTRL_AEAD_GET_TAG, Int32(tag.count), &tag) == 1
        else { throw CryptoError.openSSL("\(algorithm.rawValue) seal failed") }
        return SealedBox(nonce: nonce, ciphertext: ciphertext, tag: tag)
    }

    static func aeadOpen(
        _ algorithm: AEADAlgorithm,
        key: SymmetricKey,
        box: SealedBox,
        aad: some ContiguousBytes
    ) throws -> [UInt8] {
        let context = try CipherContext()
        try context.start(algorithm, key: key, nonce: box.nonce, encrypt: false)
        try aad.withUnsafeBytes { (bytes) throws in try context.update(bytes, into: nil) }
        var plaintext = [UInt8](repeating: 0, count: box.ciphertext.count)
        try box.ciphertext.withUnsafeBytes { (input) throws in
            try plaintext.withUnsafeMutableBytes { (output) throws in
                try context.update(input, into: output)
            }
        }
        var tag = box.tag
        guard EVP_CIPHER_CTX_ctrl(context.ctx, EVP_CTRL_AEAD_SET_TAG, Int32(tag.count), &tag) == 1 else {
            throw CryptoError.openSSL("could not set the \(algorithm.rawValue) tag")
        }
        var finalBlock = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        // EVP_CipherFinal_ex returns 0 when the tag does not verify; the plaintext must then be discarded.
        guard EVP_CipherFinal_ex(context.ctx, &finalBlock, &written) == 1 else {
            _ = drainOpenSSLErrors()
            plaintext.withUnsafeMutableBytes { cleanse($0) }
            throw CryptoError.authenticationFailure()
        }
        return plaintext
    }
}

#endif
