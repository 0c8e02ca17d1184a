public import Foundation
import RampartRequestSigning

/// The answer to "may this request reach the backend?": what a gateway endpoint, the sidecar `POST /v1/verify` and
/// the demo routes decide with ``SignedRequestVerifier``.
public enum GatewayVerdict: Hashable, Sendable {
    /// Let the request through, with what was verified.
    case allow(GatewayAllowance)
    /// Refuse it: the status, the stable code and what to do.
    case refuse(GatewayRefusal)
}

/// What an allowed request carries upstream (the `Rampart-*` answer headers).
public struct GatewayAllowance: Hashable, Sendable {
    /// The policy that applied.
    public var policy: RoutePolicy
    /// The subject, when known.
    public var subject: String?
    /// The key that signed the request or holds the token, standard base64; nil when nothing was verified.
    public var keyID: String?
    /// The key's counter after the accepted assertion.
    public var counter: UInt32?
    /// The key's App Attest environment, when a key was verified.
    public var environment: String?
    /// The platform of the key that signed the request or holds the token (`Rampart-Platform`), when one did.
    public var platform: KeyPlatform?
    /// `sha-256=:<base64>:` of the body the signature covers. When the verifier did not see the body (nginx
    /// `auth_request`), the upstream must check that the body it received has this digest.
    public var verifiedDigest: String?
    /// A fresh `assertion` challenge for the same subject, for the app's next signed request.
    public var nextChallenge: String?
    /// When `nextChallenge` expires.
    public var nextChallengeExpiresAt: Date?
    /// Under the `limited` policy: the code of the check that failed or was skipped (`assertionRequired` when the
    /// request was not signed); nil when the check passed or did not apply.
    public var limitedRefusal: String?

    /// Creates an allowance.
    ///
    /// - Parameters:
    ///   - policy: The policy.
    ///   - subject: The subject.
    public init(policy: RoutePolicy, subject: String?) {
        self.policy = policy
        self.subject = subject
    }

    /// The answer headers: `Rampart-Policy`, and when known `Rampart-Subject`, `Rampart-Key-Id`, `Rampart-Counter`,
    /// `Rampart-Environment` (the App Attest environment of the key or token that allowed it), `Rampart-Platform`
    /// (`ios` or `android`: the platform of that key),
    /// `Rampart-Verified-Digest` and `Rampart-Next-Challenge`.
    public var headers: [String: String] {
        var headers: [String: String] = [:]
        add(to: &headers)
        return headers
    }

    /// Sets ``headers`` in `headers`, replacing values of the same names, without building a dictionary first.
    func add(to headers: inout [String: String]) {
        headers.reserveCapacity(headers.count + 8)
        headers["Rampart-Policy"] = policy.rawValue
        if let subject { headers["Rampart-Subject"] = subject }
        if let keyID { headers["Rampart-Key-Id"] = keyID }
        if let counter { headers["Rampart-Counter"] = String(counter) }
        if let environment { headers["Rampart-Environment"] = environment }
        if let platform { headers[SignedRequestVerifier.platformHeader] = platform.rawValue }
        if let verifiedDigest { headers[RequestSignature.verifiedDigestHeader] = verifiedDigest }
        if let nextChallenge { headers["Rampart-Next-Challenge"] = nextChallenge }
    }
}

/// A refused request: the status a gateway answers with, the stable code (also sent as `Rampart-Error`) and the
/// message.
public struct GatewayRefusal: Hashable, Sendable, CustomStringConvertible {
    /// 400, 401, 403, 409 or 429 (never a 5xx: a store failure is thrown, not a verdict).
    public var status: Int
    /// The stable code, e.g. `challengeUsed`.
    public var code: String
    /// What failed and what to do.
    public var message: String
    /// For 429: seconds until a retry may succeed.
    public var retryAfterSeconds: Int?

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - code: The code.
    ///   - message: The message.
    ///   - retryAfterSeconds: For 429, the wait.
    public init(status: Int, code: String, message: String, retryAfterSeconds: Int? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    init(_ refusal: Refusal) {
        self.init(
            status: HTTPResponseError.status(for: refusal.reason), code: refusal.reason.description,
            message: refusal.message)
    }

    init(_ error: AttestServiceError) {
        self.init(
            status: HTTPResponseError.status(for: error.code), code: error.code.description, message: error.reason,
            retryAfterSeconds: error.code == .rateLimited ? error.retryAfterSeconds : nil)
    }

    /// `status code: message`.
    public var description: String { "\(status) \(code): \(message)" }
}
