import Foundation
import RampartAppAttest
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// The hardening rules as the HTTP API shows them: challenges spent by malformed requests, exact payloads, 429s,
/// byte-compared routes and subjects, and the operator unblock.
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
        router = ServiceRouter(service: service)
        admin = ServiceRouter(service: service, listener: .admin)
    }

    func call(_ method: String, _ path: String, _ json: String = "") async -> HTTPResponse {
        await call(from: nil, method, path, json)
    }

    func call(from address: String?, _ method: String, _ path: String, _ json: String = "") async -> HTTPResponse {
        let request = HTTPRequest(method: method, path: path, body: Array(json.utf8), remoteAddress: address)
        // Operator routes are on the admin listener.
        return await (path.hasPrefix("/v1/keys/") ? admin : router).respond(to: request)
    }

    func assertionBody(
        keyID: [UInt8], counter: UInt32, payload: String, challenge: String, assertion: String? = nil,
        subject: String = "alice"
    ) throws -> String {
        let clientData = try RequestCanonicalization.clientData(challenge: challenge, payloadJSON: Array(payload.utf8))
        let signed = Data(FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID))
        return #"""
            {"subject":"\#(subject)","keyId":"\#(Data(keyID).base64EncodedString())","challenge":"\#(challenge)",\#
            "assertion":"\#(assertion ?? signed.base64EncodedString())","payload":\#(payload)}
            """#
    }

    @Test("a request whose assertion is not base64 or not CBOR still spends its challenge")
    func malformedSpendsTheChallenge() async throws {
        let keyID = try await register()
        for bad in ["%%%not-base64", Data("malformed".utf8).base64EncodedString()] {
            let challenge = try await challenge("assertion")
            let first = await call(
                "POST", "/v1/assertions",
                try assertionBody(keyID: keyID, counter: 1, payload: "{}", challenge: challenge, assertion: bad))
            #expect(first.status == 400)
            let retry = await call(
                "POST", "/v1/assertions",
                try assertionBody(keyID: keyID, counter: 1, payload: "{}", challenge: challenge))
            #expect(retry.status == 409)
            #expect(errorCode(retry) == "challengeUsed")
        }
        let attestation = try await challenge("attestation")
        let newKey = SecureRandom.bytes(count: 32)
        let malformed = await call(
            "POST", "/v1/attestations",
            #"{"subject":"alice","keyId":"\#(Data(newKey).base64EncodedString())","attestationObject":"!!","challenge":"\#(attestation)"}"#
        )
        #expect(errorCode(malformed) == "invalidBase64")
        let good = await call(
            "POST", "/v1/attestations",
            #"""
            {"subject":"alice","keyId":"\#(Data(newKey).base64EncodedString())",\#
            "attestationObject":"\#(Data(FakeVerifier.attestation(keyID: newKey)).base64EncodedString())",\#
            "challenge":"\#(attestation)"}
            """#)
        #expect(errorCode(good) == "challengeUsed")
    }

    @Test(
        "a payload number that the canonical form would change is 400 invalidField naming the field",
        arguments: ["1234567890123456789", "1234567890123456850", "1e-400", "9007199254740993", "2e18"])
    func inexactPayload(_ number: String) async throws {
        let keyID = try await register()
        let challenge = try await challenge("assertion")
        // The app could only have signed the canonical form; the body carries a different number.
        let body = try assertionBody(keyID: keyID, counter: 1, payload: "{}", challenge: challenge)
            .replacingOccurrences(of: #""payload":{}"#, with: #""payload":{"toAccount":\#(number)}"#)
        let response = await call("POST", "/v1/assertions", body)
        #expect(response.status == 400)
        #expect(errorCode(response) == "invalidField")
        #expect(response.bodyText.contains("payload.toAccount"))
        #expect(!response.bodyText.contains(number))
    }

    @Test("challenge issuance past the per-address limit is 429 with Retry-After")
    func issuance429() async throws {
        for _ in 0..<3 {
            #expect(
                await call(from: "192.0.2.9", "POST", "/v1/challenges", #"{"purpose":"assertion","subject":"a"}"#)
                    .status == 200)
        }
        let refused = await call(from: "192.0.2.9", "POST", "/v1/challenges", #"{"purpose":"assertion","subject":"a"}"#)
        #expect(refused.status == 429)
        #expect(errorCode(refused) == "rateLimited")
        #expect(refused.headers["Retry-After"] == "20")
        #expect(
            await call(from: "192.0.2.10", "POST", "/v1/challenges", #"{"purpose":"assertion","subject":"a"}"#).status
                == 200)
    }

    @Test("routes compare as bytes: a path that differs only in a canonically equivalent spelling is 404")
    func routeBytes() async {
        // U+212A KELVIN SIGN is canonically equivalent to "K"; "/v1/\u{212A}eys" must not be the keys route.
        #expect("/v1/\u{212A}eys/x" == "/v1/Keys/x")
        #expect(await call("GET", "/v1/\u{212A}eys/x").status == 404)
        #expect(await call("GET", "/metrics;").status == 404)
        #expect(await call("GET", "/metrics\u{37E}").status == 404)
    }

    @Test("the demo's user ids compare as bytes: spending as the NFD spelling leaves the NFC balance whole")
    func pointsBytes() async throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        let open = ServiceRouter(service: service, policies: ["/v1/demo/points/use": .open])
        let spend = await open.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/demo/points/use",
                body: Array(#"{"payload":{"userId":"\#(nfd)","amount":5000}}"#.utf8)))
        #expect(spend.status == 200)
        let balance = await open.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/demo/points/balance", body: Array(#"{"payload":{"userId":"\#(nfc)"}}"#.utf8))
        )
        #expect(field(balance, "balance") == .number(5000))
    }

    @Test("an operator unblocks a blocked key; an unknown key is 404")
    func unblock() async throws {
        let keyID = try await register()
        let first = try await challenge("assertion")
        #expect(
            await call(
                "POST", "/v1/assertions", try assertionBody(keyID: keyID, counter: 7, payload: "{}", challenge: first)
            )
            .status == 200)
        for _ in 0..<5 {  // signed duplicate counters: evidence from the key itself
            let again = try await challenge("assertion")
            let replay = await call(
                "POST", "/v1/assertions", try assertionBody(keyID: keyID, counter: 7, payload: "{}", challenge: again))
            #expect(errorCode(replay) == "counterReplay")
        }
        let path =
            "/v1/keys/"
            + Data(keyID).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        #expect(field(await call("GET", path), "blocked") == .bool(true))
        #expect(field(await call("GET", path), "riskScore") == .number(5))
        let unblocked = await call("POST", path + "/unblock")
        #expect(unblocked.status == 200)
        #expect(field(unblocked, "blocked") == .bool(false))
        #expect(field(unblocked, "riskScore") == .number(0))
        let next = try await challenge("assertion")
        #expect(
            await call(
                "POST", "/v1/assertions", try assertionBody(keyID: keyID, counter: 8, payload: "{}", challenge: next)
            )
            .status == 200)
        let unknown = await call(
            "POST", "/v1/keys/" + Data(SecureRandom.bytes(count: 32)).base64EncodedString() + "/unblock")
        #expect(unknown.status == 404)
        #expect(errorCode(unknown) == "keyNotFound")
        #expect(await call("GET", path + "/unblock").status == 405)
    }

    @Test("a field the route does not read is 400 invalidField naming it, and a challenge next to it is spent")
    func unknownFields() async throws {
        let typo = await call("POST", "/v1/challenges", #"{"purpose":"assertion","subject":"a","subjet":"b"}"#)
        #expect(typo.status == 400)
        #expect(errorCode(typo) == "invalidField")
        #expect(typo.bodyText.contains("unknown field 'subjet'"))
        let keyID = try await register()
        let challenge = try await challenge("assertion")
        let extra = try assertionBody(keyID: keyID, counter: 1, payload: "{}", challenge: challenge)
            .replacingOccurrences(of: #""payload":{}"#, with: #""payload":{},"amount":9"#)
        #expect(errorCode(await call("POST", "/v1/assertions", extra)) == "invalidField")
        let retry = await call(
            "POST", "/v1/assertions", try assertionBody(keyID: keyID, counter: 1, payload: "{}", challenge: challenge))
        #expect(errorCode(retry) == "challengeUsed")
    }
}
