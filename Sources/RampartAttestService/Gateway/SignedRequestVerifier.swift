import Foundation
import RampartCrypto
import RampartRequestSigning

/// A request as the backend received it, for ``SignedRequestVerifier``: the method, the target, the headers and
/// what the verifier knows of the body.
public struct SignedRequest: Hashable, Sendable {
    /// What the verifier knows of the body.
    public enum Body: Hashable, Sendable {
        /// The body bytes as received: their digest must be the one in `Content-Digest`.
        case seen([UInt8])
        /// A `sha-256=:<base64>:` digest the caller computed over the body it received (trusted).
        case trustedDigest(String)
        /// Nothing: the signature is verified over the `Content-Digest` header, and the answer hands that digest
        /// upstream (`Rampart-Verified-Digest`), which must check the body against it.
        case notSeen
    }

    /// The method as the app sent it.
    public var method: String
    /// The request target as the app sent it (path and query, percent-encoding untouched).
    public var target: String
    /// The request's headers, by lower-cased name.
    public var headers: [String: String]
    /// The body, its trusted digest, or nothing.
    public var body: Body
    /// The subject from the backend's authentication, or nil when there is none.
    public var subject: String?
    /// The app's address, when known: unauthenticated failures are charged to it.
    public var clientAddress: String?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The target as sent.
    ///   - headers: The headers; names are lower-cased here.
    ///   - body: The body evidence.
    ///   - subject: The subject.
    ///   - clientAddress: The app's address.
    public init(
        method: String, target: String, headers: [String: String], body: Body, subject: String?,
        clientAddress: String? = nil
    ) {
        self.method = method
        self.target = target
        // Names that are already lower-case ASCII (what the HTTP server hands over) are kept without a rebuild.
        self.headers =
            headers.keys.allSatisfy(Self.isLowercaseASCII)
            ? headers
            : Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
        self.subject = subject
        self.clientAddress = clientAddress
    }

    /// Whether `name` has no byte outside ASCII and no upper-case letter (`lowercased()` would return it unchanged).
    static func isLowercaseASCII(_ name: String) -> Bool {
        name.utf8.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }
}

/// Checks signed requests (`docs/request-signature.md`) under a route's ``RoutePolicy`` and answers a
/// ``GatewayVerdict``.
///
/// For `require-assertion` (and `token` without a token, and `limited` when the request is signed):
///
/// 1. a subject is required (from the ``SubjectSource``, or named by the internal caller);
/// 2. `Rampart-Key-Id` (standard base64 of 32 bytes), `Rampart-Challenge`, `Rampart-Assertion` (standard base64)
///    and `Content-Digest` (`sha-256=:<base64>:`, RFC 9530) are parsed strictly;
/// 3. when the body was seen, its SHA-256 must be the header's (else `digestMismatch`); a trusted digest must be
///    the header's too; with neither, the header's digest is what the signature covers and what the answer hands
///    upstream in `Rampart-Verified-Digest`;
/// 4. clientDataHash = SHA-256 of `RequestSignature.clientData(method:target:challenge:digest:)`, and
///    ``AttestationService/authorize(_:)`` consumes the challenge, checks the key, the subject and the signature,
///    and advances the counter in one transaction;
/// 5. an accepted request gets a fresh `assertion` challenge for the same subject (`Rampart-Next-Challenge`),
///    not counted against the per-minute issuance limits.
///
/// A presented challenge is spent whenever the request fails, a malformed header included. Verdicts: 200 allow;
/// 401 missing or invalid assertion, unknown key, malformed signature headers, a changed body; 403 blocked key,
/// wrong environment or subject; 409 used or expired challenge, counter replay; 429 rate limited. A store failure
/// is thrown (the caller answers 503), never turned into an allow.
public final class SignedRequestVerifier: Sendable {
    let service: AttestationService
    let accessTokens: AccessTokenIssuer?
    let log: ServiceLog

    /// Creates a verifier over `service`.
    ///
    /// - Parameters:
    ///   - service: The attestation service (challenges and keys).
    ///   - accessTokens: The issuer whose tokens the `token` policy accepts in `Rampart-Token`; nil: only signed
    ///     requests pass that policy.
    ///   - log: Where `limited` allowances are logged.
    public init(service: AttestationService, accessTokens: AccessTokenIssuer? = nil, log: ServiceLog = .disabled) {
        self.service = service
        self.accessTokens = accessTokens
        self.log = log
    }

    /// The header that carries an access token under the `token` policy.
    public static let tokenHeader = "Rampart-Token"
    /// The header of an Android key's signature (instead of `Rampart-Assertion`): ECDSA P-256 with SHA-256 over the
    /// request's `rampart-request-v1` client data, DER, standard base64.
    public static let signatureHeader = "Rampart-Signature"
    /// The answer header naming the platform of the key that allowed a request: `ios` or `android`.
    public static let platformHeader = "Rampart-Platform"
    /// The largest accepted `Rampart-Signature` (a DER ECDSA P-256 signature is at most 72 bytes).
    static let maximumSignatureByteCount = 256

    /// The lower-cased names the checks look up (``SignedRequest/headers`` are lower-cased), computed once.
    enum Names {
        static let token = tokenHeader.lowercased()
        static let keyID = RequestSignature.keyIDHeader.lowercased()
        static let challenge = RequestSignature.challengeHeader.lowercased()
        static let assertion = RequestSignature.assertionHeader.lowercased()
        static let signature = signatureHeader.lowercased()
        static let contentDigest = RequestSignature.contentDigestHeader.lowercased()
        /// The signed-request headers, as sent and lower-cased, in the order a refusal lists them.
        static let signed: [(name: String, lowercased: String)] = [
            (RequestSignature.keyIDHeader, keyID), (RequestSignature.challengeHeader, challenge),
            (RequestSignature.assertionHeader, assertion), (RequestSignature.contentDigestHeader, contentDigest),
        ]
    }

    /// Decides `request` under `policy`.
    ///
    /// - Parameters:
    ///   - request: The request as the backend received it.
    ///   - policy: The route's policy.
    /// - Returns: The verdict.
    /// - Throws: ``AttestServiceError``: `storeFailure`, or `invalidField` for a malformed trusted digest (the
    ///   caller's mistake); every refusal of the app's request is a verdict.
    public func verify(_ request: SignedRequest, policy: RoutePolicy) async throws -> GatewayVerdict {
        try await verify(request, policy: policy, subjectRefusal: nil)
    }

    /// Decides `request`; `subjectRefusal` says why the subject source gave no subject.
    func verify(
        _ request: SignedRequest, policy: RoutePolicy, subjectRefusal: GatewayRefusal?
    ) async throws -> GatewayVerdict {
        switch policy {
        case .open:
            return .allow(GatewayAllowance(policy: .open, subject: request.subject))
        case .limited:
            let refusalCode: String
            if Self.isSigned(request.headers) {
                let verdict = try await check(request, policy: .limited, subjectRefusal: subjectRefusal)
                guard case .refuse(let refusal) = verdict else { return verdict }
                refusalCode = refusal.code
            } else {
                refusalCode = Refusal.Reason.assertionRequired.description
            }
            var allowance = GatewayAllowance(policy: .limited, subject: request.subject)
            allowance.limitedRefusal = refusalCode
            log.write(
                level: "warning", event: "limitedRouteAllowed",
                message: "a request was allowed under the limited policy despite \(refusalCode)")
            return .allow(allowance)
        case .token:
            if let token = request.headers[Names.token] {
                return try await checkToken(token, request, subjectRefusal: subjectRefusal)
            }
            return try await check(request, policy: .token, subjectRefusal: subjectRefusal)
        case .requireAssertion:
            return try await check(request, policy: .requireAssertion, subjectRefusal: subjectRefusal)
        }
    }

    /// Whether any of the signed-request headers is present.
    static func isSigned(_ headers: [String: String]) -> Bool {
        headers[Names.keyID] != nil || headers[Names.challenge] != nil || headers[Names.assertion] != nil
            || headers[Names.signature] != nil
    }

    private func checkToken(
        _ token: String, _ request: SignedRequest, subjectRefusal: GatewayRefusal?
    ) async throws -> GatewayVerdict {
        guard let subject = request.subject else {
            return .refuse(subjectRefusal ?? GatewayRefusal(Self.noSubject))
        }
        guard let accessTokens else {
            return .refuse(
                GatewayRefusal(
                    AttestServiceError.invalidToken(
                        "this service issues no access tokens (no token audience: set teamId and bundleId or "
                            + "tokens.audience); send a signed request")))
        }
        let verified: AccessTokenClaims
        do {
            verified = try await accessTokens.verify(token)
        } catch let error as AttestServiceError {
            if error.code == .storeFailure { throw error }
            return .refuse(GatewayRefusal(error))
        }
        guard verified.environment.hasSameUTF8(as: service.configuration.environment) else {
            return .refuse(
                GatewayRefusal(
                    Refusal(
                        .wrongEnvironment,
                        "the Rampart-Token was issued for a \(verified.environment) key and this service accepts "
                            + "\(service.configuration.environment) keys only; get a token from this environment's "
                            + "service with POST /v1/tokens")))
        }
        guard verified.subject.hasSameUTF8(as: subject) else {
            return .refuse(
                GatewayRefusal(
                    Refusal(
                        .wrongSubject,
                        "the Rampart-Token was issued to another subject; get a token as this user with POST "
                            + "/v1/tokens")))
        }
        var allowance = GatewayAllowance(policy: .token, subject: subject)
        allowance.keyID = verified.keyID
        allowance.environment = verified.environment
        allowance.platform = verified.platform
        return .allow(allowance)
    }

    static let noSubject = Refusal(
        .subjectRequired, "the request has no subject; the backend's authentication must name the user")

    /// The signed-request check proper.
    private func check(
        _ request: SignedRequest, policy: RoutePolicy, subjectRefusal: GatewayRefusal?
    ) async throws -> GatewayVerdict {
        guard let subject = request.subject else {
            return .refuse(subjectRefusal ?? GatewayRefusal(Self.noSubject))
        }
        if case .refused(let refusal) = SubjectResolver.checked(subject, from: "the subject") {
            return .refuse(refusal)
        }
        let headers = request.headers
        let challenge = headers[Names.challenge]
        let usableChallenge = challenge.flatMap { value -> String? in
            let count = value.utf8.count
            return count > 0 && count <= RequestSignature.maximumChallengeByteCount ? value : nil
        }
        /// Refuses after spending the presented challenge, so a failed request uses up its one try.
        func refuse(_ reason: Refusal.Reason, _ message: String) async throws -> GatewayVerdict {
            if let usableChallenge {
                try await spend(usableChallenge, request.clientAddress)
            }
            return .refuse(GatewayRefusal(Refusal(reason, message)))
        }
        let android = headers[Names.signature] != nil
        let missing = Names.signed.filter {
            headers[$0.lowercased] == nil && !(android && $0.lowercased == Names.assertion)
        }.map(\.name)
        guard missing.isEmpty, let challenge else {
            let what = policy == .token ? "a Rampart-Token or a signed request" : "a signed request"
            return try await refuse(
                .assertionRequired,
                "this route (policy \(policy.rawValue)) needs \(what): the headers Rampart-Key-Id, Rampart-Challenge, "
                    + "Rampart-Assertion (App Attest) or Rampart-Signature (Android) and Content-Digest "
                    + "(docs/request-signature.md); missing " + missing.joined(separator: ", "))
        }
        guard !(android && headers[Names.assertion] != nil) else {
            return try await refuse(
                .malformedSignature,
                "the request carries both Rampart-Assertion and Rampart-Signature; send the one your key makes: "
                    + "Rampart-Assertion for an App Attest key, Rampart-Signature for an Android key")
        }
        guard usableChallenge != nil else {
            return try await refuse(
                .malformedSignature,
                "Rampart-Challenge must be the 1...\(RequestSignature.maximumChallengeByteCount)-byte challenge that "
                    + "POST /v1/challenges gave")
        }
        guard let keyID = Self.strictBase64(headers[Names.keyID], maximum: 64),
            keyID.count == 32
        else {
            return try await refuse(
                .malformedSignature,
                "Rampart-Key-Id must be the standard, padded base64 of the 32-byte key id (App Attest's, or SHA-256 of "
                    + "an Android key's SubjectPublicKeyInfo)")
        }
        if android, Self.strictBase64(headers[Names.signature], maximum: Self.maximumSignatureByteCount) == nil {
            return try await refuse(
                .malformedSignature,
                "Rampart-Signature must be the standard, padded base64 of the DER ECDSA signature "
                    + "(at most \(Self.maximumSignatureByteCount) bytes)")
        }
        guard
            let assertion = android
                ? Self.strictBase64(headers[Names.signature], maximum: Self.maximumSignatureByteCount)
                : Self.strictBase64(headers[Names.assertion], maximum: RequestFields.maximumAssertionByteCount)
        else {
            return try await refuse(
                .malformedSignature,
                "Rampart-Assertion must be the standard, padded base64 of the CBOR assertion "
                    + "(at most \(RequestFields.maximumAssertionByteCount) bytes)")
        }
        let claimed: String
        do {
            claimed = try RequestSignature.digestValue(
                ofHeader: headers[Names.contentDigest] ?? "")
        } catch let error as RequestSigningError {
            return try await refuse(.malformedSignature, error.reason)
        }
        switch request.body {
        case .seen(let body):
            guard RequestSignature.digestValue(of: body).hasSameUTF8(as: claimed) else {
                let partial = headers["x-envoy-auth-partial-body"] == "true"
                return try await refuse(
                    .digestMismatch,
                    partial
                        ? "the gateway sent only part of the body (Envoy with_request_body max_request_bytes), so "
                            + "its digest cannot match; raise max_request_bytes above the largest signed body"
                        : "the body's SHA-256 is not the one in Content-Digest: the body was changed after signing; "
                            + "send the body exactly as signed")
            }
        case .trustedDigest(let digest):
            let trusted: String
            do {
                trusted = try RequestSignature.digestValue(ofHeader: digest)
            } catch let error as RequestSigningError {
                throw AttestServiceError.invalidField("'contentDigest': \(error.reason)")
            }
            guard trusted.hasSameUTF8(as: claimed) else {
                return try await refuse(
                    .digestMismatch,
                    "the body's digest is not the one in Content-Digest: the body was changed after signing")
            }
        case .notSeen:
            break
        }
        let clientData: [UInt8]
        do {
            clientData = try RequestSignature.clientData(
                method: request.method, target: request.target, challenge: challenge, digest: claimed)
        } catch let error as RequestSigningError {
            return try await refuse(.malformedSignature, error.reason)
        }
        let outcome: AssertionOutcome
        do {
            outcome = try await service.authorize(
                AssertionSubmission(
                    subject: subject, keyID: keyID, assertion: assertion, challenge: challenge,
                    clientData: clientData, clientAddress: request.clientAddress, platform: android ? .android : .ios))
        } catch let error as AttestServiceError {
            switch error.code {
            case .rateLimited: return .refuse(GatewayRefusal(error))
            case .storeFailure: throw error
            default:
                // A malformed assertion object: the challenge is already spent.
                return .refuse(GatewayRefusal(Refusal(.invalidAssertion, error.reason)))
            }
        }
        switch outcome {
        case .refused(let refusal):
            return .refuse(GatewayRefusal(refusal))
        case .accepted(let key):
            var allowance = GatewayAllowance(policy: policy, subject: subject)
            allowance.keyID = key.keyID
            allowance.counter = key.counter
            allowance.environment = key.environment
            allowance.platform = key.platform
            allowance.verifiedDigest = "sha-256=:\(claimed):"
            do {
                let next = try await service.issueChallenge(
                    purpose: .assertion, subject: subject, chargingLimits: false)
                allowance.nextChallenge = next.challenge
                allowance.nextChallengeExpiresAt = next.expiresAt
            } catch let error as AttestServiceError {
                // The request verified; the app asks for a challenge itself next time.
                log.write(level: "warning", event: "nextChallengeFailed", message: error.reason)
            }
            return .allow(allowance)
        }
    }

    private func spend(_ challenge: String, _ clientAddress: String?) async throws {
        try await service.burnChallenge(challenge, clientAddress: clientAddress)
    }

    /// Standard, padded base64 (`Data(base64Encoded:)` and back gives the same text), at most `maximum` bytes.
    static func strictBase64(_ text: String?, maximum: Int) -> [UInt8]? {
        guard let text, !text.isEmpty, text.utf8.count <= (maximum / 3 + 1) * 4,
            let data = Data(base64Encoded: text), data.count <= maximum,
            data.base64EncodedString().hasSameUTF8(as: text)
        else { return nil }
        return Array(data)
    }
}
