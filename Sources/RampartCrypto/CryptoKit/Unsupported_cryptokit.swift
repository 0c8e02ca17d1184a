#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
internal import Foundation

/// What the CryptoKit backend refuses, each with ``CryptoError/Code/unsupportedAlgorithm`` (thrown) or a `false`
/// verdict (verification), never a silent difference. The table in <doc:ChoosingPrimitives> lists them.
let ed25519SigningUnsupported =
    "Ed25519 signing needs the OpenSSL backend: CryptoKit's Curve25519 signatures are randomized, not RFC 8032's "
    + "deterministic ones, so on Apple platforms Rampart verifies Ed25519 signatures but does not make them; sign "
    + "on the server"

extension CryptoKitBackend {
    static func pbkdf2(
        _ algorithm: DigestAlgorithm, password: [UInt8], salt: [UInt8], iterations: Int, length: Int
    ) throws
        -> [UInt8]
    {
        throw CryptoError.unsupportedAlgorithm(
            "PBKDF2 needs the OpenSSL backend; on Apple platforms derive keys with HKDF from a random key kept in the "
                + "Keychain, or open PBKDF2-protected data on the server")
    }

    static func scrypt(
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

    static func argon2idHash(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, count: Int
    ) throws -> SymmetricKey {
        throw CryptoError.unsupportedAlgorithm(
            "Argon2id needs libargon2 (Linux); on Apple platforms keep a random key in the Keychain instead of deriving "
                + "one from a passphrase")
    }

    static func importRawEdDSAPrivateKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> CryptoKitKey {
        throw CryptoError.unsupportedAlgorithm(ed25519SigningUnsupported)
    }

    static func generateEdDSAKey(_ variant: EdDSAVariant) -> CryptoKitKey {
        preconditionFailure(ed25519SigningUnsupported)
    }

    static func generateRSAKey(bitCount: Int) throws -> CryptoKitKey {
        throw CryptoError.unsupportedAlgorithm(
            "RSA keys need the OpenSSL backend; Rampart signs with ECDSA P-256 on Apple platforms")
    }

    static func signRSA(
        _ key: CryptoKitKey, algorithm: SignatureAlgorithm, message: some ContiguousBytes
    ) throws -> [UInt8] {
        throw CryptoError.unsupportedAlgorithm("RSA signatures need the OpenSSL backend")
    }
}

#endif
