import Foundation
import SecretStoreContract
import TestSupport
import Testing

@testable import RampartVault

/// Whether a private, unlocked keyring is reachable: `scripts/with-keyring.sh` starts one on a private D-Bus session
/// and sets `RAMPART_SECRET_SERVICE_TESTS=1`. The opt-in keeps a plain `swift test` on a desktop away from the
/// user's own login keyring.
enum SecretServiceFixture {
    static let isAvailable: Bool = {
        let environment = ProcessInfo.processInfo.environment
        guard environment["RAMPART_SECRET_SERVICE_TESTS"] == "1",
            environment["DBUS_SESSION_BUS_ADDRESS"] != nil
        else { return false }
        return (try? SecretServiceBackend(namespace: "rampart-probe")) != nil
    }()

    /// A backend with a namespace of its own, so each case starts empty.
    static func freshBackend() throws -> SecretServiceBackend {
        try SecretServiceBackend(namespace: "rampart-test-\(UUID().uuidString)")
    }

    /// Deletes everything in the backend's namespace.
    static func clean(_ backend: SecretServiceBackend) async {
        for itemClass in ItemClass.allCases {
            _ = try? await backend.delete(matching: ItemFilter(itemClass: itemClass))
        }
    }
}

@Suite(
    .enabled(
        if: SecretServiceFixture.isAvailable,
        "skipped: no private Secret Service; run under scripts/with-keyring.sh (dbus-run-session, gnome-keyring-daemon --unlock), as scripts/test.sh does"
    ))
struct SecretServiceContractTests {
    @Test("contract: Secret Service (libsecret, gnome-keyring)", arguments: ContractCase.all)
    func contract(_ contractCase: ContractCase) async throws {
        let backend = try SecretServiceFixture.freshBackend()
        do {
            try await contractCase.run(.vault(over: backend))
        } catch {
            await SecretServiceFixture.clean(backend)
            throw error
        }
        await SecretServiceFixture.clean(backend)
    }

    @Test("namespaces do not see each other's items")
    func namespaces() async throws {
        let first = try SecretServiceFixture.freshBackend()
        let second = try SecretServiceFixture.freshBackend()
        try await Vault(backend: first).setSecret([1], service: "s", account: "a")
        #expect(try await Vault(backend: second).secret(service: "s", account: "a") == nil)
        await SecretServiceFixture.clean(first)
        #expect(try await Vault(backend: first).secret(service: "s", account: "a") == nil)
    }

    /// A libsecret connection with the backend's schema, to see and write items as they are stored.
    func rawConnection() throws -> SecretServiceConnection {
        try SecretServiceConnection(
            schemaName: SecretServiceBackend.schemaName, attributeNames: SecretServiceBackend.attributeNames)
    }

    /// Every item in `backend`'s namespace, with its attributes as libsecret holds them.
    func storedItems(_ backend: SecretServiceBackend) throws -> [SecretServiceConnection.Found] {
        try rawConnection().search(["rampart-namespace": backend.namespace])
    }

    @Test("text without a NUL is stored as before; text with one is hex, listed in hex-encoded")
    func storedForms() async throws {
        let backend = try SecretServiceFixture.freshBackend()
        defer { Task { await SecretServiceFixture.clean(backend) } }
        let vault = Vault(backend: backend, entitlements: Entitlements(accessGroups: ["g\u{0}", "g"]))
        try await vault.add(.genericPassword(service: "s%61", account: "6100", value: [1], accessGroup: "g"))
        try await vault.add(.genericPassword(service: "s", account: "a\u{0}", value: [2], accessGroup: "g\u{0}"))
        let stored = try storedItems(backend).map(\.attributes).sorted { ($0["service"] ?? "") < ($1["service"] ?? "") }
        try #require(stored.count == 2)
        #expect(stored[0]["service"] == "s")
        #expect(stored[0]["account"] == "6100")
        #expect(stored[0]["access-group"] == "6700")
        #expect(stored[0]["hex-encoded"] == "access-group account")
        #expect(stored[1]["service"] == "s%61")
        #expect(stored[1]["account"] == "6100")
        #expect(stored[1]["access-group"] == "g")
        #expect(stored[1]["hex-encoded"] == nil)
        // "6100" is both an account as is and the hex of "a\0": each query finds its own item.
        #expect(try await vault.secret(service: "s%61", account: "6100") == [1])
        #expect(try await vault.secret(service: "s", account: "a\u{0}") == [2])
        #expect(try await vault.secret(service: "s", account: "6100") == nil)
    }

    @Test("an item without a NUL has exactly the attributes older versions wrote, so their items read unchanged")
    func olderItems() async throws {
        let backend = try SecretServiceFixture.freshBackend()
        defer { Task { await SecretServiceFixture.clean(backend) } }
        try await Vault(backend: backend).setSecret([7], service: "api", account: "refresh_token")
        let stored = try #require(storedItems(backend).first).attributes
        #expect(
            Set(stored.keys) == [
                "xdg:schema", "rampart-namespace", "class", "primary-key", "access-group", "synchronizable",
                "accessibility", "access-control", "created", "modified", "service", "account",
            ])
        #expect(stored["service"] == "api")
        #expect(stored["account"] == "refresh_token")
        #expect(stored["access-group"] == "default")
    }

    @Test("a malformed hex-encoded value is integrityFailure")
    func malformedHex() async throws {
        let backend = try SecretServiceFixture.freshBackend()
        defer { Task { await SecretServiceFixture.clean(backend) } }
        let vault = Vault(backend: backend)
        try await vault.setSecret([1], service: "s", account: "a\u{0}")
        let raw = try rawConnection()
        let found = try #require(storedItems(backend).first)
        try raw.delete(found.handle)
        var attributes = found.attributes
        attributes["account"] = "6"
        try raw.store(attributes: attributes, label: "l", secret: [1])
        await #expect(throws: VaultError.integrityFailure()) {
            try await vault.read(ItemQuery(itemClass: .genericPassword))
        }
    }

    @Test("the libsecret layer refuses a NUL in an attribute or label instead of cutting it (invalidParameters)")
    func connectionRefusesNUL() throws {
        let raw = try rawConnection()
        let namespace = "rampart-test-\(UUID().uuidString)"
        #expect(throws: VaultError.invalidParameters()) {
            try raw.store(attributes: ["rampart-namespace": namespace, "account": "a\u{0}b"], label: "l", secret: [])
        }
        #expect(throws: VaultError.invalidParameters()) {
            try raw.store(attributes: ["rampart-namespace": namespace], label: "a\u{0}b", secret: [])
        }
        #expect(throws: VaultError.invalidParameters()) {
            try raw.search(["rampart-namespace": namespace + "\u{0}x"])
        }
        #expect(try raw.search(["rampart-namespace": namespace]).isEmpty)
    }
}

struct SecretServiceNamespaceTests {
    @Test("a namespace with a NUL is invalidParameters, before any connection (libsecret would cut it)")
    func namespaceWithNUL() {
        let error = #expect(throws: VaultError.invalidParameters()) {
            try SecretServiceBackend(namespace: "com.example.app\u{0}.evil")
        }
        #expect(error?.reason.contains("NUL") == true)
    }
}

@Suite(.enabled(if: vaultHelperPath != nil, "rampart-vault-helper was not built next to the tests"))
struct SecretServiceAvailabilityTests {
    @Test("without a reachable session bus, connecting is notAvailable (not a crash or a hang)")
    func noBus() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/rampart-test-bus"
        environment["DISPLAY"] = nil
        let process = try SpawnedProcess(
            try #require(vaultHelperPath), arguments: ["secret-service"], environment: environment,
            standardOutput: .pipe)
        let guardTask = watchdog(process, seconds: 60)
        let text = String(decoding: try #require(process.standardOutput).readDataToEndOfFile(), as: UTF8.self)
        let ending = process.wait()
        guardTask.cancel()
        #expect(text == "notAvailable\n")
        #expect(ending == .exited(0))
    }
}
