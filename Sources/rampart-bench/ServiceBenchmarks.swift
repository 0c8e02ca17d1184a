import Dispatch
import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestService
import RampartAttestSimulation
import RampartCrypto
import RampartRequestSigning
import RampartVault
import Synchronization

/// `rampart-bench service`: protected requests (challenge + assertion) against a real `rampart serve` on loopback,
/// on SQLite and, when `RAMPART_BENCH_POSTGRES_URL` or `RAMPART_TEST_POSTGRES_URL` is set, PostgreSQL.
///
/// Pre-registers `keys` keys, then runs `concurrency` workers for the bounded time; each worker owns its keys, so
/// no request is refused as a counter race. Prints requests/s, p50/p99 latency of a whole protected request, and the
/// ratio to the machine's ECDSA P-256 verify rate (the floor: each request verifies one assertion signature).
enum ServiceBenchmarks {
    static let keys = 16
    static let concurrency = 8

    static func run(_ options: BenchOptions) {
        let floor = p256VerifyRate(seconds: min(options.seconds, 1))
        print("  ECDSA P-256 verify floor: \(formatRate(floor)) verifies/s")
        var databases = [("SQLite (WAL, synchronous=FULL)", "sqlite:" + temporaryPath())]
        let environment = ProcessInfo.processInfo.environment
        if let url = environment["RAMPART_BENCH_POSTGRES_URL"] ?? environment["RAMPART_TEST_POSTGRES_URL"],
            !url.isEmpty
        {
            databases.append(("PostgreSQL", url))
        } else {
            print("  PostgreSQL skipped: set RAMPART_BENCH_POSTGRES_URL (or run under scripts/test.sh's PostgreSQL)")
        }
        for (name, database) in databases {
            let done = DispatchSemaphore(value: 0)
            let output = Mutex<String>("")
            Task {
                do {
                    let result = try await load(database: database, seconds: options.seconds)
                    output.withLock {
                        $0 = String(
                            format: "  %@: %d keys, concurrency %d, %.1f s: %@ requests/s, p50 %.2f ms, p99 %.2f ms, "
                                + "%.4f× the P-256 verify floor (%d refused)",
                            name, keys, concurrency, result.seconds, formatRate(result.rate), result.p50 * 1000,
                            result.p99 * 1000, result.rate / floor, result.refused)
                    }
                } catch {
                    output.withLock { $0 = "  \(name): could not run: \(error)" }
                }
                done.signal()
            }
            done.wait()
            print(output.withLock { $0 })
        }
    }

    struct Result {
        let rate: Double
        let p50: Double
        let p99: Double
        let seconds: Double
        let refused: Int
    }

    static func load(database: String, seconds: Double) async throws -> Result {
        let teamID = "BENCH12345"
        let bundleID = "com.rampart.bench"
        let simulator = try AppAttestSimulator()
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = database
        configuration.environment = "development"
        // The load comes from one address and a few subjects: measure the service, not its per-client limits.
        configuration.limits = RequestLimits(
            challengesPerAddressPerMinute: 0, challengesPerSubjectPerMinute: 0, failuresPerAddressPerMinute: 0)
        configuration.connectionsPerAddress = 0
        // The subject comes from X-User-Id (as a proxy that authenticated the user sets it); every route, here
        // /api/bench through the Envoy ext_authz endpoint, requires an assertion.
        configuration.subject = .header("X-User-Id")
        let server = try AttestationServer(
            configuration: configuration,
            verifier: AppAttestVerifierAdapter(
                try AppAttestVerifier(
                    teamID: teamID, bundleID: bundleID, environment: .development,
                    trustAnchor: simulator.rootCertificate)))
        guard let base = URL(string: "http://127.0.0.1:\(server.port)") else {
            throw AttestServiceError.serverFailure("no address")
        }
        let transport = URLSessionTransport(baseURL: base)
        var clients: [AttestedClient] = []
        for index in 0..<max(keys, concurrency) {
            let subject = "bench-\(index)-\(UUID().uuidString.prefix(8))"
            let client = AttestedClient(
                transport: transport,
                device: SimulatedAppAttestDevice(
                    simulator: simulator, teamID: teamID, bundleID: bundleID, environment: .development),
                secrets: Vault(backend: InMemoryBackend()),
                headers: { [HTTPField(name: "X-User-Id", value: subject)] })
            try await client.register()
            clients.append(client)
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        let start = clock.now
        let samples = try await withThrowingTaskGroup(of: ([Double], Int).self) { group in
            for worker in 0..<concurrency {
                let owned = stride(from: worker, to: clients.count, by: concurrency).map { clients[$0] }
                group.addTask {
                    var latencies: [Double] = []
                    var refused = 0
                    var turn = 0
                    while clock.now < deadline {
                        let client = owned[turn % owned.count]
                        turn += 1
                        let begin = clock.now
                        // A gateway check (Envoy ext_authz shape): the app signed /api/bench, the gateway asks
                        // about /ext-authz/api/bench.
                        var request = try await client.sign(
                            "POST", "/api/bench", headers: [HTTPField(name: "Content-Type", value: "application/json")],
                            body: Array(#"{"action":"point_use","amount":1}"#.utf8))
                        request.target = "/ext-authz" + request.target
                        let answer = try await client.send(request)
                        let elapsed = clock.now - begin
                        latencies.append(
                            Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
                        if answer.status != 200 { refused += 1 }
                    }
                    return (latencies, refused)
                }
            }
            var all: [Double] = []
            var refused = 0
            for try await (latencies, count) in group {
                all += latencies
                refused += count
            }
            return (all.sorted(), refused)
        }
        let total = clock.now - start
        let elapsed = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        await server.stop()
        let latencies = samples.0
        func percentile(_ p: Double) -> Double {
            latencies.isEmpty ? 0 : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        return Result(
            rate: Double(latencies.count) / elapsed, p50: percentile(0.5), p99: percentile(0.99), seconds: elapsed,
            refused: samples.1)
    }

    static func p256VerifyRate(seconds: Double) -> Double {
        let key = ECPrivateKey(curve: .p256)
        let message = SecureRandom.bytes(count: 32)
        guard let signature = try? key.signature(for: message) else { return 1 }
        let publicKey = key.publicKey
        return measure(seconds: seconds) { _ = publicKey.isValidSignature(signature, for: message) }
    }

    static func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("rampart-bench-\(UUID().uuidString).db").path
    }
}
