import Foundation
import RampartAppAttest
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartAttestClient
import RampartAttestService
import RampartPinning
import RampartPointsCore
import RampartX509
import Testing

/// The example app's logic (Examples/iOSApp/Sources/Core) with the real adapters over the simulation, against a
/// running rampart serve: sign in, token in the Keychain, register, spend points with signed requests.
@Suite(.serialized)
struct ExampleAppTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.rampart.points"

    static var infoPlist: Data {
        get throws {
            try Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("../../Examples/iOSApp/Info.plist").standardizedFileURL)
        }
    }

    @Test("the example's Info.plist pins what rampart pinset writes for the sample chain, and its API base URL reads")
    func configuration() throws {
        let environment = try AppEnvironment(infoPlist: try Self.infoPlist)
        #expect(environment.baseURL.absoluteString == "https://api.sample.rampart.example")
        let policy = try #require(environment.pinning.configuration.policy(for: "api.sample.rampart.example"))
        let chain = try Certificate.parseAll(
            Array(
                try Data(
                    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                        .appendingPathComponent("../../Examples/sample-chain.pem").standardizedFileURL)))
        let expected = try chain.dropFirst().map { try Pin(kind: .spkiSHA256, base64: $0.spkiSHA256) }
        #expect(policy.caPins == expected)
        #expect(policy.includesSubdomains)
        #expect(environment.pinning.configuration.lint(at: Date(), chain: chain).isEmpty)
    }

    @Test("sign in (a session JWT in the Keychain), register once, spend points with signed requests, sign out")
    func scenario() async throws {
        let tokens = SessionTokens()
        let token = try tokens.token(for: "user_123")
        let simulation = SimulatedAppAttest(
            simulator: try AppAttestSimulator(), teamID: Self.teamID, bundleID: Self.bundleID)
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = "sqlite::memory:"
        configuration.environment = "development"
        configuration.demo = true
        // The backend's sign-in issues ES256 session JWTs; the service takes the user from the one the app sends.
        configuration.subject = .jwt(
            .init(
                jwks: try tokens.writeJWKS(), issuer: SessionTokens.issuer, audience: SessionTokens.audience,
                algorithms: ["ES256"]))
        let server = try AttestationServer(
            configuration: configuration,
            verifier: AppAttestVerifierAdapter(
                try AppAttestVerifier(
                    teamID: Self.teamID, bundleID: Self.bundleID, environment: .development,
                    trustAnchor: simulation.simulator.rootCertificate)))
        let transport = URLSessionTransport(
            baseURL: URL(string: "http://127.0.0.1:\(server.port)") ?? URL(fileURLWithPath: "/"))
        try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
            try await SimulatedAppAttest.$current.withValue(simulation) {
                let environment = try AppEnvironment(infoPlist: try Self.infoPlist)
                try await environment.sessions.save(.init(userID: "user_123", token: token))
                #expect(try await environment.sessions.load() == .init(userID: "user_123", token: token))
                let points = PointsService(
                    transport: transport, device: environment.device, secrets: environment.secrets,
                    sessions: environment.sessions)
                let keyID = try await points.register()
                #expect(try await points.register() == keyID, "registered once per installation")
                #expect(try await points.use(1000) == .spent(balance: 4000))
                #expect(try await points.use(3000) == .spent(balance: 1000))
                #expect(try await points.use(5000) == .refused(code: "insufficientPoints", status: 409))
                try await environment.sessions.clear()
                #expect(try await environment.sessions.load() == nil)
                // Signed out: the header provider throws, so nothing is sent.
                let error = await #expect(throws: AttestedClientError.self) { try await points.use(1) }
                #expect(error?.code == .credentialsUnavailable)
            }
        }
        await server.stop()
    }
}
