import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartSecretStore
import Testing

/// What `SecItemCopyMatching` gives back for each combination of `kSecReturn…` keys, as securityd builds it
/// (keychain/securityd/SecItemDb.c `handle_result`) and the client finishes it (OSX/sec/Security/SecItem.m
/// `SecItemResultCopyPrepared`), and how KeychainStore reads those shapes.
struct KeychainResultShapeTests {
    static func password(_ account: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: "api.example.com",
            kSecAttrAccount as String: account, kSecUseDataProtectionKeychain as String: true,
        ]
    }

    func onDevice<T>(_ body: () throws -> T) rethrows -> T {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try SimulatedKeychain.$conditions.withValue(SimulatedKeychain.Conditions(), operation: body)
        }
    }

    func copy(_ query: [String: Any]) -> (OSStatus, CFTypeRef?) {
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        return (status, result)
    }

    @Test("kSecAttrSynchronizable comes back as the number 0 or 1 (securityd's sync column), not a Boolean")
    func synchronizableIsANumber() throws {
        try onDevice {
            var synced = Self.password("a")
            synced[kSecAttrSynchronizable as String] = true
            synced[kSecValueData as String] = Data([1])
            #expect(SecItemAdd(synced as CFDictionary, nil) == errSecSuccess)
            var query = Self.password("a")
            query[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
            query[kSecReturnAttributes as String] = true
            let (status, result) = copy(query)
            #expect(status == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect(found[kSecAttrSynchronizable as String] as? Int == 1)
        }
    }

    @Test("attributes without kSecReturnRef carry no kSecClass; with it they do, and the key as kSecValueRef")
    func classOnlyWithReference() throws {
        try onDevice {
            var item = Self.password("a")
            item[kSecValueData as String] = Data([1])
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            var query = Self.password("a")
            query[kSecReturnAttributes as String] = true
            let attributes = try #require(copy(query).1 as? [String: Any])
            #expect(attributes[kSecClass as String] == nil)
            #expect(attributes[kSecValueData as String] == nil)
            #expect(attributes[kSecAttrAccount as String] as? String == "a")

            var error: Unmanaged<CFError>?
            let key = try #require(
                SecKeyCreateRandomKey(
                    [
                        kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                        kSecAttrKeySizeInBits as String: 256,
                        kSecPrivateKeyAttrs as String: [
                            kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data("k".utf8),
                        ] as [String: Any],
                    ] as CFDictionary, &error))
            var keyQuery: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data("k".utf8),
                kSecReturnRef as String: true, kSecReturnAttributes as String: true,
            ]
            let both = try #require(copy(keyQuery).1 as? [String: Any])
            #expect(both[kSecClass as String] as? String == kSecClassKey as String)
            #expect((both[kSecValueRef as String] as? SecKey) === key)
            #expect(both[kSecValueData as String] == nil)
            keyQuery[kSecReturnAttributes as String] = nil
            #expect((copy(keyQuery).1 as? SecKey) === key)
        }
    }

    @Test("kSecReturnRef on a password: success without a reference on iOS; with attributes, the data stays in")
    func referenceToPassword() throws {
        try onDevice {
            var item = Self.password("a")
            item[kSecValueData as String] = Data([7])
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            var query = Self.password("a")
            query[kSecReturnRef as String] = true
            let (status, result) = copy(query)
            #expect(status == errSecSuccess)
            #expect(result == nil)
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            let (allStatus, all) = copy(query)
            #expect(allStatus == errSecSuccess)
            #expect((all as? [Any])?.isEmpty == true)
            query[kSecMatchLimit as String] = nil
            query[kSecReturnAttributes as String] = true
            let dictionary = try #require(copy(query).1 as? [String: Any])
            #expect(dictionary[kSecValueRef as String] == nil)
            #expect(dictionary[kSecClass as String] as? String == kSecClassGenericPassword as String)
            #expect(dictionary[kSecValueData as String] as? Data == Data([7]))
        }
    }

    @Test("kSecReturnData with kSecMatchLimitAll on passwords returns every value: securityd does not refuse it")
    func dataOfEveryPassword() throws {
        try onDevice {
            for (account, value) in [("a", UInt8(1)), ("b", 2)] {
                var item = Self.password(account)
                item[kSecValueData as String] = Data([value])
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            }
            var query = Self.password("a")
            query[kSecAttrAccount as String] = nil
            query[kSecMatchLimit as String] = kSecMatchLimitAll
            query[kSecReturnData as String] = true
            let (status, result) = copy(query)
            #expect(status == errSecSuccess)
            let values = try #require(result as? [Data])
            #expect(Set(values) == [Data([1]), Data([2])])
        }
    }

    @Test("KeychainStore reads a synchronizable item back as synchronizable from securityd's number")
    func keychainStoreReadsSynchronizable() async throws {
        try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            let store = KeychainStore()
            var item = VaultItem.genericPassword(service: "s", account: "synced", value: [1])
            item.accessibility = .afterFirstUnlock
            item.synchronizable = true
            try await store.add(item)
            try await store.add(.genericPassword(service: "s", account: "local", value: [2]))
            var query = ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(service: "s"))
            query.synchronizable = .any
            query.matchLimit = .all
            let read = try await store.read(query)
            #expect(
                Dictionary(uniqueKeysWithValues: read.map { ($0.attributes.account, $0.synchronizable) })
                    == ["synced": true, "local": false])
            query.matchLimit = .one
            query.attributes.account = "synced"
            #expect(try await store.read(query).map(\.synchronizable) == [true])
        }
    }
}
