import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartSecretStore
import SecretStoreContract

/// ``KeychainStore`` as one app on a simulated device: each call runs on `keychain` under the conditions the
/// contract's configuration names (the app's entitlements, the lock state, the user's answers, the clock).
struct SimulatedDeviceStore: SecretStore {
    let keychain: SimulatedKeychain
    let configuration: SecretStoreMaker.Configuration
    let store = KeychainStore()

    /// Stores over one fresh simulated keychain.
    static func maker() -> SecretStoreMaker {
        let keychain = SimulatedKeychain()
        return SecretStoreMaker { SimulatedDeviceStore(keychain: keychain, configuration: $0) }
    }

    /// The contract's access-control flags for the simulation's prompt flags.
    static func flags(_ flags: SecAccessControlCreateFlags) -> AccessControl {
        var result: AccessControl = []
        if flags.contains(.userPresence) { result.insert(.userPresence) }
        if flags.contains(.biometryAny) { result.insert(.biometryAny) }
        if flags.contains(.biometryCurrentSet) { result.insert(.biometryCurrentSet) }
        if flags.contains(.devicePasscode) { result.insert(.devicePasscode) }
        return result
    }

    func conditions(prompt: String) async -> SimulatedKeychain.Conditions {
        var conditions = SimulatedKeychain.Conditions()
        conditions.entitlements = configuration.entitlements
        conditions.lockState = configuration.lockState()
        conditions.biometryEnrollment = configuration.biometryEnrollment()
        conditions.now = configuration.now
        if let authenticator = configuration.authenticator {
            // The simulated prompt is synchronous, as SecItemCopyMatching is: ask the contract's (async) user
            // beforehand for every combination of flags.
            var answers: [UInt32: Bool] = [:]
            for bits in UInt32(0)..<32 {
                let flags = AccessControl(rawValue: bits).intersection(.known)
                answers[flags.rawValue] = await authenticator(flags, prompt)
            }
            let known = answers
            conditions.userAuthentication = { flags in
                known[Self.flags(flags).rawValue] == true ? .succeeded : .failed
            }
        }
        return conditions
    }

    func within<T: Sendable>(prompt: String = "", _ body: @Sendable () async throws -> T) async throws -> T {
        let conditions = await conditions(prompt: prompt)
        return try await SimulatedKeychain.$current.withValue(keychain) {
            try await SimulatedKeychain.$conditions.withValue(conditions) { try await body() }
        }
    }

    func add(_ item: VaultItem) async throws { try await within { try await store.add(item) } }

    func update(_ query: ItemQuery, with changes: ItemChanges) async throws {
        try await within { try await store.update(query, with: changes) }
    }

    func read(_ query: ItemQuery) async throws -> [VaultItem] {
        try await within(prompt: query.authenticationPrompt) { try await store.read(query) }
    }

    func delete(_ query: ItemQuery) async throws { try await within { try await store.delete(query) } }
}
