#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import RampartAppleSimulation
#endif

extension CryptoKitBackend {
    static func hmac(_ algorithm: DigestAlgorithm, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> [UInt8]
    {
        let key = CKSymmetricKey(data: Array(key))
        let message = Array(data)
        switch algorithm {
        case .sha256: return Array(CKHMAC<CKSHA256>.authenticationCode(for: message, using: key))
        case .sha384: return Array(CKHMAC<CKSHA384>.authenticationCode(for: message, using: key))
        case .sha512: return Array(CKHMAC<CKSHA512>.authenticationCode(for: message, using: key))
        }
    }

    /// The key behind an ``HMACKey`` on the CryptoKit backend, which computes each code with the one-shot
    /// `HMAC.authenticationCode(for:using:)` (the same bytes as the OpenSSL backend's kept contexts).
    final class PreparedHMAC: CryptoBackendPreparedHMAC {
        private let key: SymmetricKey
        private let algorithm: DigestAlgorithm

        init(key: SymmetricKey, algorithm: DigestAlgorithm) {
            self.key = key
            self.algorithm = algorithm
        }

        func authenticationCode(for data: UnsafeRawBufferPointer) -> [UInt8] {
            key.withUnsafeBytes { hmac(algorithm, key: $0, data: data) }
        }
    }

    /// HKDF through CryptoKit (RFC 5869; an empty salt is a string of zeros as long as the hash, as in the RFC). The
    /// neutral ``HKDF`` has already checked `length` against 1…255 × hash length, which CryptoKit would trap on.
    static func hkdf(
        _ algorithm: DigestAlgorithm, key: [UInt8], salt: [UInt8], info: [UInt8], length: Int
    ) throws -> [UInt8] {
        let input = CKSymmetricKey(data: key)
        let derived: CKSymmetricKey
        switch algorithm {
        case .sha256:
            derived = CKHKDF<CKSHA256>.deriveKey(
                inputKeyMaterial: input, salt: salt, info: info, outputByteCount: length)
        case .sha384:
            derived = CKHKDF<CKSHA384>.deriveKey(
                inputKeyMaterial: input, salt: salt, info: info, outputByteCount: length)
        case .sha512:
            derived = CKHKDF<CKSHA512>.deriveKey(
                inputKeyMaterial: input, salt: salt, info: info, outputByteCount: length)
        }
        return derived.withUnsafeBytes { Array($0) }
    }
}

#endif
