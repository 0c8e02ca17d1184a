import Foundation
import RampartCrypto
import RampartVault
import TestSupport
import Testing

/// The helper executable built next to the test bundle (`Tests/VaultHelper`), or nil when it is missing.
let vaultHelperPath: String? = {
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
        return nil
    }
    let path = URL(fileURLWithPath: executable).deletingLastPathComponent()
        .appendingPathComponent("rampart-vault-helper").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}()

/// Starts the helper writing `count` items named `prefix-N`; its stdout lists each acknowledged account.
func startHelper(vault: String, keyFile: String, prefix: String, count: Int) throws -> (SpawnedProcess, FileHandle) {
    let process = try SpawnedProcess(
        try #require(vaultHelperPath), arguments: ["put", vault, keyFile, prefix, String(count)],
        standardOutput: .pipe, standardError: .inherit)
    return (process, try #require(process.standardOutput))
}

/// Kills `process` with SIGKILL if it is still running after `seconds`, so no test can hang on a stuck child.
func watchdog(_ process: SpawnedProcess, seconds: Int) -> Task<Void, Never> {
    Task {
        try? await Task.sleep(for: .seconds(seconds))
        if !Task.isCancelled { process.signal(SIGKILL) }
    }
}

@Suite(
    .enabled(
        if: vaultHelperPath != nil,
        "rampart-vault-helper was not built next to the tests; run swift build --build-tests"))
struct FileVaultProcessTests {
    @Test("two processes each adding 500 items at once: all 1000 are readable afterwards")
    func concurrentWriters() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let keyFile = directory.path("vault.key")
        try Data(SecureRandom.bytes(count: 32)).write(to: URL(fileURLWithPath: keyFile))
        let first = try startHelper(vault: path, keyFile: keyFile, prefix: "p1", count: 500)
        let second = try startHelper(vault: path, keyFile: keyFile, prefix: "p2", count: 500)
        let guards = [watchdog(first.0, seconds: 120), watchdog(second.0, seconds: 120)]
        let acknowledged = [first, second].map { _, output in
            String(decoding: output.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").count
        }
        let endings = [first.0.wait(), second.0.wait()]
        guards.forEach { $0.cancel() }
        #expect(endings == [.exited(0), .exited(0)])
        #expect(acknowledged == [500, 500])
        let backend = try FileVault.open(at: path, credential: .keyFile(at: keyFile), create: false)
        #expect(try backend.count() == 1000)
        let vault = Vault(backend: backend)
        let items = try await vault.read(
            ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(service: "stress")))
        #expect(items.count == 1000)
        #expect(items.allSatisfy { $0.value == Array("v-\($0.attributes.account ?? "")".utf8) })
    }

    @Test("two processes creating the same new vault at once both open it and write (20 rounds)")
    func concurrentCreation() async throws {
        // Switching a new file to WAL is not covered by SQLite's busy timeout; before RampartSQLite retried it, the
        // second process failed with ioFailure ("database is locked") in most rounds.
        for round in 0..<20 {
            let directory = try TemporaryDirectory()
            let path = directory.path("vault.db")
            let keyFile = directory.path("vault.key")
            try Data(SecureRandom.bytes(count: 32)).write(to: URL(fileURLWithPath: keyFile))
            let helpers = try ["a", "b"].map { try startHelper(vault: path, keyFile: keyFile, prefix: $0, count: 2) }
            let guards = helpers.map { watchdog($0.0, seconds: 60) }
            for (process, output) in helpers {
                _ = output.readDataToEndOfFile()
                #expect(process.wait() == .exited(0), "round \(round)")
            }
            guards.forEach { $0.cancel() }
            let backend = try FileVault.open(at: path, credential: .keyFile(at: keyFile), create: false)
            #expect(try backend.count() == 4, "round \(round)")
        }
    }

    @Test("kill -9 during writes leaves an openable vault holding every acknowledged item")
    func killDuringWrites() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let keyFile = directory.path("vault.key")
        try Data(SecureRandom.bytes(count: 32)).write(to: URL(fileURLWithPath: keyFile))
        let (process, output) = try startHelper(vault: path, keyFile: keyFile, prefix: "k", count: 1_000_000)
        let guardTask = watchdog(process, seconds: 60)
        var buffer = [UInt8]()
        // Read acknowledgements until at least 200 arrived, then kill the writer mid-stream.
        while buffer.count(where: { $0 == UInt8(ascii: "\n") }) < 200 {
            let chunk = output.availableData
            if chunk.isEmpty { break }
            buffer += chunk
        }
        process.signal(SIGKILL)
        buffer += output.readDataToEndOfFile()
        let ending = process.wait()
        guardTask.cancel()
        #expect(ending == .signalled(SIGKILL))
        // Only complete lines are acknowledgements; a torn last line is not.
        let lines = String(decoding: buffer, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let acknowledged = lines.dropLast().map(String.init)
        #expect(acknowledged.count >= 200)

        let backend = try FileVault.open(at: path, credential: .keyFile(at: keyFile), create: false)
        let vault = Vault(backend: backend)
        let stored = try await vault.read(
            ItemQuery(itemClass: .genericPassword, attributes: ItemAttributes(service: "stress")))
        let accounts = Set(stored.compactMap(\.attributes.account))
        #expect(accounts.isSuperset(of: acknowledged))
        #expect(stored.count >= acknowledged.count)
        // The vault still takes writes after the crash.
        try await vault.setSecret([1], service: "after", account: "crash")
        #expect(try await vault.secret(service: "after", account: "crash") == [1])
    }
}
