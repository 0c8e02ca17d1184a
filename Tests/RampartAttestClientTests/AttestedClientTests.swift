import Foundation
import RampartAppAttest
import RampartAttestClient
import RampartAttestSimulation
import RampartCrypto
import RampartRequestSigning
import RampartSecretStore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// AttestedClient against a scripted server: the exact requests it sends for each answer.
struct AttestedClientTests {
    struct Setup {
        let server: FakeServer
        let device: SimulatedAppAttestDevice
        let secrets: Vault
        let client: AttestedClient
        let sleeps: Locked<[TimeInterval]>
    }

    static func setup(
        signedDelay: UInt64 = 0, maximumRetries: Int = 3, longestWait: TimeInterval = 30,
        headers: @escaping AttestedClient.HeaderProvider = { [HTTPField(name: "Authorization", value: "Bearer s3ss")] }
    ) throws -> Setup {
        let server = FakeServer(signedDelay: signedDelay)
        let device = SimulatedAppAttestDevice(
            simulator: try AppAttestSimulator(), teamID: "ABCDE12345", bundleID: "com.example.app",
            environment: .development)
        let secrets = Vault(backend: InMemoryBackend())
        let sleeps = Locked<[TimeInterval]>([])
        let policy = AttestedClient.RetryPolicy(
            maximumRetries: maximumRetries, longestWait: longestWait,
            sleep: { seconds in sleeps.withLock { $0.append(seconds) } })
        let client = AttestedClient(
            transport: server, device: device, secrets: secrets, account: "me", retryPolicy: policy, headers: headers)
        return Setup(server: server, device: device, secrets: secrets, client: client, sleeps: sleeps)
    }

    static func body(_ request: TransportRequest) -> JSONValue? { try? JSONValue(parsing: request.body) }

    static func field(_ request: TransportRequest, _ name: String) -> String? {
        guard case .object(let fields)? = body(request), case .string(let value)? = fields[name] else { return nil }
        return value
    }

    /// Checks that `request`'s signature headers are RequestSignature's for what was sent, and that the assertion
    /// is the device key's signature over that clientDataHash.
    static func expectSigned(_ request: TransportRequest, by device: SimulatedAppAttestDevice) throws {
        let keyID = try #require(request.header("Rampart-Key-Id"))
        let challenge = try #require(request.header("Rampart-Challenge"))
        let digestHeader = try #require(request.header("Content-Digest"))
        #expect(digestHeader == RequestSignature.contentDigest(of: request.body))
        let assertionText = try #require(request.header("Rampart-Assertion"))
        let assertionBytes = try #require(Data(base64Encoded: assertionText))
        let assertion = try Assertion(bytes: Array(assertionBytes))
        let hash = try RequestSignature.clientDataHash(
            method: request.method, target: request.target, challenge: challenge,
            digest: try RequestSignature.digestValue(ofHeader: digestHeader))
        let key = try #require(device.device(for: keyID))
        let nonce = SHA256.hash(assertion.authenticatorData.rawRepresentation + hash)
        #expect(key.publicKey.isValidSignature(assertion.signature, for: nonce, digest: .sha256))
    }

    static func counter(_ request: TransportRequest) throws -> UInt32 {
        let text = try #require(request.header("Rampart-Assertion"))
        let bytes = try #require(Data(base64Encoded: text))
        return try Assertion(bytes: Array(bytes)).authenticatorData.signCount
    }

    @Test("first request: attestation challenge, registration without a subject, assertion challenge, signed request")
    func firstRequest() async throws {
        let setup = try Self.setup()
        let answer = try await setup.client.send(
            "post", "/api/points/use?dry=1", headers: [HTTPField(name: "Content-Type", value: "application/json")],
            body: Array(#"{"amount":1000}"#.utf8))
        #expect(answer.status == 200)
        let requests = setup.server.requests
        #expect(
            setup.server.lines == [
                "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "POST /api/points/use?dry=1",
            ])
        #expect(Self.body(requests[0]) == .object(["purpose": .string("attestation")]))
        guard case .object(let registration)? = Self.body(requests[1]) else {
            Issue.record("the registration body is not an object")
            return
        }
        #expect(Set(registration.keys) == ["keyId", "attestationObject", "challenge"], "no subject in the body")
        #expect(Self.field(requests[1], "challenge") == "c1")
        #expect(Self.body(requests[2]) == .object(["purpose": .string("assertion")]))
        let signed = requests[3]
        #expect(signed.header("Rampart-Challenge") == "c2")
        #expect(signed.header("Rampart-Key-Id") == Self.field(requests[1], "keyId"))
        #expect(signed.header("Content-Type") == "application/json")
        try Self.expectSigned(signed, by: setup.device)
        for request in requests {
            #expect(request.header("Authorization") == "Bearer s3ss", "the app's headers on \(request.target)")
        }
        #expect(try await setup.client.registeredKeyID() == signed.header("Rampart-Key-Id"))
        #expect(
            try await setup.secrets.secret(service: AttestedClient.keyIDService, account: "me").map {
                String(decoding: $0, as: UTF8.self)
            } == signed.header("Rampart-Key-Id"))
    }

    @Test("an empty body is signed with the digest of zero bytes; the method is upper-cased")
    func emptyBody() async throws {
        let setup = try Self.setup()
        _ = try await setup.client.send("delete", "/api/items/7")
        let signed = try #require(setup.server.signedRequests.first)
        #expect(signed.method == "DELETE")
        #expect(signed.body.isEmpty)
        #expect(signed.header("Content-Digest") == "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:")
        try Self.expectSigned(signed, by: setup.device)
    }

    @Test("Rampart-Next-Challenge of an answer is the next request's challenge: one round trip")
    func nextChallenge() async throws {
        let setup = try Self.setup()
        setup.server.queue(FakeServer.allow(next: "n1"), FakeServer.allow(next: "n2"), FakeServer.allow())
        _ = try await setup.client.send("GET", "/a")
        _ = try await setup.client.send("GET", "/b")
        _ = try await setup.client.send("GET", "/c")
        _ = try await setup.client.send("GET", "/d")
        #expect(
            setup.server.lines == [
                "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "GET /a", "GET /b", "GET /c",
                "POST /v1/challenges", "GET /d",
            ])
        #expect(setup.server.signedRequests.map { $0.header("Rampart-Challenge") } == ["c2", "n1", "n2", "c3"])
        for request in setup.server.signedRequests { try Self.expectSigned(request, by: setup.device) }
    }

    @Test(
        "unknownKey and keyBlocked: forget the key, attest a new one, retry once",
        arguments: ["unknownKey", "keyBlocked"])
    func newKey(code: String) async throws {
        let setup = try Self.setup()
        let first = try await setup.client.registeredKeyID()
        setup.server.queue(FakeServer.refusal(code == "unknownKey" ? 401 : 403, code), FakeServer.allow())
        let answer = try await setup.client.send("POST", "/api/x", body: [1, 2, 3])
        #expect(answer.status == 200)
        #expect(
            setup.server.lines == [
                "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "POST /api/x",
                "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "POST /api/x",
            ])
        let signed = setup.server.signedRequests
        #expect(signed[0].header("Rampart-Key-Id") == first)
        let second = try await setup.client.registeredKeyID()
        #expect(second != first)
        #expect(signed[1].header("Rampart-Key-Id") == second)
        #expect(signed[1].body == [1, 2, 3])
        try Self.expectSigned(signed[1], by: setup.device)
    }

    @Test("a second unknownKey after re-attesting is returned, not retried again")
    func newKeyOnce() async throws {
        let setup = try Self.setup()
        setup.server.queue(FakeServer.refusal(401, "unknownKey"), FakeServer.refusal(401, "unknownKey"))
        let answer = try await setup.client.send("GET", "/x")
        #expect(answer.errorCode == "unknownKey")
        #expect(setup.server.signedRequests.count == 2)
        #expect(setup.server.state.withLock { $0.attestations } == 2)
    }

    @Test("the code is read from the Rampart-Error header when the body has none (nginx auth_request)")
    func errorHeader() async throws {
        let setup = try Self.setup()
        setup.server.queue(
            TransportResponse(status: 401, headers: ["Rampart-Error": "unknownKey"], body: []), FakeServer.allow())
        #expect(try await setup.client.send("GET", "/x").status == 200)
        #expect(setup.server.state.withLock { $0.attestations } == 2)
    }

    @Test(
        "challengeUsed, challengeExpired, counterReplay: one retry, signed again over a fresh challenge",
        arguments: ["challengeUsed", "challengeExpired", "counterReplay"])
    func freshChallenge(code: String) async throws {
        let setup = try Self.setup()
        setup.server.queue(FakeServer.allow(next: "stale"), FakeServer.refusal(409, code), FakeServer.allow())
        _ = try await setup.client.send("GET", "/a")
        let answer = try await setup.client.send("GET", "/b")
        #expect(answer.status == 200)
        #expect(
            setup.server.lines == [
                "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "GET /a", "GET /b",
                "POST /v1/challenges", "GET /b",
            ])
        #expect(setup.server.signedRequests.map { $0.header("Rampart-Challenge") } == ["c2", "stale", "c3"])
        let counters = try setup.server.signedRequests.map(Self.counter)
        #expect(counters == [1, 2, 3])
    }

    @Test("a second used challenge is returned, not retried again")
    func freshChallengeOnce() async throws {
        let setup = try Self.setup()
        setup.server.queue(FakeServer.refusal(409, "challengeUsed"), FakeServer.refusal(409, "challengeExpired"))
        #expect(try await setup.client.send("GET", "/a").errorCode == "challengeExpired")
        #expect(setup.server.signedRequests.count == 2)
    }

    @Test(
        "invalidAssertion (and other refusals) are returned without a retry",
        arguments: [
            "invalidAssertion", "digestMismatch", "wrongEnvironment", "assertionRequired",
        ])
    func noRetry(code: String) async throws {
        let setup = try Self.setup()
        setup.server.queue(FakeServer.refusal(401, code))
        let answer = try await setup.client.send("GET", "/a")
        #expect(answer.errorCode == code)
        #expect(answer.message == "refused")
        #expect(setup.server.signedRequests.count == 1)
        #expect(setup.server.state.withLock { $0.attestations } == 1)
    }

    @Test("429: waits Retry-After, signs again with a new challenge, then succeeds")
    func rateLimitedThenAllowed() async throws {
        let setup = try Self.setup()
        setup.server.queue(
            FakeServer.refusal(429, "rateLimited", headers: ["Retry-After": "2"]),
            FakeServer.refusal(429, "rateLimited"),
            FakeServer.allow())
        #expect(try await setup.client.send("POST", "/a", body: [7]).status == 200)
        #expect(setup.sleeps.withLock { $0 } == [2, 2], "Retry-After 2, then the second default step (1, 2, 4…)")
        let signed = setup.server.signedRequests
        #expect(signed.count == 3)
        #expect(Set(signed.map { $0.header("Rampart-Challenge") }).count == 3, "each retry is signed again")
        #expect(try signed.map(Self.counter) == [1, 2, 3])
    }

    @Test("429 past the retry budget is rateLimited, after exactly maximumRetries waits")
    func rateLimitBudget() async throws {
        let setup = try Self.setup(maximumRetries: 2)
        _ = try await setup.client.registeredKeyID()
        for _ in 0..<3 { setup.server.queue(FakeServer.refusal(429, "rateLimited", headers: ["Retry-After": "1"])) }
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.send("GET", "/a") }
        #expect(error?.code == .rateLimited)
        #expect(error?.reason.contains("after 2 retries") == true)
        #expect(error?.reason.contains("GET /a") == true)
        #expect(setup.sleeps.withLock { $0 } == [1, 1])
        #expect(setup.server.signedRequests.count == 3)
    }

    @Test("a Retry-After longer than the longest wait is rateLimited at once, without waiting")
    func rateLimitTooLong() async throws {
        let setup = try Self.setup(longestWait: 10)
        setup.server.queue(FakeServer.refusal(429, "rateLimited", headers: ["Retry-After": "3600"]))
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.send("GET", "/a") }
        #expect(error?.code == .rateLimited)
        #expect(error?.reason.contains("Retry-After: 3600") == true)
        #expect(setup.sleeps.withLock { $0 }.isEmpty)
    }

    @Test("a 429 on POST /v1/challenges is waited out and the challenge asked again")
    func rateLimitedChallenge() async throws {
        let setup = try Self.setup()
        setup.server.queueChallengeAnswers(FakeServer.refusal(429, "rateLimited", headers: ["Retry-After": "1"]))
        #expect(try await setup.client.send("GET", "/a").status == 200)
        #expect(setup.server.lines.prefix(2) == ["POST /v1/challenges", "POST /v1/challenges"])
        #expect(setup.sleeps.withLock { $0 } == [1])
    }

    @Test("Retry-After as an HTTP date")
    func retryAfterDate() {
        let policy = AttestedClient.RetryPolicy()
        let now = Date(timeIntervalSince1970: 1_764_590_400)  // 2025-12-01T12:00:00Z
        let answer = ServerAnswer(
            TransportResponse(status: 429, headers: ["Retry-After": "Mon, 01 Dec 2025 12:00:05 GMT"], body: []))
        #expect(policy.wait(after: answer, tries: 1, now: now) == 5)
        #expect(policy.wait(after: answer, tries: 4, now: now) == nil)
    }

    @Test("concurrent sends with one key are signed and sent one at a time, counters in order")
    func serialised() async throws {
        let setup = try Self.setup(signedDelay: 2_000_000)
        _ = try await setup.client.registeredKeyID()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<12 {
                group.addTask { try await setup.client.send("POST", "/a/\(index)", body: [UInt8(index)]).status }
            }
            for try await status in group { #expect(status == 200) }
        }
        #expect(setup.server.state.withLock { $0.mostInFlight } == 1)
        let counters = try setup.server.signedRequests.map(Self.counter)
        #expect(counters == Array(1...12))
        #expect(setup.server.state.withLock { $0.attestations } == 1, "one registration")
    }

    @Test("two clients over the same key (same secrets and device) also take turns")
    func serialisedAcrossClients() async throws {
        let setup = try Self.setup(signedDelay: 2_000_000)
        _ = try await setup.client.registeredKeyID()
        let other = AttestedClient(transport: setup.server, device: setup.device, secrets: setup.secrets, account: "me")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                let client = index.isMultiple(of: 2) ? setup.client : other
                group.addTask { _ = try await client.send("GET", "/a/\(index)") }
            }
            try await group.waitForAll()
        }
        #expect(setup.server.state.withLock { $0.mostInFlight } == 1)
        #expect(try setup.server.signedRequests.map(Self.counter) == Array(1...6))
    }

    @Test("concurrent first requests share one registration")
    func oneRegistration() async throws {
        let setup = try Self.setup()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<5 { group.addTask { _ = try await setup.client.send("GET", "/a") } }
            try await group.waitForAll()
        }
        #expect(setup.server.state.withLock { $0.attestations } == 1)
        #expect(Set(setup.server.signedRequests.map { $0.header("Rampart-Key-Id") }).count == 1)
    }

    @Test("a kept key the device no longer has (invalidKey): a new key is attested and the request sent")
    func lostKey() async throws {
        let setup = try Self.setup()
        try await setup.client.keep(keyID: Data(repeating: 9, count: 32).base64EncodedString())
        #expect(try await setup.client.send("GET", "/a").status == 200)
        // The assertion challenge taken for the lost key goes unused; the new key gets its own.
        #expect(
            setup.server.lines == [
                "POST /v1/challenges", "POST /v1/challenges", "POST /v1/attestations", "POST /v1/challenges", "GET /a",
            ])
        let signed = try #require(setup.server.signedRequests.first)
        try Self.expectSigned(signed, by: setup.device)
    }

    @Test("signature headers given by the caller are replaced by the signature's")
    func callerSignatureHeaders() async throws {
        let setup = try Self.setup()
        _ = try await setup.client.send(
            "GET", "/a",
            headers: [
                HTTPField(name: "rampart-challenge", value: "mine"),
                HTTPField(name: "Authorization", value: "Bearer other"),
            ])
        let signed = try #require(setup.server.signedRequests.first)
        #expect(signed.headers.filter { $0.name.lowercased() == "rampart-challenge" }.count == 1)
        #expect(signed.header("Rampart-Challenge") == "c2")
        #expect(signed.headers.filter { $0.name.lowercased() == "authorization" }.map(\.value) == ["Bearer other"])
        try Self.expectSigned(signed, by: setup.device)
    }

    @Test(
        "a target that cannot be signed is invalidRequest before anything is sent",
        arguments: [
            "api/x", "/a\nb", "",
        ])
    func invalidTarget(target: String) async throws {
        let setup = try Self.setup()
        _ = try await setup.client.registeredKeyID()
        let before = setup.server.requests.count
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.send("GET", target) }
        #expect(error?.code == .invalidRequest)
        #expect(setup.server.requests.count == before + 1, "only the challenge")
        #expect(setup.server.signedRequests.isEmpty)
    }

    @Test("a failing header provider is credentialsUnavailable and nothing is sent")
    func headerProviderFails() async throws {
        struct SignedOut: Error {}
        let setup = try Self.setup(headers: { throw SignedOut() })
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.send("GET", "/a") }
        #expect(error?.code == .credentialsUnavailable)
        #expect(error?.reason.contains("sign the user in") == true)
        #expect(setup.server.requests.isEmpty)
    }

    @Test("a refused registration is registrationRefused with the server's code")
    func registrationRefused() async throws {
        let server = RefusingRegistration()
        let client = AttestedClient(
            transport: server,
            device: SimulatedAppAttestDevice(
                simulator: try AppAttestSimulator(), teamID: "ABCDE12345", bundleID: "com.example.app",
                environment: .development),
            secrets: Vault(backend: InMemoryBackend()))
        let error = await #expect(throws: AttestedClientError.self) { try await client.send("GET", "/a") }
        #expect(error?.code == .registrationRefused)
        #expect(error?.reason.contains("invalidAttestation") == true)
    }

    @Test("sign(...) then send(...) sends the request as signed; a later change is sent as changed")
    func signThenSend() async throws {
        let setup = try Self.setup()
        var request = try await setup.client.sign("POST", "/a", body: Array("one".utf8))
        request.body = Array("two".utf8)
        _ = try await setup.client.send(request)
        let sent = try #require(setup.server.signedRequests.first)
        #expect(sent.body == Array("two".utf8))
        #expect(sent.header("Content-Digest") == RequestSignature.contentDigest(of: Array("one".utf8)))
        #expect(sent.header("Authorization") == "Bearer s3ss")
    }

    @Test("URLRequest signing: headers over the percent-encoded path and query and httpBody; next challenge kept")
    func urlRequest() async throws {
        let setup = try Self.setup()
        let url = try #require(URL(string: "https://api.example.com/api/a%20b/use?x=1&y=%2F"))
        var request = URLRequest(url: url)
        request.httpMethod = "post"
        request.httpBody = Data("{}".utf8)
        request.setValue("Bearer app", forHTTPHeaderField: "Authorization")
        let signed = try await setup.client.signed(request)
        #expect(signed.httpMethod == "POST")
        #expect(signed.value(forHTTPHeaderField: "Authorization") == "Bearer app", "the app's own header wins")
        let sent = TransportRequest(
            method: "POST", target: "/api/a%20b/use?x=1&y=%2F",
            headers: SignedRequest.signatureHeaderNames.map {
                HTTPField(name: $0, value: signed.value(forHTTPHeaderField: $0) ?? "")
            }, body: Array("{}".utf8))
        try Self.expectSigned(sent, by: setup.device)
        let response = try #require(
            HTTPURLResponse(
                url: url, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: ["Rampart-Next-Challenge": "n9"]))
        await setup.client.keepNextChallenge(from: response, to: signed)
        let key = try await setup.client.registeredKeyID()
        #expect(await setup.client.nextChallenge(for: key) == "n9")
        let again = try await setup.client.signed(URLRequest(url: url))
        #expect(again.value(forHTTPHeaderField: "Rampart-Challenge") == "n9")
        #expect(again.value(forHTTPHeaderField: "Authorization") == "Bearer s3ss", "the provider's header")
        let bare = try #require(URL(string: "https://h.example"))
        #expect(try AttestedClient.requestTarget(of: bare) == "/")
    }

    @Test("a URLRequest with a body stream is invalidRequest")
    func urlRequestStream() async throws {
        let setup = try Self.setup()
        var request = URLRequest(url: try #require(URL(string: "https://api.example.com/a")))
        request.httpBodyStream = InputStream(data: Data([1]))
        let error = await #expect(throws: AttestedClientError.self) { try await setup.client.signed(request) }
        #expect(error?.code == .invalidRequest)
    }
}

/// A server that refuses every attestation.
final class RefusingRegistration: AttestedClientTransport {
    func send(_ request: TransportRequest) async throws -> TransportResponse {
        if request.target == "/v1/challenges" {
            return FakeServer.json(200, #"{"challenge":"c","expiresAt":"2026-12-01T12:00:00Z"}"#)
        }
        return FakeServer.refusal(401, "invalidAttestation")
    }
}
