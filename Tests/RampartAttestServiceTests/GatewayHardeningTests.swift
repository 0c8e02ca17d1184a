import Foundation
import RampartAttestService
import RampartCrypto
import TestSupport
import Testing

/// Issue 25: no spelling of a path reaches a laxer policy, environments are enforced on every request, subjects are
/// unambiguous, the internal listener refuses browsers, and budgets are kept per IPv6 network. In-process, with
/// `docs/examples/rampart.json`'s routes and FakeVerifier's assertions.
struct GatewayHardeningTests: RouterCalls {
    let router: ServiceRouter
    let admin: ServiceRouter
    let service: AttestationService
    let tokens: AccessTokenIssuer
    let table: RouteTable

    /// The example configuration's route table.
    static func exampleTable() throws -> RouteTable {
        let path = ScratchDirectory.uniquePath("rampart.json")
        try Data(try Gateway.example("rampart.json").utf8).write(to: URL(fileURLWithPath: path))
        return try ServiceConfiguration.load(path: path).routeTable()
    }

    init() throws {
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        service = AttestationService(store: store, verifier: FakeVerifier())
        table = try Self.exampleTable()
        tokens = try AccessTokenIssuer(configuration: TokenConfiguration(audience: "T.b"), store: store)
        router = ServiceRouter(service: service, subjectSource: .header(subjectHeader), routes: table, tokens: tokens)
        admin = ServiceRouter(service: service, listener: .admin, routes: table)
    }

    func call(
        _ method: String, _ path: String, _ json: String = "", headers: [String: String] = [:]
    ) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(json.utf8)))
    }

    /// The four ways a gateway or the backend asks: Envoy, forward auth, nginx and the sidecar.
    func everyEndpoint(
        _ method: String, _ target: String, _ headers: [String: String]
    ) async -> [(name: String, response: HTTPResponse)] {
        var forward = headers
        forward["X-Forwarded-Method"] = method
        forward["X-Forwarded-Uri"] = target
        var nginx = headers
        nginx["X-Original-Method"] = method
        nginx["X-Original-URI"] = target
        let sidecarHeaders = headers.filter { $0.key != subjectHeader }.map { "\"\($0.key)\":\"\($0.value)\"" }
        let sidecar =
            #"{"method":"\#(method)","target":"\#(target)","subject":"alice","headers":{\#(sidecarHeaders.joined(separator: ","))}}"#
        return [
            (
                "envoy",
                await router.respond(to: HTTPRequest(method: method, path: "/ext-authz" + target, headers: headers))
            ),
            (
                "forward-auth",
                await router.respond(to: HTTPRequest(method: "GET", path: "/forward-auth", headers: forward))
            ),
            ("nginx", await router.respond(to: HTTPRequest(method: "GET", path: "/auth-request", headers: nginx))),
            (
                "sidecar",
                await admin.respond(
                    to: HTTPRequest(
                        method: "POST", path: "/v1/verify", headers: ["Content-Type": "application/json"],
                        body: Array(sidecar.utf8)))
            ),
        ]
    }

    @Test(
        "'..;' and every other spelling backends resolve differently are refused on all four endpoints, token or not",
        arguments: [
            "/api/feed/..;/points/balance", "/api/feed/%2e%2e;/points/balance", "/api/feed/..;a=b/points/balance",
            "/api/feed/x/..;/..;/points/balance", "/api/feed/.;/x", "/api/feed/..%3Bx/points/balance",
            "/api/feed/%252e%252e/points/balance", "/api/feed/%25/x", "/api/feed/%C0%AE%C0%AE/points",
            "/api/feed/caf%C3%A9", "/api/feed/x./y", "/api/feed/x%20/y", "/api/feed/x%2E", "/api/feed/;x/y",
        ])
    func ambiguousTargets(_ target: String) async throws {
        let token = try await tokens.issue(
            subject: "alice", keyID: Data(repeating: 1, count: 32).base64EncodedString(), environment: "production")
        for (name, answer) in await everyEndpoint(
            "GET", target, [subjectHeader: "alice", "Rampart-Token": token.token])
        {
            #expect(answer.status == (name == "nginx" ? 403 : 400), "\(name) \(target): \(answer.bodyText)")
            #expect(answer.headers["Rampart-Error"] == "invalidTarget", "\(name) \(target)")
            #expect(answer.headers["Rampart-Policy"] == nil, "\(name) \(target)")
        }
    }

    @Test("with defaultPolicy open, an unsigned '..;' POST into a require-assertion route is refused, not allowed")
    func openDefault() async throws {
        let open = try RouteTable(rules: table.rules, defaultPolicy: .open)
        let lax = ServiceRouter(service: service, subjectSource: .header(subjectHeader), routes: open)
        let answer = await lax.respond(
            to: HTTPRequest(method: "POST", path: "/ext-authz/api/x/..;/points/use", headers: [subjectHeader: "a"]))
        #expect(answer.status == 400)
        #expect(errorCode(answer) == "invalidTarget")
        #expect(try open.decision(method: "POST", target: "/api/x/points/use").policy == .open)
        #expect(throws: AttestServiceError.self) { try open.decision(method: "POST", target: "/api/x/..;/points/use") }
    }

    @Test("a path some backends map to a stricter route gets the stricter policy: case, '/', ;params, suffixes")
    func stricterReadings() throws {
        let table = try RouteTable(rules: [
            RouteRule(method: "*", path: "/api/*", policy: .open),
            RouteRule(method: "POST", path: "/api/points/use", policy: .requireAssertion),
        ])
        for target in [
            "/api/points/use", "/API/Points/Use", "/api/points/use/", "/api/points/use;jsessionid=1",
            "/api/points;v=2/use", "/api/points/use.json", "/api/points/use.xml?x=1", "/api/points/%75se",
        ] {
            let decision = try table.decision(method: "POST", target: target)
            #expect(decision.policy == .requireAssertion, "\(target)")
            #expect(decision.rule?.path == "/api/points/use", "\(target)")
        }
        #expect(try table.decision(method: "POST", target: "/api/points/user").policy == .open)
        #expect(try table.decision(method: "POST", target: "/api/points.json").policy == .open)
        #expect(try table.decision(method: "GET", target: "/api/points/use").policy == .open)
    }

    @Test("method overrides: a list is read as its strictest method, an unknown one as any, a malformed one refused")
    func methodOverrides() throws {
        let table = try RouteTable(rules: [
            RouteRule(method: "*", path: "/api/*", policy: .open),
            RouteRule(method: "DELETE", path: "/api/account", policy: .requireAssertion),
        ])
        func policy(
            _ headers: [String: String], method: String = "POST", target: String = "/api/account"
        ) throws -> RoutePolicy {
            try table.decision(method: method, target: target, headers: headers).policy
        }
        #expect(try policy([:]) == .open)
        for name in ["X-HTTP-Method-Override", "X-Method-Override", "X-HTTP-Method"] {
            #expect(try policy([name: "delete"]) == .requireAssertion, "\(name)")
            #expect(try policy([name: "GET, DELETE"]) == .requireAssertion, "\(name) list")
            #expect(try policy([name: "PURGE"]) == .requireAssertion, "\(name) unknown method: any method")
            for malformed in ["GET;DELETE", "", "DE LETE", String(repeating: "A", count: 33), "GET,"] {
                let error = #expect(throws: AttestServiceError.self, "\(name): \(malformed)") {
                    try policy([name: malformed])
                }
                #expect(error?.code == .invalidField)
            }
        }
        // A form body's _method (Rails, Laravel, Symfony) and a _method query field can mean any method.
        #expect(try policy(["Content-Type": "application/x-www-form-urlencoded"]) == .requireAssertion)
        #expect(try policy(["Content-Type": "multipart/form-data; boundary=x"]) == .requireAssertion)
        #expect(try policy(["Content-Type": "application/json"]) == .open)
        #expect(try policy([:], target: "/api/account?_method=DELETE") == .requireAssertion)
        #expect(try policy([:], target: "/api/account?%5Fmethod=DELETE") == .requireAssertion)
        #expect(try policy([:], target: "/api/account?x_method=1") == .open)
    }

    @Test("a malformed method override is refused at the gateway: 400 invalidField, 403 through nginx")
    func overrideAtGateway() async {
        let headers = [subjectHeader: "alice", "X-HTTP-Method-Override": "GET;DELETE"]
        for (name, answer) in await everyEndpoint("GET", "/api/health", headers) where name != "sidecar" {
            #expect(answer.status == (name == "nginx" ? 403 : 400), "\(name)")
            #expect(answer.headers["Rampart-Error"] == "invalidField", "\(name)")
        }
    }

    @Test("a key attested in another environment is refused on every request, and its token on every token route")
    func environments() async throws {
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        let production = AttestationService(store: store, verifier: FakeVerifier())
        let development = AttestationService(
            store: store, verifier: FakeVerifier(),
            configuration: AttestationService.Configuration(environment: "development"))
        let routes = try RouteTable(rules: [RouteRule(method: "*", path: "/api/*", policy: .requireAssertion)])
        let tokens = try AccessTokenIssuer(configuration: TokenConfiguration(audience: "T.b"), store: store)
        let productionRouter = ServiceRouter(
            service: production, subjectSource: .header(subjectHeader), routes: routes, tokens: tokens)
        let developmentRouter = ServiceRouter(
            service: development, subjectSource: .header(subjectHeader), routes: routes, tokens: tokens)
        // FakeVerifier attests production keys: the production service registers one, the development one refuses
        // to accept its assertions, although both share the database.
        let calls = RouterCaller(router: productionRouter)
        let keyID = try await calls.register()
        let allowed = await productionRouter.respond(
            to: HTTPRequest(
                method: "GET", path: "/ext-authz/api/x",
                headers: try await calls.signed(keyID: keyID, counter: 1, method: "GET", target: "/api/x")))
        #expect(allowed.status == 200)
        #expect(allowed.headers["Rampart-Environment"] == "production")
        let developmentCalls = RouterCaller(router: developmentRouter)
        let refused = await developmentRouter.respond(
            to: HTTPRequest(
                method: "GET", path: "/ext-authz/api/x",
                headers: try await developmentCalls.signed(keyID: keyID, counter: 2, method: "GET", target: "/api/x")))
        #expect(refused.status == 403, "\(refused.bodyText)")
        #expect(errorCode(refused) == "wrongEnvironment")
        // A development token on a production token route.
        let feed = try RouteTable(rules: [RouteRule(method: "*", path: "/api/*", policy: .token)])
        let tokenRouter = ServiceRouter(
            service: production, subjectSource: .header(subjectHeader), routes: feed, tokens: tokens)
        func readFeed(withTokenOf environment: String) async throws -> HTTPResponse {
            let token = try await tokens.issue(
                subject: "alice", keyID: Data(keyID).base64EncodedString(), environment: environment)
            return await tokenRouter.respond(
                to: HTTPRequest(
                    method: "GET", path: "/ext-authz/api/feed",
                    headers: [subjectHeader: "alice", "Rampart-Token": token.token]))
        }
        let tokenAnswer = try await readFeed(withTokenOf: "development")
        #expect(tokenAnswer.status == 403)
        #expect(errorCode(tokenAnswer) == "wrongEnvironment")
        let tokenAllowed = try await readFeed(withTokenOf: "production")
        #expect(tokenAllowed.status == 200)
        #expect(tokenAllowed.headers["Rampart-Environment"] == "production")
    }

    @Test(
        "subjects a header cannot carry exactly are refused, with the reason, from the header and the internal body",
        arguments: [" alice", "alice ", "caf\u{E9}", "a\tb", "a\u{7F}"])
    func ambiguousSubjects(_ subject: String) async throws {
        let answer = await call(
            "POST", "/v1/challenges", #"{"purpose":"assertion"}"#, headers: [subjectHeader: subject])
        #expect(answer.status == 401, "\(answer.bodyText)")
        #expect(errorCode(answer) == "subjectRequired")
        let escaped = subject.replacingOccurrences(of: "\t", with: "\\t")  // JSON holds a tab as \t
        let fromBackend = await admin.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/challenges", headers: ["Content-Type": "application/json"],
                body: Array(#"{"purpose":"assertion","subject":"\#(escaped)"}"#.utf8)))
        #expect(fromBackend.status == 400, "\(fromBackend.bodyText)")
        #expect(errorCode(fromBackend) == "invalidField")
        #expect(
            await call("POST", "/v1/challenges", #"{"purpose":"assertion"}"#, headers: [subjectHeader: "a b"]).status
                == 200)
    }

    @Test("the subject header is believed only from trustedProxies peers")
    func subjectFromTrustedPeers() async {
        func challenge(from peer: String) async -> HTTPResponse {
            await router.respond(
                to: HTTPRequest(
                    method: "POST", path: "/v1/challenges", headers: [subjectHeader: "alice"],
                    body: Array(#"{"purpose":"assertion"}"#.utf8), remoteAddress: peer))
        }
        #expect(await challenge(from: "127.0.0.1").status == 200)
        #expect(await challenge(from: "::1").status == 200)
        let stranger = await challenge(from: "192.0.2.7")
        #expect(stranger.status == 401)
        #expect(errorCode(stranger) == "subjectRequired")
        #expect(stranger.bodyText.contains("trustedProxies"))
        let anyPeer = ServiceRouter(
            service: service, subjectSource: .header(subjectHeader), routes: table, trustedProxies: [])
        let believed = await anyPeer.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/challenges", headers: [subjectHeader: "alice"],
                body: Array(#"{"purpose":"assertion"}"#.utf8), remoteAddress: "192.0.2.7"))
        #expect(believed.status == 200)
    }

    @Test("the internal listener refuses what a browser could send: Origin, a foreign Host, a non-JSON POST")
    func internalListenerRefusesBrowsers() async {
        let body = Array(#"{"purpose":"assertion","subject":"victim"}"#.utf8)
        func post(_ headers: [String: String]) async -> HTTPResponse {
            await admin.respond(to: HTTPRequest(method: "POST", path: "/v1/challenges", headers: headers, body: body))
        }
        let json = "application/json"
        let origin = await post(["Content-Type": json, "Origin": "https://evil.example", "Host": "127.0.0.1:8081"])
        #expect(origin.status == 403)
        #expect(errorCode(origin) == "crossOriginRequest")
        let rebound = await post(["Content-Type": json, "Host": "evil.example:8081"])
        #expect(rebound.status == 403)
        #expect(errorCode(rebound) == "crossOriginRequest")
        for type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"] {
            let answer = await post(["Content-Type": type, "Host": "localhost:8081"])
            #expect(answer.status == 415, "\(type)")
            #expect(errorCode(answer) == "unsupportedMediaType")
        }
        #expect(await post(["Host": "localhost"]).status == 415)
        let unblock = await admin.respond(
            to: HTTPRequest(
                method: "POST", path: "/v1/keys/\(Data(repeating: 1, count: 32).base64EncodedString())/unblock",
                headers: ["Content-Type": "text/plain"]))
        #expect(errorCode(unblock) == "unsupportedMediaType")
        let metrics = await admin.respond(
            to: HTTPRequest(method: "GET", path: "/metrics", headers: ["Host": "attacker.example"]))
        #expect(errorCode(metrics) == "crossOriginRequest")
        for host in ["localhost:8081", "127.0.0.1", "[::1]:8081", "LOCALHOST", "127.0.0.2:1"] {
            #expect(
                await post(["Content-Type": "application/json; charset=utf-8", "Host": host]).status == 200, "\(host)")
        }
        for host in ["localhost.evil.example", "127.0.0.1.evil.example", "[::1]x", "localhost:80a"] {
            #expect(await post(["Content-Type": json, "Host": host]).status == 403, "\(host)")
        }
        // The health check stays open to probes that name the pod's address.
        let health = await admin.respond(
            to: HTTPRequest(method: "GET", path: "/healthz", headers: ["Host": "10.1.2.3"]))
        #expect(health.status == 200)
        // Configured names are accepted.
        let named = ServiceRouter(
            service: service, listener: .admin, routes: table, adminHosts: ["Rampart-Admin.internal", "10.0.0.5"])
        for host in ["rampart-admin.internal:8081", "10.0.0.5:8081", "localhost"] {
            let answer = await named.respond(
                to: HTTPRequest(
                    method: "POST", path: "/v1/challenges", headers: ["Content-Type": json, "Host": host], body: body))
            #expect(answer.status == 200, "\(host)")
        }
    }

    @Test("IPv6 budgets are kept per /64 (configurable); IPv4 per address")
    func ipv6Budgets() async throws {
        var limits = RequestLimits(challengesPerAddressPerMinute: 5, challengesPerSubjectPerMinute: 1000)
        let service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            configuration: AttestationService.Configuration(limits: limits))
        for host in 1...5 {
            _ = try await service.issueChallenge(
                purpose: .assertion, subject: "s", clientAddress: "2001:db8:1:2::\(host)")
        }
        let error = await #expect(throws: AttestServiceError.self) {
            try await service.issueChallenge(purpose: .assertion, subject: "s", clientAddress: "2001:db8:1:2:ffff::9")
        }
        #expect(error?.code == .rateLimited)
        _ = try await service.issueChallenge(purpose: .assertion, subject: "s", clientAddress: "2001:db8:1:3::1")
        _ = try await service.issueChallenge(purpose: .assertion, subject: "s", clientAddress: "192.0.2.1")
        #expect(limits.budgetKey(for: "2001:db8:1:2:3:4:5:6") == Array("2001:db8:1:2::/64".utf8))
        #expect(limits.budgetKey(for: "192.0.2.1") == Array("192.0.2.1".utf8))
        limits.ipv6PrefixLength = 56
        #expect(limits.budgetKey(for: "2001:db8:1:2ff:3:4:5:6") == Array("2001:db8:1:200::/56".utf8))
        limits.ipv6PrefixLength = 128
        #expect(limits.budgetKey(for: "2001:db8::1") == Array("2001:db8::1/128".utf8))
    }
}

/// ``RouterCalls`` over any router (for tests that need more than one service).
struct RouterCaller: RouterCalls {
    let router: ServiceRouter

    func call(_ method: String, _ path: String, _ json: String, headers: [String: String]) async -> HTTPResponse {
        await router.respond(to: HTTPRequest(method: method, path: path, headers: headers, body: Array(json.utf8)))
    }
}
