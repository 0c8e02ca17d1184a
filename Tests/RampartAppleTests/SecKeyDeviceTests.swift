import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartCrypto
import RampartSecretStore
import Testing

/// `SecKey` functions where the documentation is silent, as Security implements them (OSX/sec/Security/SecKey.m,
/// SecCTKKey.m), and how SecureEnclaveKey copes.
struct SecKeyDeviceTests {
    func onDevice<T>(_ body: () throws -> T) rethrows -> T {
        var conditions = SimulatedKeychain.Conditions()
        conditions.userAuthentication = { _ in .succeeded }
        return try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try SimulatedKeychain.$conditions.withValue(conditions, operation: body)
        }
    }

    static func enclaveParameters(tag: String, permanent: Bool?) -> [String: Any] {
        var privateAttributes: [String: Any] = [kSecAttrApplicationTag as String: Data(tag.utf8)]
        if let permanent { privateAttributes[kSecAttrIsPermanent as String] = permanent }
        return [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave, kSecPrivateKeyAttrs as String: privateAttributes,
        ]
    }

    func keys(tag: String) -> [[String: Any]] {
        var result: CFTypeRef?
        let query: [String: Any] = [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecMatchLimit as String: kSecMatchLimitAll, kSecReturnAttributes as String: true,
        ]
        guard SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess else { return [] }
        return result as? [[String: Any]] ?? []
    }

    @Test("a Secure Enclave private key cannot be exported: errSecUnimplemented, as CTK keys have no export")
    func enclaveExport() throws {
        try onDevice {
            var error: Unmanaged<CFError>?
            let key = try #require(
                SecKeyCreateRandomKey(Self.enclaveParameters(tag: "e", permanent: false) as CFDictionary, &error))
            #expect(SecKeyCopyExternalRepresentation(key, &error) == nil)
            let failure = try #require(error?.takeRetainedValue())
            #expect(CFErrorGetDomain(failure) == "NSOSStatusErrorDomain")
            #expect(CFErrorGetCode(failure) == CFIndex(errSecUnimplemented))
        }
    }

    @Test("a token key is permanent unless kSecAttrIsPermanent says otherwise; top-level attributes count too")
    func enclaveKeysArePermanentByDefault() {
        onDevice {
            var error: Unmanaged<CFError>?
            #expect(
                SecKeyCreateRandomKey(Self.enclaveParameters(tag: "d", permanent: nil) as CFDictionary, &error) != nil)
            #expect(keys(tag: "d").count == 1)
            #expect(
                SecKeyCreateRandomKey(Self.enclaveParameters(tag: "t", permanent: false) as CFDictionary, &error) != nil
            )
            #expect(keys(tag: "t").isEmpty)
            var topLevel = Self.enclaveParameters(tag: "p", permanent: nil)
            topLevel[kSecAttrTokenID as String] = nil
            topLevel[kSecAttrIsPermanent as String] = true
            #expect(SecKeyCreateRandomKey(topLevel as CFDictionary, &error) != nil)
            // kSecAttrIsPermanent at the top level applies to both halves (merge_params, SecKey.m:312-331): the
            // private key under its tag and the public key, which has no tag.
            #expect(keys(tag: "p").count == 1)
            #expect(SimulatedKeychain.current.count == 3)
        }
    }

    @Test("each stored key has its own kSecAttrApplicationLabel, so two keys under one tag are both stored")
    func twoKeysUnderOneTag() {
        onDevice {
            var error: Unmanaged<CFError>?
            for _ in 0..<2 {
                #expect(
                    SecKeyCreateRandomKey(Self.enclaveParameters(tag: "same", permanent: true) as CFDictionary, &error)
                        != nil)
            }
            let stored = keys(tag: "same")
            #expect(stored.count == 2)
            let labels = Set(stored.compactMap { $0[kSecAttrApplicationLabel as String] as? Data })
            #expect(labels.count == 2)
            #expect(labels.allSatisfy { $0.count == 20 })
        }
    }

    @Test("SecureEnclaveKey.create refuses a tag that already holds a key instead of adding a second one")
    func createRefusesATakenTag() throws {
        try onDevice {
            let first = try SecureEnclaveKey.create(tag: "kek")
            let wrapped = try first.wrap(SymmetricKey(randomByteCount: 32))
            #expect(throws: VaultError.duplicateItem()) { try SecureEnclaveKey.create(tag: "kek") }
            #expect(keys(tag: "kek").count == 1)
            let loaded = try #require(try SecureEnclaveKey.load(tag: "kek"))
            #expect(loaded.publicKeyX963 == first.publicKeyX963)
            _ = try loaded.unwrap(wrapped)
        }
    }
}
