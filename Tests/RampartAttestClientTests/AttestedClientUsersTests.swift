import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestSimulation
import RampartCrypto
import RampartRequestSigning
import RampartSecretStore
import Testing

/// Several users signing in on one device, against a scripted server that binds challenges and keys to the
/// request's `Authorization` as `rampart serve` binds them to the subject.
struct AttestedClientUsersTests {
    struct Setup {
        let server: FakeServer
        let device: SimulatedAppAttestDevice
        let secrets: Vault
        /// Who is signed in: the user id and the `Authorization` that authenticates them.
        let signedIn: Locked<(user: String, authorization: String)>
    }

    static func setup() throws -> Setup {
        Setup(
            server: FakeServer(subjects: true),
            device: SimulatedAppAttestDevice(
                simulator: try AppAttestSimulator(), teamID: "ABCDE12345", bundleID: "com.example.app",
                environment: .development),
            secrets: Vault(backend: InMemoryBackend()),
            signedIn: Locked((user: "alice", authorization: "Bearer alice-session")))
    }

    static func signIn(_ setup: Setup, _ user: String) {
        setup.signedIn.withLock { $0 = (user, "Bearer \(user)-session") }
    }

    /// A client told who is signed in.
    static func client(_ setup: Setup) -> AttestedClient {
        let signedIn = setup.signedIn
        return AttestedClient(
            transport: setup.server, device: setup.device, secrets: setup.secrets, account: "me",
            credentials: {
                let (user, authorization) = signedIn.withLock { $0 }
                return .init(user: user, headers: [HTTPField(name: "Authorization", value: authorization)])
            })
    }

    /// A client told only the headers.
    static func headersOnlyClient(_ setup: Setup) -> AttestedClient {
        let signedIn = setup.signedIn
        return AttestedClient(
            transport: setup.server, device: setup.device, secrets: setup.secrets, account: "me",
            headers: { [HTTPField(name: "Authorization", value: signedIn.withLock { $0.authorization })] })
    }

    static func kept(_ setup: Setup, service: String, account: String) async throws -> String? {
        try await setup.secrets.secret(service: service, account: account).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test("users switching on one device: each is signed with their own key, attested once, and every request passes")
    func keyPerUser() async throws {
        let setup = try Self.setup()
        let client = Self.client(setup)
        for user in ["alice", "bob", "alice", "bob", "carol", "alice"] {
            Self.signIn(setup, user)
            let answer = try await client.send("POST", "/api/points/use", json: .object(["amount": .number(1)]))
            #expect(answer.status == 200, "\(user): \(answer.errorCode ?? "")")
        }
        #expect(setup.server.state.withLock { $0.attestations } == 3, "one registration per user")
        let requests = setup.server.appRequests
        let keys = requests.map { $0.header("Rampart-Key-Id") ?? "" }
        try #require(keys.count == 6, "one signed request per use")
        #expect(keys[0] == keys[2] && keys[2] == keys[5], "alice's key")
        #expect(keys[1] == keys[3], "bob's key")
        #expect(Set(keys).count == 3)
        for request in requests {
            #expect(
                setup.server.state.withLock { $0.keySubjects[request.header("Rampart-Key-Id") ?? ""] }
                    == request.header("Authorization"))
        }
        // Each user's key id is kept under keyIDService/<account>, with the user as the account.
        let service = "\(AttestedClient.keyIDService)/me"
        #expect(try await Self.kept(setup, service: service, account: "alice") == keys[0])
        #expect(try await Self.kept(setup, service: service, account: "bob") == keys[1])
        #expect(try await Self.kept(setup, service: AttestedClient.keyIDService, account: "me") == nil)
        // The next challenge of alice's last answer is kept for her key and used by her next request.
        Self.signIn(setup, "alice")
        _ = try await client.send("GET", "/api/points/balance")
        #expect(setup.server.lines.last == "GET /api/points/balance")
        #expect(setup.server.lines.dropLast().last == "POST /api/points/use", "no challenge round trip")
        #expect(try await client.keptKeyID() == keys[0])
    }

    @Test("without users: after another user signs in, the request is signed again and a new key attested for them")
    func headersOnlySwitch() async throws {
        let setup = try Self.setup()
        let client = Self.headersOnlyClient(setup)
        #expect(try await client.send("GET", "/a").status == 200)
        let aliceKey = try #require(try await client.keptKeyID())
        Self.signIn(setup, "bob")
        // Before: 409 challengeMismatch (alice's next challenge), then 403 wrongSubject on every request.
        let answer = try await client.send("GET", "/b")
        #expect(answer.status == 200, "\(answer.errorCode ?? "")")
        #expect(
            setup.server.lines.suffix(7) == [
                "GET /b", "POST /v1/challenges", "GET /b", "POST /v1/challenges", "POST /v1/attestations",
                "POST /v1/challenges", "GET /b",
            ])
        #expect(
            setup.server.appRequests.suffix(3).map { $0.header("Rampart-Challenge") } == ["n1", "c3", "c5"],
            "alice's next challenge (challengeMismatch), a fresh one with alice's key (wrongSubject), bob's new key")
        let bobKey = try #require(try await client.keptKeyID())
        #expect(bobKey != aliceKey)
        #expect(try await client.send("GET", "/c").status == 200)
        Self.signIn(setup, "alice")
        #expect(try await client.send("GET", "/d").status == 200)
        #expect(setup.server.state.withLock { $0.attestations } == 3, "the one key is attested again on each switch")
    }

    @Test("challengeMismatch: one retry over a fresh challenge; a second is returned")
    func challengeMismatch() async throws {
        let setup = try Self.setup()
        let server = FakeServer()
        let client = AttestedClient(
            transport: server, device: setup.device, secrets: setup.secrets,
            headers: { [HTTPField(name: "Authorization", value: "Bearer s")] })
        server.queue(FakeServer.allow(next: "other"), FakeServer.refusal(409, "challengeMismatch"), FakeServer.allow())
        _ = try await client.send("GET", "/a")
        #expect(try await client.send("GET", "/b").status == 200)
        #expect(server.appRequests.map { $0.header("Rampart-Challenge") } == ["c2", "other", "c3"])
        server.queue(FakeServer.refusal(409, "challengeMismatch"), FakeServer.refusal(409, "challengeMismatch"))
        #expect(try await client.send("GET", "/c").errorCode == "challengeMismatch")
        #expect(server.state.withLock { $0.attestations } == 1)
    }

    @Test("wrongSubject: the key is forgotten and a new one attested, once; a second wrongSubject is returned")
    func wrongSubjectOnce() async throws {
        let setup = try Self.setup()
        let server = FakeServer()
        let client = AttestedClient(transport: server, device: setup.device, secrets: setup.secrets)
        server.queue(FakeServer.refusal(403, "wrongSubject"), FakeServer.refusal(403, "wrongSubject"))
        #expect(try await client.send("GET", "/a").errorCode == "wrongSubject")
        try #require(server.appRequests.count == 2)
        #expect(server.state.withLock { $0.attestations } == 2)
        let keys = server.appRequests.map { $0.header("Rampart-Key-Id") }
        #expect(keys.first != keys.last)
    }

    @Test("concurrent first requests of two users register one key each")
    func concurrentUsers() async throws {
        let setup = try Self.setup()
        let clients = ["alice", "bob"].map { (user: String) in
            AttestedClient(
                transport: setup.server, device: setup.device, secrets: setup.secrets, account: "me",
                credentials: {
                    .init(user: user, headers: [HTTPField(name: "Authorization", value: "Bearer \(user)-session")])
                })
        }
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<8 {
                let client = clients[index % 2]
                group.addTask { try await client.send("GET", "/a/\(index)").status }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(Set(setup.server.appRequests.map { $0.header("Rampart-Key-Id") }).count == 2)
    }

    @Test("credentials describe the user and header names, never the header values")
    func credentialsDescription() {
        let credentials = AttestedClient.Credentials(
            user: "alice", headers: [HTTPField(name: "Authorization", value: "Bearer secret-token")])
        #expect(!"\(credentials)".contains("secret-token"))
        #expect("\(credentials)".contains("Authorization"))
    }
}
