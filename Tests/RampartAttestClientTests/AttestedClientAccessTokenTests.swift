import Foundation
import RampartAppAttest
@_spi(Testing) import RampartAttestClient
import RampartAttestSimulation
import RampartCrypto
import RampartSecretStore
import Testing

/// Access tokens: fetched with a signed `POST /v1/tokens`, kept until shortly before they expire, refreshed, and
/// sent as `Rampart-Token`.
struct AttestedClientAccessTokenTests {
    struct Setup {
        let server: FakeServer
        let client: AttestedClient
        /// The device's clock.
        let now: Locked<Date>
        let user: Locked<String>
    }

    static let start = Date(timeIntervalSince1970: 1_796_126_400)  // 2026-12-01T12:00:00Z

    static func setup(tokenLifetime: TimeInterval = 900, serverAhead: TimeInterval = 0) throws -> Setup {
        let server = FakeServer(now: start.addingTimeInterval(serverAhead), tokenLifetime: tokenLifetime)
        let now = Locked(start)
        let user = Locked("alice")
        let client = AttestedClient(
            transport: server,
            device: SimulatedAppAttestDevice(
                simulator: try AppAttestSimulator(), teamID: "ABCDE12345", bundleID: "com.example.app",
                environment: .development),
            secrets: Vault(backend: InMemoryBackend()), clock: { now.withLock { $0 } },
            credentials: {
                let name = user.withLock { $0 }
                return .init(user: name, headers: [HTTPField(name: "Authorization", value: "Bearer \(name)")])
            })
        return Setup(server: server, client: client, now: now, user: user)
    }

    /// Moves both clocks on.
    static func advance(_ setup: Setup, _ seconds: TimeInterval) {
        setup.now.withLock { $0 = $0.addingTimeInterval(seconds) }
        setup.server.now.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    static var tokenRequests: (FakeServer) -> [TransportRequest] {
        { $0.requests.filter { $0.target == "/v1/tokens" } }
    }

    @Test("the first token is a signed POST /v1/tokens with a JSON body; it is kept until a minute before it expires")
    func fetchAndKeep() async throws {
        let setup = try Self.setup()
        let token = try await setup.client.accessToken()
        #expect(token.token == "t1")
        #expect(token.expiresAt == Self.start.addingTimeInterval(900))
        #expect(token.refreshAt == Self.start.addingTimeInterval(840))
        #expect(
            setup.server.lines == [
                "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "POST /v1/tokens",
            ])
        let request = try #require(Self.tokenRequests(setup.server).first)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.body == Array("{}".utf8))
        #expect(request.header("Rampart-Assertion") != nil)
        #expect(request.header("Authorization") == "Bearer alice")

        Self.advance(setup, 839)
        #expect(try await setup.client.accessToken().token == "t1", "kept: no request")
        #expect(Self.tokenRequests(setup.server).count == 1)
        Self.advance(setup, 1)
        #expect(try await setup.client.accessToken().token == "t2", "a minute before expiry: a new one")
        #expect(Self.tokenRequests(setup.server).count == 2)
    }

    @Test("a short-lived token is replaced at half its lifetime")
    func shortLifetime() async throws {
        let setup = try Self.setup(tokenLifetime: 30)
        #expect(try await setup.client.accessToken().refreshAt == Self.start.addingTimeInterval(15))
        Self.advance(setup, 15)
        #expect(try await setup.client.accessToken().token == "t2")
    }

    @Test("the server's clock an hour ahead: the expiry is read against its Date header, not the device's clock")
    func clockSkew() async throws {
        let setup = try Self.setup(serverAhead: 3600)
        let token = try await setup.client.accessToken()
        #expect(token.expiresAt == Self.start.addingTimeInterval(3600 + 900))
        #expect(token.refreshAt == Self.start.addingTimeInterval(840))
    }

    @Test("refreshAccessToken fetches a new token at once; forgetAccessToken drops the kept one")
    func refresh() async throws {
        let setup = try Self.setup()
        #expect(try await setup.client.accessToken().token == "t1")
        #expect(try await setup.client.refreshAccessToken().token == "t2")
        #expect(try await setup.client.accessToken().token == "t2")
        try await setup.client.forgetAccessToken()
        #expect(try await setup.client.accessToken().token == "t3")
    }

    @Test("each user has their own token; switching back uses the kept one")
    func perUser() async throws {
        let setup = try Self.setup()
        #expect(try await setup.client.accessToken().token == "t1")
        setup.user.withLock { $0 = "bob" }
        #expect(try await setup.client.accessToken().token == "t2")
        let bobRequest = try #require(Self.tokenRequests(setup.server).last)
        #expect(bobRequest.header("Authorization") == "Bearer bob")
        setup.user.withLock { $0 = "alice" }
        #expect(try await setup.client.accessToken().token == "t1")
        #expect(Self.tokenRequests(setup.server).count == 2)
    }

    @Test("concurrent calls share one fetch")
    func oneFetch() async throws {
        let setup = try Self.setup()
        try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<6 { group.addTask { try await setup.client.accessToken().token } }
            for try await token in group { #expect(token == "t1") }
        }
        #expect(Self.tokenRequests(setup.server).count == 1)
    }

    @Test("sendWithAccessToken sends Rampart-Token and the credentials, unsigned")
    func sendWithToken() async throws {
        let setup = try Self.setup()
        let answer = try await setup.client.sendWithAccessToken(
            "get", "/api/feed/today", headers: [HTTPField(name: "Rampart-Token", value: "forged")])
        #expect(answer.status == 200)
        let sent = try #require(setup.server.appRequests.last)
        #expect(sent.method == "GET")
        #expect(sent.headers.filter { $0.name.lowercased() == "rampart-token" }.map(\.value) == ["t1"])
        #expect(sent.header("Authorization") == "Bearer alice")
        #expect(sent.header("Rampart-Assertion") == nil)
    }

    @Test(
        "a refused token (tokenExpired, invalidToken, wrongSubject; in the body or Rampart-Error) is replaced once",
        arguments: ["tokenExpired", "invalidToken", "wrongSubject"])
    func refusedToken(code: String) async throws {
        let setup = try Self.setup()
        _ = try await setup.client.accessToken()
        setup.server.queue(
            TransportResponse(status: 401, headers: ["Rampart-Error": code], body: []), FakeServer.allow())
        #expect(try await setup.client.sendWithAccessToken("GET", "/api/feed/today").status == 200)
        #expect(setup.server.appRequests.map { $0.header("Rampart-Token") } == ["t1", "t2"])
        setup.server.queue(FakeServer.refusal(401, code), FakeServer.refusal(401, code))
        #expect(try await setup.client.sendWithAccessToken("GET", "/api/feed/today").errorCode == code)
        #expect(Self.tokenRequests(setup.server).count == 3, "one new token per request at most")
    }

    @Test("other refusals of a token route are returned as they are")
    func otherRefusal() async throws {
        let setup = try Self.setup()
        setup.server.queue(FakeServer.refusal(403, "wrongEnvironment"))
        #expect(try await setup.client.sendWithAccessToken("GET", "/api/feed/today").errorCode == "wrongEnvironment")
        #expect(Self.tokenRequests(setup.server).count == 1)
    }

    @Test("a service that issues no tokens is tokenRefused, naming its code")
    func tokenRefused() async throws {
        let setup = try Self.setup()
        setup.server.queueTokenAnswers(FakeServer.refusal(404, "notFound"))
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.accessToken() }
        #expect(error?.code == .tokenRefused)
        #expect(error?.reason.contains("404 notFound") == true)
        #expect(error?.detail == "notFound")
    }

    @Test(
        "a 200 without a token or a readable expiry is unexpectedResponse",
        arguments: [
            #"{"expiresAt":"2026-12-01T12:15:00Z"}"#, #"{"token":"t","expiresAt":"soon"}"#,
            #"{"token":"t","expiresAt":"2026-12-01T11:00:00Z"}"#,
        ])
    func malformedToken(body: String) async throws {
        let setup = try Self.setup()
        setup.server.queueTokenAnswers(FakeServer.json(200, body))
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.accessToken() }
        #expect(error?.code == .unexpectedResponse)
    }

    @Test("the token never appears in its description")
    func description() {
        let token = AccessToken(token: "eyJsecret", expiresAt: Self.start, refreshAt: Self.start)
        #expect(!"\(token)".contains("eyJsecret"))
        #expect(!String(reflecting: token).contains("eyJsecret"))
    }
}
