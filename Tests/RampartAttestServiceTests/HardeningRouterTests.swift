import Foundation
import RampartAppAttest
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// The hardening rules as the HTTP API shows them: challenges spent by malformed requests, 429s, byte-compared
/// routes and subjects, and the operator unblock.
struct HardeningRouterTests: RouterCalls {
    let router: ServiceRouter
    let admin: ServiceRouter
    let service: AttestationService
    let clock = TestClock()

    init() throws {
        let clock = clock
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            configuration: .init(limits: RequestLimits(challengesPerAddressPerMinute: 3)), clock: { clock.now })
        // Direct clients from many addresses, believed as a proxy would be (no trustedProxies: any peer).
        router = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader), demo: true, trustedProxies: [])
        admin = ServiceRouter(service: service, listener: .admin)
    }

    func call(
        _ method: String, _ path: String, _ json: String = "", headers: [String: String] = [:]
    ) async -> HTTPResponse {
        await call(from: nil, method, path, json, headers: headers)
    }

    func call(
        from address: String?, _ method: String, _ path: String, _ json: String = "",
        headers: [String: String] = [subjectHeader: "a"]
    ) async -> HTTPResponse {
        // Operator routes are on the admin listener, which takes only JSON POSTs.
        let isOperatorRoute = path.hasPrefix("/v1/keys/")
        var headers = headers
        if isOperatorRoute { headers["Content-Type"] = headers["Content-Type"] ?? "application/json" }
        let request = HTTPRequest(
            method: method, path: path, headers: headers, body: Array(json.utf8), remoteAddress: address)
        return await (isOperatorRoute ? admin : router).respond(to: request)
    }

    /// Envoy's check of `POST /api/x` with `headers`.
    func check(_ headers: [String: String]) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: "POST", path: "/ext-authz/api/x", headers: headers))
    }

    @Test("a request whose assertion is not base64 or not CBOR still spends its challenge")
    func malformedSpendsTheChallenge() async throws {
        let keyID = try await register()
        for (bad, code) in [
            ("%%%not-base64", "malformedSignature"), (Data("malformed".utf8).base64EncodedString(), "invalidAssertion"),
        ] {
            var headers = try await signed(keyID: keyID, counter: 1, target: "/api/x")
            let good = headers
            headers["Rampart-Assertion"] = bad
            let first = await check(headers)
            #expect(first.status == 401)
            #expect(errorCode(first) == code)
            let retry = await check(good)
            #expect(retry.status == 409)
            #expect(errorCode(retry) == "challengeUsed")
        }
        let attestation = try await challenge("attestation")
        let newKey = SecureRandom.bytes(count: 32)
        let malformed = await call(
            "POST", "/v1/attestations",
            #"{"keyId":"\#(Data(newKey).base64EncodedString())","attestationObject":"!!","challenge":"\#(attestation)"}"#,
            headers: [subjectHeader: "alice"])
        #expect(errorCode(malformed) == "invalidBase64")
        let good = await call(
            "POST", "/v1/attestations",
            #"""
            {"keyId":"\#(Data(newKey).base64EncodedString())",\#
            "attestationObject":"\#(Data(FakeVerifier.attestation(keyID: newKey)).base64EncodedString())",\#
            "challenge":"\#(attestation)"}
            """#, headers: [subjectHeader: "alice"])
        #expect(errorCode(good) == "challengeUsed")
    }

    @Test("a body subject or a missing subject header also spends the attestation challenge")
    func subjectRefusalSpendsTheChallenge() async throws {
        for (body, headers, code) in [
            (#""subject":"alice","#, [subjectHeader: "alice"], "invalidField"), ("", [:], "subjectRequired"),
        ] {
            let attestation = try await challenge("attestation")
            let keyID = SecureRandom.bytes(count: 32)
            let fields =
                #""keyId":"\#(Data(keyID).base64EncodedString())","#
                + #""attestationObject":"\#(Data(FakeVerifier.attestation(keyID: keyID)).base64EncodedString())","#
                + #""challenge":"\#(attestation)""#
            let refused = await call("POST", "/v1/attestations", "{\(body)\(fields)}", headers: headers)
            #expect(errorCode(refused) == code)
            let retry = await call("POST", "/v1/attestations", "{\(fields)}", headers: [subjectHeader: "alice"])
            #expect(errorCode(retry) == "challengeUsed")
        }
    }

    @Test("challenge issuance past the per-address limit is 429 with Retry-After")
    func issuance429() async throws {
        for _ in 0..<3 {
            #expect(await call(from: "192.0.2.9", "POST", "/v1/challenges", #"{"purpose":"assertion"}"#).status == 200)
        }
        let refused = await call(from: "192.0.2.9", "POST", "/v1/challenges", #"{"purpose":"assertion"}"#)
        #expect(refused.status == 429)
        #expect(errorCode(refused) == "rateLimited")
        #expect(refused.headers["Retry-After"] == "20")
        #expect(await call(from: "192.0.2.10", "POST", "/v1/challenges", #"{"purpose":"assertion"}"#).status == 200)
    }

    @Test("the next challenge is not charged against the issuance limits")
    func nextChallengeIsFree() async throws {
        let keyID = try await register()
        var headers = try await signed(keyID: keyID, counter: 1, target: "/api/x")
        for counter in 2...8 {
            let answer = await router.respond(
                to: HTTPRequest(
                    method: "POST", path: "/ext-authz/api/x", headers: headers, remoteAddress: "192.0.2.20"))
            #expect(answer.status == 200, "\(answer.bodyText)")
            let next = try #require(answer.headers["Rampart-Next-Challenge"])
            headers = try signedHeaders(
                keyID: keyID, counter: UInt32(counter), method: "POST", target: "/api/x", challenge: next)
            headers[subjectHeader] = "alice"
        }
    }

    @Test("routes compare as bytes: a path that differs only in a canonically equivalent spelling is 404")
    func routeBytes() async {
        // U+212A KELVIN SIGN is canonically equivalent to "K"; "/v1/\u{212A}eys" must not be the keys route.
        #expect("/v1/\u{212A}eys/x" == "/v1/Keys/x")
        #expect(await call("GET", "/v1/\u{212A}eys/x").status == 404)
        #expect(await call("GET", "/metrics;").status == 404)
        #expect(await call("GET", "/metrics\u{37E}").status == 404)
        #expect(await call("GET", "/forward-auth\u{37E}").status == 404)
    }

    @Test("the demo's users are ASCII: NFC and NFD spellings of one name are both refused, neither spends")
    func pointsBytes() async throws {
        // Non-ASCII subjects reach the API behind the gateway decoded as Latin-1 by some servers, so they are
        // refused (SubjectResolver.checked); canonically equivalent spellings therefore never name two users.
        let open = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader),
            routes: try RouteTable(rules: [RouteRule(method: "*", path: "/v1/demo/*", policy: .open)]), demo: true)
        for subject in ["caf\u{E9}", "cafe\u{301}"] {
            let spend = await open.respond(
                to: HTTPRequest(
                    method: "POST", path: "/v1/demo/points/use", headers: [subjectHeader: subject],
                    body: Array(#"{"amount":5000}"#.utf8)))
            #expect(spend.status == 401)
            #expect(errorCode(spend) == "subjectRequired")
        }
        let balance = await open.respond(
            to: HTTPRequest(method: "POST", path: "/v1/demo/points/balance", headers: [subjectHeader: "cafe"]))
        #expect(field(balance, "balance") == .number(5000))
    }

    @Test("an operator unblocks a blocked key; an unknown key is 404")
    func unblock() async throws {
        let keyID = try await register()
        #expect(await check(try await signed(keyID: keyID, counter: 7, target: "/api/x")).status == 200)
        for _ in 0..<5 {  // signed duplicate counters: evidence from the key itself
            let replay = await check(try await signed(keyID: keyID, counter: 7, target: "/api/x"))
            #expect(errorCode(replay) == "counterReplay")
        }
        let path =
            "/v1/keys/"
            + Data(keyID).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(field(await call("GET", path), "blocked") == .bool(true))
        #expect(field(await call("GET", path), "riskScore") == .number(5))
        let blocked = await check(try await signed(keyID: keyID, counter: 8, target: "/api/x"))
        #expect(blocked.status == 403)
        #expect(errorCode(blocked) == "keyBlocked")
        let unblocked = await call("POST", path + "/unblock")
        #expect(unblocked.status == 200)
        #expect(field(unblocked, "blocked") == .bool(false))
        #expect(field(unblocked, "riskScore") == .number(0))
        #expect(await check(try await signed(keyID: keyID, counter: 9, target: "/api/x")).status == 200)
        let unknown = await call(
            "POST", "/v1/keys/" + Data(SecureRandom.bytes(count: 32)).base64EncodedString() + "/unblock")
        #expect(unknown.status == 404)
        #expect(errorCode(unknown) == "keyNotFound")
        #expect(await call("GET", path + "/unblock").status == 405)
    }

    @Test("a field the route does not read is 400 invalidField naming it")
    func unknownFields() async throws {
        let typo = await call(
            "POST", "/v1/challenges", #"{"purpose":"assertion","purpse":"b"}"#, headers: [subjectHeader: "a"])
        #expect(typo.status == 400)
        #expect(errorCode(typo) == "invalidField")
        #expect(typo.bodyText.contains("unknown field 'purpse'"))
    }
}
