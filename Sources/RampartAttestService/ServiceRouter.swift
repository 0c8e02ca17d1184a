import Foundation
import RampartCrypto
import RampartRequestSigning
import Synchronization

/// The service's HTTP API: routes requests to ``AttestationService``, applies each protected route's
/// ``RoutePolicy``, and turns errors and refusals into JSON error bodies with the right 4xx.
///
/// Every answer is counted in ``ServiceMetrics`` and logged as one JSON line. Bad input of any kind gets a 4xx and
/// the router keeps serving; a 500 means a bug, and is logged as one.
public final class ServiceRouter: HTTPResponder {
    /// The routes whose App Attest policy is configurable, with their defaults (the guide's failure-policy table:
    /// point use requires an assertion, a balance read is allowed with limits).
    public static let defaultPolicies: [String: RoutePolicy] = [
        "/v1/demo/points/use": .requireAssertion,
        "/v1/demo/points/balance": .limited,
    ]

    /// The routes of the public listener, as `METHOD path`: health, challenges, registration and protected requests.
    public static let publicRoutes: [String] = [
        "GET /healthz", "POST /v1/challenges", "POST /v1/attestations", "POST /v1/assertions",
        "POST /v1/demo/points/use", "POST /v1/demo/points/balance",
    ]

    /// The operator routes, as `METHOD path`: answered only by a router for the ``Listener/admin`` listener, and
    /// only with `Authorization: Bearer <operator token>` when a token is configured. The public listener answers
    /// 404 `notFound` for them. An operator route is added by listing it here (and answering it in `dispatch`).
    public static let operatorRoutes: [String] = [
        "GET /metrics", "GET /v1/keys/{keyId}", "POST /v1/keys/{keyId}/unblock",
    ]

    /// Every route, as `METHOD path`; the OpenAPI document must describe exactly these (checked in tests).
    public static var routes: [String] { publicRoutes + operatorRoutes }

    /// Which of the two listeners a router answers for.
    ///
    /// `rampart serve` runs one router per listener over the same ``AttestationService``: the public one for apps,
    /// the admin one (loopback by default) for operators and monitoring. `GET /healthz` is on both.
    public struct Listener: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case publicAPI = "public"
            case admin
        }

        let backing: Backing

        /// The listener apps reach: ``ServiceRouter/publicRoutes``.
        public static let publicAPI = Listener(backing: .publicAPI)
        /// The internal listener: ``ServiceRouter/operatorRoutes`` and `GET /healthz`.
        public static let admin = Listener(backing: .admin)

        /// `public` or `admin`.
        public var description: String { backing.rawValue }

        /// Whether this listener answers `route` (`METHOD pattern`).
        func serves(_ route: String) -> Bool {
            switch backing {
            case .publicAPI: !ServiceRouter.operatorRoutes.contains(route)
            case .admin: ServiceRouter.operatorRoutes.contains(route) || route == "GET /healthz"
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
    let policies: [String: RoutePolicy]
    let log: ServiceLog
    let listener: Listener
    let operatorToken: String?
    let points = DemoPoints()

    /// Creates the router.
    ///
    /// - Parameters:
    ///   - service: The attestation service.
    ///   - policies: Policies for the protected routes; missing routes keep ``defaultPolicies``.
    ///   - listener: Which routes this router answers: ``Listener/publicAPI`` (the default) or ``Listener/admin``.
    ///   - operatorToken: When set, the ``operatorRoutes`` require `Authorization: Bearer <token>` (compared in
    ///     constant time). ``ServiceConfiguration/validate()`` refuses a short or low-entropy token.
    ///   - log: Where request lines go.
    public init(
        service: AttestationService, policies: [String: RoutePolicy] = [:], listener: Listener = .publicAPI,
        operatorToken: String? = nil, log: ServiceLog = .disabled
    ) {
        self.service = service
        self.policies = Self.defaultPolicies.merging(policies) { $1 }
        self.listener = listener
        self.operatorToken = operatorToken
        self.log = log
    }

    /// Answers one request; never throws.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        let clock = ContinuousClock()
        let start = clock.now
        var outcome = Outcome(route: "unmatched")
        let response: HTTPResponse
        do {
            response = try await dispatch(request, &outcome)
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
        let elapsed = clock.now - start
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
        routes.filter(listener.serves).compactMap { route -> String? in
            let parts = route.split(separator: " ", maxSplits: 1)
            return parts.count == 2 && parts[1].utf8.elementsEqual(pattern.utf8) ? String(parts[0]) : nil
        }
    }

    private func dispatch(_ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        let path = request.path
        let pattern = Self.pattern(of: path)
        let methods = Self.methods(of: pattern, servedBy: listener)
        guard !methods.isEmpty else {
            if Self.routes.contains(where: { $0.utf8.reversed().starts(with: " \(pattern)".utf8.reversed()) }) {
                throw AttestServiceError.notFound(
                    "\(pattern) is not on the \(listener) listener; operator routes and /metrics are on the admin "
                        + "listener (--admin-listen)")
            }
            throw AttestServiceError.notFound("no route \(pattern.prefix(64)); see the OpenAPI document")
        }
        outcome.route = pattern
        guard methods.contains(where: { $0.utf8.elementsEqual(request.method.utf8) }) else {
            // RFC 9110 15.5.6: a 405 "MUST generate an Allow header field" listing the target's methods.
            var response = HTTPResponseError.response(
                for: .methodNotAllowed("\(pattern) accepts \(methods.joined(separator: ", "))"))
            response.headers["Allow"] = methods.joined(separator: ", ")
            outcome.code = AttestServiceError.Code.methodNotAllowed.description
            return response
        }
        if Self.operatorRoutes.contains("\(request.method) \(pattern)"), let refused = refuseUnlessOperator(request) {
            outcome.code = "unauthorized"
            return refused
        }
        switch pattern {
        case "/healthz":
            return JSONBody.response(status: 200, ["status": "ok"])
        case "/metrics":
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "text/plain; version=0.0.4"],
                body: Array(service.metrics.prometheusText.utf8))
        case "/v1/challenges":
            let fields = try RequestFields(body: request.body)
            try fields.refuseUnknownFields(allowing: RequestFields.Allowed.challenge)
            let issued = try await service.issueChallenge(
                purpose: fields.purpose(), subject: fields.string("subject"), clientAddress: request.remoteAddress)
            outcome.code = "issued"
            return JSONBody.response(
                status: 200, ChallengeBody(challenge: issued.challenge, expiresAt: issued.expiresAt))
        case "/v1/attestations":
            let fields = try RequestFields(body: request.body)
            let submission = try await spendingChallenge(of: fields, request) {
                try fields.refuseUnknownFields(allowing: RequestFields.Allowed.attestation)
                return AttestationSubmission(
                    subject: try fields.string("subject"), keyID: try fields.keyID(),
                    attestationObject: try fields.base64(
                        "attestationObject", maximumByteCount: RequestFields.maximumAttestationByteCount),
                    challenge: try fields.challenge(), clientAddress: request.remoteAddress)
            }
            outcome.keyFingerprint = Self.fingerprint(keyID: submission.keyID)
            switch try await service.register(submission) {
            case .registered(let key):
                outcome.code = "accepted"
                return JSONBody.response(
                    status: 201, AttestationBody(keyId: key.keyID, environment: key.environment))
            case .refused(let refusal):
                outcome.code = refusal.reason.description
                return HTTPResponseError.response(for: refusal)
            }
        case "/v1/assertions":
            let fields = try RequestFields(body: request.body)
            let (submission, _) = try await spendingChallenge(of: fields, request) {
                try fields.refuseUnknownFields(allowing: RequestFields.Allowed.assertion)
                return try fields.assertionSubmission(clientAddress: request.remoteAddress)
            }
            outcome.keyFingerprint = Self.fingerprint(keyID: submission.keyID)
            switch try await service.authorize(submission) {
            case .accepted(let key):
                outcome.code = "accepted"
                return JSONBody.response(status: 200, AssertionBody(valid: true, counter: key.counter))
            case .refused(let refusal):
                outcome.code = refusal.reason.description
                return HTTPResponseError.response(for: refusal)
            }
        case "/v1/demo/points/use", "/v1/demo/points/balance":
            return try await protected(pattern, request, &outcome)
        case "/v1/keys/{keyId}/unblock":
            return try await keyOperation(path, request, &outcome, unblock: true)
        default:
            return try await keyOperation(path, request, &outcome, unblock: false)
        }
    }

    /// Decodes a request's fields; when that fails and the body carried a well-formed challenge, burns it first, so
    /// a malformed request spends its challenge as any other failed request does.
    private func spendingChallenge<T>(
        of fields: RequestFields, _ request: HTTPRequest, _ decode: () throws -> T
    ) async throws -> T {
        do {
            return try decode()
        } catch let error as AttestServiceError {
            if let challenge = fields.presentedChallenge {
                try await service.burnChallenge(challenge, clientAddress: request.remoteAddress)
            }
            throw error
        }
    }

    /// A demo route under its policy: `open` skips App Attest, `limited` checks and logs but allows, and
    /// `require-assertion` allows only an accepted assertion.
    private func protected(
        _ route: String, _ request: HTTPRequest, _ outcome: inout Outcome
    ) async throws
        -> HTTPResponse
    {
        let policy = policies[route] ?? .requireAssertion
        outcome.policy = policy
        let fields = try RequestFields(body: request.body)
        let payload = try fields.object("payload")
        // The protected routes take the assertion fields; which of them must be present is decided below.
        try fields.refuseUnknownFields(allowing: RequestFields.Allowed.assertion)
        guard case .object(let payloadFields) = payload, case .string(let userID)? = payloadFields["userId"],
            !userID.isEmpty, userID.utf8.count <= AttestationService.Configuration.maximumSubjectLength
        else { throw AttestServiceError.invalidField("'payload.userId' must be a non-empty string") }
        var amount = 0
        if route == "/v1/demo/points/use" {
            guard case .number(let number)? = payloadFields["amount"], number.rounded() == number, number >= 1,
                number <= Double(DemoPoints.maximumAmount)
            else {
                throw AttestServiceError.invalidField(
                    "'payload.amount' must be a whole number of points, 1...\(DemoPoints.maximumAmount)")
            }
            amount = Int(number)
        }
        var counter: UInt32?
        let hasAssertion = fields.values["assertion"] != nil
        if policy == .requireAssertion && !hasAssertion {
            outcome.code = Refusal.Reason.assertionRequired.description
            return HTTPResponseError.response(
                for: Refusal(
                    .assertionRequired,
                    "\(route) requires an App Attest assertion: send subject, keyId, challenge and assertion"))
        }
        if policy != .open && hasAssertion {
            let (submission, _) = try await spendingChallenge(of: fields, request) {
                try fields.assertionSubmission(clientAddress: request.remoteAddress)
            }
            outcome.keyFingerprint = Self.fingerprint(keyID: submission.keyID)
            guard AttestationService.sameBytes(submission.subject, userID) else {
                outcome.code = Refusal.Reason.wrongSubject.description
                return HTTPResponseError.response(
                    for: Refusal(.wrongSubject, "'payload.userId' must be the request's subject"))
            }
            switch try await service.authorize(submission) {
            case .accepted(let key):
                counter = key.counter
            case .refused(let refusal):
                outcome.code = refusal.reason.description
                if policy == .requireAssertion { return HTTPResponseError.response(for: refusal) }
                log.write(
                    level: "warning", event: "limitedRouteAllowed",
                    message: "\(route) allowed under the limited policy despite \(refusal.reason)")
            }
        } else if policy == .limited {
            outcome.code = "noAssertion"
            log.write(level: "warning", event: "limitedRouteAllowed", message: "\(route) allowed without an assertion")
        }
        if outcome.code == nil { outcome.code = "accepted" }
        if route == "/v1/demo/points/use" {
            guard let balance = points.use(amount, by: userID) else {
                return HTTPResponseError.body(
                    status: 409, code: "insufficientPoints",
                    message: "the balance is lower than \(amount) points; nothing was spent")
            }
            return JSONBody.response(
                status: 200,
                PointsBody(
                    userId: userID, used: amount, balance: balance, counter: counter, policy: policy.rawValue,
                    attested: counter != nil))
        }
        return JSONBody.response(
            status: 200,
            PointsBody(
                userId: userID, used: 0, balance: points.balance(of: userID), counter: counter,
                policy: policy.rawValue, attested: counter != nil))
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
        SHA256.hash(keyID).prefix(4).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }

    struct ChallengeBody: Encodable {
        let challenge: String
        let expiresAt: Date
    }

    struct AttestationBody: Encodable {
        let keyId: String
        let environment: String
    }

    struct AssertionBody: Encodable {
        let valid: Bool
        let counter: UInt32
    }

    struct PointsBody: Encodable {
        let userId: String
        let used: Int
        let balance: Int
        let counter: UInt32?
        let policy: String
        let attested: Bool
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
