import Dispatch
import Foundation
import RampartAppAttest
import RampartCrypto
import RampartLoadReport
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `rampart-bench service`: protected requests through `rampart serve` as a user would measure them.
///
/// Each service is a separate `rampart serve` process and the load comes from another, `rampart-load`, which signs
/// every request itself (simulated App Attest keys), over kept-alive loopback connections. For SQLite, PostgreSQL
/// (`RAMPART_BENCH_POSTGRES_URL` or `RAMPART_TEST_POSTGRES_URL`) and two service processes on one PostgreSQL (the
/// load split across both), both flows (two round trips: a challenge, then the signed request; one round trip: the
/// previous answer's `Rampart-Next-Challenge`) at concurrency 1, 8, 64 and 256, it prints requests/s, p50 and p99
/// of a whole protected request, the servers' CPU per request (`/proc/PID/stat`) split by stage (the
/// `rampart_stage_cpu_seconds_total` counters of `/metrics`; `http` is the rest of the process's CPU), the
/// database's and the load generator's CPU per request, and the ratios to one core's P-256 verify rate measured in
/// the same run. Each run lasts `--seconds` after a 0.5 s warm-up and is killed past a cap. `--setup`, `--flow` and
/// `--concurrency` (``Selection``) choose part of that matrix.
enum ServiceBenchmarks {
    static let concurrencies = [1, 8, 64, 256]
    static let teamID = "BENCH12345"
    static let bundleID = "com.rampart.bench"
    static let warmup = 0.5

    /// One service setup: a name and the database of each `rampart serve` process.
    struct Setup {
        let name: String
        let databases: [String]
        let databaseProcess: String?
    }

    static func run(_ options: BenchOptions) {
        guard let directory = Bundle.main.executableURL?.deletingLastPathComponent() else {
            print("  skipped: cannot locate this executable's directory")
            return
        }
        let rampart = directory.appendingPathComponent("rampart")
        let load = directory.appendingPathComponent("rampart-load")
        let manager = FileManager.default
        guard manager.isExecutableFile(atPath: rampart.path), manager.isExecutableFile(atPath: load.path) else {
            print(
                "  skipped: \(directory.path) lacks rampart or rampart-load; build them "
                    + "(bash scripts/bench.sh service builds all three, release)")
            return
        }
        if !directory.path.contains("release") {
            print("  note: \(directory.path) is not a release build; the numbers will not be representative")
        }
        let work = manager.temporaryDirectory.appendingPathComponent("rampart-bench-service-\(UUID().uuidString)")
        defer { try? manager.removeItem(at: work) }
        let simulator = work.appendingPathComponent("simulator")
        do {
            try manager.createDirectory(at: work, withIntermediateDirectories: true)
            _ = try AppAttestSimulator(keptIn: simulator)
        } catch {
            print("  could not prepare \(work.path): \(error)")
            return
        }
        let floor = p256VerifyRate(seconds: min(options.seconds, 1))
        let verifyMicroseconds = 1e6 / floor
        print(
            "  one core's ECDSA P-256 verify: \(formatRate(floor).trimmingCharacters(in: .whitespaces)) verifies/s "
                + String(format: "(%.1f µs)", verifyMicroseconds))
        print(
            String(
                format: "  %d s per run after %.1f s warm-up; keys = max(16, concurrency); the load generator signs in "
                    + "its own process on the same cores", Int(options.seconds.rounded()), warmup))
        let selection = options.service
        let environment = ProcessInfo.processInfo.environment
        let postgres = (environment["RAMPART_BENCH_POSTGRES_URL"] ?? environment["RAMPART_TEST_POSTGRES_URL"])
            .flatMap { $0.isEmpty ? nil : $0 }
        if postgres == nil && selection.chosenSetups.contains(where: { $0 != .sqlite }) {
            print("  PostgreSQL skipped: set RAMPART_BENCH_POSTGRES_URL (scripts/postgres.sh starts one)")
        }
        let setups = selection.chosenSetups.compactMap { kind -> Setup? in
            switch kind {
            case .sqlite:
                Setup(
                    name: kind.title, databases: ["sqlite:" + work.appendingPathComponent("bench.db").path],
                    databaseProcess: nil)
            case .postgres: postgres.map { Setup(name: kind.title, databases: [$0], databaseProcess: "postgres") }
            case .postgresTwoProcesses:
                postgres.map { Setup(name: kind.title, databases: [$0, $0], databaseProcess: "postgres") }
            }
        }
        guard !setups.isEmpty else { return }
        print(header)
        var results: [String: LoadReport] = [:]
        for setup in setups {
            let servers: [ServerProcess]
            do {
                servers = try setup.databases.enumerated().map { index, database in
                    try ServerProcess.start(
                        rampart, database: database, simulator: simulator, work: work, name: "\(setup.name)-\(index)")
                }
            } catch {
                print("  \(setup.name): could not start rampart serve: \(error)")
                continue
            }
            defer { for server in servers { server.stop() } }
            for flow in selection.chosenFlows {
                for concurrency in selection.chosenConcurrencies {
                    var arguments = servers.flatMap { ["--server", $0.publicURL, "--admin", $0.adminURL] }
                    arguments += servers.flatMap { ["--server-pid", String($0.pid)] }
                    if let process = setup.databaseProcess { arguments += ["--database-process", process] }
                    arguments += [
                        "--simulator", simulator.path, "--team-id", teamID, "--bundle-id", bundleID,
                        "--concurrency", String(concurrency), "--seconds", String(options.seconds),
                        "--warmup", String(warmup), "--flow", flow.rawValue,
                    ]
                    let label = "\(setup.name) \(flow.rawValue) c=\(concurrency)"
                    do {
                        let report = try runLoad(load, arguments, cap: options.seconds + warmup + 120)
                        results[label] = report
                        print(row(setup.name, report, verifyMicroseconds: verifyMicroseconds, floor: floor))
                        if report.refused > 0 || report.errors > 0 {
                            print(
                                "      refused \(report.refusedByCode), errors \(report.errors)"
                                    + (report.firstError.map { " (first: \($0.prefix(160)))" } ?? ""))
                        }
                    } catch {
                        print("  \(label): \(error)")
                    }
                }
            }
        }
        printTargets(results, verifyMicroseconds: verifyMicroseconds)
    }

    static let header =
        "  setup          flow             conc    req/s  p50 ms  p99 ms  srv µs/req ×verify   http  json  cbor "
        + "ecdsa store   db µs client µs  ÷floor"

    static func row(_ setup: String, _ report: LoadReport, verifyMicroseconds: Double, floor: Double) -> String {
        let server = report.serverCPUMicrosecondsPerRequest ?? 0
        let stages = report.stageCPUMicrosecondsPerRequest ?? [:]
        let measured = ["json", "cbor", "ecdsa", "store"].map { stages[$0] ?? 0 }
        let http = max(0, server - measured.reduce(0, +))
        func pad(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        return "  " + pad(setup, 15) + pad(report.flow, 16)
            + String(
                format: "%5d %8.0f %7.2f %7.2f %11.1f %7.2f %6.1f %5.1f %5.1f %5.1f %5.1f %7.1f %9.1f %7.4f",
                report.concurrency, report.requestsPerSecond, report.latencyMs.p50, report.latencyMs.p99, server,
                server / verifyMicroseconds, http, measured[0], measured[1], measured[2], measured[3],
                report.databaseCPUMicrosecondsPerRequest ?? 0, report.clientCPUMicrosecondsPerRequest,
                report.requestsPerSecond / floor)
    }

    static func printTargets(_ results: [String: LoadReport], verifyMicroseconds: Double) {
        let sqlite = results["SQLite two-round-trips c=64"]
        let postgres = results["PostgreSQL two-round-trips c=64"]
        // The targets are about those runs only: nothing to say when the selection left them out.
        guard sqlite != nil || postgres != nil else { return }
        print("  targets (issue 14), concurrency 64, two round trips:")
        func verdict(_ met: Bool) -> String { met ? "met" : "NOT met" }
        if let sqlite {
            print(
                String(
                    format: "    SQLite ≥ 6,000 req/s with p99 ≤ 10 ms: %.0f req/s, p99 %.2f ms — %@",
                    sqlite.requestsPerSecond, sqlite.latencyMs.p99,
                    verdict(sqlite.requestsPerSecond >= 6000 && sqlite.latencyMs.p99 <= 10)))
            if let cpu = sqlite.serverCPUMicrosecondsPerRequest {
                print(
                    String(
                        format: "    server CPU ≤ 2.5× one P-256 verify: %.1f µs = %.2f× (%.1f µs) — %@", cpu,
                        cpu / verifyMicroseconds, verifyMicroseconds, verdict(cpu / verifyMicroseconds <= 2.5)))
            }
        }
        if let postgres {
            print(
                String(
                    format: "    PostgreSQL ≥ 5,000 req/s: %.0f req/s (p99 %.2f ms) — %@", postgres.requestsPerSecond,
                    postgres.latencyMs.p99, verdict(postgres.requestsPerSecond >= 5000)))
            if let two = results["PostgreSQL ×2 two-round-trips c=64"], postgres.requestsPerSecond > 0 {
                let ratio = two.requestsPerSecond / postgres.requestsPerSecond
                print(
                    String(
                        format: "    two processes ≥ 1.6× one: %.0f req/s = %.2f× — %@", two.requestsPerSecond, ratio,
                        verdict(ratio >= 1.6)))
            }
        }
    }

    /// Runs `rampart-load` and decodes its report; kills it past `cap` seconds.
    static func runLoad(_ executable: URL, _ arguments: [String], cap: Double) throws -> LoadReport {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let collected = Mutex<(Data, Data)>((Data(), Data()))
        let group = DispatchGroup()
        for (index, pipe) in [output, errors].enumerated() {
            group.enter()
            Thread.detachNewThread {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.withLock { if index == 0 { $0.0 = data } else { $0.1 = data } }
                group.leave()
            }
        }
        if group.wait(timeout: .now() + cap) == .timedOut {
            process.terminate()
            _ = group.wait(timeout: .now() + 5)
            throw BenchError("rampart-load ran past its \(Int(cap)) s cap and was stopped")
        }
        process.waitUntilExit()
        let (stdout, stderr) = collected.withLock { $0 }
        guard process.terminationStatus == 0 else {
            throw BenchError(
                "rampart-load exited \(process.terminationStatus): "
                    + String(decoding: stderr.prefix(400), as: UTF8.self).trimmingCharacters(in: .newlines))
        }
        return try JSONDecoder().decode(LoadReport.self, from: stdout)
    }

    /// One core's P-256 verifications per second on one key, as the service verifies (a reused OpenSSL context):
    /// the stricter floor of the two the crypto benchmark prints, so the service's ratio is not flattered by the
    /// per-call setup a fresh context adds.
    static func p256VerifyRate(seconds: Double) -> Double {
        let key = ECPrivateKey(curve: .p256)
        let message = SecureRandom.bytes(count: 32)
        guard let signature = try? key.signature(for: message) else { return 1 }
        let publicKey = key.publicKey
        return measure(seconds: seconds) { _ = publicKey.isValidSignature(signature, for: message) }
    }
}

/// A failure of a benchmark step or a bad command line, said in one line.
struct BenchError: Error, Hashable, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// One `rampart serve` process: its addresses, its pid, its log file; stopped with SIGTERM (SIGKILL after 10 s).
final class ServerProcess {
    let process: Process
    let publicURL: String
    let adminURL: String
    var pid: Int32 { process.processIdentifier }

    private init(process: Process, publicURL: String, adminURL: String) {
        self.process = process
        self.publicURL = publicURL
        self.adminURL = adminURL
    }

    /// Writes a configuration for `database` and starts `rampart serve --config FILE --json` on loopback ports the
    /// kernel picks, waiting (at most 30 s) for the addresses it prints.
    static func start(
        _ rampart: URL, database: String, simulator: URL, work: URL, name: String
    ) throws -> ServerProcess {
        let safe = name.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        let configuration = work.appendingPathComponent("serve-\(String(safe)).json")
        let settings: [String: Any] = [
            "listen": "127.0.0.1:0", "adminListen": "127.0.0.1:0", "database": database,
            "teamId": ServiceBenchmarks.teamID, "bundleId": ServiceBenchmarks.bundleID, "environment": "development",
            "root": simulator.appendingPathComponent("root.pem").path, "subject": ["header": "X-User-Id"],
            // One address and a few hundred users make the load: measure the service, not its per-client limits.
            "limits": [
                "challengesPerAddressPerMinute": 0, "challengesPerSubjectPerMinute": 0,
                "failuresPerAddressPerMinute": 0,
            ],
            "connectionsPerAddress": 0,
            "routes": [["method": "POST", "path": "/api/*", "policy": "require-assertion"]],
        ]
        try JSONSerialization.data(withJSONObject: settings, options: [.sortedKeys]).write(to: configuration)
        let log = work.appendingPathComponent("serve-\(String(safe)).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = rampart
        process.arguments = ["serve", "--config", configuration.path, "--json"]
        // The stage table needs the service's per-stage CPU counters, which are off unless asked for.
        process.environment = ProcessInfo.processInfo.environment.merging(["RAMPART_STAGE_PROFILE": "1"]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let started = Mutex<Data>(Data())
        let ready = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let handle = output.fileHandleForReading
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                let whole = started.withLock { data -> Bool in
                    data += chunk
                    return (try? JSONSerialization.jsonObject(with: data)) != nil
                }
                if whole { break }
            }
            ready.signal()
        }
        let fields =
            ready.wait(timeout: .now() + 30) == .success
            ? (try? JSONSerialization.jsonObject(with: started.withLock { $0 })) as? [String: Any] : nil
        guard let fields, let listening = fields["listening"] as? String, let admin = fields["admin"] as? String else {
            process.terminate()
            let tail = (try? String(contentsOf: log, encoding: .utf8)).map { String($0.suffix(400)) } ?? ""
            throw BenchError("rampart serve did not print its addresses within 30 s; its log ends: \(tail)")
        }
        return ServerProcess(process: process, publicURL: listening, adminURL: admin)
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        if process.isRunning { kill(pid, SIGKILL) }
        process.waitUntilExit()
    }
}
