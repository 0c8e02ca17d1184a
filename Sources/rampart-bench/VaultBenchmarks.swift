import Dispatch
import Foundation
import RampartCrypto
import RampartVault

/// `rampart-bench vault`: items written and read per second in the file vault (and in memory), against the AES-GCM
/// seal they are built on, and the vault open time, which the Argon2id key derivation dominates and is reported
/// separately.
///
/// The vault lives in `RAMPART_BENCH_DIR` (the temporary directory by default); each write is one durable transaction
/// (`synchronous=FULL`), so the write rate is bounded by the disk's `fsync`.
enum VaultBenchmarks {
    static func run(_ options: BenchOptions) {
        let base =
            ProcessInfo.processInfo.environment["RAMPART_BENCH_DIR"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory
        let directory = base.appendingPathComponent("rampart-bench-vault-\(getpid())")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try blocking { try await measureAll(seconds: options.seconds, directory: directory) }
        } catch {
            print("  vault benchmark failed: \(error)")
        }
    }

    private static func measureAll(seconds: Double, directory: URL) async throws {
        let value = SecureRandom.bytes(count: 32)
        let key = SymmetricKey()
        let sealFloor = measure(seconds: seconds) { _ = try? AEAD.seal(value, using: key, authenticating: value) }
        print("  \(pad("AES-256-GCM seal, 32 B (floor)")) \(formatRate(sealFloor)) ops/s")

        // Open time: the KDF dominates; measure it alone too.
        let path = directory.appendingPathComponent("bench.vault").path
        let passphrase = try VaultCredential.passphrase("benchmark passphrase")
        _ = try FileVault.open(at: path, credential: passphrase)
        let openSeconds = try averageSeconds(runs: 5) { _ = try FileVault.open(at: path, credential: passphrase) }
        let kdfSeconds = try averageSeconds(runs: 5) {
            _ = try Argon2id.deriveKey(
                password: Array("benchmark passphrase".utf8), salt: SecureRandom.bytes(count: 16), parameters: .owasp)
        }
        print("  \(pad("open, passphrase (Argon2id 19 MiB t=2)")) \(latency(openSeconds))")
        print("  \(pad("  of which Argon2id alone")) \(latency(kdfSeconds))")
        let keyPath = directory.appendingPathComponent("bench.key").path
        try Data(SecureRandom.bytes(count: 32)).write(to: URL(fileURLWithPath: keyPath))
        let keyCredential = try VaultCredential.keyFile(at: keyPath)
        let keyVaultPath = directory.appendingPathComponent("key.vault").path
        _ = try FileVault.open(at: keyVaultPath, credential: keyCredential)
        let keyOpen = try averageSeconds(runs: 20) {
            _ = try FileVault.open(at: keyVaultPath, credential: keyCredential)
        }
        print("  \(pad("open, key file")) \(latency(keyOpen))")

        let fsyncRate = try fsyncFloor(directory: directory, seconds: seconds)
        print(
            "  \(pad("fsync of 4 KiB in the same directory")) \(formatRate(fsyncRate)) ops/s  (the durable-write floor)"
        )

        var backends: [(String, Vault)] = [
            ("file vault", Vault(backend: try FileVault.open(at: path, credential: passphrase))),
            ("in-memory", Vault(backend: InMemoryBackend())),
        ]
        // The Secret Service rows run only against the throwaway keyring scripts/with-keyring.sh starts.
        var secretService: SecretServiceBackend?
        if ProcessInfo.processInfo.environment["RAMPART_SECRET_SERVICE_TESTS"] == "1" {
            secretService = try? SecretServiceBackend(namespace: "rampart-bench-\(getpid())")
            if let secretService { backends.append(("Secret Service", Vault(backend: secretService))) }
        } else {
            print("  (Secret Service rows: run under scripts/with-keyring.sh)")
        }
        for (name, vault) in backends {
            var written = 0
            let writeRate = try await rate(seconds: seconds) {
                try await vault.add(.genericPassword(service: "bench", account: "item-\(written)", value: value))
                written += 1
            }
            var reads = 0
            let readRate = try await rate(seconds: seconds) {
                _ = try await vault.readOne(.genericPassword(service: "bench", account: "item-\(reads % written)"))
                reads += 1
            }
            print(
                "  \(pad("\(name): add")) \(formatRate(writeRate)) items/s  "
                    + String(format: "%8.1f× the seal cost", sealFloor / writeRate))
            print(
                "  \(pad("\(name): read one (of \(written))")) \(formatRate(readRate)) items/s  "
                    + String(format: "%8.1f× the seal cost", sealFloor / readRate))
        }
        if let secretService {
            _ = try? await secretService.delete(matching: ItemFilter(itemClass: .genericPassword))
        }
    }

    /// Appends 4 KiB and `fsync`s, repeatedly: what one durable commit costs at least on this disk.
    private static func fsyncFloor(directory: URL, seconds: Double) throws -> Double {
        let path = directory.appendingPathComponent("fsync.bin").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw VaultError.ioFailure("cannot create \(path)") }
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0, count: 4096)
        return measure(seconds: seconds) {
            _ = block.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            fsync(descriptor)
        }
    }

    /// Runs `body` repeatedly for about `seconds`; returns calls per second.
    private static func rate(seconds: Double, _ body: () async throws -> Void) async throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var count = 0
        var elapsed = Duration.zero
        while count < 2 || elapsed < .milliseconds(Int(seconds * 1000)) {
            try await body()
            count += 1
            elapsed = clock.now - start
        }
        return Double(count) / toSeconds(elapsed)
    }

    private static func averageSeconds(runs: Int, _ body: () throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        for _ in 0..<runs { try body() }
        return toSeconds(clock.now - start) / Double(runs)
    }

    private static func toSeconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func latency(_ seconds: Double) -> String { String(format: "%12.2f ms", seconds * 1e3) }

    private static func pad(_ name: String) -> String { name.padding(toLength: 40, withPad: " ", startingAt: 0) }

    /// Runs async work to completion from the synchronous benchmark runner.
    private static func blocking(_ body: @escaping @Sendable () async throws -> Void) throws {
        let semaphore = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        Task {
            do { try await body() } catch { outcome.error = error }
            semaphore.signal()
        }
        semaphore.wait()
        if let error = outcome.error { throw error }
    }
}

/// Carries an error out of the benchmark task.
///
/// `@unchecked Sendable`: written once by the task before it signals, read once after the wait.
private final class OutcomeBox: @unchecked Sendable {
    var error: (any Error)?
}
