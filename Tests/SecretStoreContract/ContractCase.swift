public import Foundation
public import RampartSecretStore
public import Testing

/// How a contract case makes the stores it talks to: every store one ``ContractCase`` makes shares one fresh, empty
/// backing store (one device's Keychain, one vault file) and differs only in the caller's view of it.
///
/// The parameters are ``Vault``'s: a ``Vault`` over a ``VaultBackend`` takes them as they are; a Keychain adapter
/// plays them as the app's entitlements and the simulated device's lock state, user prompt, biometric enrollment and
/// clock.
public struct SecretStoreMaker: Sendable {
    /// What a store is made with.
    public struct Configuration: Sendable {
        /// The caller's access groups.
        public var entitlements: Entitlements
        /// The device's lock state at each call.
        public var lockState: @Sendable () -> DeviceLockState
        /// Answers access-control checks; nil when no user can be asked.
        public var authenticator: Vault.UserAuthenticator?
        /// The biometric enrollment state, or nil when none is enrolled.
        public var biometryEnrollment: @Sendable () -> [UInt8]?
        /// The clock for creation and modification dates.
        public var now: @Sendable () -> Date
    }

    private let make: @Sendable (Configuration) -> any SecretStore

    /// Wraps a function that makes a store over the case's shared backing store.
    ///
    /// - Parameter make: Makes a store for one configuration.
    public init(_ make: @escaping @Sendable (Configuration) -> any SecretStore) { self.make = make }

    /// Stores that are ``Vault``s over `backend`.
    ///
    /// - Parameter backend: A fresh, empty backend.
    /// - Returns: The maker.
    public static func vault(over backend: any VaultBackend) -> SecretStoreMaker {
        SecretStoreMaker { configuration in
            Vault(
                backend: backend, entitlements: configuration.entitlements, lockState: configuration.lockState,
                authenticator: configuration.authenticator, biometryEnrollment: configuration.biometryEnrollment,
                now: configuration.now)
        }
    }

    /// Makes a store; the defaults are ``Vault``'s.
    ///
    /// - Parameters:
    ///   - entitlements: The caller's access groups; unrestricted by default.
    ///   - lockState: The device's lock state; unlocked by default.
    ///   - authenticator: Answers access-control checks; none by default.
    ///   - biometryEnrollment: The biometric enrollment; none by default.
    ///   - now: The clock.
    /// - Returns: A store over the shared backing store.
    public func callAsFunction(
        entitlements: Entitlements = .unrestricted(),
        lockState: @escaping @Sendable () -> DeviceLockState = { .unlocked },
        authenticator: Vault.UserAuthenticator? = nil,
        biometryEnrollment: @escaping @Sendable () -> [UInt8]? = { nil },
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> any SecretStore {
        make(
            Configuration(
                entitlements: entitlements, lockState: lockState, authenticator: authenticator,
                biometryEnrollment: biometryEnrollment, now: now))
    }
}

/// One rule of the ``SecretStore`` contract, run against a fresh, empty backing store.
///
/// The same cases run against every store (the in-memory, file and Secret Service backends through ``Vault``, and
/// the Keychain through RampartApple's `KeychainStore`), so all of them keep Keychain semantics the same way.
public struct ContractCase: Sendable, CustomTestStringConvertible {
    /// What the case checks.
    public let name: String
    /// Runs the case with stores from the maker; fails through `#expect` and by throwing.
    public let run: @Sendable (SecretStoreMaker) async throws -> Void

    /// The name, shown by Swift Testing for each argument.
    public var testDescription: String { name }

    init(_ name: String, _ run: @escaping @Sendable (SecretStoreMaker) async throws -> Void) {
        self.name = name
        self.run = run
    }
}

/// A fixed clock, so dates in the contract are predictable.
let contractNow: @Sendable () -> Date = { Date(timeIntervalSince1970: 1_790_000_000) }

func token(_ text: String) -> [UInt8] { Array(text.utf8) }

extension ContractCase {
    /// Every rule, in the order they are documented.
    public static let all: [ContractCase] = [
        ContractCase("add then read returns the value, attributes, default group and dates") { store in
            let vault = store(entitlements: Entitlements(accessGroups: ["T.app"]), now: contractNow)
            var item = VaultItem.genericPassword(
                service: "api.example.com", account: "refresh_token", value: token("r1.secret"))
            item.attributes.label = "Refresh token"
            item.attributes.generic = [0, 1, 2]
            try await vault.add(item)
            let read = try await vault.readOne(.genericPassword(service: "api.example.com", account: "refresh_token"))
            #expect(read.value == token("r1.secret"))
            #expect(read.attributes.label == "Refresh token")
            #expect(read.attributes.generic == [0, 1, 2])
            #expect(read.accessGroup == "T.app")
            #expect(read.accessibility == .whenUnlocked)
            #expect(read.synchronizable == false)
            #expect(read.creationDate == contractNow())
            #expect(read.modificationDate == contractNow())
        },
        ContractCase("a second add of the same primary key is duplicateItem and keeps the first value") { store in
            let vault = store()
            try await vault.add(.genericPassword(service: "s", account: "a", value: token("first")))
            await #expect(throws: VaultError.duplicateItem()) {
                try await vault.add(.genericPassword(service: "s", account: "a", value: token("second")))
            }
            #expect(try await vault.secret(service: "s", account: "a") == token("first"))
        },
        ContractCase("label and accessibility are not part of the primary key") { store in
            let vault = store()
            var item = VaultItem.genericPassword(service: "s", account: "a", value: token("v"))
            try await vault.add(item)
            item.attributes.label = "other label"
            item.accessibility = .afterFirstUnlock
            await #expect(throws: VaultError.duplicateItem()) { try await vault.add(item) }
            try await vault.update(
                .genericPassword(service: "s", account: "a"),
                with: ItemChanges(attributes: ItemAttributes(label: "renamed"), accessibility: .afterFirstUnlock))
            let items = try await vault.read(ItemQuery(itemClass: .genericPassword))
            #expect(items.count == 1)
            #expect(items.first?.attributes.label == "renamed")
            #expect(items.first?.accessibility == .afterFirstUnlock)
        },
        ContractCase("update changes the value; updating a missing item is itemNotFound") { store in
            let vault = store()
            await #expect(throws: VaultError.itemNotFound()) {
                try await vault.update(.genericPassword(service: "s", account: "a"), with: ItemChanges(value: [1]))
            }
            try await vault.add(.genericPassword(service: "s", account: "a", value: token("old")))
            try await vault.update(.genericPassword(service: "s", account: "a"), with: ItemChanges(value: token("new")))
            #expect(try await vault.secret(service: "s", account: "a") == token("new"))
        },
        ContractCase("upsert adds, then updates the same item") { store in
            let vault = store()
            let item = VaultItem.genericPassword(service: "s", account: "a", value: token("one"))
            #expect(try await vault.upsert(item) == true)
            var second = item
            second.value = token("two")
            #expect(try await vault.upsert(second) == false)
            let items = try await vault.read(ItemQuery(itemClass: .genericPassword))
            #expect(items.map(\.value) == [token("two")])
        },
        ContractCase("read and delete of a missing item are itemNotFound; delete removes") { store in
            let vault = store()
            await #expect(throws: VaultError.itemNotFound()) {
                try await vault.read(.genericPassword(service: "s", account: "a"))
            }
            await #expect(throws: VaultError.itemNotFound()) {
                try await vault.delete(.genericPassword(service: "s", account: "a"))
            }
            try await vault.add(.genericPassword(service: "s", account: "a", value: [1]))
            try await vault.delete(.genericPassword(service: "s", account: "a"))
            #expect(try await vault.secret(service: "s", account: "a") == nil)
        },
        ContractCase("match limits one, all and count; a zero limit is invalidParameters") { store in
            let vault = store()
            for index in 0..<3 {
                try await vault.add(.genericPassword(service: "s", account: "a\(index)", value: [UInt8(index)]))
            }
            var query = ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(service: "s"))
            #expect(try await vault.read(query).count == 3)
            query.matchLimit = .one
            #expect(try await vault.read(query).count == 1)
            query.matchLimit = .count(2)
            #expect(try await vault.read(query).count == 2)
            query.matchLimit = .count(0)
            await #expect(throws: VaultError.invalidParameters()) { try await vault.read(query) }
        },
        ContractCase("filters match on every attribute given, and reads without data omit values") { store in
            let vault = store()
            var first = VaultItem.genericPassword(service: "s1", account: "a", value: [1])
            first.attributes.label = "L"
            try await vault.add(first)
            try await vault.add(.genericPassword(service: "s2", account: "a", value: [2]))
            try await vault.add(.genericPassword(service: "s2", account: "b", value: [3]))
            let byAccount = try await vault.read(
                ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(account: "a")))
            #expect(Set(byAccount.map(\.value)) == [[1], [2]])
            let byLabel = try await vault.read(
                ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(label: "L")))
            #expect(byLabel.map(\.value) == [[1]])
            let attributesOnly = try await vault.read(ItemQuery(itemClass: .genericPassword, returnData: false))
            #expect(attributesOnly.count == 3)
            #expect(attributesOnly.allSatisfy { $0.value.isEmpty })
            await #expect(throws: VaultError.itemNotFound()) {
                try await vault.read(ItemQuery(itemClass: .internetPassword))
            }
        },
        ContractCase("ThisDeviceOnly or access control with synchronizable is invalidParameters") { store in
            let vault = store()
            var item = VaultItem.genericPassword(
                service: "s", account: "a", value: [1], accessibility: .afterFirstUnlockThisDeviceOnly)
            item.synchronizable = true
            await #expect(throws: VaultError.invalidParameters()) { try await vault.add(item) }
            item.accessibility = .afterFirstUnlock
            item.accessControl = .userPresence
            await #expect(throws: VaultError.invalidParameters()) { try await vault.add(item) }
            item.accessControl = []
            try await vault.add(item)
            await #expect(throws: VaultError.invalidParameters()) {
                try await vault.update(
                    .genericPassword(service: "s", account: "a"),
                    with: ItemChanges(accessibility: .whenUnlockedThisDeviceOnly))
            }
            #expect(
                try await vault.readOne(.genericPassword(service: "s", account: "a")).accessibility == .afterFirstUnlock
            )
        },
        ContractCase("queries match synced and unsynced items unless told otherwise") { store in
            let vault = store()
            var synced = VaultItem.genericPassword(service: "s", account: "a", value: token("cloud"))
            synced.synchronizable = true
            try await vault.add(synced)
            try await vault.add(.genericPassword(service: "s", account: "a", value: token("local")))
            var query = ItemQuery.genericPassword(service: "s", account: "a")
            #expect(Set(try await vault.read(query).map(\.value)) == [token("cloud"), token("local")])
            query.synchronizable = .synchronizable
            #expect(try await vault.read(query).map(\.value) == [token("cloud")])
            query.synchronizable = .notSynchronizable
            #expect(try await vault.read(query).map(\.value) == [token("local")])
        },
        ContractCase("an attribute of another class is noSuchAttribute") { store in
            let vault = store()
            var item = VaultItem.genericPassword(service: "s", account: "a", value: [1])
            item.attributes.server = "example.com"
            await #expect(throws: VaultError.noSuchAttribute()) { try await vault.add(item) }
            await #expect(throws: VaultError.noSuchAttribute()) {
                try await vault.read(ItemQuery(itemClass: .key, attributes: ItemAttributes(service: "s")))
            }
        },
        ContractCase("access groups: items are visible only to entitled callers") { store in
            let appA = store(entitlements: Entitlements(teamIdentifier: "T", bundleIdentifier: "a"))
            let appB = store(entitlements: Entitlements(teamIdentifier: "T", bundleIdentifier: "b"))
            let shared = store(
                entitlements: Entitlements(teamIdentifier: "T", bundleIdentifier: "c", sharedGroups: ["shared"]))
            try await appA.add(.genericPassword(service: "s", account: "a", value: token("A's")))
            #expect(try await appB.secret(service: "s", account: "a") == nil)
            await #expect(throws: VaultError.missingEntitlement()) {
                try await appB.read(.genericPassword(service: "s", account: "a", accessGroup: "T.a"))
            }
            await #expect(throws: VaultError.missingEntitlement()) {
                try await appB.add(.genericPassword(service: "s", account: "x", value: [1], accessGroup: "T.a"))
            }
            await #expect(throws: VaultError.itemNotFound()) {
                try await appB.delete(.genericPassword(service: "s", account: "a"))
            }
            try await appB.add(.genericPassword(service: "s", account: "a", value: token("B's")))
            #expect(try await appA.secret(service: "s", account: "a") == token("A's"))
            try await shared.add(.genericPassword(service: "s", account: "a", value: token("team")))
            let sharedItem = try await shared.readOne(.genericPassword(service: "s", account: "a"))
            #expect(sharedItem.accessGroup == "T.shared")
            await #expect(throws: VaultError.missingEntitlement()) {
                try await store(entitlements: Entitlements(accessGroups: []))
                    .add(.genericPassword(service: "s", account: "z", value: [1]))
            }
        },
        ContractCase("lock state: when-unlocked items are interactionNotAllowed while locked") { store in
            let writer = store()
            try await writer.add(.genericPassword(service: "s", account: "fg", value: [1]))
            try await writer.add(
                .genericPassword(service: "s", account: "bg", value: [2], accessibility: .afterFirstUnlock))
            let locked = store(lockState: { .lockedAfterFirstUnlock })
            await #expect(throws: VaultError.interactionNotAllowed()) {
                try await locked.read(.genericPassword(service: "s", account: "fg"))
            }
            #expect(try await locked.secret(service: "s", account: "bg") == [2])
            var attributesOnly = ItemQuery.genericPassword(service: "s", account: "fg")
            attributesOnly.returnData = false
            #expect(try await locked.read(attributesOnly).count == 1)
            await #expect(throws: VaultError.interactionNotAllowed()) {
                try await locked.add(.genericPassword(service: "s", account: "new", value: [3]))
            }
            let booted = store(lockState: { .beforeFirstUnlock })
            await #expect(throws: VaultError.interactionNotAllowed()) {
                try await booted.read(.genericPassword(service: "s", account: "bg"))
            }
        },
        ContractCase("access control asks the authenticator; a refusal is authFailed") { store in
            var item = VaultItem.genericPassword(service: "s", account: "a", value: token("presence"))
            item.accessControl = .userPresence
            try await store().add(item)
            let query = ItemQuery.genericPassword(service: "s", account: "a")
            await #expect(throws: VaultError.interactionNotAllowed()) { try await store().read(query) }
            await #expect(throws: VaultError.authFailed()) {
                try await store(authenticator: { _, _ in false }).read(query)
            }
            let passing = store(authenticator: { flags, _ in flags == .userPresence })
            #expect(try await passing.readOne(query).value == token("presence"))
        },
        ContractCase("biometry-current-set items become unreadable when the enrollment changes") { store in
            let enrolled: @Sendable () -> [UInt8]? = { [1, 2, 3] }
            let vault = store(authenticator: { _, _ in true }, biometryEnrollment: enrolled)
            var item = VaultItem.genericPassword(service: "s", account: "bio", value: token("bio"))
            item.accessControl = .biometryCurrentSet
            await #expect(throws: VaultError.interactionNotAllowed()) {
                try await store(authenticator: { _, _ in true }).add(item)
            }
            try await vault.add(item)
            let query = ItemQuery.genericPassword(service: "s", account: "bio")
            #expect(try await vault.readOne(query).value == token("bio"))
            let reenrolled = store(
                authenticator: { _, _ in true }, biometryEnrollment: { [1, 2, 4] })
            await #expect(throws: VaultError.authFailed()) { try await reenrolled.read(query) }
            let unenrolled = store(authenticator: { _, _ in true })
            await #expect(throws: VaultError.authFailed()) { try await unenrolled.read(query) }
            try await reenrolled.update(
                query, with: ItemChanges(value: token("new"), accessControl: .biometryCurrentSet))
            #expect(try await reenrolled.readOne(query).value == token("new"))
            await #expect(throws: VaultError.authFailed()) { try await vault.read(query) }
        },
        ContractCase("internet passwords, keys and certificates use their own primary keys") { store in
            let vault = store()
            let https = ItemAttributes(account: "u", server: "example.com", protocol: "https", port: 443)
            try await vault.add(VaultItem(itemClass: .internetPassword, attributes: https, value: [1]))
            var other = https
            other.port = 8443
            try await vault.add(VaultItem(itemClass: .internetPassword, attributes: other, value: [2]))
            await #expect(throws: VaultError.duplicateItem()) {
                try await vault.add(VaultItem(itemClass: .internetPassword, attributes: https, value: [3]))
            }
            let found = try await vault.read(
                ItemQuery(itemClass: .internetPassword, attributes: ItemAttributes(port: 8443)))
            #expect(found.map(\.value) == [[2]])
            let tag = ItemAttributes(applicationTag: token("com.example.kek"), keyType: "aes-256")
            try await vault.add(VaultItem(itemClass: .key, attributes: tag, value: [UInt8](repeating: 7, count: 32)))
            #expect(try await vault.readOne(ItemQuery(itemClass: .key, attributes: tag)).value.count == 32)
            let cert = ItemAttributes(issuer: [0x30, 0x00], serialNumber: [1])
            try await vault.add(VaultItem(itemClass: .certificate, attributes: cert, value: [0x30, 0x03, 2, 1, 1]))
            #expect(try await vault.read(ItemQuery(itemClass: .certificate)).count == 1)
        },
        ContractCase("an update onto another item's primary key is duplicateItem and changes nothing") { store in
            let vault = store()
            try await vault.add(.genericPassword(service: "s", account: "a", value: [1]))
            try await vault.add(.genericPassword(service: "s", account: "b", value: [2]))
            await #expect(throws: VaultError.duplicateItem()) {
                try await vault.update(
                    .genericPassword(service: "s", account: "a"),
                    with: ItemChanges(attributes: ItemAttributes(account: "b"), value: [9]))
            }
            #expect(try await vault.secret(service: "s", account: "a") == [1])
            #expect(try await vault.secret(service: "s", account: "b") == [2])
        },
        ContractCase("secret, setSecret and deleteSecret by service and account") { store in
            let vault = store()
            #expect(try await vault.secret(service: "api", account: "refresh_token") == nil)
            try await vault.setSecret(token("t1"), service: "api", account: "refresh_token")
            try await vault.setSecret(token("t2"), service: "api", account: "refresh_token")
            #expect(try await vault.secret(service: "api", account: "refresh_token") == token("t2"))
            let item = try await vault.readOne(.genericPassword(service: "api", account: "refresh_token"))
            #expect(item.accessibility == .afterFirstUnlock)
            #expect(try await vault.deleteSecret(service: "api", account: "refresh_token"))
            #expect(try await vault.deleteSecret(service: "api", account: "refresh_token") == false)
        },
        ContractCase("concurrent adds of one primary key: exactly one succeeds, the rest are duplicateItem") {
            store in
            let vault = store()
            let outcomes = await withTaskGroup(of: VaultError.Code?.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        do {
                            try await vault.add(.genericPassword(service: "race", account: "a", value: [UInt8(index)]))
                            return nil
                        } catch let error as VaultError {
                            return error.code
                        } catch {
                            return .ioFailure
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == nil }.count == 1)
            #expect(outcomes.filter { $0 == .duplicateItem }.count == 7)
            let stored = try await vault.read(.genericPassword(service: "race", account: "a"))
            #expect(stored.count == 1)
        },
        ContractCase("binary and empty values round-trip; an oversized value is invalidParameters") { store in
            let vault = store()
            let binary: [UInt8] = [0, 0xFF, 0, 10, 13, 0x80]
            try await vault.setSecret(binary, service: "s", account: "bin")
            try await vault.setSecret([], service: "s", account: "empty")
            #expect(try await vault.secret(service: "s", account: "bin") == binary)
            #expect(try await vault.secret(service: "s", account: "empty") == [])
            await #expect(throws: VaultError.invalidParameters()) {
                try await vault.setSecret(
                    [UInt8](repeating: 1, count: VaultLimits.maxValueByteCount + 1), service: "s", account: "big")
            }
        },
        ContractCase("text with a NUL inside is kept whole: \"alice\\0evil\" neither finds nor replaces \"alice\"") {
            store in
            let vault = store(entitlements: Entitlements(accessGroups: ["T.app", "T.app\u{0}x"]))
            try await vault.setSecret(token("alice's"), service: "s", account: "alice")
            #expect(try await vault.secret(service: "s", account: "alice\u{0}evil") == nil)
            try await vault.setSecret(token("evil's"), service: "s", account: "alice\u{0}evil")
            #expect(try await vault.secret(service: "s", account: "alice") == token("alice's"))
            #expect(try await vault.secret(service: "s", account: "alice\u{0}evil") == token("evil's"))
            let accounts = try await vault.read(ItemQuery(itemClass: .genericPassword)).map(\.attributes.account)
            #expect(Set(accounts) == ["alice", "alice\u{0}evil"])
            try await vault.update(
                .genericPassword(service: "s", account: "alice\u{0}evil"),
                with: ItemChanges(attributes: ItemAttributes(service: "s\u{0}", label: "L\u{0}abel")))
            let moved = try await vault.readOne(.genericPassword(service: "s\u{0}", account: "alice\u{0}evil"))
            #expect(moved.attributes.label == "L\u{0}abel")
            #expect(moved.value == token("evil's"))
            #expect(try await vault.deleteSecret(service: "s\u{0}", account: "alice\u{0}evil"))
            #expect(try await vault.secret(service: "s", account: "alice") == token("alice's"))
            var internet = ItemAttributes(
                account: "u", server: "example.com\u{0}.evil", protocol: "https", port: 443, path: "/\u{0}")
            internet.label = "\u{0}"
            try await vault.add(
                VaultItem(itemClass: .internetPassword, attributes: internet, value: [1], accessGroup: "T.app\u{0}x"))
            let found = try await vault.readOne(
                ItemQuery(itemClass: .internetPassword, attributes: ItemAttributes(server: "example.com\u{0}.evil")))
            #expect(found.attributes.server == "example.com\u{0}.evil")
            #expect(found.attributes.path == "/\u{0}")
            #expect(found.attributes.label == "\u{0}")
            #expect(found.accessGroup == "T.app\u{0}x")
            await #expect(throws: VaultError.itemNotFound()) {
                try await vault.read(
                    ItemQuery(itemClass: .internetPassword, attributes: ItemAttributes(server: "example.com")))
            }
            await #expect(throws: VaultError.itemNotFound()) {
                try await vault.read(ItemQuery(itemClass: .internetPassword, accessGroup: "T.app"))
            }
        },
    ]
}
