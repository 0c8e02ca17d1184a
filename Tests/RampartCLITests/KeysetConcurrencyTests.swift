import Foundation
import RampartSeal
import RampartSecretStore
import RampartVault
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 32 item 1: several `rampart` processes changing one keyset at once never lose a key, so no file a process
/// reported sealed or re-wrapped (exit 0) fails to open afterwards.
@Suite(
    .enabled(if: DocExampleTests.rampartDirectory != nil, "the rampart binary was not built: swift build --build-tests")
)
struct KeysetConcurrencyTests {
    /// The built `rampart`.
    static let rampart: String = DocExampleTests.rampartDirectory?.appendingPathComponent("rampart").path ?? ""

    /// A scratch directory with a vault key file.
    static func workspace() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rampart-keyset-race-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data((0..<32).map { _ in UInt8.random(in: 0...255) }).write(
            to: directory.appendingPathComponent("vault.key"))
        return directory
    }

    /// Starts `rampart` with `arguments`, its output collected in files of `directory` named after `tag`.
    static func start(_ arguments: [String], in directory: URL, tag: String) throws -> SpawnedProcess {
        try SpawnedProcess(
            rampart, arguments: arguments, standardOutput: .file(directory.appendingPathComponent("\(tag).out").path),
            standardError: .file(directory.appendingPathComponent("\(tag).err").path))
    }

    /// Waits for every process (killing any still running after two minutes) and returns their exit statuses.
    static func finish(_ processes: [SpawnedProcess]) -> [Int32] {
        let deadline = Date().addingTimeInterval(120)
        while processes.contains(where: \.isRunning), Date() < deadline { usleep(10_000) }
        return processes.map { process in
            if process.isRunning { process.signal(SIGKILL) }
            return process.wait().status
        }
    }

    /// What the processes started with `tags` wrote to standard error, for a failed expectation's message.
    static func errors(in directory: URL, tags: [String]) -> String {
        tags.compactMap { tag in
            let text = (try? String(contentsOf: directory.appendingPathComponent("\(tag).err"), encoding: .utf8)) ?? ""
            return text.isEmpty ? nil : "\(tag): \(text)"
        }.joined(separator: "\n")
    }

    /// The keyset `name` as the vault holds it now.
    static func storedKeyset(_ name: String, vault: URL, keyFile: URL) async throws -> Keyset {
        let backend = try FileVault.open(at: vault.path, credential: .keyFile(at: keyFile.path), create: false)
        return try await KeysetStore(Vault(backend: backend)).keyset(named: name)
    }

    @Test("four 'rewrap --rotate' processes at once: every key version survives and every re-wrapped file opens")
    func concurrentRotations() async throws {
        let directory = try Self.workspace()
        defer { try? FileManager.default.removeItem(at: directory) }
        let vault = directory.appendingPathComponent("keys.vault")
        let keyFile = directory.appendingPathComponent("vault.key")
        let vaultOptions = ["--vault", vault.path, "--vault-key-file", keyFile.path, "--key", "race"]
        let writers = 4
        let filesPerWriter = 4
        var files: [[URL]] = []
        for writer in 0..<writers {
            var own: [URL] = []
            for index in 0..<filesPerWriter {
                let plain = directory.appendingPathComponent("plain-\(writer)-\(index)")
                try Data("file \(writer) \(index)\n".utf8).write(to: plain)
                let sealed = directory.appendingPathComponent("sealed-\(writer)-\(index)")
                let result = await runRampart(["seal", plain.path, sealed.path] + vaultOptions)
                try #require(result.status == 0, "\(result.stderr)")
                own.append(sealed)
            }
            files.append(own)
        }
        for round in 0..<3 {
            let processes = try (0..<writers).map { writer in
                try Self.start(
                    ["rewrap"] + files[writer].map(\.path) + vaultOptions + ["--rotate"], in: directory,
                    tag: "rotate-\(round)-\(writer)")
            }
            let statuses = Self.finish(processes)
            #expect(
                statuses == Array(repeating: 0, count: writers),
                "round \(round): \(Self.errors(in: directory, tags: (0..<writers).map { "rotate-\(round)-\($0)" }))")
            let keyset = try await Self.storedKeyset("race", vault: vault, keyFile: keyFile)
            #expect(keyset.keyIDs.count == 1 + writers * (round + 1), "round \(round): \(keyset.keyIDs)")
            for (writer, own) in files.enumerated() where statuses[writer] == 0 {
                for file in own {
                    let sealed = try #require(FileManager.default.contents(atPath: file.path))
                    #expect(
                        (try? SealedStream.open(Array(sealed), key: .keyset(keyset))) != nil,
                        "round \(round): \(file.lastPathComponent), reported re-wrapped, does not open")
                }
            }
        }
    }

    @Test("four first uses of 'seal --vault V --key NEW' at once: every file reported sealed opens")
    func concurrentCreation() async throws {
        for round in 0..<4 {
            let directory = try Self.workspace()
            defer { try? FileManager.default.removeItem(at: directory) }
            let vault = directory.appendingPathComponent("keys.vault")
            let keyFile = directory.appendingPathComponent("vault.key")
            let plain = directory.appendingPathComponent("plain")
            try Data("the same plaintext\n".utf8).write(to: plain)
            let writers = 4
            let processes = try (0..<writers).map { writer in
                try Self.start(
                    [
                        "seal", plain.path, directory.appendingPathComponent("sealed-\(writer)").path, "--vault",
                        vault.path, "--vault-key-file", keyFile.path, "--key", "fresh",
                    ], in: directory, tag: "seal-\(writer)")
            }
            let statuses = Self.finish(processes)
            #expect(
                statuses == Array(repeating: 0, count: writers),
                "round \(round): \(Self.errors(in: directory, tags: (0..<writers).map { "seal-\($0)" }))")
            let keyset = try await Self.storedKeyset("fresh", vault: vault, keyFile: keyFile)
            #expect(keyset.keyIDs == ["fresh/v1"], "round \(round)")
            for writer in 0..<writers where statuses[writer] == 0 {
                let sealed = try #require(
                    FileManager.default.contents(atPath: directory.appendingPathComponent("sealed-\(writer)").path))
                #expect(
                    (try? SealedStream.open(Array(sealed), key: .keyset(keyset))) == Array("the same plaintext\n".utf8),
                    "round \(round): sealed-\(writer), reported sealed, does not open")
            }
        }
    }
}
