import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestService
import RampartAttestSimulation
import RampartCLI
import RampartCrypto
import RampartRequestSigning
import RampartVault
import Synchronization
import Testing

/// The whole flow with RampartAppAttest's real verifier and device simulator, over real HTTP on loopback.
@Suite(.serialized)
struct EndToEndTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.rampart.tests"

    let simulator: AppAttestSimulator

    init() throws { simulator = try AppAttestSimulator() }

    func verifier() throws -> AppAttestVerifierAdapter {
        AppAttestVerifierAdapter(
            try AppAttestVerifier(
                teamID: Self.teamID, bundleID: Self.bundleID, environment: .development,
                trustAnchor: simulator.rootCertificate))
    }

    func startServer(database: String = "sqlite:" + temporarySQLitePath()) throws -> AttestationServer {
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = database
        configuration.environment = "development"
        return try AttestationServer(configuration: configuration, verifier: try verifier())
    }

    func client(
        port: UInt16, subject: String = "user-\(UUID().uuidString.prefix(8))", teamID: String = teamID
    )
        -> AttestedClient
    {
        AttestedClient(
            transport: URLSessionTransport(
                baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")),
            device: SimulatedAppAttestDevice(
                simulator: simulator, teamID: teamID, bundleID: Self.bundleID, environment: .development),
            secrets: Vault(backend: InMemoryBackend()), headers: Self.signedIn(subject))
    }

    /// The subject as the demo server's header source reads it (a proxy that authenticated the user sets it).
    static func signedIn(_ subject: String) -> AttestedClient.HeaderProvider {
        { [HTTPField(name: "X-User-Id", value: subject)] }
    }

    static let route = "/v1/demo/points/use"

    func transport(_ port: UInt16) -> URLSessionTransport {
        URLSessionTransport(baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/"))
    }

    static let payload: JSONValue = .object(["amount": .number(1)])
    static var payloadBytes: [UInt8] { CanonicalJSON.canonicalBytes(of: payload) }

    @Test("rampart demo's story passes step by step")
    func demo() async throws {
        let steps = try await AttestationDemo.run()
        #expect(steps.count == 8)
        for step in steps { #expect(step.passed, "\(step.number) \(step.title): \(step.status) \(step.outcome)") }
    }

    @Test("register and send protected requests; counters advance; the client re-registers on unknownKey")
    func clientFlow() async throws {
        let server = try startServer()
        let device = SimulatedAppAttestDevice(
            simulator: simulator, teamID: Self.teamID, bundleID: Self.bundleID, environment: .development)
        let secrets = Vault(backend: InMemoryBackend())
        let app = AttestedClient(
            transport: transport(server.port), device: device, secrets: secrets, headers: Self.signedIn("alice"))
        let first = try await app.send("POST", Self.route, json: Self.payload)
        #expect(first.status == 200)
        #expect(first.number("counter") == 1)
        let second = try await app.send("POST", Self.route, json: Self.payload)
        #expect(second.number("counter") == 2)
        let keyID = try await app.registeredKeyID()

        // The app now talks to a server that never saw its key (a wiped or new backend): the first answer is
        // unknownKey, the client attests a new key, keeps it, and the retried request is accepted.
        let fresh = try startServer()
        let moved = AttestedClient(
            transport: transport(fresh.port), device: device, secrets: secrets, headers: Self.signedIn("alice"))
        let recovered = try await moved.send("POST", Self.route, json: Self.payload)
        #expect(recovered.status == 200)
        #expect(recovered.number("counter") == 1)
        #expect(try await moved.registeredKeyID() != keyID)

        // The device lost the kept key (a reinstall): the client generates and registers a new one.
        let reinstalled = AttestedClient(
            transport: transport(fresh.port),
            device: SimulatedAppAttestDevice(
                simulator: simulator, teamID: Self.teamID, bundleID: Self.bundleID, environment: .development),
            secrets: secrets, headers: Self.signedIn("alice"))
        #expect(try await reinstalled.send("POST", Self.route, json: Self.payload).status == 200)
        await server.stop()
        await fresh.stop()
    }

    @Test("a production service refuses a development attestation with wrongEnvironment")
    func environment() async throws {
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = "sqlite:" + temporarySQLitePath()
        let production = AppAttestVerifierAdapter(
            try AppAttestVerifier(
                teamID: Self.teamID, bundleID: Self.bundleID, environment: .production,
                trustAnchor: simulator.rootCertificate))
        let server = try AttestationServer(configuration: configuration, verifier: production)
        defer { Task { await server.stop() } }
        let device = SimulatedAppAttestDevice(
            simulator: simulator, teamID: Self.teamID, bundleID: Self.bundleID, environment: .development)
        let app = AttestedClient(
            transport: transport(server.port), device: device, secrets: Vault(backend: InMemoryBackend()),
            headers: Self.signedIn("alice"))
        let answer = try await app.attest(keyID: try await device.generateKey())
        #expect(answer.status == 403)
        #expect(answer.errorCode == "wrongEnvironment")
    }

    @Test("50 concurrent copies of one valid assertion request over HTTP: exactly 1 accepted")
    func concurrentCopies() async throws {
        let server = try startServer()
        defer { Task { await server.stop() } }
        let app = client(port: server.port)
        let request = try await app.sign("POST", Self.route, body: Self.payloadBytes)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await app.send(request).status } }
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
        let issuer = client(port: ports[0], subject: subject)
        let challengeAnswer = ServerAnswer(
            try await URLSessionTransport(
                baseURL: URL(string: "http://127.0.0.1:\(ports[0])") ?? URL(fileURLWithPath: "/")
            )
            .send(
                TransportRequest(
                    method: "POST", target: "/v1/challenges", headers: [HTTPField(name: "X-User-Id", value: subject)],
                    body: Array(#"{"purpose":"attestation"}"#.utf8))))
        let challenge = try #require(challengeAnswer.field("challenge"))
        _ = issuer
        var bodies: [(UInt16, [UInt8])] = []
        for index in 0..<50 {
            let device = SimulatedAppAttestDevice(
                simulator: simulator, teamID: Self.teamID, bundleID: Self.bundleID, environment: .development)
            let keyID = try await device.generateKey()
            let object = try await device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
            let body = CanonicalJSON.canonicalBytes(
                of: .object([
                    "keyId": .string(keyID),
                    "attestationObject": .string(Data(object).base64EncodedString()), "challenge": .string(challenge),
                ]))
            bodies.append((ports[index % ports.count], body))
        }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (port, body) in bodies {
                group.addTask {
                    try await URLSessionTransport(
                        baseURL: URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
                    ).send(
                        TransportRequest(
                            method: "POST", target: "/v1/attestations",
                            headers: [HTTPField(name: "X-User-Id", value: subject)], body: body)
                    ).status
                }
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
        let first = try await ServeProcess.start(arguments)
        let second = try await ServeProcess.start(arguments)
        // Issued by the first, consumed by the second: accepted once, then refused on either.
        let app = client(port: first.port)
        let request = try await app.sign("POST", Self.route, body: Self.payloadBytes)
        let other = client(port: second.port)
        #expect(try await other.send(request).status == 200)
        #expect(try await app.send(request).errorCode == "challengeUsed")
        #expect(try await other.send(request).errorCode == "challengeUsed")
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
        let server = try await ServeProcess.start(arguments)
        let ledger = Ledger()
        let clients = (0..<6).map { _ in client(port: server.port) }
        // Bounded load: each client registers and sends up to 30 requests; the kill lands while they run.
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for app in clients {
                    group.addTask {
                        guard let keyID = try? await app.register() else { return }
                        ledger.counters.withLock { $0[keyID] = 0 }
                        for _ in 0..<30 {
                            guard let answer = try? await app.send("POST", Self.route, json: Self.payload),
                                answer.status == 200, let counter = answer.number("counter")
                            else { return }
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
        let restarted = try await ServeProcess.start(arguments)
        // Key lookups are an operator route, on the admin listener.
        let transport = URLSessionTransport(
            baseURL: URL(string: "http://127.0.0.1:\(restarted.adminPort)") ?? URL(fileURLWithPath: "/"))
        let snapshot = ledger.counters.withLock { $0 }
        #expect(!snapshot.isEmpty)
        for (keyID, counter) in snapshot {
            let path =
                "/v1/keys/"
                + keyID.replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
            let answer = ServerAnswer(try await transport.send("GET", path, body: []))
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
