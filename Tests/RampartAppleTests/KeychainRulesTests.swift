import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartSecretStore
import Testing

/// The simulated keychain's documented rules, called the Apple way, and how KeychainStore maps their statuses.
struct KeychainRulesTests {
    static func password(_ account: String, service: String = "api.example.com") -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
            kSecAttrAccount as String: account, kSecUseDataProtectionKeychain as String: true,
        ]
    }

    /// Runs `body` on a fresh keychain under `conditions`.
    func onDevice<T>(
        _ conditions: SimulatedKeychain.Conditions = SimulatedKeychain.Conditions(), _ body: () throws -> T
    ) rethrows -> T {
        try SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try SimulatedKeychain.$conditions.withValue(conditions, operation: body)
        }
    }

    @Test("a second add with the same primary key is errSecDuplicateItem; a missing item is errSecItemNotFound")
    func duplicateAndNotFound() {
        onDevice {
            var item = Self.password("alice")
            item[kSecValueData as String] = Data([1])
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            item[kSecAttrLabel as String] = "another label"
            item[kSecValueData as String] = Data([2])
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
            #expect(SecItemDelete(Self.password("bob") as CFDictionary) == errSecItemNotFound)
            #expect(SecItemUpdate(Self.password("bob") as CFDictionary, [:] as CFDictionary) == errSecItemNotFound)
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(Self.password("bob") as CFDictionary, &result) == errSecItemNotFound)
        }
    }

    @Test("primary keys: service, account, access group and synchronizable each make a different generic password")
    func genericPasswordPrimaryKey() {
        onDevice {
            let base = Self.password("alice")
            var otherService = Self.password("alice", service: "other")
            otherService[kSecValueData as String] = Data([2])
            var otherGroup = base
            otherGroup[kSecAttrAccessGroup as String] = "T.shared"
            var synced = base
            synced[kSecAttrSynchronizable as String] = true
            for item in [base, otherService, otherGroup, synced] {
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            }
            #expect(SimulatedKeychain.current.count == 4)
            var everything = base
            everything[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
            everything[kSecMatchLimit as String] = kSecMatchLimitAll
            everything[kSecReturnAttributes as String] = true
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(everything as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [[String: Any]])?.count == 3)
            // Without kSecAttrSynchronizable a query sees only items that do not sync.
            everything[kSecAttrSynchronizable as String] = nil
            #expect(SecItemCopyMatching(everything as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [[String: Any]])?.count == 2)
        }
    }

    @Test("internet passwords: port and protocol are part of the primary key; a missing one is stored empty")
    func internetPasswordPrimaryKey() {
        onDevice {
            var item: [String: Any] = [
                kSecClass as String: kSecClassInternetPassword, kSecAttrServer as String: "example.com",
                kSecAttrAccount as String: "u", kSecAttrProtocol as String: kSecAttrProtocolHTTPS,
                kSecAttrPort as String: 443,
            ]
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            item[kSecAttrPort as String] = 8443
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            item[kSecAttrProtocol as String] = nil
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            item[kSecAttrProtocol as String] = ""
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
        }
    }

    @Test(
        "errSecParam: no class, ReturnData with MatchLimitAll on passwords, SynchronizableAny in an add, a zero limit")
    func parameterRules() {
        onDevice {
            var result: CFTypeRef?
            #expect(SecItemAdd([kSecAttrAccount as String: "a"] as CFDictionary, nil) == errSecParam)
            #expect(SecItemCopyMatching([kSecAttrAccount as String: "a"] as CFDictionary, &result) == errSecParam)
            #expect(SecItemAdd(Self.password("a") as CFDictionary, nil) == errSecSuccess)
            var all = Self.password("a")
            all[kSecMatchLimit as String] = kSecMatchLimitAll
            all[kSecReturnData as String] = true
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecParam)
            all[kSecReturnData as String] = nil
            all[kSecReturnPersistentRef as String] = true
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
            var reference = Self.password("a")
            reference[kSecReturnRef as String] = true
            #expect(SecItemCopyMatching(reference as CFDictionary, &result) == errSecParam)
            var any = Self.password("b")
            any[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
            #expect(SecItemAdd(any as CFDictionary, nil) == errSecParam)
            var zero = Self.password("a")
            zero[kSecMatchLimit as String] = 0
            #expect(SecItemCopyMatching(zero as CFDictionary, &result) == errSecParam)
            var both = Self.password("c")
            both[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            both[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleAfterFirstUnlock as CFTypeRef, .userPresence, nil)
            #expect(SecItemAdd(both as CFDictionary, nil) == errSecParam)
            var foreign = Self.password("d")
            foreign[kSecAttrServer as String] = "example.com"
            #expect(SecItemAdd(foreign as CFDictionary, nil) == errSecNoSuchAttr)
        }
    }

    @Test("synchronizable items cannot be ThisDeviceOnly or access-controlled (errSecParam)")
    func synchronizableRules() {
        onDevice {
            var item = Self.password("a")
            item[kSecAttrSynchronizable as String] = true
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecParam)
            item[kSecAttrAccessible as String] = nil
            item[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleAfterFirstUnlock as CFTypeRef, .biometryAny, nil)
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecParam)
            item[kSecAttrAccessControl as String] = nil
            item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            var query = Self.password("a")
            query[kSecAttrSynchronizable as String] = true
            let change = [kSecAttrAccessible as String: kSecAttrAccessibleWhenUnlockedThisDeviceOnly]
            #expect(SecItemUpdate(query as CFDictionary, change as CFDictionary) == errSecParam)
            #expect(SecAccessControlCreateWithFlags(nil, "not a protection" as CFTypeRef, [], nil) == nil)
        }
    }

    @Test("a locked device: WhenUnlocked data is errSecInteractionNotAllowed, mapped to interactionNotAllowed")
    func lockedDevice() async throws {
        let keychain = SimulatedKeychain()
        var locked = SimulatedKeychain.Conditions()
        locked.lockState = .lockedAfterFirstUnlock
        let store = KeychainStore()
        try await SimulatedKeychain.$current.withValue(keychain) {
            try await store.setSecret([1], service: "s", account: "background", accessibility: .afterFirstUnlock)
            try await store.add(.genericPassword(service: "s", account: "foreground", value: [2]))
            try await SimulatedKeychain.$conditions.withValue(locked) { () async throws in
                var query = Self.password("foreground", service: "s")
                query[kSecReturnData as String] = true
                var result: CFTypeRef?
                #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecInteractionNotAllowed)
                await #expect(throws: VaultError.interactionNotAllowed()) {
                    try await store.read(.genericPassword(service: "s", account: "foreground"))
                }
                #expect(try await store.secret(service: "s", account: "background") == [1])
                await #expect(throws: VaultError.interactionNotAllowed()) {
                    try await store.add(.genericPassword(service: "s", account: "new", value: [3]))
                }
            }
        }
    }

    @Test("an unentitled access group is errSecMissingEntitlement, mapped to missingEntitlement")
    func missingEntitlement() async throws {
        var app = SimulatedKeychain.Conditions()
        app.entitlements = Entitlements(teamIdentifier: "T", bundleIdentifier: "com.example.app")
        try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try await SimulatedKeychain.$conditions.withValue(app) {
                var item = Self.password("a")
                item[kSecAttrAccessGroup as String] = "OTHER.com.example.app"
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecMissingEntitlement)
                await #expect(throws: VaultError.missingEntitlement()) {
                    try await KeychainStore().add(
                        .genericPassword(service: "s", account: "a", value: [1], accessGroup: "OTHER.x"))
                }
                try await KeychainStore().add(.genericPassword(service: "s", account: "a", value: [1]))
                let item2 = try await KeychainStore().readOne(.genericPassword(service: "s", account: "a"))
                #expect(item2.accessGroup == "T.com.example.app")
            }
        }
    }

    @Test("a canceled or failed prompt: errSecUserCanceled and errSecAuthFailed, both mapped to authFailed")
    func userPrompt() async throws {
        let keychain = SimulatedKeychain()
        var item = VaultItem.genericPassword(service: "s", account: "a", value: [7])
        item.accessControl = .userPresence
        try await SimulatedKeychain.$current.withValue(keychain) {
            try await KeychainStore().add(item)
            for (answer, status) in [
                (SimulatedKeychain.UserAuthenticationResult.canceled, errSecUserCanceled), (.failed, errSecAuthFailed),
            ] {
                var conditions = SimulatedKeychain.Conditions()
                conditions.userAuthentication = { _ in answer }
                try await SimulatedKeychain.$conditions.withValue(conditions) { () async throws in
                    var query = Self.password("a", service: "s")
                    query[kSecReturnData as String] = true
                    var result: CFTypeRef?
                    #expect(SecItemCopyMatching(query as CFDictionary, &result) == status)
                    await #expect(throws: VaultError.authFailed()) {
                        try await KeychainStore().read(.genericPassword(service: "s", account: "a"))
                    }
                }
            }
            var passing = SimulatedKeychain.Conditions()
            passing.userAuthentication = { flags in flags == .userPresence ? .succeeded : .failed }
            let value = try await SimulatedKeychain.$conditions.withValue(passing) {
                try await KeychainStore().secret(service: "s", account: "a")
            }
            #expect(value == [7])
        }
    }
}
