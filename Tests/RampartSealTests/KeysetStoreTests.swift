import Foundation
import RampartCrypto
import RampartSeal
import RampartSecretStore
import RampartVault
import Synchronization
import Testing

/// Issue 32 item 1: a stored keyset changes by compare-and-swap, so concurrent writers never lose each other's keys,
/// and a file replaces another only when the keyset as stored opens it.
struct KeysetStoreTests {
    @Test("eight tasks rotating one keyset at once through one vault each add their key: nine keys survive")
    func concurrentRotations() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("keys.vault").path
        let credential = try VaultCredential.key(SymmetricKey(randomByteCount: 32))
        let first = KeysetStore(Vault(backend: try FileVault.open(at: path, credential: credential)))
        _ = try await first.keyset(named: "race", createIfMissing: true)
        // Each task has its own connection, as separate processes would.
        let primaries = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 {
                let store = KeysetStore(Vault(backend: try FileVault.open(at: path, credential: credential)))
                group.addTask { try await store.rotate("race").primaryID }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(primaries.count == 8)
        let stored = try await first.keyset(named: "race")
        #expect(stored.keyIDs.count == 9)
        #expect(Set(stored.keyIDs).isSuperset(of: primaries))
    }

    @Test("eight tasks creating one keyset at once all get the one that was stored")
    func concurrentCreation() async throws {
        let store = KeysetStore(Vault(backend: InMemoryBackend()))
        let created = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask { try await store.keyset(named: "fresh", createIfMissing: true).serialized() }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(created.count == 1)
        #expect(try await store.keyset(named: "fresh").serialized() == created.first)
    }

    @Test("a keyset stored without a revision tag (before issue 32) is tagged, then rotated without losing keys")
    func untaggedKeyset() async throws {
        let store = KeysetStore(Vault(backend: InMemoryBackend()))
        let legacy = try Keyset(name: "old")
        try await store.store.setSecret(legacy.serialized(), service: KeysetStore.service, account: "old")
        let rotated = try await store.rotate("old")
        #expect(rotated.keyIDs == ["old/v1", "old/v2"])
        let item = try await store.store.readOne(.genericPassword(service: KeysetStore.service, account: "old"))
        #expect(item.attributes.generic?.count == 16)
        #expect(try await store.keyset(named: "old").keyIDs == ["old/v1", "old/v2"])
    }

    @Test("modify refuses a missing keyset, rethrows the change's error and leaves the keyset unchanged")
    func modifyRefusals() async throws {
        let store = KeysetStore(Vault(backend: InMemoryBackend()))
        let missing = await #expect(throws: SealError.self) { try await store.rotate("absent") }
        #expect(missing?.code == .keyStoreFailure)
        #expect(missing?.reason.contains("holds no keyset 'absent'") == true)
        _ = try await store.keyset(named: "k", createIfMissing: true)
        let refused = await #expect(throws: SealError.self) {
            try await store.modify("k") { try $0.removeKey(id: "k/v1") }
        }
        #expect(refused?.code == .invalidParameter)
        #expect(try await store.keyset(named: "k").keyIDs == ["k/v1"])
    }

    @Test("a store whose keyset changes on every attempt gives up after maximumAttempts with keyStoreFailure")
    func contention() async throws {
        let inner = Vault(backend: InMemoryBackend())
        let store = KeysetStore(AlwaysChanged(inner: inner))
        _ = try await KeysetStore(inner).keyset(named: "busy", createIfMissing: true)
        let error = await #expect(throws: SealError.self) { try await store.rotate("busy") }
        #expect(error?.code == .keyStoreFailure)
        #expect(error?.reason.contains("changed by other processes \(KeysetStore.maximumAttempts) times") == true)
        #expect(try await KeysetStore(inner).keyset(named: "busy").keyIDs == ["busy/v1"])
    }

    @Test("commit refuses a re-wrapped file the stored keyset no longer opens, leaving the old file in place")
    func commitChecksTheStore() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = KeysetStore(Vault(backend: InMemoryBackend()))
        let original = try await store.keyset(named: "files", createIfMissing: true)
        let file = directory.appendingPathComponent("a.sealed")
        try Data(SealedStream.seal([1, 2, 3], key: .keyset(original))).write(to: file)
        let before = try Data(contentsOf: file)
        let rotated = try await store.rotate("files")
        // Another writer overwrites the keyset with the copy it read before the rotation (what an older Rampart did).
        try await store.save(original)
        let staged = try SealedFile.stageRewrap(at: file, using: rotated)
        #expect(staged.header.keyID == "files/v2")
        let error = await #expect(throws: SealError.self) { try await store.commit(staged) }
        #expect(error?.code == .keyStoreFailure)
        #expect(error?.reason.contains("no longer opens the new header (key 'files/v2')") == true)
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["a.sealed"])
        // With the rotation stored again, the same re-wrap commits.
        let again = try await store.rotate("files")
        try await store.commit(SealedFile.stageRewrap(at: file, using: again))
        #expect(try SealedStream.open(Array(Data(contentsOf: file)), key: .keyset(again)) == [1, 2, 3])
    }

    @Test("checkOpens refuses a header sealed with a passphrase, which no keyset vouches for")
    func passphraseHeader() async throws {
        let store = KeysetStore(Vault(backend: InMemoryBackend()))
        let sealed = try SealedStream.seal([1], key: .passphrase("pw", kdf: .unsafePBKDF2SHA256(iterations: 1)))
        var source = MemorySource(sealed)
        let header = try SealedStream.readHeader(from: &source)
        let error = await #expect(throws: SealError.self) { try await store.checkOpens(header) }
        #expect(error?.code == .invalidParameter)
    }
}

/// A secret store where another writer always changed the item between a read and an update.
private struct AlwaysChanged: SecretStore {
    let inner: Vault

    func add(_ item: VaultItem) async throws { try await inner.add(item) }
    func update(_ query: ItemQuery, with changes: ItemChanges) async throws { throw VaultError.itemNotFound() }
    func read(_ query: ItemQuery) async throws -> [VaultItem] { try await inner.read(query) }
    func delete(_ query: ItemQuery) async throws { try await inner.delete(query) }
}
