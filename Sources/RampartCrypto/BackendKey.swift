/// The key types Rampart handles (for the OpenSSL backend, as `EVP_PKEY_get_base_id` reports them; the CryptoKit
/// backend holds only ``ec`` keys on P-256).
enum KeyFamily {
    case ec
    case rsa
    case rsaPSS
    case ed25519
    case ed448
}

/// An Edwards-curve signature scheme (RFC 8032).
enum EdDSAVariant {
    case ed25519
    case ed448

    var name: String { self == .ed25519 ? "Ed25519" : "Ed448" }
    /// The raw public key and private seed length.
    var keyByteCount: Int { self == .ed25519 ? 32 : 57 }
}

/// The largest SubjectPublicKeyInfo Rampart decodes (DoS bound): an RSA-16384 key is about 2.1 KiB, so 16 KiB leaves
/// room for explicit-parameter encodings without letting a caller feed megabytes to the decoder.
let maximumSPKIByteCount = 16 * 1024

/// The largest PKCS#8 PrivateKeyInfo Rampart decodes (DoS bound): a P-521 key is under 250 bytes.
let maximumPKCS8ByteCount = 16 * 1024
