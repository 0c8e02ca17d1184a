import Foundation
import RampartAppAttest
import TestSupport
import Testing

/// Caddy (`forward_auth`) in front of the echo upstream with `docs/examples/Caddyfile` as the docs print it: only the
/// ports are the test's (the credentials come from the environment, as in the docs). Caddy runs unprivileged with the
/// admin endpoint off, no automatic HTTPS and its storage in a scratch directory. Skipped, saying so, when Caddy is not
/// installed (scripts/install-deps.sh installs it; CI runs it).
@Suite(
    .serialized,
    .enabled(
        if: (CaddyGateway.binary != nil && EchoUpstream.python != nil || Gateway.required) && ServeProcess.available,
        "needs caddy (apt-get install caddy; scripts/install-deps.sh), python3 and the rampart binary"))
struct GatewayCaddyTests {
    let simulator: AppAttestSimulator

    init() throws { simulator = try AppAttestSimulator() }

    @Test("a signed request reaches the upstream with Rampart-Subject; the next challenge signs the next request")
    func signedRequests() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) { try await $0.signedRequestsPass() }
    }

    @Test(
        "method, path, query or body changed, replay and no assertion: refused by Caddy with Rampart's status and code")
    func tampering() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) { try await $0.tamperingIsRefused() }
    }

    @Test("open routes pass; the client's X-User-Id and Rampart-* copies never reach the upstream")
    func openRoutes() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) {
            try await $0.openRoutesPassAndForgedHeadersAreDropped()
        }
    }

    @Test("'..;' and its other spellings never reach the upstream, with a token or without anything")
    func dotSegmentSpellings() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) {
            try await $0.dotSegmentSpellingsAreRefused()
        }
    }

    @Test("headers spelt with underscores (X_User_Id, Rampart_Key_Id) never reach the upstream")
    func underscoreSpellings() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) {
            try await $0.underscoreSpellingsAreDropped()
        }
    }

    @Test("a signed body sent chunked reaches the upstream whole and verifies; the next requests pass cleanly")
    func chunkedBody() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) { try await $0.chunkedBodiesVerify() }
    }

    @Test("a token from POST /v1/tokens through Caddy opens a token route")
    func tokens() async throws {
        try await GatewayStory.run(CaddyGateway.self, simulator: simulator) { try await $0.tokensOpenTokenRoutes() }
    }
}

/// Caddy started from `docs/examples/Caddyfile`.
struct CaddyGateway: ProxyGateway {
    static let name = "Caddy"
    static let passesStatus = true

    let child: ChildProcess
    let port: UInt16

    static var binary: String? { Gateway.executable("caddy") }

    /// The bcrypt hash of the test password `secret`, made once by `caddy hash-password`.
    static let passwordHash: String? = {
        guard let binary else { return nil }
        guard let result = try? SpawnedProcess.run(binary, ["hash-password", "--plaintext", "secret"]),
            result.termination == .exited(0)
        else { return nil }
        return result.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }()

    static func start(rampartPort: UInt16, upstreamPort: UInt16) async throws -> CaddyGateway {
        guard let binary, let passwordHash, !passwordHash.isEmpty else {
            throw ServeProcessError("caddy is not installed or `caddy hash-password` failed")
        }
        let directory = URL(fileURLWithPath: ScratchDirectory.uniquePath("caddy"), isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (child, port) = try await Gateway.startListening("caddy") { port in
            let site = try Gateway.substitute(
                try Gateway.example("Caddyfile"),
                [
                    "http://:8000": "http://:\(port)",
                    "127.0.0.1:8080": "127.0.0.1:\(rampartPort)",
                    "127.0.0.1:9000": "127.0.0.1:\(upstreamPort)",
                ])
            try Data(site.utf8).write(to: directory.appendingPathComponent("site.caddy"))
            let main = """
                {
                \tadmin off
                \tauto_https off
                \tstorage file_system \(directory.path)/storage
                }
                import \(directory.path)/site.caddy

                """
            try Data(main.utf8).write(to: directory.appendingPathComponent("Caddyfile"))
            return try ChildProcess(
                "caddy", executable: binary,
                arguments: ["run", "--config", "\(directory.path)/Caddyfile", "--adapter", "caddyfile"],
                environment: ["API_USER": "alice", "API_PASSWORD_HASH": passwordHash], directory: directory)
        }
        return CaddyGateway(child: child, port: port)
    }
}
