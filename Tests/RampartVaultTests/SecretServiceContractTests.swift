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

@Suite(.enabled(if: vaultHelperPath != nil, "rampart-vault-helper was not built next to the tests"))
struct SecretServiceAvailabilityTests {
    @Test("without a reachable session bus, connecting is notAvailable (not a crash or a hang)")
    func noBus() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(vaultHelperPath))
        process.arguments = ["secret-service"]
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/rampart-test-bus"
        environment["DISPLAY"] = nil
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let guardTask = watchdog(process, seconds: 60)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guardTask.cancel()
        #expect(text == "notAvailable\n")
    }
}
