import Foundation
import RampartHTTP
import RampartRequestSigning

extension ServiceRouter {
    /// The gateway protocols of the public listener.
    enum Gateway: String {
        /// Envoy `ext_authz` (HTTP service, `path_prefix: /ext-authz`): the original method, the original target
        /// after the prefix, the original headers, the body with `with_request_body`.
        case envoy = "/ext-authz/{target}"
        /// Traefik ForwardAuth and Caddy `forward_auth`: the original from `X-Forwarded-Method` and
        /// `X-Forwarded-Uri`; the body when forwarded; any query on `/forward-auth` itself.
        case forwardAuth = "/forward-auth"
        /// nginx `auth_request`: the original from `X-Original-Method` and `X-Original-URI`, never a body; every
        /// refusal is 401 or 403 (nginx turns anything else into a 500), the precise code in `Rampart-Error`.
        case nginx = "/auth-request"
    }

    /// A gateway check: the original request out of the gateway's shape, its route's policy, the verdict.
    func gateway(_ pattern: String, _ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        guard let gateway = Gateway(rawValue: pattern) else {
            throw AttestServiceError.notFound("no gateway endpoint \(pattern)")
        }
        do {
            let verdict = try await gatewayVerdict(gateway, request, &outcome)
            return Self.response(for: verdict, nginx: gateway == .nginx, &outcome)
        } catch let error as AttestServiceError where error.code != .storeFailure {
            // Malformed gateway requests are verdicts too: nginx needs 401 or 403.
            return Self.response(for: .refuse(GatewayRefusal(error)), nginx: gateway == .nginx, &outcome)
        }
    }

    private func gatewayVerdict(
        _ gateway: Gateway, _ request: HTTPRequest, _ outcome: inout Outcome
    ) async throws -> GatewayVerdict {
        let method: String
        let target: String
        switch gateway {
        case .envoy:
            let prefix = "/ext-authz"
            guard request.target.utf8.starts(with: "\(prefix)/".utf8) else {
                throw AttestServiceError.invalidTarget(
                    "an Envoy check is /ext-authz followed by the original path as sent; this one is not (an encoded "
                        + "'/' after the prefix?)")
            }
            method = request.method
            target = String(decoding: request.target.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
        case .forwardAuth:
            method = try Self.header(request, "X-Forwarded-Method", for: "forward auth")
            target = try Self.header(request, "X-Forwarded-Uri", for: "forward auth")
        case .nginx:
            method = try Self.header(request, "X-Original-Method", for: "auth_request")
            target = try Self.header(request, "X-Original-URI", for: "auth_request")
        }
        guard (1...32).contains(method.utf8.count),
            method.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw AttestServiceError.invalidField("the original method must be 1...32 printable ASCII characters")
        }
        let checked = try RequestTarget(target)
        let policy = try routeTable.policy(method: method, target: checked, headers: request.headers).policy
        outcome.policy = policy
        let body: SignedRequest.Body = request.body.isEmpty || gateway == .nginx ? .notSeen : .seen(request.body)
        return try await decide(
            method: method, target: target, headers: request.headers, body: body, policy: policy,
            clientAddress: forwardedClient(request), fromTrustedPeer: isTrustedPeer(request), &outcome)
    }

    /// Resolves the subject and runs the verifier.
    func decide(
        method: String, target: String, headers: [String: String], body: SignedRequest.Body, policy: RoutePolicy,
        clientAddress: String?, fromTrustedPeer: Bool, _ outcome: inout Outcome
    ) async throws -> GatewayVerdict {
        var subject: String?
        var subjectRefusal: GatewayRefusal?
        switch subjects.resolve(headers, fromTrustedPeer: fromTrustedPeer) {
        case .subject(let value): subject = value
        case .refused(let refusal): subjectRefusal = refusal
        }
        let request = SignedRequest(
            method: method, target: target, headers: headers, body: body, subject: subject,
            clientAddress: clientAddress)
        return try await verifier.verify(request, policy: policy, subjectRefusal: subjectRefusal)
    }

    /// A header a gateway protocol must send.
    private static func header(_ request: HTTPRequest, _ name: String, for protocolName: String) throws -> String {
        guard let value = request.headers[name.lowercased()], !value.isEmpty else {
            throw AttestServiceError.missingField(
                "a \(protocolName) check needs the '\(name)' header with the original request's value; configure "
                    + "the gateway to send it (docs/protecting-your-backend.md)")
        }
        return value
    }

    /// Whether the request's TCP peer is one of ``ServiceConfiguration/trustedProxies``: any peer when the list is
    /// empty (the service warns about that at start), and an in-process caller (no peer address: the HTTP server
    /// always sets one).
    func isTrustedPeer(_ request: HTTPRequest) -> Bool {
        guard !trustedProxies.isEmpty, let peer = request.remoteAddress else { return true }
        return trustedProxies.contains(Array(peer.utf8))
    }

    /// The address failures are charged to: behind a trusted gateway (the TCP peer is one of
    /// ``ServiceConfiguration/trustedProxies``), the last `X-Forwarded-For` entry — the one that gateway appended,
    /// which the client cannot choose; otherwise the TCP peer itself, whatever `X-Forwarded-For` says, so a client
    /// that reaches the listener directly can neither spread its failures over made-up addresses nor spend another
    /// address's failure budget.
    func forwardedClient(_ request: HTTPRequest) -> String? {
        guard let peer = request.remoteAddress, trustedProxies.contains(Array(peer.utf8)),
            let forwarded = request.headers["x-forwarded-for"],
            let last = forwarded.split(separator: ",", omittingEmptySubsequences: false).last.map({
                $0.trimmingCharacters(in: .whitespaces)
            }),
            let address = ServiceConfiguration.canonicalAddress(last)
        else { return request.remoteAddress }
        return address
    }

    /// The HTTP answer of a verdict: 200 with the `Rampart-*` headers and the JSON of ``VerifyBody``, or the
    /// refusal's status with `{"error","message"}` and `Rampart-Error`; for nginx, every refusal is folded into 401
    /// (challenge and counter conflicts, which a retry with a new challenge fixes) or 403 (the rest).
    static func response(for verdict: GatewayVerdict, nginx: Bool, _ outcome: inout Outcome) -> HTTPResponse {
        switch verdict {
        case .allow(let allowance):
            outcome.code = allowance.limitedRefusal.map { "limited:\($0)" } ?? "allowed"
            if let keyID = allowance.keyID, let bytes = Data(base64Encoded: keyID) {
                outcome.keyFingerprint = fingerprint(keyID: Array(bytes))
            }
            var response = JSONBody.response(status: 200, VerifyBody(allowance))
            allowance.add(to: &response.headers)
            return response
        case .refuse(let refusal):
            outcome.code = refusal.code
            var status = refusal.status
            if nginx && status != 401 && status != 403 { status = status == 409 ? 401 : 403 }
            var response = HTTPResponseError.body(status: status, code: refusal.code, message: refusal.message)
            response.headers["Rampart-Error"] = refusal.code
            if let wait = refusal.retryAfterSeconds { response.headers["Retry-After"] = String(wait) }
            if status == 401 { response.headers["WWW-Authenticate"] = "Rampart" }
            return response
        }
    }

    /// The sidecar `POST /v1/verify` (internal listener): the same verdict as JSON.
    func sidecar(_ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        let fields = try RequestFields(body: request.body)
        try fields.refuseUnknownFields(allowing: ["method", "target", "headers", "body", "contentDigest", "subject"])
        let method = try fields.string("method")
        guard (1...32).contains(method.utf8.count), method.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            throw AttestServiceError.invalidField("'method' must be the request's method, e.g. \"POST\"")
        }
        let target = try fields.string("target")
        let checked = try RequestTarget(target)
        let subject = try fields.string("subject")
        var headers: [String: String] = [:]
        if let value = fields.values["headers"] {
            guard case .object(let object) = value, object.count <= Self.maximumSidecarHeaderCount else {
                throw AttestServiceError.invalidField(
                    "'headers' must be an object of at most \(Self.maximumSidecarHeaderCount) name: string values")
            }
            for (name, entry) in object {
                guard case .string(let text) = entry, text.utf8.count <= 16 * 1024 else {
                    throw AttestServiceError.invalidField("every value in 'headers' must be a string of at most 16 KiB")
                }
                headers[name.lowercased()] = headers[name.lowercased()].map { "\($0), \(text)" } ?? text
            }
        }
        var body = SignedRequest.Body.notSeen
        if fields.values["body"] != nil {
            guard fields.values["contentDigest"] == nil else {
                throw AttestServiceError.invalidField(
                    "send either 'body' (base64 of the body received) or 'contentDigest' (its digest), not both")
            }
            let text = try fields.string("body")
            guard let bytes = Data(base64Encoded: text) else {
                throw AttestServiceError.invalidBase64("'body' must be the standard base64 of the body received")
            }
            body = .seen(Array(bytes))
        } else if fields.values["contentDigest"] != nil {
            body = .trustedDigest(try fields.string("contentDigest"))
        }
        let policy = try routeTable.policy(method: method, target: checked, headers: headers).policy
        outcome.policy = policy
        if case .refused(let refusal) = SubjectResolver.checked(subject, from: "'subject'") {
            throw AttestServiceError.invalidField(refusal.message)
        }
        let verdict = try await verifier.verify(
            SignedRequest(
                method: method, target: target, headers: headers, body: body, subject: subject, clientAddress: nil),
            policy: policy, subjectRefusal: nil)
        return Self.response(for: verdict, nginx: false, &outcome)
    }

    /// The most headers `POST /v1/verify` accepts (a DoS bound; a signed request needs four).
    static let maximumSidecarHeaderCount = 100

    /// The JSON of an allow verdict (`POST /v1/verify` and the 200 of the gateway endpoints).
    struct VerifyBody: Encodable, JSONObjectWritable {
        let allow: Bool
        let policy: String
        let subject: String?
        let keyId: String?
        let counter: UInt32?
        let environment: String?
        let platform: String?
        let verifiedDigest: String?
        let nextChallenge: String?
        let nextChallengeExpiresAt: Date?
        let limitedRefusal: String?

        init(_ allowance: GatewayAllowance) {
            allow = true
            policy = allowance.policy.rawValue
            subject = allowance.subject
            keyId = allowance.keyID
            counter = allowance.counter
            environment = allowance.environment
            platform = allowance.platform?.rawValue
            verifiedDigest = allowance.verifiedDigest
            nextChallenge = allowance.nextChallenge
            nextChallengeExpiresAt = allowance.nextChallengeExpiresAt
            limitedRefusal = allowance.limitedRefusal
        }

        func write(to object: inout JSONObjectWriter) {
            object.bool("allow", allow)
            object.integer("counter", counter)
            object.string("environment", environment)
            object.string("keyId", keyId)
            object.string("limitedRefusal", limitedRefusal)
            object.string("nextChallenge", nextChallenge)
            object.date("nextChallengeExpiresAt", nextChallengeExpiresAt)
            object.string("platform", platform)
            object.string("policy", policy)
            object.string("subject", subject)
            object.string("verifiedDigest", verifiedDigest)
        }
    }
}
