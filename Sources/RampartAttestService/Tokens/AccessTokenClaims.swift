public import Foundation

/// The claims of a verified Rampart access token (see <doc:Tokens>).
public struct AccessTokenClaims: Hashable {
    /// `iss`.
    public var issuer: String
    /// `aud`.
    public var audience: String
    /// `sub`: the subject the App Attest key was registered to.
    public var subject: String
    /// `iat`.
    public var issuedAt: Date
    /// `exp`.
    public var expiresAt: Date
    /// `jti`: 16 random bytes, unpadded base64url; unique per token.
    public var tokenID: String
    /// `keyId`: the App Attest key id (standard base64) whose signed request obtained the token.
    public var keyID: String
    /// `environment`: `production` or `development`.
    public var environment: String
    /// The header's `kid`: the signing key's RFC 7638 thumbprint.
    public var signingKeyID: String
    /// `platform`: the platform of the key the token was issued to (`ios` or `android`); nil for a token issued
    /// before tokens named it.
    public var platform: KeyPlatform?

    /// Creates claims.
    ///
    /// - Parameters:
    ///   - issuer: `iss`.
    ///   - audience: `aud`.
    ///   - subject: `sub`.
    ///   - issuedAt: `iat`.
    ///   - expiresAt: `exp`.
    ///   - tokenID: `jti`.
    ///   - keyID: `keyId`.
    ///   - environment: `environment`.
    ///   - signingKeyID: The header's `kid`.
    ///   - platform: `platform`.
    public init(
        issuer: String, audience: String, subject: String, issuedAt: Date, expiresAt: Date, tokenID: String,
        keyID: String, environment: String, signingKeyID: String, platform: KeyPlatform? = nil
    ) {
        self.platform = platform
        self.issuer = issuer
        self.audience = audience
        self.subject = subject
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.keyID = keyID
        self.environment = environment
        self.signingKeyID = signingKeyID
    }
}

extension AccessTokenClaims: Sendable {}

/// A freshly issued access token: the answer of `POST /v1/tokens`, `{"token","expiresAt"}`.
public struct IssuedToken: Hashable {
    /// The compact JWS. A bearer credential: never log it.
    public var token: String
    /// When it expires (its `exp`).
    public var expiresAt: Date
    /// Its claims.
    public var claims: AccessTokenClaims

    /// Creates a value.
    ///
    /// - Parameters:
    ///   - token: The JWS.
    ///   - expiresAt: Its expiry.
    ///   - claims: Its claims.
    public init(token: String, expiresAt: Date, claims: AccessTokenClaims) {
        self.token = token
        self.expiresAt = expiresAt
        self.claims = claims
    }
}

extension IssuedToken: Sendable {}

extension IssuedToken: CustomStringConvertible, CustomDebugStringConvertible {
    /// The expiry and signing key, never the token.
    public var description: String { "IssuedToken(kid \(claims.signingKeyID), expires \(expiresAt))" }
    /// As ``description``.
    public var debugDescription: String { description }
}
