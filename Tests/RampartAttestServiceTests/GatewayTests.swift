import Foundation
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import TestSupport
import Testing

/// The gateway endpoints (Envoy `/ext-authz/<target>`, Traefik/Caddy `/forward-auth`, nginx `/auth-request`), the
/// sidecar `POST /v1/verify` and the route policies, in-process, with FakeVerifier's assertions.
struct GatewayTests: RouterCalls {
    let router: ServiceRouter
    let admin: ServiceRouter
    let service: AttestationService
    let tokens: AccessTokenIssuer

    static let rules = [
        RouteRule(method: "*", path: "/api/*", policy: .requireAssertion),
        RouteRule(method: "GET", path: "/api/public/*", policy: .open),
        RouteRule(method: "GET", path: "/api/catalog", policy: .limited),
        RouteRule(method: "GET", path: "/api/feed/*", policy: .token),
        RouteRule(method: "*", path: "/api/admin", policy: .requireAssertion),
        RouteRule(method: "*", path: "/static/*", policy: .open),
    ]

    init() throws {
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        service = AttestationService(store: store, verifier: FakeVerifier())
        let routes = try RouteTable(rules: Self.rules, defaultPolicy: .requireAssertion)
        tokens = try AccessTokenIssuer(configuration: TokenConfiguration(audience: "T.b"), store: store)
        router = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader), routes: routes, tokens: tokens)
        admin = ServiceRouter(service: service, listener: .admin, routes: routes)
    }

    func call(
        _ method: String, _ path: String, _ json: String = "", headers: [String: String] = [:]
    ) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(json.utf8)))
    }

    /// Envoy's check: the original method, `/ext-authz` + the original target, the headers and the body.
    func envoy(
        _ method: String, _ target: String, _ headers: [String: String], body: [UInt8] = []
    ) async
        -> HTTPResponse
    {
        await router.respond(
            to: HTTPRequest(method: method, path: "/ext-authz" + target, headers: headers, body: body))
    }

    /// Traefik's check: `GET /forward-auth` with X-Forwarded-Method and X-Forwarded-Uri.
    func traefik(
        _ method: String, _ target: String, _ headers: [String: String], body: [UInt8] = []
    ) async
        -> HTTPResponse
    {
        var headers = headers
        headers["X-Forwarded-Method"] = method
        headers["X-Forwarded-Uri"] = target
        return await router.respond(
            to: HTTPRequest(method: body.isEmpty ? "GET" : "POST", path: "/forward-auth", headers: headers, body: body))
    }

    /// nginx's check: `GET /auth-request` with X-Original-Method and X-Original-URI, never a body.
    func nginx(_ method: String, _ target: String, _ headers: [String: String]) async -> HTTPResponse {
        var headers = headers
        headers["X-Original-Method"] = method
        headers["X-Original-URI"] = target
        return await router.respond(to: HTTPRequest(method: "GET", path: "/auth-request", headers: headers))
    }

    static let body = Array(#"{"amount":10}"#.utf8)

    @Test("a signed request is allowed on each gateway with the Rampart-* headers, and its replay is refused")
    func allowAndReplay() async throws {
        let keyID = try await register()
        let target = "/api/points/use?dry=1"
        // Envoy and Traefik see the body; nginx verifies over Content-Digest and hands the digest upstream.
        for (index, gateway) in ["envoy", "traefik", "nginx"].enumerated() {
            let counter = UInt32(index + 1)
            let fresh = try await signed(keyID: keyID, counter: counter, target: target, body: Self.body)
            func send() async -> HTTPResponse {
                switch gateway {
                case "envoy": await envoy("POST", target, fresh, body: Self.body)
                case "traefik": await traefik("POST", target, fresh, body: Self.body)
                default: await nginx("POST", target, fresh)
                }
            }
            let allowed = await send()
            #expect(allowed.status == 200, "\(gateway): \(allowed.bodyText)")
            #expect(allowed.headers["Rampart-Subject"] == "alice")
            #expect(allowed.headers["Rampart-Key-Id"] == Data(keyID).base64EncodedString())
            #expect(allowed.headers["Rampart-Counter"] == String(counter))
            #expect(allowed.headers["Rampart-Policy"] == "require-assertion")
            #expect(allowed.headers["Rampart-Verified-Digest"] == RequestSignature.contentDigest(of: Self.body))
            #expect(allowed.headers["Rampart-Next-Challenge"] != nil)
            #expect(field(allowed, "allow") == .bool(true))
            let replay = await send()
            #expect(replay.status == (gateway == "nginx" ? 401 : 409), "\(gateway)")
            #expect(replay.headers["Rampart-Error"] == "challengeUsed")
            #expect(errorCode(replay) == "challengeUsed")
        }
    }

    @Test("the next challenge signs the following request in one round trip")
    func nextChallenge() async throws {
        let keyID = try await register()
        let first = await envoy(
            "GET", "/api/x", try await signed(keyID: keyID, counter: 1, method: "GET", target: "/api/x"))
        let next = try #require(first.headers["Rampart-Next-Challenge"])
        var headers = try signedHeaders(keyID: keyID, counter: 2, method: "GET", target: "/api/y", challenge: next)
        headers[subjectHeader] = "alice"
        let second = await envoy("GET", "/api/y", headers)
        #expect(second.status == 200)
        #expect(second.headers["Rampart-Counter"] == "2")
        // The next challenge is the subject's: another user cannot spend it.
        let third = try #require(second.headers["Rampart-Next-Challenge"])
        headers = try signedHeaders(keyID: keyID, counter: 3, method: "GET", target: "/api/y", challenge: third)
        headers[subjectHeader] = "bob"
        #expect(errorCode(await envoy("GET", "/api/y", headers)) == "challengeMismatch")
    }

    struct Tamper: CustomTestStringConvertible, Sendable {
        let name: String
        let method: String
        let target: String
        let body: [UInt8]
        let code: String
        var testDescription: String { name }
    }

    static let tampers: [Tamper] = [
        .init(name: "another route", method: "POST", target: "/api/points/send", body: body, code: "invalidAssertion"),
        .init(
            name: "another query", method: "POST", target: "/api/points/use?dry=0", body: body, code: "invalidAssertion"
        ),
        .init(name: "no query", method: "POST", target: "/api/points/use", body: body, code: "invalidAssertion"),
        .init(
            name: "another method", method: "PUT", target: "/api/points/use?dry=1", body: body, code: "invalidAssertion"
        ),
        .init(
            name: "another body", method: "POST", target: "/api/points/use?dry=1", body: Array(#"{"amount":99}"#.utf8),
            code: "digestMismatch"),
        .init(
            name: "another spelling of the path", method: "POST", target: "/api/%70oints/use?dry=1", body: body,
            code: "invalidAssertion"),
    ]

    @Test("a request changed after signing is 401 with the precise code, on Envoy and Traefik", arguments: tampers)
    func tampered(_ tamper: Tamper) async throws {
        let keyID = try await register()
        for gateway in ["envoy", "traefik"] {
            let headers = try await signed(keyID: keyID, counter: 1, target: "/api/points/use?dry=1", body: Self.body)
            let answer =
                gateway == "envoy"
                ? await envoy(tamper.method, tamper.target, headers, body: tamper.body)
                : await traefik(tamper.method, tamper.target, headers, body: tamper.body)
            #expect(answer.status == 401, "\(gateway): \(answer.bodyText)")
            #expect(errorCode(answer) == tamper.code, "\(gateway)")
            #expect(answer.headers["Rampart-Error"] == tamper.code)
        }
    }

    @Test("nginx: a body changed after signing passes the check but not the upstream's digest comparison")
    func nginxDigest() async throws {
        let keyID = try await register()
        let headers = try await signed(keyID: keyID, counter: 1, target: "/api/x", body: Self.body)
        let answer = await nginx("POST", "/api/x", headers)
        #expect(answer.status == 200)
        // The upstream compares the body it received with Rampart-Verified-Digest (docs/request-signature.md).
        let verified = try #require(answer.headers["Rampart-Verified-Digest"])
        #expect(verified == RequestSignature.contentDigest(of: Self.body))
        #expect(verified != RequestSignature.contentDigest(of: Array(#"{"amount":99}"#.utf8)))
    }

    struct Refused: CustomTestStringConvertible, Sendable {
        let name: String
        let headers: @Sendable ([UInt8], [String: String]) -> [String: String]
        let status: Int
        let code: String
        var testDescription: String { name }
    }

    static let refusals: [Refused] = [
        .init(
            name: "no assertion headers", headers: { _, _ in [subjectHeader: "alice"] }, status: 401,
            code: "assertionRequired"),
        .init(
            name: "no subject header", headers: { _, signed in signed.filter { $0.key != subjectHeader } },
            status: 401, code: "subjectRequired"),
        .init(
            name: "key id not standard base64",
            headers: { _, signed in
                signed.merging(["Rampart-Key-Id": String(repeating: "-", count: 43) + "="]) { $1 }
            }, status: 401, code: "malformedSignature"),
        .init(
            name: "a short key id", headers: { _, signed in signed.merging(["Rampart-Key-Id": "AAAA"]) { $1 } },
            status: 401, code: "malformedSignature"),
        .init(
            name: "a digest in another form",
            headers: { _, signed in signed.merging(["Content-Digest": "sha-512=:AAAA:"]) { $1 } }, status: 401,
            code: "malformedSignature"),
        .init(
            name: "an unknown key",
            headers: { _, signed in
                signed.merging(["Rampart-Key-Id": Data(repeating: 7, count: 32).base64EncodedString()]) { $1 }
            }, status: 401, code: "unknownKey"),
        .init(
            name: "a never-issued challenge",
            headers: { _, signed in signed.merging(["Rampart-Challenge": "never-issued"]) { $1 } }, status: 409,
            code: "challengeUsed"),
        .init(
            name: "another user (the key is alice's)",
            headers: { _, signed in signed.merging([subjectHeader: "bob"]) { $1 } }, status: 409,
            code: "challengeMismatch"),
    ]

    @Test("every refusal has its code on Envoy; nginx folds it into 401 or 403", arguments: refusals)
    func refusal(_ refused: Refused) async throws {
        let keyID = try await register()
        let headers = refused.headers(
            keyID, try await signed(keyID: keyID, counter: 1, method: "GET", target: "/api/x"))
        let envoy = await envoy("GET", "/api/x", headers)
        #expect(envoy.status == refused.status, "\(envoy.bodyText)")
        #expect(errorCode(envoy) == refused.code)
        let nginxHeaders = refused.headers(
            keyID, try await signed(keyID: keyID, counter: 2, method: "GET", target: "/api/x"))
        let nginx = await nginx("GET", "/api/x", nginxHeaders)
        #expect(nginx.status == 401 || nginx.status == 403)
        #expect(nginx.headers["Rampart-Error"] == refused.code)
    }

    @Test("the subject cannot be chosen by the app: another user's key, a body naming a subject, internal only")
    func subjectNotChosen() async throws {
        let victim = try await register(subject: "victim")
        // Mallory signs with her own challenge and names the victim's key: the key is another subject's.
        let headers = try await signed(keyID: victim, counter: 1, method: "GET", target: "/api/x", subject: "mallory")
        let answer = await envoy("GET", "/api/x", headers)
        #expect(answer.status == 403)
        #expect(errorCode(answer) == "wrongSubject")
        // A body naming a subject is just bytes under the signature; the subject is still the header's.
        let body = Array(#"{"subject":"victim"}"#.utf8)
        let mine = try await register(subject: "mallory")
        let allowed = await envoy(
            "POST", "/api/x",
            try await signed(keyID: mine, counter: 1, target: "/api/x", body: body, subject: "mallory"), body: body)
        #expect(allowed.headers["Rampart-Subject"] == "mallory")
        // The sidecar is not on the public listener, and with {"internal": true} the public listener names nobody.
        #expect(await call("POST", "/v1/verify", #"{"method":"GET","target":"/","subject":"victim"}"#).status == 404)
        let internalOnly = ServiceRouter(service: service)
        let none = await internalOnly.respond(
            to: HTTPRequest(method: "GET", path: "/ext-authz/api/x", headers: [subjectHeader: "victim"]))
        #expect(errorCode(none) == "subjectRequired")
        let issued = await internalOnly.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/challenges", headers: [subjectHeader: "victim"],
                body: Array(#"{"purpose":"attestation"}"#.utf8)))
        #expect(errorCode(issued) == "subjectRequired")
    }

    @Test("open routes pass without a signature; limited routes pass and report the failed check")
    func openAndLimited() async throws {
        let open = await envoy("GET", "/api/public/logo.png", [subjectHeader: "alice"])
        #expect(open.status == 200)
        #expect(open.headers["Rampart-Policy"] == "open")
        #expect(open.headers["Rampart-Subject"] == "alice")
        #expect(open.headers["Rampart-Key-Id"] == nil)
        let anonymous = await traefik("GET", "/static/app.js", [:])
        #expect(anonymous.status == 200)
        #expect(anonymous.headers["Rampart-Subject"] == nil)
        let limited = await nginx("GET", "/api/catalog", [subjectHeader: "alice"])
        #expect(limited.status == 200)
        #expect(limited.headers["Rampart-Policy"] == "limited")
        #expect(field(limited, "limitedRefusal") == .string("assertionRequired"))
        let keyID = try await register()
        let signedLimited = await envoy(
            "GET", "/api/catalog", try await signed(keyID: keyID, counter: 1, method: "GET", target: "/api/catalog"))
        #expect(signedLimited.headers["Rampart-Counter"] == "1")
        #expect(signedLimited.headers["Rampart-Policy"] == "limited")
    }

    @Test("path spellings that a backend might read as a stricter route get the stricter policy")
    func strictestReading() async throws {
        // /api/public/* is open for GET; /api/admin is require-assertion; /api/* is require-assertion.
        for target in [
            "/API/public/x", "/api/Public/x", "/api/public;x=1/y", "/api/%50ublic/x",
        ] {
            #expect(
                await envoy("GET", target, [subjectHeader: "a"]).headers["Rampart-Policy"] == nil,
                "\(target) must not be open")
        }
        #expect(await envoy("GET", "/api/%70ublic/x", [subjectHeader: "a"]).status == 200)  // %70 is 'p'
        // HEAD and method overrides are read as the methods a framework would route them to.
        let override = await envoy("GET", "/api/public/x", [subjectHeader: "a", "X-HTTP-Method-Override": "DELETE"])
        #expect(override.status == 401)
        #expect(await envoy("HEAD", "/api/public/x", [subjectHeader: "a"]).status == 401)
        let table = try RouteTable(rules: [
            RouteRule(method: "*", path: "/*", policy: .open),
            RouteRule(method: "POST", path: "/api/admin", policy: .requireAssertion),
        ])
        let laxDefault = ServiceRouter(service: service, subjectSource: .header(subjectHeader), routes: table)
        for target in ["/api/admin", "/API/ADMIN", "/api/admin/", "/api/admin;jsessionid=1", "/api/%61dmin"] {
            let answer = await laxDefault.respond(
                to: HTTPRequest(method: "POST", path: "/ext-authz" + target, headers: [subjectHeader: "a"]))
            #expect(answer.status == 401, "\(target)")
        }
        let fine = await laxDefault.respond(
            to: HTTPRequest(method: "POST", path: "/ext-authz/api/administrator", headers: [subjectHeader: "a"]))
        #expect(fine.status == 200)
    }

    @Test(
        "unsafe targets are refused before matching: 400 invalidTarget (403 on nginx)",
        arguments: [
            "/api/public/../admin", "/api/public/%2e%2E/admin", "/api/./x", "/api//x", "//evil.example/x",
            "/api%2Fadmin", "/api%5Cadmin", "/api\\admin", "/api/x%00", "/api/%zz", "/api/x%2", "api/x",
            "http://host/api/x", "/api/x#frag", "/api/caf\u{E9}",
        ])
    func unsafeTarget(_ target: String) async {
        let envoyAnswer = await traefik("GET", target, [subjectHeader: "a"])
        #expect(envoyAnswer.status == 400, "\(envoyAnswer.bodyText)")
        #expect(errorCode(envoyAnswer) == "invalidTarget")
        let nginxAnswer = await nginx("GET", target, [subjectHeader: "a"])
        #expect(nginxAnswer.status == 403)
        #expect(nginxAnswer.headers["Rampart-Error"] == "invalidTarget")
    }

    @Test("gateway protocol errors: missing X-Forwarded-*, an encoded '/' after /ext-authz, TRACE")
    func protocolErrors() async {
        let forward = await call("GET", "/forward-auth", headers: ["X-Forwarded-Uri": "/api/x"])
        #expect(forward.status == 400)
        #expect(errorCode(forward) == "missingField")
        let nginx = await call("GET", "/auth-request", headers: ["X-Original-Method": "GET"])
        #expect(nginx.status == 403)
        #expect(nginx.headers["Rampart-Error"] == "missingField")
        let encoded = await router.respond(
            to: HTTPRequest(method: "GET", path: "/ext-authz/api/x", target: "/ext-authz%2Fapi/x"))
        #expect(errorCode(encoded) == "invalidTarget")
        let trace = await call("TRACE", "/ext-authz/api/x")
        #expect(trace.status == 405)
        #expect(trace.headers["Allow"]?.contains("OPTIONS") == true)
        // Caddy: GET /forward-auth?<original query>; the query is accepted and ignored.
        let caddy = await router.respond(
            to: HTTPRequest(
                method: "GET", path: "/forward-auth?dry=1",
                headers: ["X-Forwarded-Method": "GET", "X-Forwarded-Uri": "/static/x?dry=1"]))
        #expect(caddy.status == 200)
    }

    @Test("the sidecar POST /v1/verify answers the same verdicts as JSON, over a body, a digest or the header")
    func sidecar() async throws {
        let keyID = try await register()
        func verify(_ extra: String, _ headers: [String: String], target: String = "/api/x") async -> HTTPResponse {
            let names = headers.filter { $0.key != subjectHeader }.map { #""\#($0.key)":"\#($0.value)""# }
            let json =
                #"{"method":"POST","target":"\#(target)","subject":"alice","headers":{\#(names.joined(separator: ","))}\#(extra)}"#
            return await admin.respond(
                to: HTTPRequest(
                    method: "POST", path: "/v1/verify", headers: ["Content-Type": "application/json"],
                    body: Array(json.utf8)))
        }
        let base64 = Data(Self.body).base64EncodedString()
        let withBody = await verify(
            #","body":"\#(base64)""#, try await signed(keyID: keyID, counter: 1, target: "/api/x", body: Self.body))
        #expect(withBody.status == 200, "\(withBody.bodyText)")
        #expect(field(withBody, "allow") == .bool(true))
        #expect(field(withBody, "counter") == .number(1))
        #expect(field(withBody, "subject") == .string("alice"))
        #expect(field(withBody, "keyId") == .string(Data(keyID).base64EncodedString()))
        #expect(field(withBody, "nextChallenge") != nil)
        let digest = RequestSignature.contentDigest(of: Self.body)
        let withDigest = await verify(
            #","contentDigest":"\#(digest)""#,
            try await signed(keyID: keyID, counter: 2, target: "/api/x", body: Self.body))
        #expect(withDigest.status == 200)
        let headerOnly = await verify("", try await signed(keyID: keyID, counter: 3, target: "/api/x", body: Self.body))
        #expect(field(headerOnly, "verifiedDigest") == .string(digest))
        let changed = await verify(
            #","body":"\#(Data("x".utf8).base64EncodedString())""#,
            try await signed(keyID: keyID, counter: 4, target: "/api/x", body: Self.body))
        #expect(changed.status == 401)
        #expect(errorCode(changed) == "digestMismatch")
        let open = await verify("", [:], target: "/api/public/x")
        #expect(open.status == 401)  // POST is not open: only GET /api/public/* is
        let unsigned = await verify("", [:])
        #expect(errorCode(unsigned) == "assertionRequired")
    }

    @Test("tokens: a signed POST /v1/tokens gives a token the token policy accepts; others are refused")
    func tokenPolicy() async throws {
        let keyID = try await register()
        let issued = await call(
            "POST", "/v1/tokens", headers: try await signed(keyID: keyID, counter: 1, target: "/v1/tokens"))
        #expect(issued.status == 200, "\(issued.bodyText)")
        guard case .string(let token)? = field(issued, "token") else { throw AttestServiceError.invalidJSON("") }
        let feed = await envoy("GET", "/api/feed/today", [subjectHeader: "alice", "Rampart-Token": token])
        #expect(feed.status == 200)
        #expect(feed.headers["Rampart-Policy"] == "token")
        #expect(feed.headers["Rampart-Key-Id"] == Data(keyID).base64EncodedString())
        let otherUser = await envoy("GET", "/api/feed/today", [subjectHeader: "bob", "Rampart-Token": token])
        #expect(otherUser.status == 403)
        #expect(errorCode(otherUser) == "wrongSubject")
        let garbage = await envoy("GET", "/api/feed/today", [subjectHeader: "alice", "Rampart-Token": "x.y.z"])
        #expect(garbage.status == 401)
        #expect(errorCode(garbage) == "invalidToken")
        // A token is no assertion: require-assertion routes still need a signed request.
        let strict = await envoy("GET", "/api/x", [subjectHeader: "alice", "Rampart-Token": token])
        #expect(errorCode(strict) == "assertionRequired")
        // The token policy also accepts a signed request.
        let signedFeed = await envoy(
            "GET", "/api/feed/today",
            try await signed(keyID: keyID, counter: 2, method: "GET", target: "/api/feed/today"))
        #expect(signedFeed.status == 200)
        let jwks = await call("GET", "/.well-known/jwks.json")
        #expect(jwks.status == 200)
        #expect(jwks.bodyText.contains(#""keys""#))
        let unsigned = await call("POST", "/v1/tokens", headers: [subjectHeader: "alice"])
        #expect(errorCode(unsigned) == "assertionRequired")
    }
}

/// The `jwt` subject source: the subject is the `sub` of the app's session JWT, verified against the JWKS.
struct SessionSubjectTests {
    @Test("challenges and gateway checks take the subject from a verified session JWT; a bad one is invalidSession")
    func sessionSubject() async throws {
        let now = TokensFixtures.now
        let service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            clock: { now })
        let verifier = try TokensSessionTests.verifier()
        let router = ServiceRouter(
            service: service,
            subjectSource: .jwt(
                SubjectSource.JWTSettings(
                    jwks: verifier.configuration.jwksPath, issuer: TokensFixtures.issuer,
                    audience: TokensFixtures.audience)),
            sessionTokens: verifier)
        let body = Array(#"{"purpose":"attestation"}"#.utf8)
        let issued = await router.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/challenges",
                headers: ["Authorization": "Bearer \(TokensFixtures.es256())"], body: body))
        #expect(issued.status == 200, "\(issued.bodyText)")
        let open = try RouteTable(rules: [RouteRule(method: "*", path: "/*", policy: .open)])
        let gateway = ServiceRouter(
            service: service,
            subjectSource: .jwt(
                SubjectSource.JWTSettings(jwks: "/j", issuer: TokensFixtures.issuer, audience: TokensFixtures.audience)),
            routes: open, sessionTokens: verifier)
        let allowed = await gateway.respond(
            to: HTTPRequest(
                method: "GET", path: "/ext-authz/x", headers: ["Authorization": "Bearer \(TokensFixtures.rs256())"]))
        #expect(allowed.headers["Rampart-Subject"] == "user-42")
        for authorization in [nil, "Bearer x.y.z", "Basic dXNlcjpwdw==", "Bearer " + TokensFixtures.es256(kid: "nope")]
        {
            var headers: [String: String] = [:]
            headers["Authorization"] = authorization
            let refused = await router.respond(
                to: HTTPRequest(method: "POST", path: "/v1/challenges", headers: headers, body: body))
            #expect(refused.status == 401, "\(authorization ?? "none")")
            #expect(refused.headers["Rampart-Error"] == "invalidSession")
        }
    }
}
