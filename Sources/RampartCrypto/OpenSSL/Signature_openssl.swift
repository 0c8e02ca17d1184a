#if canImport(COpenSSL)
internal import COpenSSL
internal import Foundation

extension OpenSSLBackend {
    /// Verifies `signature` with `algorithm`, which must fit the key's family; every mismatch is a rejection.
    static func verifyWithAlgorithm(
        _ key: EVPKey,
        algorithm: SignatureAlgorithm,
        signature: some ContiguousBytes,
        message: some ContiguousBytes
    ) -> Bool {
        switch (key.family, algorithm.backing) {
        case (.ec, .ecdsa(let digest)):
            return verifySignature(key, digest: digest, signature: signature, message: message)
        case (.rsa, .rsaPKCS1v15(let digest)):
            guard key.bitCount >= RSAPublicKey.minimumVerificationBitCount else { return false }
            return verifySignatureWithFreshContext(key, digest: digest, signature: signature, message: message) {
                context in
                EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
            }
        case (.rsa, .rsaPSS(let digest, let mgf1Digest, let saltByteCount)),
            (.rsaPSS, .rsaPSS(let digest, let mgf1Digest, let saltByteCount)):
            guard key.bitCount >= RSAPublicKey.minimumVerificationBitCount, let salt = Int32(exactly: saltByteCount)
            else { return false }
            return verifySignatureWithFreshContext(key, digest: digest, signature: signature, message: message) {
                context in
                configurePSS(context, key: key, mgf1Digest: mgf1Digest, saltByteCount: salt)
            }
        case (.ed25519, .ed25519), (.ed448, .ed448):
            return verifySignature(key, digest: nil, signature: signature, message: message)
        default:
            return false
        }
    }

    /// Signs with an RSA private key (PKCS#1 v1.5 or PSS).
    static func signRSA(_ key: EVPKey, algorithm: SignatureAlgorithm, message: some ContiguousBytes) throws -> [UInt8] {
        switch algorithm.backing {
        case .rsaPKCS1v15(let digest):
            return try signMessage(key, digest: digest, message: message) { context in
                EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1
            }
        case .rsaPSS(let digest, let mgf1Digest, let saltByteCount):
            guard let salt = Int32(exactly: saltByteCount) else {
                throw CryptoError.invalidParameter("the PSS salt length is out of range")
            }
            return try signMessage(key, digest: digest, message: message) { context in
                configurePSS(context, key: key, mgf1Digest: mgf1Digest, saltByteCount: salt)
            }
        default:
            throw CryptoError.unsupportedAlgorithm("an RSA key signs with PKCS#1 v1.5 or PSS, not \(algorithm)")
        }
    }

    static func generateRSAKey(bitCount: Int) throws -> EVPKey {
        // EVP_PKEY_CTX_new_from_name returns an owned context (freed below); EVP_PKEY_generate hands back an owned key.
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "RSA", nil) else {
            preconditionFailure("OpenSSL has no RSA: \(drainOpenSSLErrors())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(bitCount)) == 1,
            EVP_PKEY_generate(context, &key) == 1,
            let key
        else { preconditionFailure("RSA key generation failed: \(drainOpenSSLErrors())") }
        return EVPKey(taking: key)
    }
}

/// Selects PSS padding with an exact salt length and an MGF1 hash on a signing or verifying context.
///
/// An `id-RSASSA-PSS` key with parameters already fixes its MGF1 hash, and OpenSSL 3.0 then refuses to set it again
/// even to the same value. The key's MGF1 hash is then read from the key (`mgf1-digest`, which OpenSSL reports only
/// when it differs from the key's message hash) and must equal `mgf1Digest`.
func configurePSS(
    _ context: OpaquePointer,
    key: EVPKey,
    mgf1Digest: DigestAlgorithm,
    saltByteCount: Int32
) -> Bool {
    guard EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PSS_PADDING) == 1 else { return false }
    if EVP_PKEY_CTX_set_rsa_mgf1_md(context, mgf1Digest.evpMD) != 1 {
        _ = drainOpenSSLErrors()
        guard key.family == .rsaPSS else { return false }
        let fixed = key.utf8Parameter(OSSL_PKEY_PARAM_RSA_MGF1_DIGEST) ?? key.utf8Parameter(OSSL_PKEY_PARAM_RSA_DIGEST)
        guard fixed == mgf1Digest.openSSLName else { return false }
    }
    return EVP_PKEY_CTX_set_rsa_pss_saltlen(context, saltByteCount) == 1
}

extension EVPKey {
    /// A UTF-8 string parameter of the key, or nil when it has none.
    func utf8Parameter(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, name, &buffer, buffer.count, &length) == 1 else {
            _ = drainOpenSSLErrors()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension EVPKey {
    /// A copy holding only the public half (re-imported from the SPKI), so a public key never carries a secret.
    func publicOnly() -> EVPKey {
        guard let key = try? OpenSSLBackend.importSPKI(spkiDER) else {
            preconditionFailure("OpenSSL could not re-import its own public key")
        }
        return key
    }
}
#endif
