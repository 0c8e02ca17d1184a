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

    @Test("internet passwords: port and protocol are part of the primary key; a missing one is stored as 0")
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
            // A missing protocol is a numeric attribute's default 0 (kSecDbDefault0Flag, the Z of "ptcl" in
            // keychain/securityd/SecItemSchema.c:118), which "" is not: "" stays a string (copyNumber).
            item[kSecAttrProtocol as String] = ""
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            item[kSecAttrProtocol as String] = 0
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecDuplicateItem)
        }
    }

    @Test("errSecParam: no class, SynchronizableAny in an add, both Accessible and AccessControl")
    func parameterRules() {
        onDevice {
            var result: CFTypeRef?
            #expect(SecItemAdd([kSecAttrAccount as String: "a"] as CFDictionary, nil) == errSecParam)
            #expect(SecItemCopyMatching([kSecAttrAccount as String: "a"] as CFDictionary, &result) == errSecParam)
            #expect(SecItemAdd(Self.password("a") as CFDictionary, nil) == errSecSuccess)
            var all = Self.password("a")
            all[kSecMatchLimit as String] = kSecMatchLimitAll
            all[kSecReturnPersistentRef as String] = true
            #expect(SecItemCopyMatching(all as CFDictionary, &result) == errSecSuccess)
            var any = Self.password("b")
            any[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
            #expect(SecItemAdd(any as CFDictionary, nil) == errSecParam)
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

    // MARK: As securityd does (apple-oss-distributions/Security), where the documentation is silent

    @Test("a limit of 1 (kSecMatchLimitOne or the number 1) gives the match itself; 0 and -5 one in an array; -1 all")
    func matchLimitShapes() {
        onDevice {
            for account in ["a", "b", "c"] {
                var item = Self.password(account)
                item[kSecValueData as String] = Data([1])
                #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            }
            func search(_ limit: Any) -> (OSStatus, CFTypeRef?) {
                var query = Self.password("a")
                query[kSecAttrAccount as String] = nil
                query[kSecReturnAttributes as String] = true
                query[kSecMatchLimit as String] = limit
                var result: CFTypeRef?
                return (SecItemCopyMatching(query as CFDictionary, &result), result)
            }
            for limit in [kSecMatchLimitOne as Any, 1] {
                let (status, result) = search(limit)
                #expect(status == errSecSuccess)
                #expect(result is [String: Any], "kSecMatchLimit \(limit) gave \(String(describing: result))")
            }
            for (limit, count) in [(0, 1), (-5, 1), (2, 2), (-1, 3)] {
                let (status, result) = search(limit)
                #expect(status == errSecSuccess)
                #expect((result as? [[String: Any]])?.count == count, "kSecMatchLimit \(limit)")
            }
        }
    }

    @Test("constants are Security's values, and numeric attributes come back as numbers (kSecAttrKeyType 73)")
    func numericAttributes() throws {
        #expect(kSecClassGenericPassword as String == "genp")
        #expect(kSecAttrKeyTypeECSECPrimeRandom as String == "73")
        #expect(kSecAttrAccessibleWhenUnlocked as String == "ak")
        try onDevice {
            let key: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecAttrApplicationTag as String: "tag",
                kSecValueData as String: Data([1]),
            ]
            #expect(SecItemAdd(key as CFDictionary, nil) == errSecSuccess)
            var query: [String: Any] = [
                kSecClass as String: kSecClassKey, kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
                kSecReturnAttributes as String: true,
            ]
            var result: CFTypeRef?
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)
            let found = try #require(result as? [String: Any])
            #expect(found[kSecAttrKeyType as String] as? Int == 73)
            #expect(found[kSecAttrKeyClass as String] as? Int == 1)
            #expect(found[kSecAttrApplicationTag as String] as? String == "tag")
            query[kSecAttrKeyType as String] = 73
            #expect(SecItemCopyMatching(query as CFDictionary, &result) == errSecSuccess)

            var site = Self.password("a")
            site[kSecClass as String] = kSecClassInternetPassword
            site[kSecAttrService as String] = nil
            site[kSecAttrProtocol as String] = kSecAttrProtocolHTTPS
            site[kSecAttrServer as String] = "example.com"
            #expect(SecItemAdd(site as CFDictionary, nil) == errSecSuccess)
            site[kSecReturnAttributes as String] = true
            #expect(SecItemCopyMatching(site as CFDictionary, &result) == errSecSuccess)
            #expect((result as? [String: Any])?[kSecAttrProtocol as String] as? String == "htps")
        }
    }

    @Test("SecItemDelete refuses a match limit and SecItemUpdate a kSecReturn key (errSecParam)")
    func deleteAndUpdateRefusals() {
        onDevice {
            var item = Self.password("a")
            item[kSecValueData as String] = Data([1])
            #expect(SecItemAdd(item as CFDictionary, nil) == errSecSuccess)
            var limited = Self.password("a")
            limited[kSecMatchLimit as String] = kSecMatchLimitOne
            #expect(SecItemDelete(limited as CFDictionary) == errSecParam)
            var returning = Self.password("a")
            returning[kSecReturnAttributes as String] = true
            #expect(
                SecItemUpdate(returning as CFDictionary, [kSecAttrLabel as String: "L"] as CFDictionary) == errSecParam)
            limited[kSecMatchLimit as String] = kSecMatchLimitAll
            #expect(SecItemDelete(limited as CFDictionary) == errSecSuccess)
        }
    }

    @Test("SecAccessControlCreateWithFlags refuses userPresence with another check, both biometry flags, or with and")
    func accessControlRefusals() {
        let refused: [SecAccessControlCreateFlags] = [
            [.userPresence, .biometryAny], [.userPresence, .devicePasscode], [.biometryAny, .biometryCurrentSet],
            [.or, .and, .devicePasscode],
        ]
        for flags in refused {
            var error: Unmanaged<CFError>?
            let control = SecAccessControlCreateWithFlags(
                nil, kSecAttrAccessibleWhenUnlocked as CFTypeRef, flags, &error)
            #expect(control == nil, "flags \(flags.rawValue)")
            #expect(error.map { CFErrorGetCode($0.takeRetainedValue()) } == CFIndex(errSecParam))
        }
        let allowed: [SecAccessControlCreateFlags] = [
            [.userPresence, .privateKeyUsage], [.userPresence, .applicationPassword], [.biometryAny, .devicePasscode],
            [.biometryCurrentSet, .or, .devicePasscode],
        ]
        for flags in allowed {
            var error: Unmanaged<CFError>?
            #expect(
                SecAccessControlCreateWithFlags(nil, kSecAttrAccessibleWhenUnlocked as CFTypeRef, flags, &error) != nil,
                "flags \(flags.rawValue)")
        }
    }

    @Test("KeychainStore over securityd's shapes: reads with limit 1, keyType read back from a number, refused checks")
    func keychainStoreOverDeviceShapes() async throws {
        try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            let store = KeychainStore()
            for account in ["a", "b"] {
                try await store.add(.genericPassword(service: "s", account: account, value: [1]))
            }
            var query = ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(service: "s"))
            query.matchLimit = .count(1)
            #expect(try await store.read(query).count == 1)
            query.matchLimit = .count(-1)
            await #expect(throws: VaultError.invalidParameters()) { try await store.read(query) }

            for keyType in ["ec-p256", "rsa", "aes-256"] {
                let attributes = ItemAttributes(applicationTag: Array(keyType.utf8), keyType: keyType)
                try await store.add(VaultItem(itemClass: .key, attributes: attributes, value: [2]))
                let read = try await store.read(ItemQuery(itemClass: .key, attributes: attributes))
                #expect(read.map(\.attributes.keyType) == [keyType])
            }

            var item = VaultItem.genericPassword(service: "s", account: "checked", value: [3])
            for flags in [AccessControl.userPresence.union(.biometryAny), [.biometryAny, .biometryCurrentSet]] {
                item.accessControl = flags
                await #expect(throws: VaultError.invalidParameters()) { try await store.add(item) }
            }
        }
    }
}
