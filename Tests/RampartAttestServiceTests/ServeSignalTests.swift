import Foundation
import TestSupport
import Testing

/// How `rampart serve` treats signals: SIGHUP reads the session JWKS file again (and is logged and otherwise ignored
/// without one), SIGTERM drains and exits 0.
struct ServeSignalTests {
    typealias F = TokensFixtures

    static let healthz = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)

    /// Sends SIGTERM and expects a clean exit.
    static func stop(_ server: ServeChild, sourceLocation: SourceLocation = #_sourceLocation) async {
        let termination = await server.child.process.stop(signal: SIGTERM, within: 10)
        #expect(termination == .exited(0), sourceLocation: sourceLocation)
    }

    @Test(
        "SIGHUP without a session JWKS file is logged as sighupIgnored; the service keeps answering, then SIGTERM stops it",
        .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
    func hangUp() async throws {
        let server = try await ServeChild.start(
            ServeProcess.subjectHeader + [
                "--db", "sqlite:" + temporarySQLitePath(), "--team-id", "ABCDE12345", "--bundle-id", "com.example.app",
            ])
        #expect(await RawHTTP.exchange(port: server.port, Self.healthz)?.status == 200)
        server.child.process.signal(SIGHUP)
        server.child.process.signal(SIGHUP)
        try await server.child.wait { server.child.stderr.contains(#""event":"sighupIgnored""#) }
        #expect(server.child.stderr.contains("there is no session JWKS file to read again"))
        #expect(server.child.process.isRunning)
        #expect(await RawHTTP.exchange(port: server.port, Self.healthz)?.status == 200)
        await Self.stop(server)
    }

    /// `POST /v1/challenges` with a session JWT: its status and `Rampart-Error`.
    static func challenge(port: UInt16, token: String) async -> (status: Int?, error: String?) {
        let body = #"{"purpose":"attestation"}"#
        let request = Array(
            ("POST /v1/challenges HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)").utf8)
        let response = await RawHTTP.exchange(port: port, request)
        return (response?.status, response?.headers["rampart-error"])
    }

    @Test(
        "SIGHUP reads the session JWKS file again: a bad file is logged and the old keys stay, a good one takes over",
        .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
    func hangUpReloadsSessionKeys() async throws {
        let jwks = try TokensSessionTests.writeJWKS(F.jwks([F.ecJWK()]))
        let configuration = ScratchDirectory.uniquePath("rampart.json")
        let object: [String: any Sendable] = [
            "teamId": "ABCDE12345", "bundleId": "com.example.app", "database": "sqlite:" + temporarySQLitePath(),
            "subject": ["jwt": ["jwks": jwks, "issuer": F.issuer, "audience": F.audience]],
        ]
        try Data(F.json(object)).write(to: URL(fileURLWithPath: configuration))
        let server = try await ServeChild.start(["--config", configuration])
        let now = Date().timeIntervalSince1970
        let claims = F.claims(["iat": now - 10, "exp": now + 600])
        let first = F.token(header: ["alg": "ES256", "kid": "ec-1", "typ": "JWT"], claims: claims)
        let rotated = F.token(
            header: ["alg": "ES256", "kid": "ec-2", "typ": "JWT"], claims: claims, ecKey: F.otherECKey)
        #expect(await Self.challenge(port: server.port, token: first).status == 200)

        // A half-written file: SIGHUP logs why it was not used, and the key read at start still verifies.
        try TokensSessionTests.replace(jwks, with: Array(#"{"keys":["#.utf8))
        server.child.process.signal(SIGHUP)
        try await server.child.wait { server.child.stderr.contains(#""event":"sessionKeysKept""#) }
        let kept = server.child.stderr.split(separator: "\n").first { $0.contains(#""event":"sessionKeysKept""#) }
        #expect(kept?.contains(#"SIGHUP: kept the 1 key (kid \"ec-1\") in use for at most 300 s"#) == true)
        #expect(kept?.contains("the JWKS file \(jwks) (subject.jwt.jwks) is not usable") == true)
        #expect(kept?.contains(#""level":"warning""#) == true)
        #expect(await Self.challenge(port: server.port, token: first).status == 200)

        // The provider's new key set: SIGHUP loads it, the new key verifies and the dropped one no longer does.
        try TokensSessionTests.replace(jwks, with: F.jwks([F.ecJWK(F.otherECKey, kid: "ec-2")]))
        server.child.process.signal(SIGHUP)
        try await server.child.wait { server.child.stderr.contains(#""event":"sessionKeysReloaded""#) }
        let loaded = server.child.stderr.split(separator: "\n").first {
            $0.contains(#""event":"sessionKeysReloaded""#)
        }
        #expect(loaded?.contains(#"SIGHUP: read 1 key (kid \"ec-2\") from the JWKS file"#) == true)
        #expect(await Self.challenge(port: server.port, token: rotated).status == 200)
        let refused = await Self.challenge(port: server.port, token: first)
        #expect(refused.status == 401 && refused.error == "invalidSession")
        #expect(server.child.process.isRunning)
        await Self.stop(server)
    }
}
