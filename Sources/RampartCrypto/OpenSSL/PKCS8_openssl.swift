#if canImport(COpenSSL)
internal import COpenSSL

/// Owns one `PKCS8_PRIV_KEY_INFO`, released with `PKCS8_PRIV_KEY_INFO_free` in `deinit`.
private final class PrivateKeyInfo {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { PKCS8_PRIV_KEY_INFO_free(pointer) }
}

extension OpenSSLBackend {
    /// Decodes an unencrypted PKCS#8 `PrivateKeyInfo` (RFC 5208 section 5), rejecting BER and trailing bytes:
    ///
    /// ```
    /// PrivateKeyInfo ::= SEQUENCE {
    ///     version                   Version,
    ///     privateKeyAlgorithm       PrivateKeyAlgorithmIdentifier,
    ///     privateKey                PrivateKey,
    ///     attributes           [0]  IMPLICIT Attributes OPTIONAL }
    /// ```
    static func importPKCS8(_ der: [UInt8]) throws -> EVPKey {
        guard !der.isEmpty, der.count <= maximumPKCS8ByteCount else {
            throw CryptoError.invalidKey(
                "a PKCS#8 PrivateKeyInfo must be 1…\(maximumPKCS8ByteCount) bytes; got \(der.count)")
        }
        try requireStrictDER(der)
        let decoded: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            // d2i_PKCS8_PRIV_KEY_INFO returns an owned structure (freed by PrivateKeyInfo) and advances the cursor.
            let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count)
            return (info, cursor.map { buffer.baseAddress?.distance(to: $0) ?? 0 } ?? 0)
        }
        guard let infoPointer = decoded.0 else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey("the bytes are not a DER PKCS#8 PrivateKeyInfo")
        }
        let info = PrivateKeyInfo(taking: infoPointer)
        guard decoded.1 == der.count else { throw CryptoError.invalidKey("trailing bytes after the PrivateKeyInfo") }
        // EVP_PKCS82PKEY returns a new EVP_PKEY owned by the caller (freed by EVPKey).
        guard let key = EVP_PKCS82PKEY(info.pointer) else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey("the PrivateKeyInfo holds no key OpenSSL can read")
        }
        let owned = EVPKey(taking: key)
        try owned.preferUncompressedPoint()
        return owned
    }
}

extension EVPKey {
    /// The unencrypted PKCS#8 `PrivateKeyInfo`. The caller owns (and should wipe) the returned secret bytes.
    func pkcs8DER() throws -> [UInt8] {
        // EVP_PKEY2PKCS8 returns a new PKCS8_PRIV_KEY_INFO owned by the caller.
        guard let infoPointer = EVP_PKEY2PKCS8(pointer) else { throw CryptoError.openSSL("EVP_PKEY2PKCS8 failed") }
        let info = PrivateKeyInfo(taking: infoPointer)
        let length = i2d_PKCS8_PRIV_KEY_INFO(info.pointer, nil)
        guard length > 0 else { throw CryptoError.openSSL("i2d_PKCS8_PRIV_KEY_INFO failed") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PKCS8_PRIV_KEY_INFO(info.pointer, &cursor)
        }
        guard written == length else { throw CryptoError.openSSL("i2d_PKCS8_PRIV_KEY_INFO failed") }
        return out
    }
}
#endif
