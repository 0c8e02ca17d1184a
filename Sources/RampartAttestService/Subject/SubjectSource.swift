/// Where the service learns the subject (the backend's user or session) of a request on the public listener.
///
/// The subject is never a field the app fills in: a genuine app instance could otherwise register a key for any user
/// id. It comes from the backend's own authentication, configured as `subject` in `rampart serve --config`:
///
/// - `{"header": "X-User-Id"}` — a header your proxy sets after it authenticated the user. The proxy **must remove
///   a copy the client sent**, or any client can name any user.
/// - `{"jwt": {"jwks": "/path/jwks.json", "issuer": "…", "audience": "…", "algorithms": ["RS256", "ES256"],
///   "leewaySeconds": 60}}` — the app's own session token in `Authorization: Bearer …`, verified against the JWKS
///   file, issuer and audience; its `sub` is the subject.
/// - `{"internal": true}` — only the backend names subjects, on the internal listener (`POST /v1/challenges`,
///   `POST /v1/attestations` and `POST /v1/verify` there take `subject` in the body).
public struct SubjectSource: Hashable, Sendable, CustomStringConvertible {
    /// The settings of a session-JWT subject source.
    public struct JWTSettings: Hashable, Sendable {
        /// The JWKS file with the keys the backend signs session tokens with.
        public var jwks: String
        /// The required `iss`.
        public var issuer: String
        /// The required `aud`.
        public var audience: String
        /// The accepted `alg` values (`RS256`, `ES256`).
        public var algorithms: [String]
        /// Seconds of clock skew tolerated on `exp`, `nbf` and `iat`.
        public var leewaySeconds: Int

        /// Creates settings.
        ///
        /// - Parameters:
        ///   - jwks: The JWKS file.
        ///   - issuer: The issuer.
        ///   - audience: The audience.
        ///   - algorithms: The accepted algorithms.
        ///   - leewaySeconds: The tolerated skew.
        public init(
            jwks: String, issuer: String, audience: String, algorithms: [String] = ["RS256", "ES256"],
            leewaySeconds: Int = 60
        ) {
            self.jwks = jwks
            self.issuer = issuer
            self.audience = audience
            self.algorithms = algorithms
            self.leewaySeconds = leewaySeconds
        }
    }

    enum Backing: Hashable, Sendable {
        case header(String)
        case jwt(JWTSettings)
        case internalOnly
    }

    let backing: Backing

    /// A trusted header that the proxy sets after authenticating the user (and strips from clients).
    ///
    /// - Parameter name: The header's name, e.g. `X-User-Id` (matched case-insensitively).
    /// - Returns: The source.
    public static func header(_ name: String) -> SubjectSource { SubjectSource(backing: .header(name)) }

    /// The app's session JWT in `Authorization: Bearer …`.
    ///
    /// - Parameter settings: The JWKS file, issuer, audience, algorithms and leeway.
    /// - Returns: The source.
    public static func jwt(_ settings: JWTSettings) -> SubjectSource { SubjectSource(backing: .jwt(settings)) }

    /// Subjects only from the backend, on the internal listener.
    public static let internalOnly = SubjectSource(backing: .internalOnly)

    /// The source used with `--demo` when none is configured: the header `X-User-Id`.
    public static let demoDefault = header("X-User-Id")

    /// The header name, for a header source.
    public var headerName: String? {
        if case .header(let name) = backing { return name }
        return nil
    }

    /// The JWT settings, for a session-JWT source.
    public var jwtSettings: JWTSettings? {
        if case .jwt(let settings) = backing { return settings }
        return nil
    }

    /// Whether subjects come only from the internal listener.
    public var isInternalOnly: Bool { backing == .internalOnly }

    /// The configuration form, e.g. `{"header": "X-User-Id"}`.
    public var description: String {
        switch backing {
        case .header(let name): "{\"header\": \"\(name)\"}"
        case .jwt(let settings): "{\"jwt\": {\"jwks\": \"\(settings.jwks)\", …}}"
        case .internalOnly: "{\"internal\": true}"
        }
    }

    /// Where a client is told the subject comes from, for error messages.
    var explanation: String {
        switch backing {
        case .header(let name):
            "the subject comes from the '\(name)' header that your proxy sets after authenticating the user "
                + "(subject \(description))"
        case .jwt:
            "the subject is the 'sub' of the session token in 'Authorization: Bearer …' (subject {\"jwt\": …})"
        case .internalOnly:
            "subjects are named only by the backend on the internal listener (subject {\"internal\": true})"
        }
    }

    /// Checks the header name (an RFC 9110 token) and the JWT settings' ranges.
    ///
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`).
    func validate() throws {
        switch backing {
        case .header(let name):
            let bytes = Array(name.utf8)
            let tchar = Array("!#$%&'*+-.^_`|~".utf8)
            guard (1...64).contains(bytes.count),
                bytes.allSatisfy({ byte in
                    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                        || tchar.contains(byte)
                })
            else {
                throw AttestServiceError.invalidConfiguration(
                    "subject.header must be a header name of 1...64 letters, digits or '-', e.g. \"X-User-Id\"")
            }
            let lower = name.lowercased()
            guard !lower.hasPrefix("rampart-"), lower != "authorization", lower != "content-digest" else {
                throw AttestServiceError.invalidConfiguration(
                    "subject.header cannot be '\(name)', a header the signed request itself uses; name the header "
                        + "your proxy sets, e.g. \"X-User-Id\"")
            }
        case .jwt(let settings):
            guard !settings.jwks.isEmpty, !settings.issuer.isEmpty, !settings.audience.isEmpty else {
                throw AttestServiceError.invalidConfiguration(
                    "subject.jwt needs \"jwks\" (a JWKS file), \"issuer\" and \"audience\"")
            }
            guard !settings.algorithms.isEmpty, settings.algorithms.allSatisfy({ $0 == "RS256" || $0 == "ES256" })
            else {
                throw AttestServiceError.invalidConfiguration(
                    "subject.jwt.algorithms must list RS256 and/or ES256")
            }
            guard (0...SessionTokenConfiguration.maximumLeewaySeconds).contains(settings.leewaySeconds) else {
                throw AttestServiceError.invalidConfiguration(
                    "subject.jwt.leewaySeconds must be 0...\(SessionTokenConfiguration.maximumLeewaySeconds)")
            }
        case .internalOnly:
            break
        }
    }
}
