import Foundation
import RampartAppAttest
import RampartAttestService
import RampartAttestSimulation
import RampartCrypto
import RampartRequestSigning
import RampartServiceCLI
import Synchronization
import TestSupport
import Testing

/// The whole flow with RampartAppAttest's real verifier and device simulator, over real HTTP on loopback: a
/// simulated app signs requests (``SignedRequestApp``) and the Envoy endpoint `/ext-authz/<target>` checks them.
@Suite(.serialized)
struct EndToEndTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.rampart.tests"
    /// A backend route under the default policy (require-assertion), checked through the Envoy endpoint.
    static let protected = "/ext-authz/api/points/use"
    static let body = Array(#"{"amount":1000}"#.utf8)

    let simulator: AppAttestSimulator

    init() throws { simulator = try AppAttestSimulator() }

    func verifier(_ environment: AppAttestEnvironment = .development) throws -> AppAttestVerifierAdapter {
        AppAttestVerifierAdapter(
            try AppAttestVerifier(
                teamID: Self.teamID, bundleID: Self.bundleID, environment: environment,
                trustAnchor: simulator.rootCertificate))
    }

    func startServer(
        database: String = "sqlite:" + temporarySQLitePath(), environment: AppAttestEnvironment = .development
    ) throws -> AttestationServer {
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = database
        configuration.environment = "development"
        configuration.subject = .header("X-User-Id")
        return try AttestationServer(configuration: configuration, verifier: try verifier(environment))
    }

    func app(
        port: UInt16, subject: String = "user-\(UUID().uuidString.prefix(8))", teamID: String = teamID
    ) -> SignedRequestApp {
        SignedRequestApp(
            baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/"),
            device: SimulatedAppAttestDevice(
                simulator: simulator, teamID: teamID, bundleID: Self.bundleID, environment: .development),
            identityHeaders: ["X-User-Id": subject])
    }

    /// Signs `POST /api/points/use` (the target the app sent to the backend) and sends it to Envoy's endpoint.
    func check(_ app: SignedRequestApp, keyID: String, challenge: String? = nil) async throws -> SignedRequestApp.Answer
    {
        let signed = try await app.sign(
            "POST", "/api/points/use", body: Self.body, keyID: keyID, challenge: challenge)
        return try await app.send("POST", Self.protected, headers: signed.headers, body: signed.body)
    }

    @Test("rampart demo's story passes step by step")
    func demo() async throws {
        let steps = try await AttestationDemo.run()
        #expect(steps.count == 10)
        for step in steps { #expect(step.passed, "\(step.number) \(step.title): \(step.status) \(step.outcome)") }
    }

    @Test("register, then signed requests: counters advance, the next challenge works, a replay is 409")
    func flow() async throws {
        let server = try startServer()
        defer { Task { await server.stop() } }
        let app = app(port: server.port, subject: "alice")
        let (keyID, registered) = try await app.register()
        #expect(registered.status == 201, "\(registered.message ?? "")")
        let first = try await check(app, keyID: keyID)
        #expect(first.status == 200, "\(first.message ?? "")")
        #expect(first.headers["rampart-subject"] == "alice")
        #expect(first.headers["rampart-key-id"] == keyID)
        #expect(first.headers["rampart-counter"] == "1")
        #expect(first.headers["rampart-policy"] == "require-assertion")
        #expect(first.headers["rampart-verified-digest"] == RequestSignature.contentDigest(of: Self.body))
        let next = try #require(first.headers["rampart-next-challenge"])
        let second = try await check(app, keyID: keyID, challenge: next)
        #expect(second.status == 200)
        #expect(second.headers["rampart-counter"] == "2")
        let replay = try await app.send(
            "POST", Self.protected,
            headers: try await app.sign("POST", "/api/points/use", body: Self.body, keyID: keyID, challenge: next)
                .headers, body: Self.body)
        #expect(replay.status == 409)
        #expect(replay.errorCode == "challengeUsed")
        #expect(replay.headers["rampart-error"] == "challengeUsed")
    }

    @Test("a production service refuses a development attestation with wrongEnvironment")
    func environment() async throws {
        let server = try startServer(environment: .production)
        defer { Task { await server.stop() } }
        let answer = try await app(port: server.port).register().answer
        #expect(answer.status == 403)
        #expect(answer.errorCode == "wrongEnvironment")
    }

    @Test("50 concurrent copies of one signed request over HTTP: exactly 1 accepted")
    func concurrentCopies() async throws {
        let server = try startServer()
        defer { Task { await server.stop() } }
        let app = app(port: server.port)
        let keyID = try await app.register().keyID
        let signed = try await app.sign("POST", "/api/points/use", body: Self.body, keyID: keyID)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await app.send("POST", Self.protected, headers: signed.headers, body: signed.body).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 200 }.count == 1)
        // The copies that lose are refused as used (409) or, past the address's failure budget, before they are
        // looked at (429 rateLimited): all from 127.0.0.1.
        #expect(statuses.filter { $0 == 409 || $0 == 429 }.count == 49)
    }

    @Test("50 concurrent consumptions of one challenge over HTTP: exactly 1 registration")
    func concurrentChallenge() async throws {
        let server = try startServer()
        defer { Task { await server.stop() } }
        try await raceOneChallenge(ports: [server.port])
    }

    /// Registers 50 different keys concurrently over the same attestation challenge, spread over `ports`.
    func raceOneChallenge(ports: [UInt16]) async throws {
        let subject = "racer-\(UUID().uuidString.prefix(8))"
        let apps = ports.map { app(port: $0, subject: subject) }
        let challenge = try await apps[0].challenge("attestation")
        var bodies: [(SignedRequestApp, [UInt8])] = []
        for index in 0..<50 {
            let app = apps[index % apps.count]
            let keyID = try await app.device.generateKey()
            let object = try await app.device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
            let body = CanonicalJSON.canonicalBytes(
                of: .object([
                    "keyId": .string(keyID), "attestationObject": .string(Data(object).base64EncodedString()),
                    "challenge": .string(challenge),
                ]))
            bodies.append((app, body))
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (app, body) in bodies {
                group.addTask { try await app.send("POST", "/v1/attestations", body: body).status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.filter { $0 == 201 }.count == 1)
        #expect(statuses.filter { $0 == 409 || $0 == 429 }.count == 49)
    }

    @Test(
        "two rampart serve processes on one PostgreSQL: a challenge issued by one is consumed by the other exactly once",
        .enabled(
            if: testPostgresURL != nil && ServeProcess.available,
            "needs RAMPART_TEST_POSTGRES_URL and the rampart binary"))
    func twoProcesses() async throws {
        let root = try ServeProcess.writeRoot(of: simulator)
        let arguments = [
            "--db", testPostgresURL ?? "", "--root", root, "--team-id", Self.teamID, "--bundle-id", Self.bundleID,
            "--environment", "development",
        ]
        let first = try await ServeProcess.start(ServeProcess.subjectHeader + arguments)
        let second = try await ServeProcess.start(ServeProcess.subjectHeader + arguments)
        // Issued by the first, consumed by the second: accepted once, then refused on either.
        let app = app(port: first.port, subject: "alice")
        let other = SignedRequestApp(
            baseURL: URL(string: "http://127.0.0.1:\(second.port)") ?? URL(fileURLWithPath: "/"), device: app.device,
            identityHeaders: app.identityHeaders)
        let keyID = try await app.register().keyID
        let signed = try await app.sign("POST", "/api/points/use", body: Self.body, keyID: keyID)
        #expect(try await other.send("POST", Self.protected, headers: signed.headers, body: signed.body).status == 200)
        #expect(
            try await app.send("POST", Self.protected, headers: signed.headers, body: signed.body).errorCode
                == "challengeUsed")
        // 50 concurrent registrations over one challenge, spread over both processes: exactly one.
        try await raceOneChallenge(ports: [first.port, second.port])
        #expect(await first.stop() == 0)
        #expect(await second.stop() == 0)
    }

    @Test(
        "kill -9 during load, then restart: every acknowledged registration and counter is there",
        .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
    func crash() async throws {
        let root = try ServeProcess.writeRoot(of: simulator)
        let database = "sqlite:" + temporarySQLitePath()
        let arguments = [
            "--db", database, "--root", root, "--team-id", Self.teamID, "--bundle-id", Self.bundleID,
            "--environment", "development",
        ]
        let server = try await ServeProcess.start(ServeProcess.subjectHeader + arguments)
        let ledger = Ledger()
        let apps = (0..<6).map { _ in app(port: server.port) }
        // Bounded load: each app registers and sends up to 30 requests; the kill lands while they run.
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for app in apps {
                    group.addTask {
                        guard let (keyID, answer) = try? await app.register(), answer.status == 201 else { return }
                        ledger.counters.withLock { $0[keyID] = 0 }
                        var challenge: String?
                        for _ in 0..<30 {
                            guard let answer = try? await check(app, keyID: keyID, challenge: challenge),
                                answer.status == 200,
                                let counter = answer.headers["rampart-counter"].flatMap(Double.init)
                            else { return }
                            challenge = answer.headers["rampart-next-challenge"]
                            ledger.counters.withLock { $0[keyID] = max($0[keyID] ?? 0, counter) }
                        }
                    }
                }
            }
            ledger.finished.withLock { $0 = true }
        }
        while ledger.counters.withLock({ $0.values.reduce(0, +) }) < 40, !ledger.finished.withLock({ $0 }) {
            await Task.yield()
        }
        #expect(await server.stop(signal: SIGKILL) != 0)
        await load.value
        let restarted = try await ServeProcess.start(ServeProcess.subjectHeader + arguments)
        // Key lookups are an operator route, on the admin listener.
        let admin = SignedRequestApp(
            baseURL: URL(string: "http://127.0.0.1:\(restarted.adminPort)") ?? URL(fileURLWithPath: "/"),
            device: apps[0].device, identityHeaders: [:])
        let snapshot = ledger.counters.withLock { $0 }
        #expect(!snapshot.isEmpty)
        for (keyID, counter) in snapshot {
            let path =
                "/v1/keys/"
                + keyID.replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let answer = try await admin.send("GET", path)
            #expect(answer.status == 200, "acknowledged key \(keyID) is missing after the crash")
            #expect((answer.number("counter") ?? -1) >= counter, "acknowledged counter \(counter) was lost")
        }
        await restarted.stop()
    }
}

/// What the crash test's clients were told: acknowledged key ids and their highest acknowledged counters.
final class Ledger: Sendable {
    let counters = Mutex<[String: Double]>([:])
    let finished = Mutex(false)
}
