import Foundation
import RampartAppAttest
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// The HTTP API in-process (no sockets): every 4xx path, the demo routes under their policies, the operator route,
/// and the OpenAPI document.
struct ServiceRouterTests: RouterCalls {
    let router: ServiceRouter
    let admin: ServiceRouter
    let service: AttestationService

    init() throws {
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier())
        router = ServiceRouter(service: service, subjectSource: .header(subjectHeader), demo: true)
        admin = ServiceRouter(service: service, listener: .admin)
    }

    func call(
        _ method: String, _ path: String, _ json: String = "", headers: [String: String] = [:]
    ) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(json.utf8)))
    }

    struct BadInput: CustomTestStringConvertible, Sendable {
        let name: String
        let method: String
        let path: String
        let body: String
        let status: Int
        let code: String
        var headers: [String: String] = [subjectHeader: "alice"]
        var testDescription: String { name }
    }

    static let keyID = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="

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
            body: #"{"purpose":"assertion","purpose":"attestation"}"#, status: 400, code: "invalidJSON"),
        .init(
            name: "invalid UTF-8", method: "POST", path: "/v1/challenges", body: "{\"purpose\":\"\u{FFFD}\"",
            status: 400, code: "invalidJSON"),
        .init(
            name: "missing purpose", method: "POST", path: "/v1/challenges", body: "{}", status: 400,
            code: "missingField"),
        .init(
            name: "unknown purpose", method: "POST", path: "/v1/challenges", body: #"{"purpose":"payment"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "a subject in a public challenge body", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","subject":"mallory"}"#, status: 400, code: "invalidField"),
        .init(
            name: "a subject in a public attestation body", method: "POST", path: "/v1/attestations",
            body: #"{"subject":"mallory","keyId":"\#(keyID)","attestationObject":"AA","challenge":"c"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "no subject header on a challenge", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion"}"#, status: 401, code: "subjectRequired", headers: [:]),
        .init(
            name: "no subject header on an attestation", method: "POST", path: "/v1/attestations",
            body: #"{"keyId":"\#(keyID)","attestationObject":"AA","challenge":"c"}"#, status: 401,
            code: "subjectRequired", headers: [:]),
        .init(
            name: "a subject header over 256 bytes", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion"}"#, status: 401, code: "subjectRequired",
            headers: [subjectHeader: String(repeating: "a", count: 257)]),
        .init(
            name: "a NUL in the key id (refused as base64)", method: "POST", path: "/v1/attestations",
            body:
                #"{"keyId":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\u0000","attestationObject":"AA","challenge":"c"}"#,
            status: 400, code: "invalidBase64"),
        .init(
            name: "bad base64 key id", method: "POST", path: "/v1/attestations",
            body: #"{"keyId":"***","attestationObject":"AA","challenge":"c"}"#, status: 400, code: "invalidBase64"),
        .init(
            name: "short key id", method: "POST", path: "/v1/attestations",
            body: #"{"keyId":"AAAA","attestationObject":"AA","challenge":"c"}"#, status: 400, code: "invalidField"),
        .init(
            name: "attestation object of the wrong type", method: "POST", path: "/v1/attestations",
            body: #"{"keyId":"\#(keyID)","attestationObject":[1],"challenge":"c"}"#, status: 400,
            code: "invalidField"),
        .init(
            name: "never-issued attestation challenge", method: "POST", path: "/v1/attestations",
            body: #"{"keyId":"\#(keyID)","attestationObject":"AA","challenge":"c"}"#, status: 409,
            code: "challengeUsed"),
        .init(
            name: "the removed POST /v1/assertions", method: "POST", path: "/v1/assertions",
            body: #"{"subject":"a","payload":{}}"#, status: 410, code: "endpointRemoved"),
        .init(
            name: "points without an assertion under require-assertion", method: "POST", path: "/v1/demo/points/use",
            body: #"{"amount":5}"#, status: 401, code: "assertionRequired"),
        .init(
            name: "points with a fractional amount", method: "POST", path: "/v1/demo/points/use",
            body: #"{"amount":1.5}"#, status: 400, code: "invalidField"),
        .init(
            name: "points naming a user in the body", method: "POST", path: "/v1/demo/points/use",
            body: #"{"amount":5,"userId":"bob"}"#, status: 400, code: "invalidField"),
        .init(
            name: "tokens without a token signer", method: "POST", path: "/v1/tokens", body: "", status: 404,
            code: "notFound"),
    ]

    @Test("bad input gets the right 4xx and code, in the body and in Rampart-Error", arguments: badInputs)
    func badInput(_ input: BadInput) async {
        let response = await router.respond(
            to: HTTPRequest(
                method: input.method, path: input.path, headers: input.headers, body: Array(input.body.utf8)))
        #expect(response.status == input.status, "\(response.bodyText)")
        #expect(errorCode(response) == input.code, "\(response.bodyText)")
        #expect(response.headers["Rampart-Error"] == input.code)
        #expect(response.headers["Content-Type"] == "application/json")
    }

    struct AdminInput: CustomTestStringConvertible, Sendable {
        let name: String
        let method: String
        let path: String
        let body: String
        let status: Int
        let code: String
        var testDescription: String { name }
    }

    static let adminInputs: [AdminInput] = [
        .init(
            name: "an internal challenge without a subject", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion"}"#, status: 400, code: "missingField"),
        .init(
            name: "an internal challenge with a NUL in the subject", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","subject":"alice\u0000evil"}"#, status: 400, code: "invalidField"),
        .init(
            name: "an internal challenge with an empty subject", method: "POST", path: "/v1/challenges",
            body: #"{"purpose":"assertion","subject":""}"#, status: 400, code: "invalidField"),
        .init(
            name: "an internal attestation with a NUL in the subject", method: "POST", path: "/v1/attestations",
            body: #"{"subject":"a\u0000","keyId":"\#(keyID)","attestationObject":"AA","challenge":"c"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "a NUL in the key id in the path", method: "GET",
            path: "/v1/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\u{0}", body: "", status: 400,
            code: "invalidBase64"),
        .init(
            name: "an encoded NUL in the key id path (the server leaves %00 encoded)", method: "GET",
            path: "/v1/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA%00x", body: "", status: 400,
            code: "invalidBase64"),
        .init(
            name: "bad key id in the path", method: "GET", path: "/v1/keys/%%%", body: "", status: 400,
            code: "invalidBase64"),
        .init(
            name: "unregistered key id in the path", method: "GET",
            path: "/v1/keys/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", body: "", status: 404, code: "keyNotFound"),
        .init(
            name: "verify without a subject", method: "POST", path: "/v1/verify",
            body: #"{"method":"GET","target":"/api/x"}"#, status: 400, code: "missingField"),
        .init(
            name: "verify with an unsafe target", method: "POST", path: "/v1/verify",
            body: #"{"method":"GET","target":"/api/../admin","subject":"a"}"#, status: 400, code: "invalidTarget"),
        .init(
            name: "verify with both a body and a digest", method: "POST", path: "/v1/verify",
            body: #"{"method":"GET","target":"/x","subject":"a","body":"","contentDigest":"sha-256=:x:"}"#,
            status: 400, code: "invalidField"),
        .init(
            name: "verify with an unknown field", method: "POST", path: "/v1/verify",
            body: #"{"method":"GET","target":"/x","subject":"a","policy":"open"}"#, status: 400,
            code: "invalidField"),
        .init(
            name: "verify with a header of the wrong type", method: "POST", path: "/v1/verify",
            body: #"{"method":"GET","target":"/x","subject":"a","headers":{"x":1}}"#, status: 400,
            code: "invalidField"),
        .init(
            name: "the demo routes are not on the internal listener", method: "POST", path: "/v1/demo/points/use",
            body: "{}", status: 404, code: "notFound"),
    ]

    @Test("bad input on the internal listener gets the right 4xx and code", arguments: adminInputs)
    func badAdminInput(_ input: AdminInput) async {
        let response = await admin.respond(
            to: HTTPRequest(
                method: input.method, path: input.path, headers: ["Content-Type": "application/json"],
                body: Array(input.body.utf8)))
        #expect(response.status == input.status, "\(response.bodyText)")
        #expect(errorCode(response) == input.code, "\(response.bodyText)")
    }

    @Test("healthz and metrics")
    func health() async {
        let health = await call("GET", "/healthz")
        #expect(health.status == 200)
        #expect(health.bodyText == #"{"status":"ok"}"#)
        _ = await call("GET", "/v1/nope")
        let metrics = await admin.respond(to: HTTPRequest(method: "GET", path: "/metrics"))
        #expect(metrics.status == 200)
        #expect(metrics.headers["Content-Type"]?.hasPrefix("text/plain") == true)
        #expect(metrics.bodyText.contains(#"rampart_http_requests_total{route="unmatched",status="404"} 1"#))
        #expect(metrics.bodyText.contains("rampart_http_request_duration_seconds_count"))
    }

    @Test("the internal listener takes the subject from the body: challenge, registration and a sidecar check")
    func internalSubject() async throws {
        let issued = await admin.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/challenges", headers: ["Content-Type": "application/json"],
                body: Array(#"{"purpose":"attestation","subject":"carol"}"#.utf8)
            ))
        #expect(issued.status == 200)
        guard case .string(let challenge)? = field(issued, "challenge") else {
            throw AttestServiceError.invalidJSON("")
        }
        let keyID = SecureRandom.bytes(count: 32)
        let body = #"""
            {"subject":"carol","keyId":"\#(Data(keyID).base64EncodedString())",\#
            "attestationObject":"\#(Data(FakeVerifier.attestation(keyID: keyID)).base64EncodedString())",\#
            "challenge":"\#(challenge)"}
            """#
        let registered = await admin.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/attestations", headers: ["Content-Type": "application/json"],
                body: Array(body.utf8)))
        #expect(registered.status == 201, "\(registered.bodyText)")
        // The public listener refuses a challenge for carol named in the body.
        let named = await call(
            "POST", "/v1/challenges", #"{"purpose":"assertion","subject":"carol"}"#, headers: [subjectHeader: "mallory"]
        )
        #expect(errorCode(named) == "invalidField")
        #expect(named.bodyText.contains("X-User-Id"))
    }

    @Test("points: a signed request spends the subject's points; the balance read is limited")
    func points() async throws {
        let keyID = try await register()
        let body = Array(#"{"amount":1000}"#.utf8)
        var headers = try await signed(keyID: keyID, counter: 1, target: "/v1/demo/points/use", body: body)
        let spend = await router.respond(
            to: HTTPRequest(method: "POST", path: "/v1/demo/points/use", headers: headers, body: body))
        #expect(spend.status == 200, "\(spend.bodyText)")
        #expect(field(spend, "balance") == .number(4000))
        #expect(field(spend, "userId") == .string("alice"))
        #expect(field(spend, "attested") == .bool(true))
        #expect(spend.headers["Rampart-Next-Challenge"] != nil)
        // The same signature as another user (the proxy says bob): the challenge was alice's.
        headers = try await signed(keyID: keyID, counter: 2, target: "/v1/demo/points/use", body: body)
        headers[subjectHeader] = "bob"
        let otherUser = await router.respond(
            to: HTTPRequest(method: "POST", path: "/v1/demo/points/use", headers: headers, body: body))
        #expect(otherUser.status == 409)
        #expect(errorCode(otherUser) == "challengeMismatch")
        let balance = await call("POST", "/v1/demo/points/balance", headers: [subjectHeader: "alice"])
        #expect(balance.status == 200)
        #expect(field(balance, "attested") == .bool(false))
        #expect(field(balance, "policy") == .string("limited"))
        let much = Array(#"{"amount":999999}"#.utf8)
        let tooMuch = await router.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/demo/points/use",
                headers: try await signed(keyID: keyID, counter: 3, target: "/v1/demo/points/use", body: much),
                body: much))
        #expect(tooMuch.status == 409)
        #expect(errorCode(tooMuch) == "insufficientPoints")
    }

    @Test("the demo routes exist only with --demo")
    func demoOnly() async {
        let plain = ServiceRouter(service: service, subjectSource: .header(subjectHeader))
        let response = await plain.respond(
            to: HTTPRequest(method: "POST", path: "/v1/demo/points/balance", headers: [subjectHeader: "a"]))
        #expect(response.status == 404)
        #expect(response.bodyText.contains("--demo"))
    }

    @Test("a configured route decides a demo route's policy; open needs no assertion, limited raises no risk")
    func policies() async throws {
        let open = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader),
            routes: try RouteTable(rules: [RouteRule(method: "POST", path: "/v1/demo/points/*", policy: .open)]),
            demo: true)
        let response = await open.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/demo/points/use", headers: [subjectHeader: "a"],
                body: Array(#"{"amount":1}"#.utf8)))
        #expect(response.status == 200)
        #expect(response.headers["Rampart-Policy"] == "open")
        let keyID = try await register()
        var headers = try await signed(keyID: keyID, counter: 1, target: "/v1/demo/points/balance")
        headers["Content-Digest"] = RequestSignature.contentDigest(of: Array("x".utf8))
        let limited = await router.respond(
            to: HTTPRequest(method: "POST", path: "/v1/demo/points/balance", headers: headers))
        #expect(limited.status == 200)
        #expect(field(limited, "attested") == .bool(false))
        #expect(try await service.key(id: keyID)?.riskScore == 0)
    }

    @Test("the operator route (admin listener) shows the key, and needs the bearer token when one is configured")
    func operatorRoute() async throws {
        let keyID = try await register()
        let path =
            "/v1/keys/"
            + Data(keyID).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let shown = await admin.respond(to: HTTPRequest(method: "GET", path: path))
        #expect(shown.status == 200)
        #expect(field(shown, "counter") == .number(0))
        #expect(field(shown, "blocked") == .bool(false))
        #expect(field(shown, "subject") == .string("alice"))
        let token = "0123456789abcdef0123456789abcdef"
        let guarded = ServiceRouter(service: service, listener: .admin, operatorToken: token)
        for (method, route, body) in [
            ("GET", path, ""), ("POST", "/v1/verify", "{}"), ("POST", "/v1/challenges", "{}"),
        ] {
            let refused = await guarded.respond(to: HTTPRequest(method: method, path: route, body: Array(body.utf8)))
            #expect(refused.status == 401, "\(route)")
            #expect(errorCode(refused) == "unauthorized")
        }
        let allowed = await guarded.respond(
            to: HTTPRequest(method: "GET", path: path, headers: ["Authorization": "Bearer \(token)"]))
        #expect(allowed.status == 200)
    }

    @Test("error bodies never echo the request's bytes")
    func noEcho() async {
        let secret = "SECRET-CHALLENGE-VALUE"
        let response = await call(
            "POST", "/v1/attestations", #"{"keyId":"\#(secret)","challenge":"c","attestationObject":"AA"}"#,
            headers: [subjectHeader: "a"])
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
