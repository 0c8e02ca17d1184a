#if canImport(COpenSSL)
internal import Foundation

/// The OpenSSL backend (Linux): `libcrypto` 3 for every primitive, `libargon2` for Argon2id.
enum OpenSSLBackend: CryptoBackend {
    typealias Key = EVPKey

    static func verifySignatureWithFreshContext(
        _ key: EVPKey,
        digest: DigestAlgorithm?,
        signature: some ContiguousBytes,
        message: some ContiguousBytes
    ) -> Bool {
        verifySignatureWithFreshContext(key, digest: digest, signature: signature, message: message) { _ in true }
    }

    static func signMessage(_ key: EVPKey, digest: DigestAlgorithm?, message: some ContiguousBytes) throws -> [UInt8] {
        try signMessage(key, digest: digest, message: message) { _ in true }
    }
}
#endif
