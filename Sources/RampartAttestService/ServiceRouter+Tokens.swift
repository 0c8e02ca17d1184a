import Foundation

/// How the router issues access tokens and publishes their keys (wired to the token signer by
/// ``AttestationServer``).
struct TokenHooks: Sendable {
    /// Issues a token for a verified key: subject, key id (standard base64), environment.
    let issue: @Sendable (_ subject: String, _ keyID: String, _ environment: String) throws -> IssuedToken
    /// The JWKS document (`{"keys": […]}`) of the current and still-overlapping token keys.
    let jwks: @Sendable () throws -> [UInt8]

    struct IssuedToken: Sendable {
        let token: String
        let expiresAt: Date
    }
}

extension ServiceRouter {
    /// `POST /v1/tokens`: a signed request (policy require-assertion) whose key gets a short-lived access token.
    func token(_ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        guard let tokens else {
            throw AttestServiceError.notFound(
                "this service issues no access tokens; sign each request instead (docs/request-signature.md)")
        }
        outcome.policy = .requireAssertion
        let verdict = try await decide(
            method: request.method, target: request.target, headers: request.headers, body: .seen(request.body),
            policy: .requireAssertion, clientAddress: request.remoteAddress, &outcome)
        guard case .allow(let allowance) = verdict, let subject = allowance.subject, let keyID = allowance.keyID
        else { return Self.response(for: verdict, nginx: false, &outcome) }
        let issued = try tokens.issue(subject, keyID, allowance.environment ?? "production")
        outcome.code = "issued"
        if let bytes = Data(base64Encoded: keyID) { outcome.keyFingerprint = Self.fingerprint(keyID: Array(bytes)) }
        var response = JSONBody.response(status: 200, TokenBody(token: issued.token, expiresAt: issued.expiresAt))
        response.headers.merge(allowance.headers) { $1 }
        return response
    }

    /// `GET /.well-known/jwks.json`.
    func jwks() throws -> HTTPResponse {
        guard let tokens else {
            throw AttestServiceError.notFound("this service issues no access tokens, so it publishes no token keys")
        }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=300"],
            body: try tokens.jwks())
    }

    struct TokenBody: Encodable {
        let token: String
        let expiresAt: Date
    }
}
