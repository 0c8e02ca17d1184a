#if !canImport(COpenSSL) || RAMPART_CRYPTOKIT_BACKEND
internal import Foundation

/// What the CryptoKit backend refuses, each with ``CryptoError/Code/unsupportedAlgorithm`` (thrown) or a `false`
/// verdict (verification), never a silent difference. The table in <doc:ChoosingPrimitives> lists them.
let ed25519Unsupported =
    "Ed25519 needs the OpenSSL backend: CryptoKit's Curve25519 signatures are randomized, not RFC 8032's "
    + "deterministic ones, so Rampart does not offer Ed25519 on Apple platforms"

func pbkdf2(
    _ algorithm: DigestAlgorithm, password: [UInt8], salt: [UInt8], iterations: Int, length: Int
) throws
    -> [UInt8]
{
    throw CryptoError.unsupportedAlgorithm(
        "PBKDF2 needs the OpenSSL backend; on Apple platforms derive keys with HKDF from a random key kept in the "
            + "Keychain, or open PBKDF2-protected data on the server")
}

func scrypt(
    password: [UInt8],
    salt: [UInt8],
    cost: Int,
    blockSize: Int,
    parallelism: Int,
    maximumMemory: Int,
    length: Int
) throws -> [UInt8] {
    throw CryptoError.unsupportedAlgorithm(
        "scrypt needs the OpenSSL backend (CryptoKit and CommonCrypto have none); on Apple platforms keep a random "
            + "key in the Keychain instead of deriving one from a passphrase")
}

func argon2idHash(password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, count: Int) throws -> SymmetricKey {
    throw CryptoError.unsupportedAlgorithm(
        "Argon2id needs libargon2 (Linux); on Apple platforms keep a random key in the Keychain instead of deriving "
            + "one from a passphrase")
}

func importRawEdDSAPublicKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> CryptoKitKey {
    throw CryptoError.unsupportedAlgorithm(ed25519Unsupported)
}

func importRawEdDSAPrivateKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> CryptoKitKey {
    throw CryptoError.unsupportedAlgorithm(ed25519Unsupported)
}

func generateEdDSAKey(_ variant: EdDSAVariant) -> CryptoKitKey {
    preconditionFailure(ed25519Unsupported)
}

func generateRSAKey(bitCount: Int) throws -> CryptoKitKey {
    throw CryptoError.unsupportedAlgorithm(
        "RSA keys need the OpenSSL backend; Rampart signs with ECDSA P-256 on Apple platforms")
}

func signRSA(_ key: CryptoKitKey, algorithm: SignatureAlgorithm, message: some ContiguousBytes) throws -> [UInt8] {
    throw CryptoError.unsupportedAlgorithm("RSA signatures need the OpenSSL backend")
}
#endif
