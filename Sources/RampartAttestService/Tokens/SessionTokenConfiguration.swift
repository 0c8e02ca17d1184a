/// The `jwt` subject source: where the app's own session JWTs are checked against.
///
/// In `rampart serve --config FILE` it is
/// `"subject": {"jwt": {"jwks": PATH, "issuer": …, "audience": …, "algorithms": ["RS256", "ES256"],
/// "leewaySeconds": 60}}`; ``SessionTokenVerifier/init(configuration:log:)`` checks the values and reads the JWKS.
public struct SessionTokenConfiguration: Hashable {
    /// The default clock skew allowed on `exp`, `nbf` and `iat`, in seconds.
    public static let defaultLeewaySeconds = 60
    /// The largest leeway accepted, in seconds: more would keep an expired session usable for too long.
    public static let maximumLeewaySeconds = 300

    /// The path of the identity provider's JWKS file (RFC 7517), as served at its `jwks_uri`.
    public var jwksPath: String
    /// The `iss` every session JWT must carry, compared as bytes.
    public var issuer: String
    /// The audience every session JWT's `aud` must be or include, compared as bytes.
    public var audience: String
    /// The JOSE algorithm names accepted: `RS256`, `ES256` or both.
    public var algorithms: [String]
    /// Clock skew allowed on `exp`, `nbf` and `iat`, 0 to ``maximumLeewaySeconds``.
    public var leewaySeconds: Int

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - jwksPath: The JWKS file.
    ///   - issuer: The required `iss`.
    ///   - audience: The required `aud`.
    ///   - algorithms: The accepted `alg` values; both RS256 and ES256 by default.
    ///   - leewaySeconds: Clock skew; ``defaultLeewaySeconds`` by default.
    public init(
        jwksPath: String, issuer: String, audience: String, algorithms: [String] = ["RS256", "ES256"],
        leewaySeconds: Int = defaultLeewaySeconds
    ) {
        self.jwksPath = jwksPath
        self.issuer = issuer
        self.audience = audience
        self.algorithms = algorithms
        self.leewaySeconds = leewaySeconds
    }
}

extension SessionTokenConfiguration: Sendable {}
