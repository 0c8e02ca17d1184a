import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestService
import RampartAttestSimulation
import RampartRequestSigning
import RampartSecretStore

/// `rampart demo`: the App Attest guide's story, played against a real service on loopback.
///
/// Starts ``AttestationServer`` on `127.0.0.1` (a free port, `--demo`) with a temporary SQLite store and the
/// simulator's root, then an ``AttestedClient`` on a simulated device registers a key and spends points with signed
/// requests (the subject comes from the `X-User-Id` header a proxy would set), and an attacker tries what the guide
/// says App Attest stops: replaying a request, changing the amount after signing, replaying an old counter, a
/// re-signed (tampered) app, and naming another user in a body. Each step reports what the server answered and
/// whether that is what the guide expects.
public enum AttestationDemo {
    /// One step of the story.
    public struct Step: Sendable, Hashable, Encodable {
        /// The step's number, from 1.
        public let number: Int
        /// What happens.
        public let title: String
        /// The expected status and code, e.g. `409 challengeUsed`.
        public let expected: String
        /// The HTTP status the server answered.
        public let status: Int
        /// The code the server answered (`accepted` for a 2xx).
        public let outcome: String
        /// What the answer said, for the reader.
        public let detail: String
        /// Whether the answer is the expected one.
        public let passed: Bool
    }

    static let teamID = "DEMO123456"
    static let bundleID = "com.rampart.demo"
    static let user = "user_123"
    static let route = "/v1/demo/points/use"

    /// Plays the story.
    ///
    /// - Parameter report: Called with each step as it completes.
    /// - Returns: Every step.
    /// - Throws: ``AttestServiceError`` or a transport error when the demo itself cannot run (no free port, no
    ///   temporary directory); refusals are steps, not errors.
    public static func run(report: @Sendable (Step) -> Void = { _ in }) async throws -> [Step] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-demo-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let simulator = try AppAttestSimulator()
        let verifier = AppAttestVerifierAdapter(
            try AppAttestVerifier(
                teamID: teamID, bundleID: bundleID, environment: .development, trustAnchor: simulator.rootCertificate))
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = "sqlite:" + directory.appendingPathComponent("demo.db").path
        configuration.environment = "development"
        configuration.demo = true
        configuration.teamId = teamID
        configuration.bundleId = bundleID
        let server = try AttestationServer(configuration: configuration, verifier: verifier)
        guard let base = URL(string: "http://127.0.0.1:\(server.port)") else {
            throw AttestServiceError.serverFailure("the demo server has no address")
        }
        let device = SimulatedAppAttestDevice(
            simulator: simulator, teamID: teamID, bundleID: bundleID, environment: .development)
        let transport = URLSessionTransport(baseURL: base)
        // The demo server takes the subject from X-User-Id, as a proxy that authenticated the user would set it.
        let signedIn: AttestedClient.HeaderProvider = { [HTTPField(name: "X-User-Id", value: user)] }
        let app = AttestedClient(
            transport: transport, device: device, secrets: Vault(backend: InMemoryBackend()), headers: signedIn)
        let json = [HTTPField(name: "Content-Type", value: "application/json")]
        /// A request without an assertion, as the app (or anyone) could send it.
        func unsigned(_ target: String, _ body: String) async throws -> ServerAnswer {
            ServerAnswer(
                try await transport.send(
                    TransportRequest(
                        method: "POST", target: target, headers: json + (try await signedIn()),
                        body: Array(body.utf8))))
        }

        var steps: [Step] = []
        func record(
            _ title: String, expect status: Int, _ code: String, _ answer: ServerAnswer, _ detail: String
        ) {
            let outcome = (200..<300).contains(answer.status) ? "accepted" : (answer.errorCode ?? "?")
            let step = Step(
                number: steps.count + 1, title: title, expected: "\(status) \(code)", status: answer.status,
                outcome: outcome, detail: detail, passed: answer.status == status && outcome == code)
            steps.append(step)
            report(step)
        }
        func points(_ amount: Int) -> [UInt8] { Array(#"{"amount":\#(amount)}"#.utf8) }

        do {
            // 1. Attestation: the app registers its key once, over a one-time challenge.
            let keyID = try await device.generateKey()
            let registered = try await app.attest(keyID: keyID)
            if registered.status == 201 { try await app.keep(keyID: keyID) }
            record(
                "the app generates a key and registers it (attestation over a one-time challenge)", expect: 201,
                "accepted", registered, "key registered, counter 0, environment development")

            // 2. A signed request: method, path, challenge and body digest under one assertion.
            let spend = try await app.sign("POST", route, headers: json, body: points(1000))
            let spent = try await app.send(spend)
            // The client keeps the answer's Rampart-Next-Challenge; step 6 signs over it.
            let next = await app.nextChallenge(for: keyID)
            await app.keepNextChallenge(nil, for: keyID)
            record(
                "use 1000 points with a signed request (method, path, challenge and body digest)", expect: 200,
                "accepted", spent,
                "balance \(Int(spent.number("balance") ?? -1)), counter \(Int(spent.number("counter") ?? -1))")

            // 3. The same request again.
            let replayed = try await app.send(spend)
            record(
                "send the very same request again (replay)", expect: 409, "challengeUsed", replayed,
                replayed.message ?? "")

            // 4. The amount changed after signing.
            var tampered = try await app.sign("POST", route, headers: json, body: points(1000))
            tampered.body = points(9000)
            let altered = try await app.send(tampered)
            record(
                "change the amount to 9000 after signing", expect: 401, "digestMismatch", altered,
                altered.message ?? "")

            // 5. The amount changed and Content-Digest recomputed: the assertion no longer matches.
            var forged = try await app.sign("POST", route, headers: json, body: points(1000))
            forged.body = points(9000)
            forged.contentDigest = RequestSignature.contentDigest(of: forged.body)
            let refused = try await app.send(forged)
            record(
                "change the amount and recompute Content-Digest", expect: 401, "invalidAssertion", refused,
                refused.message ?? "")

            // 6. An old assertion replayed after a newer one, which used the Rampart-Next-Challenge of step 2.
            let held = try await app.sign("POST", route, headers: json, body: points(500))
            await app.keepNextChallenge(next, for: keyID)
            let newer = try await app.send(try await app.sign("POST", route, headers: json, body: points(100)))
            let stale = try await app.send(held)
            record(
                "replay an earlier assertion (older counter) after a newer one was accepted", expect: 409,
                "counterReplay", stale,
                "the newer request (over step 2's Rampart-Next-Challenge) got \(newer.status); \(stale.message ?? "")")

            // 7–8. A re-signed app: its attestation names another App ID, so its key is never registered.
            let attackerDevice = SimulatedAppAttestDevice(
                simulator: simulator, teamID: "ATTACKER01", bundleID: bundleID, environment: .development)
            let attacker = AttestedClient(
                transport: transport, device: attackerDevice, secrets: Vault(backend: InMemoryBackend()),
                headers: signedIn)
            let attackerKey = try await attackerDevice.generateKey()
            let refusedRegistration = try await attacker.attest(keyID: attackerKey)
            record(
                "a tampered app (re-signed by another team) tries to register its key", expect: 403,
                "invalidAttestation", refusedRegistration, refusedRegistration.message ?? "")
            let unattested = try await attacker.send(
                try await attacker.sign("POST", route, headers: json, body: points(1000), keyID: attackerKey))
            record(
                "the tampered app calls the points API with its never-attested key", expect: 401, "unknownKey",
                unattested, unattested.message ?? "")

            // 9. The app names another user in a body: the subject comes from the proxy's header only.
            let named = try await unsigned("/v1/challenges", #"{"purpose":"attestation","subject":"victim"}"#)
            record(
                "the app names another user as the subject in a body", expect: 400, "invalidField", named,
                named.message ?? "")

            // 10. The failure policy: a read under `limited` works without an assertion, and is logged.
            let read = try await unsigned("/v1/demo/points/balance", "")
            record(
                "read the balance without an assertion (policy: limited — allowed, logged)", expect: 200, "accepted",
                read, "balance \(Int(read.number("balance") ?? -1)); failures raised the key's risk score")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
        return steps
    }
}
