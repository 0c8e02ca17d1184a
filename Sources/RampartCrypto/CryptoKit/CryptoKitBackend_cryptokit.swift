#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
/// The CryptoKit backend (Apple platforms): P-256, Ed25519 verification, SHA-2, HMAC, HKDF, AES-GCM and
/// ChaCha20-Poly1305; everything else is refused with ``CryptoError/Code/unsupportedAlgorithm`` (the table in
/// <doc:ChoosingPrimitives> lists what).
enum CryptoKitBackend: CryptoBackend {
    typealias Key = CryptoKitKey
}
#endif
