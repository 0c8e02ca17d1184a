import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartCrypto
import RampartSeal
import RampartSecretStore
import Testing

struct SecureEnclaveKeyTests {
    /// Runs `body` on a fresh device whose user answers prompts with `answer` (nil: nobody can answer).
    @discardableResult
    func onDevice<T>(
        answer: SimulatedKeychain.UserAuthenticationResult? = .succeeded, lockState: DeviceLockState = .unlocked,
        _ body: () throws -> T
    ) rethrows -> T {
        var conditions = SimulatedKeychain.Conditions()
        conditions.lockState = lockState
        if let answer { conditions.userAuthentication = { _ in answer } }
        return try SimulatedKeychain.$conditions.withValue(conditions, operation: body)
    }

    @Test("wrap then unwrap returns the data key, which opens a RampartSeal box; the key is found again by tag")
    func roundTrip() throws {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try onDevice {
                let kek = try SecureEnclaveKey.create(tag: "com.example.kek", accessControl: .biometryCurrentSet)
                #expect(kek.publicKeyX963.count == 65)
                let dataKey = SymmetricKey(randomByteCount: 32)
                let wrapped = try kek.wrap(dataKey)
                let sealed = try Box.seal(Array("secret".utf8), using: dataKey)
                let loaded = try #require(try SecureEnclaveKey.load(tag: "com.example.kek"))
                #expect(loaded.publicKeyX963 == kek.publicKeyX963)
                let unwrapped = try loaded.unwrap(wrapped)
                #expect(try Box.open(sealed, using: unwrapped) == Array("secret".utf8))
                #expect(try SecureEnclaveKey.load(tag: "com.example.other") == nil)
                try SecureEnclaveKey.delete(tag: "com.example.kek")
                #expect(try SecureEnclaveKey.load(tag: "com.example.kek") == nil)
                #expect(throws: VaultError.itemNotFound()) { try SecureEnclaveKey.delete(tag: "com.example.kek") }
            }
        }
    }

    @Test("another key, a truncated or an altered wrap is integrityFailure")
    func wrongKey() throws {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try onDevice {
                let first = try SecureEnclaveKey.create(tag: "a")
                let second = try SecureEnclaveKey.create(tag: "b")
                let wrapped = try first.wrap(SymmetricKey(randomByteCount: 32))
                #expect(throws: VaultError.integrityFailure()) { try second.unwrap(wrapped) }
                #expect(throws: VaultError.integrityFailure()) { try first.unwrap(Array(wrapped.prefix(60))) }
                var altered = wrapped
                altered[altered.count - 1] ^= 1
                #expect(throws: VaultError.integrityFailure()) { try first.unwrap(altered) }
            }
        }
    }

    @Test(
        "a denied prompt is authFailed (errSecUserCanceled, errSecAuthFailed); no user or a locked device is interactionNotAllowed"
    )
    func accessControlDenial() throws {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            let (kek, wrapped) = try onDevice {
                let kek = try SecureEnclaveKey.create(tag: "kek", accessControl: .userPresence)
                return (kek, try kek.wrap(SymmetricKey(randomByteCount: 32)))
            }
            for answer in [SimulatedKeychain.UserAuthenticationResult.canceled, .failed] {
                onDevice(answer: answer) {
                    #expect(throws: VaultError.authFailed()) { try kek.unwrap(wrapped) }
                }
            }
            onDevice(answer: nil) {
                #expect(throws: VaultError.interactionNotAllowed()) { try kek.unwrap(wrapped) }
            }
            onDevice(lockState: .lockedAfterFirstUnlock) {
                #expect(throws: VaultError.interactionNotAllowed()) { try kek.unwrap(wrapped) }
            }
            _ = try onDevice { try kek.unwrap(wrapped) }
        }
    }

    @Test("a Secure Enclave key must be ThisDeviceOnly; its private key cannot be exported")
    func deviceBound() throws {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            #expect(throws: VaultError.invalidParameters()) {
                try SecureEnclaveKey.create(tag: "k", accessibility: .afterFirstUnlock)
            }
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            ]
            var error: Unmanaged<CFError>?
            let key = try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
            #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
            // A CryptoTokenKit key has no export (OSX/sec/Security/SecKey.m:1596-1603): errSecUnimplemented.
            #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == CFIndex(errSecUnimplemented))
        }
    }

    @Test("a Secure Enclave key's denied prompt is a LocalAuthentication error (-2, -1, -1004), not an OSStatus")
    func secureEnclaveErrorDomain() throws {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            var error: Unmanaged<CFError>?
            let control = try #require(
                SecAccessControlCreateWithFlags(
                    nil, kSecAttrAccessibleWhenUnlockedThisDeviceOnly as CFTypeRef, [.privateKeyUsage, .userPresence],
                    &error))
            let attributes: [String: Any] = [
                kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
                kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
                kSecPrivateKeyAttrs as String: [kSecAttrAccessControl as String: control] as [String: Any],
            ]
            let key = try #require(SecKeyCreateRandomKey(attributes as CFDictionary, &error))
            let peer = try #require(
                SecKeyCreateRandomKey(
                    [kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256]
                        as CFDictionary, &error))
            let peerPublic = try #require(SecKeyCopyPublicKey(peer))
            for (answer, code) in [
                (SimulatedKeychain.UserAuthenticationResult.canceled, -2), (.failed, -1), (nil, -1004),
            ] {
                onDevice(answer: answer) {
                    var failure: Unmanaged<CFError>?
                    let secret = SecKeyCopyKeyExchangeResult(
                        key, .ecdhKeyExchangeStandard, peerPublic, [:] as CFDictionary, &failure)
                    #expect(secret == nil)
                    let reported = failure?.takeRetainedValue()
                    #expect(reported.map { CFErrorGetDomain($0) as String } == "com.apple.LocalAuthentication")
                    #expect(reported.map(CFErrorGetCode) == CFIndex(code))
                }
            }
        }
    }
}
