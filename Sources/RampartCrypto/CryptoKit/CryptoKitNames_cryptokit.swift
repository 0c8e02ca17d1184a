#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
// The CryptoKit backend: Apple's CryptoKit on Apple platforms; on Linux (the RampartCryptoKitBackend test module,
// compiled with RAMPART_CRYPTOKIT_BACKEND) RampartAppleSimulation's transcription of it, so that these same files run
// the Wycheproof vectors there.
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import RampartAppleSimulation
#endif

// RampartCrypto declares its own `SymmetricKey`, `SHA256`, `HMAC` and `HKDF`, which shadow CryptoKit's inside this
// module; these aliases name CryptoKit's.
#if canImport(CryptoKit)
typealias CKSymmetricKey = CryptoKit.SymmetricKey
typealias CKSHA256 = CryptoKit.SHA256
typealias CKSHA384 = CryptoKit.SHA384
typealias CKSHA512 = CryptoKit.SHA512
typealias CKHMAC = CryptoKit.HMAC
typealias CKHKDF = CryptoKit.HKDF
#else
typealias CKSymmetricKey = RampartAppleSimulation.SymmetricKey
typealias CKSHA256 = RampartAppleSimulation.SHA256
typealias CKSHA384 = RampartAppleSimulation.SHA384
typealias CKSHA512 = RampartAppleSimulation.SHA512
typealias CKHMAC = RampartAppleSimulation.HMAC
typealias CKHKDF = RampartAppleSimulation.HKDF
#endif

extension SymmetricKey {
    /// The same bytes as a CryptoKit key.
    var cryptoKitKey: CKSymmetricKey { withUnsafeBytes { CKSymmetricKey(data: Array($0)) } }
}
#endif
