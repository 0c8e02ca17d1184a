import Foundation
import RampartAppAttest
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartAttestClient
import RampartAttestService
import RampartRequestSigning
import RampartSecretStore
import RampartX509
import Testing

/// AttestedClient over DeviceCheckAppAttestDevice, against a running attestation service that trusts the simulated
/// App Attest CA.
@Suite(.serialized)
struct DeviceCheckAppAttestDeviceTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.rampart.apple-tests"
    static let payload: JSONValue = .object(["amount": .number(1)])

    let simulation: SimulatedAppAttest

    init() throws {
        simulation = SimulatedAppAttest(
            simulator: try AppAttestSimulator(), teamID: Self.teamID, bundleID: Self.bundleID)
    }

    func startServer() throws -> AttestationServer {
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database =
            "sqlite:"
            + FileManager.default.temporaryDirectory
            .appendingPathComponent("rampart-apple-\(UUID().uuidString).sqlite").path
        configuration.environment = "development"
        configuration.demo = true
        configuration.subject = .demoDefault
        let verifier = AppAttestVerifierAdapter(
            try AppAttestVerifier(
                teamID: Self.teamID, bundleID: Self.bundleID, environment: .development,
                trustAnchor: simulation.simulator.rootCertificate))
        return try AttestationServer(configuration: configuration, verifier: verifier)
    }

    func client(_ server: AttestationServer, subject: String = "alice") -> AttestedClient {
        AttestedClient(
            transport: URLSessionTransport(
                baseURL: URL(string: "http://127.0.0.1:\(server.port)") ?? URL(fileURLWithPath: "/")),
            device: DeviceCheckAppAttestDevice(), secrets: Vault(backend: InMemoryBackend()),
            headers: { [HTTPField(name: "X-User-Id", value: subject)] })
    }

    @Test("AttestedClient over DeviceCheckAppAttestDevice registers and signs against rampart serve")
    func registerAndSign() async throws {
        let server = try startServer()
        try await SimulatedAppAttest.$current.withValue(simulation) {
            let app = client(server)
            let first = try await app.send("POST", "/v1/demo/points/use", json: Self.payload)
            #expect(first.status == 200)
            #expect(first.number("counter") == 1)
            let second = try await app.send("POST", "/v1/demo/points/use", json: Self.payload)
            #expect(second.number("counter") == 2)
        }
        await server.stop()
    }

    @Test("DCError.invalidKey: the client generates a new key, re-registers and the request succeeds")
    func invalidKey() async throws {
        let server = try startServer()
        try await SimulatedAppAttest.$current.withValue(simulation) {
            let app = client(server)
            #expect(try await app.send("POST", "/v1/demo/points/use", json: Self.payload).status == 200)
            let old = try await app.registeredKeyID()
            simulation.invalidateKey(old)
            await #expect(throws: AttestedClientError.invalidKey("")) {
                try await DeviceCheckAppAttestDevice().generateAssertion(
                    old, clientDataHash: [UInt8](repeating: 1, count: 32))
            }
            let answer = try await app.send("POST", "/v1/demo/points/use", json: Self.payload)
            #expect(answer.status == 200)
            #expect(answer.number("counter") == 1)
            #expect(try await app.registeredKeyID() != old)
        }
        await server.stop()
    }

    @Test("a key may be attested again until it signs, then attestKey is DCError.invalidKey (mapped to invalidKey)")
    func attestAfterAssertion() async throws {
        try await SimulatedAppAttest.$current.withValue(simulation) {
            let device = DeviceCheckAppAttestDevice()
            let keyID = try await device.generateKey()
            let hash = [UInt8](repeating: 7, count: 32)
            _ = try await device.attestKey(keyID, clientDataHash: hash)
            _ = try await device.attestKey(keyID, clientDataHash: hash)
            _ = try await device.generateAssertion(keyID, clientDataHash: hash)
            await #expect(throws: DCError(.invalidKey)) {
                try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: Data(hash))
            }
            await #expect(throws: AttestedClientError.invalidKey("")) {
                try await device.attestKey(keyID, clientDataHash: hash)
            }
        }
    }

    @Test("DCError.featureUnsupported and an unsupported device are deviceUnsupported")
    func featureUnsupported() async throws {
        let server = try startServer()
        simulation.isSupported = false
        await SimulatedAppAttest.$current.withValue(simulation) {
            #expect(DeviceCheckAppAttestDevice().isSupported == false)
            await #expect(throws: AttestedClientError.deviceUnsupported("")) {
                try await DeviceCheckAppAttestDevice().generateKey()
            }
            await #expect(throws: AttestedClientError.deviceUnsupported("")) {
                try await client(server).send("POST", "/v1/demo/points/use", json: Self.payload)
            }
        }
        await #expect(throws: AttestedClientError.deviceUnsupported("")) {
            try await DeviceCheckAppAttestDevice().generateKey()
        }
        await server.stop()
    }

    @Test("concurrent protected requests for one key reach the server in counter order: none refused")
    func concurrentAssertions() async throws {
        let server = try startServer()
        try await SimulatedAppAttest.$current.withValue(simulation) {
            let app = client(server)
            _ = try await app.registeredKeyID()
            let answers = try await withThrowingTaskGroup(of: ServerAnswer.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await app.send("POST", "/v1/demo/points/use", json: Self.payload) }
                }
                return try await group.reduce(into: [ServerAnswer]()) { $0.append($1) }
            }
            #expect(answers.map(\.status) == Array(repeating: 200, count: 12))
            #expect(answers.compactMap { $0.errorCode }.isEmpty)
            #expect(Set(answers.compactMap { $0.number("counter") }) == Set((1...12).map(Double.init)))
        }
        await server.stop()
    }

    @Test("the simulated CA kept in a folder is the same CA when loaded again (rampart serve --root DIR/root.pem)")
    func keptCA() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-ca-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try SimulatedAppAttest(keptIn: directory, teamID: Self.teamID, bundleID: Self.bundleID)
        let again = try SimulatedAppAttest(keptIn: directory, teamID: Self.teamID, bundleID: Self.bundleID)
        #expect(first.simulator.rootCertificate.derBytes == again.simulator.rootCertificate.derBytes)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("root.pem").path))
    }
}
