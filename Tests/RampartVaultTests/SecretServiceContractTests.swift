import Foundation
import RampartVault
import Testing

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
            try await contractCase.run(backend)
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
}
