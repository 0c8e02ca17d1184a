import Foundation
import RampartAppAttest
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// The HTTP API in-process (no sockets): every 4xx path, the policies, the operator route, and the OpenAPI document.
struct ServiceRouterTests: RouterCalls {
    let router: ServiceRouter
    let service: AttestationService

    init() throws {
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier())
        router = ServiceRouter(service: service)
    }

    func call(_ method: String, _ path: String, _ json: String = "") async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, body: Array(json.utf8)))
    }

    func signed(keyID: [UInt8], counter: UInt32, payload: String, subject: String = "alice") async throws -> String {
        let challenge = try await challenge("assertion", subject: subject)
        let clientData = try RequestCanonicalization.clientData(challenge: challenge, payloadJSON: Array(payload.utf8))
        let assertion = FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID)
        return #"""
            {"subject":"\#(subject)","keyId":"\#(Data(keyID).base64EncodedString())","challenge":"\#(challenge)",\#
            "assertion":"\#(Data(assertion).base64EncodedString())","payload":\#(payload)}
            """#
    }

    struct BadInput: CustomTestStringConvertible, Sendable {
        let name: String
        let method: String
        let path: String
        let body: String
        let status: Int
        let code: String
        var testDescription: String { name }
    }

    static let badInputs: [BadInput] = [
        .init(name: "unknown route", method: "GET", path: "/v1/nope", body: "", status: 404, code: "notFound"),
        .init(
            name: "wrong method", method: "GET", path: "/v1/challenges", body: "", status: 405, code: "methodNotAllowed"
        ),
        .init(name: "empty body", method: "POST", path: "/v1/challenges", body: "", status: 400, code: "invalidJSON"),
        .init(
            name: "malformed JSON", method: "POST", path: "/v1/challenges", body: "{\"purpose\":", status: 400,
            code: "invalidJSON"),
        .init(
            name: "array body", method: "POST", path: "/v1/challenges", body: "[1,2]", status: 400, code: "invalidJSON"),
        .init(
            name: "trailing bytes", method: "POST", path: "/v1/challenges", body: "{} x", status: 400,
            code: "invalidJSON"),
        .init(
            name: "duplicate keys", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","purpose":"attestation","subject":"a"}"#, status: 400, code: "invalidJSON"),
        .init(
            name: "invalid UTF-8", method: "POST", path: "/v1/challenges", body: "{\"subject\":\"\u{FFFD}\"",
            status: 400, code: "invalidJSON"),
        .init(
            name: "missing subject", method: "POST", path: "/v1/challenges", body: #"{"purpose":"assertion"}"#,
            status: 400, code: "missingField"),
        .init(
            name: "subject of the wrong type", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","subject":42}"#, status: 400, code: "invalidField"),
        .init(
            name: "unknown purpose", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"payment","subject":"a"}"#, status: 400, code: "invalidField"),
        .init(
            name: "empty subject", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","subject":""}"#, status: 400, code: "invalidField"),
        .init(
            name: "a NUL in the subject", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","subject":"alice\u0000evil"}"#, status: 400, code: "invalidField"),
        .init(
            name: "a NUL in the subject of an attestation", method: "POST", path: "/v1/attestations",
            body:
                #"{"subject":"a\u0000","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","attestationObject":"AA","challenge":"c"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "a NUL in the subject of an assertion", method: "POST", path: "/v1/assertions",
            body:
                #"{"subject":"a\u0000","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","assertion":"AA","challenge":"c","payload":{}}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "a NUL in the key id (already refused as base64)", method: "POST", path: "/v1/attestations",
            body:
                #"{"subject":"a","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\u0000","attestationObject":"AA","challenge":"c"}"#,
            status: 400, code: "invalidBase64"),
        .init(
            name: "a NUL in the challenge (only its SHA-256 reaches the store)", method: "POST", path: "/v1/assertions",
            body:
                #"{"subject":"a","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","assertion":"AA","challenge":"c\u0000","payload":{}}"#,
            status: 409, code: "challengeUsed"),
        .init(
            name: "a NUL in the key id in the path (already refused as base64)", method: "GET",
            path: "/v1/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\u{0}", body: "", status: 400,
            code: "invalidBase64"),
        .init(
            name: "an encoded NUL in the key id path (the server leaves %00 encoded)", method: "GET",
            path: "/v1/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%00x", body: "", status: 400,
            code: "invalidBase64"),
        .init(
            name: "bad base64 key id", method: "POST", path: "/v1/attestations",
            body: #"{"subject":"a","keyId":"***","attestationObject":"AA","challenge":"c"}"#, status: 400,
            code: "invalidBase64"),
        .init(
            name: "short key id", method: "POST", path: "/v1/attestations",
            body: #"{"subject":"a","keyId":"AAAA","attestationObject":"AA","challenge":"c"}"#, status: 400,
            code: "invalidField"),
        .init(
            name: "attestation object of the wrong type", method: "POST", path: "/v1/attestations",
            body:
                #"{"subject":"a","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","attestationObject":[1],"challenge":"c"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "payload not an object", method: "POST", path: "/v1/assertions",
            body:
                #"{"subject":"a","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","assertion":"AA","challenge":"c","payload":"x"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "never-issued challenge", method: "POST", path: "/v1/assertions",
            body:
                #"{"subject":"a","keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA","assertion":"AA","challenge":"c","payload":{}}"#,
            status: 409, code: "challengeUsed"),
        .init(
            name: "bad key id in the path", method: "GET", path: "/v1/keys/%%%", body: "", status: 400,
            code: "invalidBase64"),
        .init(
            name: "unregistered key id in the path", method: "GET",
            path: "/v1/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", body: "", status: 404, code: "keyNotFound"),
        .init(
            name: "points without an assertion under require-assertion", method: "POST", path: "/v1/demo/points/use",
            body: #"{"payload":{"userId":"a","amount":5}}"#, status: 401, code: "assertionRequired"),
        .init(
            name: "points with a fractional amount", method: "POST", path: "/v1/demo/points/use",
            body: #"{"payload":{"userId":"a","amount":1.5}}"#, status: 400, code: "invalidField"),
    ]

    @Test("bad input gets the right 4xx and code", arguments: badInputs)
    func badInput(_ input: BadInput) async {
        // Key lookups are an operator route: only the admin listener answers them.
        let router = input.path.hasPrefix("/v1/keys/") ? ServiceRouter(service: service, listener: .admin) : router
        let response = await router.respond(
            to: HTTPRequest(method: input.method, path: input.path, body: Array(input.body.utf8)))
        #expect(response.status == input.status, "\(response.bodyText)")
        #expect(errorCode(response) == input.code, "\(response.bodyText)")
        #expect(response.headers["Content-Type"] == "application/json")
    }

    @Test("healthz and metrics")
    func health() async {
        let health = await call("GET", "/healthz")
        #expect(health.status == 200)
        #expect(health.bodyText == #"{"status":"ok"}"#)
        _ = await call("GET", "/v1/nope")
        let admin = ServiceRouter(service: service, listener: .admin)
        let metrics = await admin.respond(to: HTTPRequest(method: "GET", path: "/metrics"))
        #expect(metrics.status == 200)
        #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain") == true)
        #expect(metrics.bodyText.contains(#"rampart_http_requests_total{route="unmatched",status="404"} 1"#))
        #expect(metrics.bodyText.contains("rampart_http_request_duration_seconds_count"))
    }

    @Test("register, assert, replay: 201, 200 with the counter, 409 challengeUsed")
    func flow() async throws {
        let keyID = try await register()
        let body = try await signed(keyID: keyID, counter: 1, payload: #"{"action":"point_use","amount":1000}"#)
        let accepted = await call("POST", "/v1/assertions", body)
        #expect(accepted.status == 200)
        #expect(accepted.bodyText == #"{"counter":1,"valid":true}"#)
        let replay = await call("POST", "/v1/assertions", body)
        #expect(replay.status == 409)
        #expect(errorCode(replay) == "challengeUsed")
    }

    @Test("key order and whitespace in the payload do not change the client data")
    func canonicalPayload() async throws {
        let keyID = try await register()
        let signedBody = try await signed(keyID: keyID, counter: 1, payload: #"{"userId":"alice","amount":1000}"#)
        let reordered = signedBody.replacingOccurrences(
            of: #"{"userId":"alice","amount":1000}"#, with: "{ \"amount\" : 1e3 ,\n \"userId\":\"alice\" }")
        let response = await call("POST", "/v1/assertions", reordered)
        #expect(response.status == 200, "\(response.bodyText)")
    }

    @Test("points: accepted spends, the payload's user must be the subject, the balance read is limited")
    func points() async throws {
        let keyID = try await register()
        let spend = await call(
            "POST", "/v1/demo/points/use",
            try await signed(keyID: keyID, counter: 1, payload: #"{"userId":"alice","amount":1000}"#))
        #expect(spend.status == 200)
        #expect(field(spend, "balance") == .number(4000))
        #expect(field(spend, "attested") == .bool(true))
        let otherUser = await call(
            "POST", "/v1/demo/points/use",
            try await signed(keyID: keyID, counter: 2, payload: #"{"userId":"bob","amount":1}"#))
        #expect(errorCode(otherUser) == "wrongSubject")
        let balance = await call("POST", "/v1/demo/points/balance", #"{"payload":{"userId":"alice"}}"#)
        #expect(balance.status == 200)
        #expect(field(balance, "attested") == .bool(false))
        #expect(field(balance, "policy") == .string("limited"))
        let tooMuch = await call(
            "POST", "/v1/demo/points/use",
            try await signed(keyID: keyID, counter: 3, payload: #"{"userId":"alice","amount":999999}"#))
        #expect(tooMuch.status == 409)
        #expect(errorCode(tooMuch) == "insufficientPoints")
    }

    @Test("an open route skips App Attest; a limited route checks a bad assertion, which raises no risk")
    func policies() async throws {
        let open = ServiceRouter(service: service, policies: ["/v1/demo/points/use": .open])
        let response = await open.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/demo/points/use", body: Array(#"{"payload":{"userId":"a","amount":1}}"#.utf8)
            ))
        #expect(response.status == 200)
        let keyID = try await register()
        var body = try await signed(keyID: keyID, counter: 1, payload: #"{"userId":"alice"}"#)
        body = body.replacingOccurrences(of: #"{"userId":"alice"}"#, with: #"{"userId":"alice","x":1}"#)
        let limited = await call("POST", "/v1/demo/points/balance", body)
        #expect(limited.status == 200)
        #expect(field(limited, "attested") == .bool(false))
        #expect(try await service.key(id: keyID)?.riskScore == 0)
        #expect(service.metrics.prometheusText.contains("kind=\"assertion\",reason=\"invalidAssertion\"} 1"))
    }

    @Test("the operator route (admin listener) shows the key, and needs the bearer token when one is configured")
    func operatorRoute() async throws {
        let keyID = try await register()
        let path =
            "/v1/keys/"
            + Data(keyID).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let shown = await ServiceRouter(service: service, listener: .admin).respond(
            to: HTTPRequest(method: "GET", path: path))
        #expect(shown.status == 200)
        #expect(field(shown, "counter") == .number(0))
        #expect(field(shown, "blocked") == .bool(false))
        let token = "0123456789abcdef0123456789abcdef"
        let guarded = ServiceRouter(service: service, listener: .admin, operatorToken: token)
        let refused = await guarded.respond(to: HTTPRequest(method: "GET", path: path))
        #expect(refused.status == 401)
        #expect(errorCode(refused) == "unauthorized")
        let allowed = await guarded.respond(
            to: HTTPRequest(method: "GET", path: path, headers: ["Authorization": "Bearer \(token)"]))
        #expect(allowed.status == 200)
    }

    @Test("error bodies never echo the request's bytes")
    func noEcho() async {
        let secret = "SECRET-CHALLENGE-VALUE"
        let response = await call("POST", "/v1/assertions", #"{"subject":"a","keyId":"\#(secret)","payload":{}}"#)
        #expect(response.status == 400)
        #expect(!response.bodyText.contains(secret))
    }

    @Test("the OpenAPI document describes exactly the implemented routes and error codes")
    func openAPI() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/RampartAttestService/OpenAPI/openapi.json").standardizedFileURL
        let document = try JSONValue(parsing: Array(try Data(contentsOf: url)))
        guard case .object(let root) = document, case .object(let paths)? = root["paths"],
            root["openapi"].map({ if case .string(let v) = $0 { v.hasPrefix("3.") } else { false } }) == true
        else { throw AttestServiceError.invalidJSON("not an OpenAPI 3 document") }
        var documented: Set<String> = []
        for (path, item) in paths {
            guard case .object(let operations) = item else { continue }
            for method in operations.keys where ["get", "post", "put", "delete", "patch"].contains(method) {
                documented.insert("\(method.uppercased()) \(path)")
            }
        }
        #expect(documented == Set(ServiceRouter.routes))
        guard case .object(let components)? = root["components"], case .object(let schemas)? = components["schemas"],
            case .object(let error)? = schemas["Error"], case .object(let properties)? = error["properties"],
            case .object(let code)? = properties["error"], case .array(let values)? = code["enum"]
        else { throw AttestServiceError.invalidJSON("no Error schema") }
        let codes = Set(values.compactMap { if case .string(let v) = $0 { v } else { nil } })
        #expect(codes == Set(ServiceRouter.errorCodes))
    }
}
