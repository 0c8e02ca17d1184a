/// The access tokens `POST /v1/tokens` issues (config `"tokens": {"issuer", "audience", "lifetimeSeconds"}`).
///
/// See <doc:Tokens> for what the tokens are and how their keys rotate.
public struct TokenConfiguration: Hashable {
    /// The default `iss`.
    public static let defaultIssuer = "rampart"
    /// The default lifetime: 15 minutes.
    public static let defaultLifetimeSeconds = 900
    /// The default time a signing key signs before the next one takes over: one day.
    public static let defaultRotationSeconds = 86_400
    /// The default clock skew allowed when verifying, and kept on top of the lifetime before a retired key is dropped.
    public static let defaultLeewaySeconds = 60
    /// The accepted lifetimes: 1 minute to 1 day.
    public static let lifetimeRange = 60...86_400
    /// The accepted rotation periods: 1 hour to 90 days.
    public static let rotationRange = 3_600...7_776_000
    /// The accepted leeways: 0 to 5 minutes.
    public static let leewayRange = 0...300

    /// The `iss` of every token, and the one ``AccessTokenIssuer/verify(_:)`` requires.
    public var issuer: String
    /// The `aud` of every token; by default the app id, `TEAMID.bundle` (see ``defaultAudience(teamID:bundleID:)``).
    public var audience: String
    /// How long a token is valid, in seconds.
    public var lifetimeSeconds: Int
    /// How long one signing key signs before a new one is made, in seconds.
    public var rotationSeconds: Int
    /// Clock skew allowed on `exp` and `iat` when verifying, in seconds.
    public var leewaySeconds: Int

    /// How long before its rotation period a signing key is made and published in the JWKS, in seconds: a quarter of
    /// ``rotationSeconds``, rounded down (15 minutes at the shortest rotation, 6 hours at the default of a day).
    ///
    /// A verifier that caches `GET /.well-known/jwks.json` (the service sends `Cache-Control: max-age=300`; JWT
    /// libraries and gateways commonly cache for 5 to 15 minutes) has refreshed its copy before the key signs, so
    /// it never refuses a fresh token after a rotation. The key signs only from the start of its own period.
    public var prePublicationSeconds: Int { rotationSeconds / 4 }

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - issuer: The `iss`; `rampart` by default.
    ///   - audience: The `aud`; pass ``defaultAudience(teamID:bundleID:)`` for the default.
    ///   - lifetimeSeconds: The token lifetime; 900 by default.
    ///   - rotationSeconds: The signing period of one key; 86,400 by default.
    ///   - leewaySeconds: The verification leeway; 60 by default.
    public init(
        issuer: String = defaultIssuer, audience: String, lifetimeSeconds: Int = defaultLifetimeSeconds,
        rotationSeconds: Int = defaultRotationSeconds, leewaySeconds: Int = defaultLeewaySeconds
    ) {
        self.issuer = issuer
        self.audience = audience
        self.lifetimeSeconds = lifetimeSeconds
        self.rotationSeconds = rotationSeconds
        self.leewaySeconds = leewaySeconds
    }

    /// The default audience, the App Attest app id: `TEAMID.bundle`.
    ///
    /// - Parameters:
    ///   - teamID: The Apple team id.
    ///   - bundleID: The bundle id.
    /// - Returns: `"\(teamID).\(bundleID)"`.
    public static func defaultAudience(teamID: String, bundleID: String) -> String { "\(teamID).\(bundleID)" }

    /// Checks every value against its range.
    ///
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the `tokens` setting at fault.
    public func validate() throws {
        func invalid(_ reason: String) -> AttestServiceError { .invalidConfiguration("tokens: " + reason) }
        for (name, value) in [("issuer", issuer), ("audience", audience)] {
            guard !value.isEmpty, value.utf8.count <= 256, !value.utf8.contains(0) else {
                throw invalid("\"\(name)\" must be 1 to 256 bytes without NUL")
            }
        }
        for (name, value, range) in [
            ("lifetimeSeconds", lifetimeSeconds, Self.lifetimeRange),
            ("rotationSeconds", rotationSeconds, Self.rotationRange),
            ("leewaySeconds", leewaySeconds, Self.leewayRange),
        ] where !range.contains(value) {
            throw invalid("\"\(name)\" is \(value); use \(range.lowerBound) to \(range.upperBound)")
        }
        guard lifetimeSeconds <= rotationSeconds else {
            throw invalid(
                "\"lifetimeSeconds\" (\(lifetimeSeconds)) is longer than \"rotationSeconds\" (\(rotationSeconds)); "
                    + "a token must not outlive several signing keys")
        }
    }
}

extension TokenConfiguration: Sendable {}
