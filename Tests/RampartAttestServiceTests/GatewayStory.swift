import Foundation
import RampartAppAttest
import RampartRequestSigning
import TestSupport
import Testing

/// The checks every real gateway passes, whatever its protocol: a rampart serve (docs/examples/rampart.json), the
/// echo upstream (docs/examples/upstream.py) and the gateway in front of both with the docs' configuration.
///
/// The routes (from rampart.json): `GET /api/health` open, `* /api/points/*` require-assertion, `GET /api/feed/*`
/// token, everything else require-assertion. The user is `alice`, proved to the gateway by HTTP Basic (the stand-in
/// for the backend's authentication), so the subject is `alice`.
struct GatewayStory {
    /// The gateway's name, for messages.
    let name: String
    /// The gateway's port.
    let port: UInt16
    /// The signing app, registered through the gateway.
    let app: SigningApp
    /// Whether the gateway passes Rampart's refusal status on (Caddy, Traefik, Envoy) or only 401 and 403 (nginx).
    let passesStatus: Bool

    static let basicAlice = ["Authorization": "Basic " + Data("alice:secret".utf8).base64EncodedString()]

    /// The status a refusal with `status` (per the contract) reaches the app with through this gateway.
    func refusal(_ status: Int) -> Set<Int> { passesStatus ? [status] : [401, 403] }

    /// A fresh signed request for `method target` with `body`.
    func signed(_ method: String, _ target: String, body: [UInt8] = []) async throws -> SignedRequest {
        let challenge = try await app.challenge(port: port)
        return try await signed(method, target, body: body, challenge: challenge)
    }

    func signed(
        _ method: String, _ target: String, body: [UInt8] = [], challenge: String
    ) async throws
        -> SignedRequest
    {
        let headers = try await app.signatureHeaders(method: method, target: target, body: body, challenge: challenge)
        return SignedRequest(method: method, target: target, body: body, headers: headers)
    }

    func send(_ request: SignedRequest) async throws -> RawHTTP.Response {
        try await app.send(port: port, request.method, request.target, body: request.body, headers: request.headers)
    }

    /// Expects a refusal by the gateway (not the upstream) with `code` and the status the contract gives it.
    func expectRefused(
        _ response: RawHTTP.Response, _ code: String, status: Int, _ step: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            refusal(status).contains(response.status),
            "\(name), \(step): status \(response.status), expected \(refusal(status)) (\(code)); \(response.body)",
            sourceLocation: sourceLocation)
        #expect(
            response.headers["rampart-error"] == code,
            "\(name), \(step): Rampart-Error \(response.headers["rampart-error"] ?? "absent"), expected \(code)",
            sourceLocation: sourceLocation)
        #expect(
            EchoUpstream.Seen(response) == nil, "\(name), \(step): the request reached the upstream",
            sourceLocation: sourceLocation)
        if passesStatus {
            #expect(
                response.body.contains(#""error":"\#(code)""#) && response.body.contains(#""message":"#),
                "\(name), \(step): the body is not Rampart's {\"error\",\"message\"}: \(response.body)",
                sourceLocation: sourceLocation)
        }
    }

    /// Signs `POST target` with `body`, applies `change` to the signed request, and expects the gateway to refuse
    /// what is sent with `code` and status 401.
    func expectRefusedAfterChange(
        _ target: String, body: [UInt8], _ code: String, _ step: String,
        sourceLocation: SourceLocation = #_sourceLocation, change: (inout SignedRequest) -> Void
    ) async throws {
        var request = try await signed("POST", target, body: body)
        change(&request)
        expectRefused(try await send(request), code, status: 401, step, sourceLocation: sourceLocation)
    }

    // MARK: The story

    /// A signed request reaches the upstream with the subject and the verified headers; the next challenge from its
    /// answer signs the next request.
    func signedRequestsPass() async throws {
        let body = Array(#"{"action":"point_use","amount":1000}"#.utf8)
        let first = try await signed("POST", "/api/points/use?dry=1&note=a%20b", body: body)
        let answer = try await send(first)
        let seen = try #require(
            EchoUpstream.Seen(answer), "\(name): not from the upstream: \(answer.status) \(answer.body)")
        #expect(answer.status == 200)
        #expect(seen.method == "POST")
        #expect(seen.target == "/api/points/use?dry=1&note=a%20b", "\(name): the target reached the upstream changed")
        #expect(seen.body == body)
        #expect(seen.headers["rampart-subject"] == "alice")
        #expect(seen.headers["rampart-policy"] == "require-assertion")
        #expect(seen.headers["rampart-key-id"] == app.keyID)
        #expect(seen.headers["rampart-counter"] == "1")
        #expect(seen.headers["rampart-environment"] == "development")
        #expect(seen.headers["rampart-platform"] == "ios", "\(name): Rampart-Platform did not reach the upstream")
        #expect(seen.headers["rampart-verified-digest"] == RequestSignature.contentDigest(of: body))
        #expect(seen.headers["rampart-verified-digest"] == seen.bodyDigest)
        #expect(seen.headers["x-user-id"] == "alice")
        let next = try #require(answer.headers["rampart-next-challenge"], "\(name): no Rampart-Next-Challenge")

        // The next request needs no challenge round trip.
        let second = try await send(try await signed("DELETE", "/api/points/7", challenge: next))
        let secondSeen = try #require(EchoUpstream.Seen(second), "\(name): \(second.status) \(second.body)")
        #expect(secondSeen.method == "DELETE")
        #expect(secondSeen.headers["rampart-counter"] == "2")
        #expect(secondSeen.headers["rampart-verified-digest"] == RequestSignature.contentDigest(of: []))
        #expect(second.headers["rampart-next-challenge"] != nil)
        #expect(second.headers["rampart-next-challenge"] != next)
    }

    /// Changing the method, path, query or body after signing, replaying, or sending no assertion is refused by the
    /// gateway with the precise code; a body changed behind an intact Content-Digest is refused by the upstream's
    /// check of Rampart-Verified-Digest (the gateway never saw the body).
    func tamperingIsRefused() async throws {
        let body = Array(#"{"amount":1}"#.utf8)

        try await expectRefusedAfterChange("/api/points/use", body: body, "invalidAssertion", "method changed") {
            $0.method = "PUT"
        }
        try await expectRefusedAfterChange("/api/points/use", body: body, "invalidAssertion", "path changed") {
            $0.target = "/api/points/transfer"
        }
        try await expectRefusedAfterChange(
            "/api/points/use?amount=1", body: body, "invalidAssertion", "query changed"
        ) {
            $0.target = "/api/points/use?amount=1000"
        }
        try await expectRefusedAfterChange("/api/points/use", body: body, "invalidAssertion", "query added") {
            $0.target = "/api/points/use?amount=1000"
        }
        try await expectRefusedAfterChange(
            "/api/points/use", body: body, "invalidAssertion", "body and Content-Digest changed"
        ) {
            $0.body = Array(#"{"amount":1000}"#.utf8)
            $0.headers[RequestSignature.contentDigestHeader] = RequestSignature.contentDigest(of: $0.body)
        }

        var bodyOnly = try await signed("POST", "/api/points/use", body: body)
        bodyOnly.body = Array(#"{"amount":9999}"#.utf8)
        let upstreamCheck = try await send(bodyOnly)
        #expect(
            upstreamCheck.status == 400 && upstreamCheck.body.contains("digestMismatch"),
            "\(name), body changed behind Content-Digest: the upstream's check must refuse it: \(upstreamCheck.status) \(upstreamCheck.body)"
        )

        let original = try await signed("POST", "/api/points/use", body: body)
        #expect(try await send(original).status == 200, "\(name): the untampered request")
        expectRefused(try await send(original), "challengeUsed", status: 409, "replayed")

        let unsigned = try await app.send(port: port, "POST", "/api/points/use", body: body)
        expectRefused(unsigned, "assertionRequired", status: 401, "no assertion on a require-assertion route")

        let defaultPolicy = try await app.send(port: port, "GET", "/api/other")
        expectRefused(defaultPolicy, "assertionRequired", status: 401, "no assertion under the default policy")

        try await expectRefusedAfterChange("/api/points/use", body: body, "unknownKey", "unknown key id") {
            $0.headers[RequestSignature.keyIDHeader] = Data(repeating: 7, count: 32).base64EncodedString()
        }
    }

    /// An open route passes without a signature and without key headers; the client's own copies of the headers only
    /// the proxy and Rampart may set never reach the upstream.
    func openRoutesPassAndForgedHeadersAreDropped() async throws {
        let forged = [
            "X-User-Id": "mallory", "Rampart-Subject": "mallory", "Rampart-Policy": "require-assertion",
            "Rampart-Counter": "99", "Rampart-Verified-Digest": RequestSignature.contentDigest(of: []),
            "Rampart-Key-Id": Data(repeating: 1, count: 32).base64EncodedString(), "Rampart-Environment": "production",
            "Rampart-Platform": "android",
        ]
        let open = try await app.send(port: port, "GET", "/api/health?probe=1", headers: forged)
        let seen = try #require(EchoUpstream.Seen(open), "\(name): open route: \(open.status) \(open.body)")
        #expect(open.status == 200)
        #expect(seen.target == "/api/health?probe=1")
        #expect(seen.headers["rampart-policy"] == "open")
        #expect(seen.headers["x-user-id"] == "alice", "\(name): the client's X-User-Id reached the upstream")
        #expect([nil, "alice"].contains(seen.headers["rampart-subject"]), "\(name): forged Rampart-Subject passed")
        #expect(seen.headers["rampart-counter"] == nil, "\(name): forged Rampart-Counter passed")
        #expect(seen.headers["rampart-key-id"] == nil, "\(name): unverified Rampart-Key-Id passed")
        #expect(seen.headers["rampart-environment"] == nil, "\(name): forged Rampart-Environment passed")
        #expect(seen.headers["rampart-platform"] == nil, "\(name): forged Rampart-Platform passed")
        #expect(seen.headers["rampart-verified-digest"] == nil, "\(name): forged Rampart-Verified-Digest passed")

        // On a protected route the forged subject is replaced by the verified one.
        var signed = try await signed("POST", "/api/points/use")
        signed.headers.merge(["X-User-Id": "mallory", "Rampart-Subject": "mallory"]) { $1 }
        let protected = try await send(signed)
        let protectedSeen = try #require(EchoUpstream.Seen(protected), "\(name): \(protected.status) \(protected.body)")
        #expect(protectedSeen.headers["rampart-subject"] == "alice")
        #expect(protectedSeen.headers["x-user-id"] == "alice")

        // Nor can the app name a subject in a body.
        let named = try await app.send(
            port: port, "POST", "/v1/challenges", body: Array(#"{"purpose":"assertion","subject":"mallory"}"#.utf8),
            headers: ["Content-Type": "application/json"])
        #expect(named.status == 400, "\(name): a subject in a challenge request: \(named.status) \(named.body)")
        #expect(named.body.contains(#""error":"invalidField""#))
    }

    /// Issue 25: `..;` (which a servlet container behind the gateway resolves as `..`, reaching `/api/points/*`) and
    /// its other spellings never reach the upstream, with a valid token or with nothing at all.
    func dotSegmentSpellingsAreRefused() async throws {
        let answer = try await send(try await signed("POST", "/v1/tokens"))
        let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let token = try #require(object?["token"] as? String, "\(name): no token: \(answer.status) \(answer.body)")
        let attempts: [(method: String, target: String, headers: [String: String])] = [
            ("GET", "/api/feed/..;/points/balance", ["Rampart-Token": token]),
            ("GET", "/api/feed/%2e%2e;/points/balance", ["Rampart-Token": token]),
            ("GET", "/api/feed/..;a=b/points/balance", ["Rampart-Token": token]),
            ("GET", "/api/feed/x/..;/..;/points/balance", ["Rampart-Token": token]),
            ("POST", "/api/health/..;/points/use", [:]),
            ("GET", "/api/feed/%252e%252e/points/balance", ["Rampart-Token": token]),
        ]
        for attempt in attempts {
            let refused = try await app.send(port: port, attempt.method, attempt.target, headers: attempt.headers)
            expectRefused(refused, "invalidTarget", status: 400, "\(attempt.method) \(attempt.target)")
        }
        // The token itself is good: the route it is for still opens.
        let feed = try await app.send(port: port, "GET", "/api/feed/today", headers: ["Rampart-Token": token])
        #expect(EchoUpstream.Seen(feed) != nil, "\(name): the token route: \(feed.status) \(feed.body)")
    }

    /// Issue 25: headers spelt with underscores, which CGI, WSGI, Rack and PHP backends read as the real ones
    /// (`X_User_Id` as `X-User-Id`), never reach the upstream, on an open route or a signed one.
    func underscoreSpellingsAreDropped() async throws {
        let forged = [
            "X_User_Id": "mallory", "X-User_Id": "mallory", "Rampart_Subject": "mallory",
            "Rampart_Policy": "require-assertion", "Rampart_Counter": "99", "Rampart_Environment": "production",
            "Rampart_Key_Id": Data(repeating: 1, count: 32).base64EncodedString(),
            "Rampart-Key_Id": Data(repeating: 2, count: 32).base64EncodedString(),
            "Rampart_Verified_Digest": RequestSignature.contentDigest(of: Array("forged".utf8)),
        ]
        let open = try await app.send(port: port, "GET", "/api/health", headers: forged)
        var signed = try await signed("POST", "/api/points/use", body: Array(#"{"amount":1}"#.utf8))
        signed.headers.merge(forged) { $1 }
        let protected = try await send(signed)
        for (route, answer) in [("open route", open), ("signed request", protected)] {
            let seen = try #require(EchoUpstream.Seen(answer), "\(name), \(route): \(answer.status) \(answer.body)")
            let spelt = seen.headers.keys.filter { $0.contains("_") }.sorted()
            #expect(spelt.isEmpty, "\(name), \(route): the upstream got \(spelt)")
            #expect(seen.headers["x-user-id"] == "alice")
        }
    }

    /// Issue 25: a signed body sent with `Transfer-Encoding: chunked` (which Caddy forwards as it streams it) reaches
    /// the upstream whole and passes its digest check, and the connection the gateway keeps to the upstream serves
    /// the next request cleanly.
    func chunkedBodiesVerify() async throws {
        let body = Array(#"{"action":"point_use","amount":1000,"note":"sent in two chunks"}"#.utf8)
        let request = try await signed("POST", "/api/points/use", body: body)
        var head = "POST /api/points/use HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "Transfer-Encoding: chunked\r\n"
        for (field, value) in app.authentication.merging(request.headers, uniquingKeysWith: { $1 }) {
            head += "\(field): \(value)\r\n"
        }
        var bytes = Array((head + "\r\n").utf8)
        for chunk in [body[..<20], body[20...]] {
            bytes += Array((String(chunk.count, radix: 16) + "\r\n").utf8) + chunk + Array("\r\n".utf8)
        }
        bytes += Array("0\r\n\r\n".utf8)
        let answer = try #require(await RawHTTP.exchange(port: port, bytes), "\(name): no answer to a chunked body")
        let seen = try #require(EchoUpstream.Seen(answer), "\(name): chunked: \(answer.status) \(answer.body)")
        #expect(answer.status == 200)
        #expect(seen.body == body, "\(name): the upstream read \(seen.body.count) of the body's \(body.count) bytes")
        #expect(seen.headers["rampart-verified-digest"] == seen.bodyDigest)
        for index in 1...3 {
            let next = try await send(try await signed("GET", "/api/points/balance?next=\(index)"))
            let nextSeen = try #require(EchoUpstream.Seen(next), "\(name): after chunked: \(next.status) \(next.body)")
            #expect(nextSeen.target == "/api/points/balance?next=\(index)")
        }
    }

    /// A token from `POST /v1/tokens` (itself a signed request) opens `token` routes; no token is refused.
    func tokensOpenTokenRoutes() async throws {
        let request = try await signed("POST", "/v1/tokens")
        let answer = try await send(request)
        let object = try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
        let token = try #require(object?["token"] as? String, "\(name): no token: \(answer.status) \(answer.body)")
        let feed = try await app.send(port: port, "GET", "/api/feed/today", headers: ["Rampart-Token": token])
        let seen = try #require(EchoUpstream.Seen(feed), "\(name): token route: \(feed.status) \(feed.body)")
        #expect(seen.headers["rampart-subject"] == "alice")
        #expect(seen.headers["rampart-policy"] == "token")
        #expect(seen.headers["rampart-key-id"] == app.keyID, "\(name): the token's key id did not reach the upstream")
        #expect(seen.headers["rampart-environment"] == "development")
        #expect(seen.headers["rampart-counter"] == nil, "\(name): a token has no counter")
        #expect(seen.headers["rampart-platform"] == "ios", "\(name): the token's platform did not reach the upstream")
        let without = try await app.send(port: port, "GET", "/api/feed/today")
        expectRefused(without, "assertionRequired", status: 401, "a token route without a token or a signature")
        var altered = Array(token.utf8)
        let last = altered.count - 2  // inside the signature, not its padding bits
        altered[last] = altered[last] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let forged = try await app.send(
            port: port, "GET", "/api/feed/today", headers: ["Rampart-Token": String(decoding: altered, as: UTF8.self)])
        expectRefused(forged, "invalidToken", status: 401, "an altered token")
        // A token is for token routes only: a require-assertion route still wants a signature.
        let points = try await app.send(port: port, "POST", "/api/points/use", headers: ["Rampart-Token": token])
        expectRefused(points, "assertionRequired", status: 401, "a token on a require-assertion route")
    }
}

/// A gateway process in front of the echo upstream and `rampart serve`, started from its `docs/examples/` file.
protocol ProxyGateway: Sendable {
    /// The gateway's name, for messages.
    static var name: String { get }
    /// Whether it passes Rampart's refusal status on (see ``GatewayStory/passesStatus``).
    static var passesStatus: Bool { get }
    /// Starts the gateway with its routes to `rampartPort` and `upstreamPort`.
    static func start(rampartPort: UInt16, upstreamPort: UInt16) async throws -> Self

    var child: ChildProcess { get }
    var port: UInt16 { get }
}

extension GatewayStory {
    /// Runs `chapter` against rampart serve, the upstream and `gateway`, with an app registered through the gateway
    /// as alice, then stops all three however `chapter` ended.
    ///
    /// A failed registration throws with the gateway's standard error; `chapter`'s own errors are rethrown as they are.
    static func run<Gateway: ProxyGateway>(
        _ gateway: Gateway.Type, simulator: AppAttestSimulator,
        _ chapter: (GatewayStory) async throws -> Void
    ) async throws {
        let serve = try await GatewayService.start(simulator: simulator)
        let upstream = try await EchoUpstream.start()
        let proxy = try await Gateway.start(rampartPort: serve.port, upstreamPort: upstream.port)
        let stop: @Sendable () async -> Void = {
            await proxy.child.stop()
            await upstream.child.stop(signal: SIGKILL)
            await serve.stop()
        }
        let story: GatewayStory
        do {
            let app = SigningApp(simulator: simulator, authentication: basicAlice)
            try await app.register(port: proxy.port)
            story = GatewayStory(name: Gateway.name, port: proxy.port, app: app, passesStatus: Gateway.passesStatus)
        } catch {
            let log = proxy.child.stderr
            await stop()
            throw ServeProcessError("\(error)\n\(Gateway.name) stderr:\n\(log)")
        }
        do {
            try await chapter(story)
        } catch {
            await stop()
            throw error
        }
        await stop()
    }
}
