import Foundation
import RampartCrypto
public import RampartHTTP
import RampartRequestSigning
import Synchronization

/// The service's HTTP API: challenges and registration for apps, the gateway checks (Envoy `ext_authz`, Traefik
/// and Caddy forward auth, nginx `auth_request`) and the sidecar `POST /v1/verify` for the backend, and the operator
/// routes, each under the right listener; errors and refusals become JSON bodies with the right 4xx.
///
/// Each route is registered once, in `declareRoutes()`, in a group that names the listeners serving it and the
/// middleware around it: every answer passes the access log, the error mapping and the metrics
/// (`AccessLogMiddleware`, `ErrorMappingMiddleware`, `MetricsMiddleware`, outermost first), and the internal
/// listener's routes but `/healthz` also the cross-origin refusal, the operator check and the JSON-only rule.
///
/// The subject of a public request comes from the configured ``SubjectSource``, never from the body (a `subject`
/// field in a public body is refused). Every answer is counted in ``ServiceMetrics`` and logged as one JSON line;
/// every refusal also carries `Rampart-Error: <code>`. Bad input of any kind gets a 4xx and the router keeps
/// serving; a 500 means a bug, and is logged as one.
public final class ServiceRouter: HTTPResponder {
    /// The methods listed for the gateway endpoints in ``routes`` (the OpenAPI check reads these five).
    static let gatewayMethods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
    /// The methods the gateway endpoints answer: the original request's method for Envoy, the check's own for
    /// forward auth and nginx. Anything else (`TRACE`, `CONNECT`, extension methods) is 405.
    static let gatewayAcceptedMethods = gatewayMethods + ["HEAD", "OPTIONS"]

    /// The middleware around every answer, outermost first: the access log sees the answer the error mapping
    /// made, and the metrics, inside the error mapping, count a thrown refusal by its code's status.
    static let middleware: [any RouteMiddleware] = [
        AccessLogMiddleware(), ErrorMappingMiddleware(), MetricsMiddleware(),
    ]

    /// The middleware of the internal listener's routes but `/healthz`, outermost first.
    static let internalMiddleware: [any RouteMiddleware] = [
        CrossOriginMiddleware(), OperatorTokenMiddleware(), JSONOnlyMiddleware(),
    ]

    /// Every route of the service, registered once; each listener's `Routes` are built from it.
    static let router = declareRoutes()

    /// Each listener's routes.
    static let listenerRoutes: [Listener.Backing: Routes] = [
        .publicAPI: Routes(router, listener: .publicAPI), .admin: Routes(router, listener: .admin),
    ]

    /// ``middleware`` around the lookup of the request's route on the router's listener.
    static let chain: Handler = middleware.wrapping { router, request, outcome in
        try await router.listenerTable.respond(to: request, &outcome, router: router)
    }

    /// Registers every route: one group per listener membership, each with its middleware.
    static func declareRoutes() -> Router {
        var router = Router()
        router.group([.publicAPI, .admin], role: .publicAPI) { routes in
            routes.get("/healthz") { _, _, _ in JSONBody.response(status: 200, bytes: JSONBody.healthy) }
        }
        router.group([.publicAPI], role: .publicAPI) { routes in
            routes.post("/v1/challenges") { router, request, outcome in try await router.challenge(request, &outcome) }
            routes.post("/v1/attestations") { router, request, outcome in
                try await router.attestation(request, &outcome)
            }
            routes.post("/v1/tokens") { router, request, outcome in try await router.token(request, &outcome) }
            routes.get("/.well-known/jwks.json") { router, _, _ in try await router.jwks() }
            for gateway in [Gateway.envoy, .forwardAuth, .nginx] {
                routes.on(gateway.rawValue, methods: gatewayAcceptedMethods, documenting: gatewayMethods) {
                    router, request, outcome in
                    try await router.gateway(gateway.rawValue, request, &outcome)
                }
            }
        }
        declareDemoRoutes(on: &router)
        router.group([.admin], role: .internalAPI, middleware: internalMiddleware) { routes in
            routes.post("/v1/verify") { router, request, outcome in try await router.sidecar(request, &outcome) }
            routes.post("/v1/challenges") { router, request, outcome in try await router.challenge(request, &outcome) }
            routes.post("/v1/attestations") { router, request, outcome in
                try await router.attestation(request, &outcome)
            }
        }
        router.group([.admin], role: .operatorAPI, middleware: internalMiddleware) { routes in
            routes.get("/metrics") { router, _, _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain; version=0.0.4"],
                    body: Array(router.service.metrics.prometheusText.utf8))
            }
            routes.get("/v1/keys/{keyId}") { router, request, outcome in
                try await router.keyOperation(request, &outcome, unblock: false)
            }
            routes.post("/v1/keys/{keyId}/unblock") { router, request, outcome in
                try await router.keyOperation(request, &outcome, unblock: true)
            }
        }
        router.removed(
            "/v1/assertions",
            message: "POST /v1/assertions was removed: its body named the subject, which the app must not choose. "
                + "Sign the request itself (docs/request-signature.md) and have your gateway check it (/ext-authz, "
                + "/forward-auth, /auth-request) or your backend call POST /v1/verify on the internal listener")
        return router
    }

    /// The routes of the public listener, as `METHOD path`: health, challenges, registration, tokens, the gateway
    /// checks (any method; the five usual ones are listed) and the demo routes (which answer only with `--demo`).
    public static let publicRoutes: [String] = router.documentedRoutes { $0.listeners.contains(.publicAPI) }

    /// The routes of the internal (admin) listener for the trusted backend, as `METHOD path`: the sidecar check and
    /// challenges and registration that name their subject in the body. They need the operator token when one is
    /// configured.
    public static let internalRoutes: [String] = router.documentedRoutes { $0.role == .internalAPI }

    /// The operator routes, as `METHOD path`: answered only by a router for the ``Listener/admin`` listener, and
    /// only with `Authorization: Bearer <operator token>` when a token is configured. The public listener answers
    /// 404 `notFound` for them. An operator route is added by registering it in `declareRoutes()`.
    public static let operatorRoutes: [String] = router.documentedRoutes { $0.role == .operatorAPI }

    /// Every route, as `METHOD path`; the OpenAPI document must describe exactly these (checked in tests).
    public static let routes: [String] = router.documentedRoutes { _ in true }

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
    }

    /// Every `error` code an answer can carry; the OpenAPI document must list exactly these (checked in tests).
    public static var errorCodes: [String] { ErrorCode.answerable.map(\.description) }

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
    /// The routes of this router's listener.
    let listenerTable: Routes

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
        self.listenerTable = Self.listenerRoutes[listener.backing] ?? Routes(Self.router, listener: listener)
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
        var outcome = Outcome(route: "unmatched")
        do {
            return try await Self.chain(self, request, &outcome)
        } catch {
            // Not reached: the error mapping answers every error thrown inside it.
            return HTTPResponseError.response(for: error)
        }
    }

    /// What answering a request gave besides the response, for the metrics and the access log.
    struct Outcome {
        /// The matched route's pattern, or `unmatched`.
        var route: String
        /// The outcome's stable name: an answer's error code, or what a success did (`issued`, `accepted`).
        var code: String?
        var policy: RoutePolicy?
        var keyFingerprint: String?
        /// The bytes of the route pattern's parameter (`{keyId}`, `{target}`); empty for a pattern without one.
        var parameter: ArraySlice<UInt8> = []
    }

    /// The seconds since `start`.
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
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

    /// `GET /v1/keys/{keyId}` and `POST /v1/keys/{keyId}/unblock`.
    func keyOperation(_ request: HTTPRequest, _ outcome: inout Outcome, unblock: Bool) async throws -> HTTPResponse {
        let text = outcome.parameter
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
                keyId: key.keyID, subject: key.subject, environment: key.environment,
                platform: key.platform.rawValue, counter: key.counter, registeredAt: key.registeredAt,
                lastUsedAt: key.lastUsedAt, riskScore: service.riskScore(of: key),
                blocked: service.isBlocked(key)))
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
        /// `ios` or `android`: which attestation registered the key, and so which header signs its requests.
        let platform: String
        /// The last App Attest counter accepted; always 0 for an Android key, which has none.
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
