import Foundation
import RampartVault
import Testing

struct ReinstallCleanupTests {
    @Test("the first launch deletes the app's leftovers (not shared groups, not other apps'), then writes the marker")
    func firstLaunch() async throws {
        let directory = try TemporaryDirectory()
        let backend = InMemoryBackend()
        let entitlements = Entitlements(teamIdentifier: "T", bundleIdentifier: "app", sharedGroups: ["shared"])
        let app = Vault(backend: backend, entitlements: entitlements)
        let other = Vault(backend: backend, entitlements: Entitlements(teamIdentifier: "T", bundleIdentifier: "other"))
        // What the previous installation left behind.
        try await app.add(.genericPassword(service: "api", account: "refresh_token", value: [1], accessGroup: "T.app"))
        try await app.add(
            VaultItem(
                itemClass: .key, attributes: ItemAttributes(applicationTag: [7]), value: [2], accessGroup: "T.app"))
        try await app.add(.genericPassword(service: "api", account: "team", value: [3], accessGroup: "T.shared"))
        try await other.add(.genericPassword(service: "api", account: "refresh_token", value: [4]))

        let cleanup = ReinstallCleanup(
            markerPath: directory.path("first-run"), store: app, keptGroups: ["T.shared"])
        #expect(!cleanup.hasRunBefore)
        #expect(try await cleanup.runIfFirstLaunch() == 2)
        #expect(cleanup.hasRunBefore)
        #expect(try await app.secret(service: "api", account: "refresh_token") == nil)
        #expect(try await app.secret(service: "api", account: "team") == [3])
        #expect(try await other.secret(service: "api", account: "refresh_token") == [4])

        try await app.setSecret([5], service: "api", account: "refresh_token")
        #expect(try await cleanup.runIfFirstLaunch() == 0)
        #expect(try await app.secret(service: "api", account: "refresh_token") == [5])
    }

    @Test("a marker that cannot be written is ioFailure, and the next launch retries")
    func unwritableMarker() async throws {
        let vault = Vault(backend: InMemoryBackend())
        try await vault.setSecret([1], service: "s", account: "a")
        let cleanup = ReinstallCleanup(markerPath: "/nonexistent-dir/\(UUID().uuidString)/marker", store: vault)
        await #expect(throws: VaultError.ioFailure()) { try await cleanup.runIfFirstLaunch() }
        #expect(!cleanup.hasRunBefore)
    }
}
