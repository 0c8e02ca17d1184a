import Foundation
import RampartCrypto
public import RampartHTTP
import RampartRequestSigning
import Synchronization

/// The service's HTTP API: routes requests to ``AttestationService``, applies each protected route's
/// ``RoutePolicy``, and turns errors and refusals into JSON error bodies with the right 4xx.
///
/// Every answer is counted in ``ServiceMetrics`` and logged as one JSON line. Bad input of any kind gets a 4xx and
/// the router keeps serving; a 500 means a bug, and is logged as one.
/// The service's HTTP API: challenges and registration for apps, the gateway checks (Envoy `ext_authz`, Traefik
/// and Caddy forward auth, nginx `auth_request`) and the sidecar `POST /v1/verify` for the backend, and the operator
/// routes, each under the right listener; errors and refusals become JSON bodies with the right 4xx.
///
/// The subject of a public request comes from the configured ``SubjectSource``, never from the body (a `subject`
/// field in a public body is refused). Every answer is counted in ``ServiceMetrics`` and logged as one JSON line;
/// every refusal also carries `Rampart-Error: <code>`. Bad input of any kind gets a 4xx and the router keeps
/// serving; a 500 means a bug, and is logged as one.
public final class ServiceRouter: HTTPResponder {
    /// The policies of the demo routes when no configured route matches them (the guide's failure-policy table:
    /// point use requires an assertion, a balance read is allowed with limits).
    public static let demoPolicies: [String: RoutePolicy] = [
        "/v1/demo/points/use": .requireAssertion,
        "/v1/demo/points/balance": .limited,
    ]

    /// The methods listed for the gateway endpoints in ``routes`` (the OpenAPI check reads these five).
    static let gatewayMethods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
    /// The methods the gateway endpoints answer: the original request's method for Envoy, the check's own for
    /// forward auth and nginx. Anything else (`TRACE`, `CONNECT`, extension methods) is 405.
    static let gatewayAcceptedMethods = gatewayMethods + ["HEAD", "OPTIONS"]

    /// The gateway endpoints' route patterns.
    static let gatewayPatterns = ["/ext-authz/{target}", "/forward-auth", "/auth-request"]

    /// The routes of the public listener, as `METHOD path`: health, challenges, registration, tokens, the gateway
    /// checks (any method; the five usual ones are listed) and the demo routes (only with `--demo`).
    public static let publicRoutes: [String] =
        [
            "GET /healthz", "POST /v1/challenges", "POST /v1/attestations", "POST /v1/tokens",
            "GET /.well-known/jwks.json",
        ]
        + gatewayPatterns.flatMap { pattern in gatewayMethods.map { "\($0) \(pattern)" } }
        + ["POST /v1/demo/points/use", "POST /v1/demo/points/balance"]

    /// The routes of the internal (admin) listener for the trusted backend, as `METHOD path`: the sidecar check and
    /// challenges and registration that name their subject in the body. They need the operator token when one is
    /// configured.
    public static let internalRoutes: [String] = [
        "POST /v1/verify", "POST /v1/challenges", "POST /v1/attestations",
    ]

    /// The operator routes, as `METHOD path`: answered only by a router for the ``Listener/admin`` listener, and
    /// only with `Authorization: Bearer <operator token>` when a token is configured. The public listener answers
    /// 404 `notFound` for them. An operator route is added by listing it here (and answering it in `dispatch`).
    public static let operatorRoutes: [String] = [
        "GET /metrics", "GET /v1/keys/{keyId}", "POST /v1/keys/{keyId}/unblock",
    ]

    /// Every route, as `METHOD path`; the OpenAPI document must describe exactly these (checked in tests).
    public static let routes: [String] = {
        var seen: Set<String> = []
        return (publicRoutes + internalRoutes + operatorRoutes).filter { seen.insert($0).inserted }
    }()

    /// Each listener's methods by route pattern (the pattern's bytes), in ``routes`` order; built once, so a request
    /// costs one lookup instead of splitting the route list.
    static let methodTables: [Listener.Backing: [[UInt8]: [String]]] = {
        var tables: [Listener.Backing: [[UInt8]: [String]]] = [:]
        for listener in [Listener.publicAPI, .admin] {
            var table: [[UInt8]: [String]] = [:]
            for route in routes where listener.serves(route) {
                let parts = route.split(separator: " ", maxSplits: 1)
                guard parts.count == 2 else { continue }
                table[Array(parts[1].utf8), default: []].append(String(parts[0]))
            }
            tables[listener.backing] = table
        }
        return tables
    }()

    /// The bytes of every route pattern on any listener.
    static let allPatterns: Set<[UInt8]> = Set(
        routes.compactMap { route -> [UInt8]? in
            let parts = route.split(separator: " ", maxSplits: 1)
            return parts.count == 2 ? Array(parts[1].utf8) : nil
        })

    /// Which of the two listeners a router answers for.
    ///
    /// `rampart serve` runs one router per listener over the same ``AttestationService``: the public one for apps
    /// and gateways, the internal (admin) one (loopback by default) for the backend, operators and monitoring.
    /// `GET /healthz` is on both.
    public struct Listener: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case publicAPI = "public"
            case admin
        }

        let backing: Backing

        /// The listener apps and gateways reach: ``ServiceRouter/publicRoutes``.
        public static let publicAPI = Listener(backing: .publicAPI)
        /// The internal listener: ``ServiceRouter/internalRoutes``, ``ServiceRouter/operatorRoutes`` and
        /// `GET /healthz`.
        public static let admin = Listener(backing: .admin)

        /// `public` or `admin`.
        public var description: String { backing.rawValue }

        /// Whether this listener answers `route` (`METHOD pattern`).
        func serves(_ route: String) -> Bool {
            switch backing {
            case .publicAPI: ServiceRouter.publicRoutes.contains(route)
            case .admin:
                ServiceRouter.operatorRoutes.contains(route) || ServiceRouter.internalRoutes.contains(route)
                    || route == "GET /healthz"
            }
        }
    }

    /// Every `error` code an answer can carry; the OpenAPI document must list exactly these (checked in tests).
    public static var errorCodes: [String] {
        AttestServiceError.Code.allCases.filter { $0 != .invalidConfiguration && $0 != .serverFailure }.map(
            \.description)
            + Refusal.Reason.allCases.map(\.description) + ["insufficientPoints", "unauthorized", "internalError"]
    }

    let service: AttestationService
    let verifier: SignedRequestVerifier
    let routeTable: RouteTable
    let subjects: SubjectResolver
    let demo: Bool
    let log: ServiceLog
    let listener: Listener
    let operatorToken: String?
    let tokens: AccessTokenIssuer?
    /// The peers whose `X-Forwarded-For` names the client (``ServiceConfiguration/trustedProxies``), as the bytes of
    /// their canonical address text.
    let trustedProxies: Set<[UInt8]>
    /// The `Host` names the internal listener answers besides loopback ones: ``ServiceConfiguration/adminHosts`` and
    /// the admin listen address, lower-cased (IP addresses in canonical text).
    let adminHosts: Set<String>
    let points = DemoPoints()

    /// Creates the router.
    ///
    /// - Parameters:
    ///   - service: The attestation service.
    ///   - listener: Which routes this router answers: ``Listener/publicAPI`` (the default) or ``Listener/admin``.
    ///   - subjectSource: Where public requests' subjects come from; the default, ``SubjectSource/internalOnly``,
    ///     takes none on the public listener.
    ///   - routes: The backend's routes and their policies, for the gateway checks and `POST /v1/verify`.
    ///   - demo: Whether the demo routes `/v1/demo/points/*` exist.
    ///   - tokens: The access-token issuer behind `POST /v1/tokens`, `GET /.well-known/jwks.json` and the `token`
    ///     policy; nil: no tokens (404, and `token` routes need a signed request).
    ///   - sessionTokens: The verifier of a `jwt` subject source.
    ///   - operatorToken: When set, the ``operatorRoutes`` and ``internalRoutes`` require
    ///     `Authorization: Bearer <token>` (compared in constant time). ``ServiceConfiguration/validate()`` refuses a
    ///     short or low-entropy token.
    ///   - trustedProxies: The gateways' addresses, whose `X-Forwarded-For` names the client that failures are
    ///     charged to (canonical IP text, as ``ServiceConfiguration/trustedProxies`` holds them).
    ///   - adminHosts: On the internal listener, the `Host` names accepted besides loopback ones
    ///     (``ServiceConfiguration/adminHosts``).
    ///   - log: Where request lines go.
    public convenience init(
        service: AttestationService, listener: Listener = .publicAPI, subjectSource: SubjectSource = .internalOnly,
        routes: RouteTable = .everyRoute(.requireAssertion), demo: Bool = false, tokens: AccessTokenIssuer? = nil,
        sessionTokens: SessionTokenVerifier? = nil, operatorToken: String? = nil,
        trustedProxies: [String] = ServiceConfiguration.defaultTrustedProxies, adminHosts: [String] = [],
        log: ServiceLog = .disabled
    ) {
        self.init(
            service: service, listener: listener,
            subjects: SubjectResolver(source: subjectSource, sessionTokens: sessionTokens, clock: service.clock),
            verifier: SignedRequestVerifier(service: service, accessTokens: tokens, log: log), routes: routes,
            demo: demo, operatorToken: operatorToken, tokens: tokens, trustedProxies: trustedProxies,
            adminHosts: adminHosts, log: log)
    }

    init(
        service: AttestationService, listener: Listener, subjects: SubjectResolver, verifier: SignedRequestVerifier,
        routes: RouteTable, demo: Bool, operatorToken: String?, tokens: AccessTokenIssuer?,
        trustedProxies: [String] = ServiceConfiguration.defaultTrustedProxies, adminHosts: [String] = [],
        log: ServiceLog
    ) {
        self.adminHosts = Set(adminHosts.map { ServiceConfiguration.canonicalAddress($0) ?? $0.lowercased() })
        self.tokens = tokens
        self.trustedProxies = Set(trustedProxies.map { Array($0.utf8) })
        self.service = service
        self.listener = listener
        self.subjects = subjects
        self.verifier = verifier
        self.routeTable = routes
        self.demo = demo
        self.operatorToken = operatorToken
        self.log = log
    }

    /// Answers one request; never throws.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let start = ContinuousClock.now
        var outcome = Outcome(route: "unmatched")
        let result: Result<HTTPResponse, any Error>
        do {
            result = .success(try await dispatch(request, &outcome))
        } catch {
            result = .failure(error)
        }
        return finish(request, result, outcome, since: start)
    }

    /// The response for what answering `request` gave (an error becomes its JSON body), counted in the metrics
    /// and written to the access log.
    private func finish(
        _ request: HTTPRequest, _ result: Result<HTTPResponse, any Error>, _ outcome: Outcome,
        since start: ContinuousClock.Instant
    ) -> HTTPResponse {
        var outcome = outcome
        var response: HTTPResponse
        do {
            response = try result.get()
        } catch let error as AttestServiceError {
            outcome.code = error.code.description
            response = HTTPResponseError.response(for: error)
            if error.code == .storeFailure {
                log.write(level: "error", event: "storeFailure", message: error.detail)
            }
        } catch {
            outcome.code = "internalError"
            response = HTTPResponseError.internalError()
            log.write(level: "error", event: "internalError", message: String(describing: type(of: error)))
        }
        if response.status >= 400, let code = outcome.code { response.headers["Rampart-Error"] = code }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        service.metrics.recordRequest(route: outcome.route, status: response.status, seconds: seconds)
        log.write(
            ServiceLog.Event(
                time: ServiceLog.timestamp(), level: response.status >= 500 ? "error" : "info", event: "request",
                route: outcome.route, method: request.method, status: response.status, code: outcome.code,
                policy: outcome.policy?.rawValue, keyFingerprint: outcome.keyFingerprint, durationMs: seconds * 1000,
                message: nil))
        return response
    }

    struct Outcome {
        var route: String
        var code: String?
        var policy: RoutePolicy?
        var keyFingerprint: String?
    }

    /// The route pattern a path matches, comparing bytes: Swift's string `==` and `hasPrefix` compare canonical
    /// equivalence, under which other spellings of a path would match a route.
    static func pattern(of path: String) -> String {
        let bytes = Array(path.utf8)
        if bytes.starts(with: "/ext-authz/".utf8) { return "/ext-authz/{target}" }
        let keys = Array("/v1/keys/".utf8)
        let unblock = Array("/unblock".utf8)
        guard bytes.starts(with: keys) else { return path }
        if bytes.count > keys.count + unblock.count, bytes.suffix(unblock.count).elementsEqual(unblock) {
            return "/v1/keys/{keyId}/unblock"
        }
        return "/v1/keys/{keyId}"
    }

    /// The methods `pattern` accepts on `listener`, matching its bytes.
    static func methods(of pattern: String, servedBy listener: Listener) -> [String] {
        methodTables[listener.backing]?[Array(pattern.utf8)] ?? []
    }

    private func dispatch(_ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        let path = request.path
        let pattern = Self.pattern(of: path)
        let methods = Self.methods(of: pattern, servedBy: listener)
        guard !methods.isEmpty else {
            if pattern == "/v1/assertions" {
                throw AttestServiceError.endpointRemoved(
                    "POST /v1/assertions was removed: its body named the subject, which the app must not choose. Sign "
                        + "the request itself (docs/request-signature.md) and have your gateway check it "
                        + "(/ext-authz, /forward-auth, /auth-request) or your backend call POST /v1/verify on the "
                        + "internal listener")
            }
            if Self.allPatterns.contains(Array(pattern.utf8)) {
                throw AttestServiceError.notFound(
                    "\(pattern) is not on the \(listener) listener; operator routes and /metrics are on the admin "
                        + "listener (--admin-listen)")
            }
            throw AttestServiceError.notFound("no route \(pattern.prefix(64)); see the OpenAPI document")
        }
        outcome.route = pattern
        let isGateway = listener == .publicAPI && Self.gatewayPatterns.contains(pattern)
        let accepted = isGateway ? Self.gatewayAcceptedMethods : methods
        guard accepted.contains(where: { $0.hasSameUTF8(as: request.method) }) else {
            // RFC 9110 15.5.6: a 405 "MUST generate an Allow header field" listing the target's methods.
            var response = HTTPResponseError.response(
                for: .methodNotAllowed("\(pattern) accepts \(accepted.joined(separator: ", "))"))
            response.headers["Allow"] = accepted.joined(separator: ", ")
            outcome.code = AttestServiceError.Code.methodNotAllowed.description
            return response
        }
        if listener == .admin, pattern != "/healthz" {
            try refuseCrossOrigin(request)
            if let refused = refuseUnlessOperator(request) {
                outcome.code = "unauthorized"
                return refused
            }
            try refuseUnlessJSON(request)
        }
        switch pattern {
        case "/healthz":
            return JSONBody.response(status: 200, bytes: JSONBody.healthy)
        case "/metrics":
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4"],
                body: Array(service.metrics.prometheusText.utf8))
        case "/v1/challenges":
            return try await challenge(request, &outcome)
        case "/v1/attestations":
            return try await attestation(request, &outcome)
        case "/v1/verify":
            return try await sidecar(request, &outcome)
        case "/v1/tokens":
            return try await token(request, &outcome)
        case "/.well-known/jwks.json":
            return try await jwks()
        case "/ext-authz/{target}", "/forward-auth", "/auth-request":
            return try await gateway(pattern, request, &outcome)
        case "/v1/demo/points/use", "/v1/demo/points/balance":
            return try await demoPoints(pattern, request, &outcome)
        case "/v1/keys/{keyId}/unblock":
            return try await keyOperation(path, request, &outcome, unblock: true)
        default:
            return try await keyOperation(path, request, &outcome, unblock: false)
        }
    }

    /// Decodes a request's fields; when that fails and the body carried a well-formed challenge, burns it first, so
    /// a malformed request spends its challenge as any other failed request does.
    func spendingChallenge<T>(
        of fields: RequestFields, _ request: HTTPRequest, _ decode: () throws -> T
    ) async throws -> T {
        do {
            return try decode()
        } catch let error as AttestServiceError {
            if let challenge = fields.presentedChallenge {
                try await service.burnChallenge(
                    challenge, clientAddress: listener == .admin ? nil : forwardedClient(request))
            }
            throw error
        }
    }

    private func keyOperation(
        _ path: String, _ request: HTTPRequest, _ outcome: inout Outcome, unblock: Bool
    ) async throws
        -> HTTPResponse
    {
        var text = Array(path.utf8.dropFirst("/v1/keys/".utf8.count))
        if unblock { text.removeLast("/unblock".utf8.count) }
        let keyID = try Base64Field.decode(
            String(decoding: text, as: UTF8.self), field: "the key id in the path", maximumByteCount: 64)
        outcome.keyFingerprint = Self.fingerprint(keyID: keyID)
        let found = unblock ? try await service.unblock(keyID: keyID) : try await service.key(id: keyID)
        guard let key = found else {
            throw AttestServiceError.keyNotFound("no key with this id is registered")
        }
        outcome.code = unblock ? "unblocked" : "found"
        return JSONBody.response(
            status: 200,
            KeyBody(
                keyId: key.keyID, subject: key.subject, environment: key.environment, counter: key.counter,
                registeredAt: key.registeredAt, lastUsedAt: key.lastUsedAt, riskScore: service.riskScore(of: key),
                blocked: service.isBlocked(key)))
    }

    /// Refuses a request to the internal listener that a web page could have made a browser send: one carrying
    /// `Origin` (browsers add it to every cross-site and every non-GET request), and one whose `Host` is neither
    /// loopback nor one of ``adminHosts`` (DNS rebinding: the page's own name resolving to this machine). With
    /// ``refuseUnlessJSON(_:)`` (a `POST` must be `application/json`, which no page can send across sites without a
    /// preflight this listener never answers), it keeps browsers out; the backend's and operators' clients send none
    /// of these. `/healthz` is exempt.
    func refuseCrossOrigin(_ request: HTTPRequest) throws {
        if request.headers["origin"] != nil {
            throw AttestServiceError.crossOriginRequest(
                "the internal listener refuses requests that carry Origin (a browser sent it for a web page); call "
                    + "it from your backend or an operator's tool, which send no Origin")
        }
        if let host = request.headers["host"], !isAllowedAdminHost(host) {
            throw AttestServiceError.crossOriginRequest(
                "the internal listener answers only Host localhost, a loopback address, its own listen address or "
                    + "a name in adminHosts; this Host is none of them (DNS rebinding?). Call it by one of those "
                    + "names, or add the name your backend uses to adminHosts")
        }
    }

    /// Refuses a `POST` to the internal listener that is not `application/json` (see ``refuseCrossOrigin(_:)``).
    func refuseUnlessJSON(_ request: HTTPRequest) throws {
        guard request.method.hasSameUTF8(as: "POST") else { return }
        let type = (request.headers["content-type"] ?? "").split(separator: ";", maxSplits: 1).first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        guard type == "application/json" else {
            throw AttestServiceError.unsupportedMediaType(
                "a POST to the internal listener must be sent with 'Content-Type: application/json' (also with an "
                    + "empty body), so that no web page can make a browser send it")
        }
    }

    /// Whether `host` (a `Host` header: name or address, with an optional port) names this internal listener.
    func isAllowedAdminHost(_ host: String) -> Bool {
        var name = Substring(host.lowercased())
        if name.hasPrefix("["), let end = name.firstIndex(of: "]") {
            let rest = name[name.index(after: end)...]
            guard rest.isEmpty || rest.hasPrefix(":") && rest.dropFirst().allSatisfy(\.isNumber) else { return false }
            name = name[name.index(after: name.startIndex)..<end]
        } else if let colon = name.lastIndex(of: ":") {
            guard name[name.index(after: colon)...].allSatisfy(\.isNumber) else { return false }
            name = name[..<colon]
        }
        if name == "localhost" || adminHosts.contains(String(name)) { return true }
        guard let address = ServiceConfiguration.canonicalAddress(String(name)) else { return false }
        return address == "::1" || address.hasPrefix("127.") || adminHosts.contains(address)
    }

    /// Nil when `request` may use an operator route, else the 401 `unauthorized` answer.
    ///
    /// With a token configured, the whole `Authorization` header must be `Bearer <token>`. Both sides are hashed
    /// with SHA-256 and the digests compared with ``ConstantTime/isEqual(_:_:)``, so neither the position of the
    /// first wrong byte nor the token's length shows in the timing. Without a token the admin listener is open: it
    /// is then bound to loopback (``ServiceConfiguration/validate()`` refuses anything else).
    func refuseUnlessOperator(_ request: HTTPRequest) -> HTTPResponse? {
        guard let operatorToken else { return nil }
        let presented = SHA256.hash(Array((request.headers["authorization"] ?? "").utf8))
        let expected = SHA256.hash(Array("Bearer \(operatorToken)".utf8))
        if ConstantTime.isEqual(presented, expected) { return nil }
        var response = HTTPResponseError.body(
            status: 401, code: "unauthorized",
            message: "this operator route needs 'Authorization: Bearer <operator token>' with the configured token")
        response.headers["WWW-Authenticate"] = "Bearer"
        return response
    }

    /// How logs name a key: the first 8 hex digits of SHA-256 over the key id's bytes.
    ///
    /// Key ids are public, but a log line need not let a reader look a key up (or replay its id to the service);
    /// 32 bits still tell an operator's keys apart and match ``fingerprint(keyID:)`` of a known id.
    ///
    /// - Parameter keyID: The key id's bytes.
    /// - Returns: Eight lower-case hex digits.
    public static func fingerprint(keyID: [UInt8]) -> String {
        // Written as bytes, not as a padded string per byte: it runs on every protected request.
        let digest = SHA256.hash(keyID)
        return String(unsafeUninitializedCapacity: 8) { text in
            for (index, byte) in digest.prefix(4).enumerated() {
                text[2 * index] = JSONObjectWriter.hexDigits[Int(byte >> 4)]
                text[2 * index + 1] = JSONObjectWriter.hexDigits[Int(byte & 0x0F)]
            }
            return 8
        }
    }

    struct ChallengeBody: Encodable, JSONObjectWritable {
        let challenge: String
        let expiresAt: Date

        func write(to object: inout JSONObjectWriter) {
            object.string("challenge", challenge)
            object.date("expiresAt", expiresAt)
        }
    }

    struct AttestationBody: Encodable {
        let keyId: String
        let environment: String
    }

    struct KeyBody: Encodable {
        let keyId: String
        let subject: String
        let environment: String
        let counter: UInt32
        let registeredAt: Date
        let lastUsedAt: Date?
        let riskScore: Int
        let blocked: Bool
    }
}

/// The demo app's point balances, in memory: every user starts with ``initialBalance``. Users are told apart by the
/// bytes of their id (a dictionary keyed by `String` would merge the NFC and NFD spellings of one name).
final class DemoPoints: Sendable {
    /// Each user's starting balance.
    static let initialBalance = 5000
    /// The most points one request may use.
    static let maximumAmount = 1_000_000

    private let balances = Mutex<[[UInt8]: Int]>([:])

    /// Spends `amount`, returning the new balance, or nil when the balance is too low.
    func use(_ amount: Int, by user: String) -> Int? {
        let user = Array(user.utf8)
        return balances.withLock { balances in
            let current = balances[user] ?? Self.initialBalance
            guard current >= amount else { return nil }
            balances[user] = current - amount
            return current - amount
        }
    }

    /// The user's balance.
    func balance(of user: String) -> Int { balances.withLock { $0[Array(user.utf8)] ?? Self.initialBalance } }
}
