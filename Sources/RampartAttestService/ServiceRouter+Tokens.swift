import Foundation
import RampartHTTP

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
            policy: .requireAssertion, clientAddress: forwardedClient(request), fromTrustedPeer: isTrustedPeer(request),
            &outcome)
        guard case .allow(let allowance) = verdict, let subject = allowance.subject, let keyID = allowance.keyID
        else { return Self.response(for: verdict, nginx: false, &outcome) }
        let issued = try await tokens.issue(
            subject: subject, keyID: keyID, environment: allowance.environment ?? "production",
            platform: allowance.platform)
        outcome.code = "issued"
        if let bytes = Data(base64Encoded: keyID) { outcome.keyFingerprint = Self.fingerprint(keyID: Array(bytes)) }
        var response = JSONBody.response(status: 200, TokenBody(token: issued.token, expiresAt: issued.expiresAt))
        response.headers.merge(allowance.headers) { $1 }
        return response
    }

    /// `GET /.well-known/jwks.json`.
    func jwks() async throws -> HTTPResponse {
        guard let tokens else {
            throw AttestServiceError.notFound("this service issues no access tokens, so it publishes no token keys")
        }
        return HTTPResponse(
            status: 200, headers: ["Content-Type": "application/json", "Cache-Control": "max-age=300"],
            body: try await tokens.jwks())
    }

    struct TokenBody: Encodable {
        let token: String
        let expiresAt: Date
    }
}
