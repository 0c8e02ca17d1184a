#if canImport(COpenSSL)
internal import COpenSSL

extension EdDSAVariant {
    /// The OpenSSL key type.
    var nid: Int32 { self == .ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448 }
}

extension OpenSSLBackend {
    /// Imports a raw EdDSA public key (`EVP_PKEY_new_raw_public_key_ex`, which checks only the length; a point that does
    /// not decode makes every verification fail).
    static func importRawEdDSAPublicKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> EVPKey {
        guard bytes.count == variant.keyByteCount else {
            throw CryptoError.invalidKey(
                "a raw \(variant.name) public key is \(variant.keyByteCount) bytes; got \(bytes.count)")
        }
        // Returns an owned EVP_PKEY (freed by EVPKey) or NULL.
        guard let key = EVP_PKEY_new_raw_public_key_ex(nil, variant.name, nil, bytes, bytes.count) else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey("OpenSSL refused the \(variant.name) public key")
        }
        return EVPKey(taking: key)
    }

    /// Imports a raw EdDSA private key (the RFC 8032 seed).
    static func importRawEdDSAPrivateKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> EVPKey {
        guard bytes.count == variant.keyByteCount else {
            throw CryptoError.invalidKey(
                "a raw \(variant.name) private key is \(variant.keyByteCount) bytes; got \(bytes.count)")
        }
        guard let key = EVP_PKEY_new_raw_private_key_ex(nil, variant.name, nil, bytes, bytes.count) else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey("OpenSSL refused the \(variant.name) private key")
        }
        return EVPKey(taking: key)
    }

    static func generateEdDSAKey(_ variant: EdDSAVariant) -> EVPKey {
        // EVP_PKEY_CTX_new_from_name returns an owned context (freed below); EVP_PKEY_generate hands back an owned key.
        guard let context = EVP_PKEY_CTX_new_from_name(nil, variant.name, nil) else {
            preconditionFailure("OpenSSL has no \(variant.name): \(drainOpenSSLErrors())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_generate(context, &key) == 1, let key else {
            preconditionFailure("\(variant.name) key generation failed: \(drainOpenSSLErrors())")
        }
        return EVPKey(taking: key)
    }
}

extension EVPKey {
    /// The raw public key of an EdDSA key.
    var rawPublicKey: [UInt8] {
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pointer, nil, &length) == 1 else {
            preconditionFailure("EVP_PKEY_get_raw_public_key failed: \(drainOpenSSLErrors())")
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_public_key(pointer, &out, &length) == 1 else {
            preconditionFailure("EVP_PKEY_get_raw_public_key failed: \(drainOpenSSLErrors())")
        }
        return Array(out.prefix(length))
    }

    /// The raw private seed of an EdDSA key.
    func rawPrivateKey() throws -> [UInt8] {
        var length = 0
        guard EVP_PKEY_get_raw_private_key(pointer, nil, &length) == 1 else {
            throw CryptoError.openSSL("EVP_PKEY_get_raw_private_key failed")
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_raw_private_key(pointer, &out, &length) == 1 else {
            throw CryptoError.openSSL("EVP_PKEY_get_raw_private_key failed")
        }
        return Array(out.prefix(length))
    }
}
#endif
