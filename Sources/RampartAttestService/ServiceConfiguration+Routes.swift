import Foundation

extension ServiceConfiguration {
    /// The route table of ``routes`` and ``defaultPolicy``.
    ///
    /// - Returns: The checked table.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the rule.
    public func routeTable() throws -> RouteTable {
        try RouteTable(rules: routes, defaultPolicy: defaultPolicy)
    }

    /// The subject source `rampart serve` uses: the configured one, or with ``demo`` the default header source.
    ///
    /// - Returns: The source, and whether it is the demo default (which `rampart serve` logs as a warning).
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) when none is configured outside the demo.
    public func effectiveSubjectSource() throws -> (source: SubjectSource, isDemoDefault: Bool) {
        if let subject { return (subject, false) }
        guard demo else {
            throw AttestServiceError.invalidConfiguration(
                "no subject source: set \"subject\" in --config to where your backend's authentication puts the "
                    + "user, e.g. {\"subject\": {\"header\": \"X-User-Id\"}} (a header your proxy sets and strips "
                    + "from clients), {\"subject\": {\"jwt\": {\"jwks\": FILE, \"issuer\": …, \"audience\": …}}} or "
                    + "{\"subject\": {\"internal\": true}}; or pass --subject-header NAME")
        }
        return (SubjectSource.demoDefault, true)
    }

    /// The access-token configuration: ``tokens`` with the app id `TEAMID.bundle` as the default audience.
    ///
    /// - Returns: The configuration, or nil when no audience is known (no ``tokens`` audience, team id or bundle id):
    ///   the service then issues no tokens.
    public func tokenConfiguration() -> TokenConfiguration? {
        let audience =
            tokens.audience
            ?? teamId.flatMap { team in
                bundleId.map { TokenConfiguration.defaultAudience(teamID: team, bundleID: $0) }
            }
        guard let audience else { return nil }
        return TokenConfiguration(issuer: tokens.issuer, audience: audience, lifetimeSeconds: tokens.lifetimeSeconds)
    }

    static let routesExample =
        #"[{"method": "POST", "path": "/api/points/*", "policy": "require-assertion"}, "#
        + #"{"method": "*", "path": "/api/public/*", "policy": "open"}]"#

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    private struct RuleFields: Decodable {
        let method: String
        let path: String
        let policy: String
    }

    static func decodeRoutes<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>) throws -> [RouteRule] {
        guard let key = container.allKeys.first(where: { $0.stringValue == "routes" }) else { return [] }
        if (try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key)) != nil {
            throw AttestServiceError.invalidConfiguration(
                "'routes' is now a list of rules, not an object of path: policy; write it as \(routesExample) "
                    + "(exact paths or trailing '*' prefixes; method or '*'; policies \(RoutePolicy.names))")
        }
        var list: any UnkeyedDecodingContainer
        do {
            list = try container.nestedUnkeyedContainer(forKey: key)
        } catch {
            throw AttestServiceError.invalidConfiguration("'routes' must be a list of rules like \(routesExample)")
        }
        var rules: [RouteRule] = []
        while !list.isAtEnd {
            let index = rules.count
            guard rules.count < RouteTable.maximumRuleCount else {
                throw AttestServiceError.invalidConfiguration(
                    "routes has more than \(RouteTable.maximumRuleCount) rules; use '*' prefixes")
            }
            let object = try list.nestedContainer(keyedBy: AnyKey.self)
            if let unknown = object.allKeys.first(where: { !["method", "path", "policy"].contains($0.stringValue) }) {
                throw AttestServiceError.invalidConfiguration(
                    "unknown key 'routes[\(index)].\(unknown.stringValue.prefix(40))'; a rule has method, path and "
                        + "policy")
            }
            func field(_ name: String) throws -> String {
                guard let value = try object.decodeIfPresent(String.self, forKey: AnyKey(stringValue: name)) else {
                    throw AttestServiceError.invalidConfiguration(
                        "routes[\(index)] needs \"\(name)\"; a rule looks like \(routesExample)")
                }
                return value
            }
            let policyName = try field("policy")
            guard let policy = RoutePolicy(rawValue: policyName) else {
                throw AttestServiceError.invalidConfiguration(
                    "routes[\(index)].policy must be one of \(RoutePolicy.names)")
            }
            rules.append(RouteRule(method: try field("method"), path: try field("path"), policy: policy))
        }
        return rules
    }

    static func decodeSubject<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>) throws -> SubjectSource {
        let usage =
            #"'subject' must be one of {"header": "X-User-Id"}, {"jwt": {"jwks": FILE, "issuer": …, "#
            + #""audience": …}} or {"internal": true}"#
        guard let key = container.allKeys.first(where: { $0.stringValue == "subject" }),
            let object = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key), object.allKeys.count == 1,
            let only = object.allKeys.first
        else { throw AttestServiceError.invalidConfiguration(usage) }
        switch only.stringValue {
        case "header":
            guard let name = try? object.decode(String.self, forKey: only) else {
                throw AttestServiceError.invalidConfiguration("subject.header must be a header name, e.g. X-User-Id")
            }
            return .header(name)
        case "internal":
            guard (try? object.decode(Bool.self, forKey: only)) == true else {
                throw AttestServiceError.invalidConfiguration(
                    "subject.internal must be true (subjects only via the internal listener)")
            }
            return .internalOnly
        case "jwt":
            guard let jwt = try? object.nestedContainer(keyedBy: AnyKey.self, forKey: only) else {
                throw AttestServiceError.invalidConfiguration(usage)
            }
            let keys = ["jwks", "issuer", "audience", "algorithms", "leewaySeconds"]
            if let unknown = jwt.allKeys.first(where: { !keys.contains($0.stringValue) }) {
                throw AttestServiceError.invalidConfiguration(
                    "unknown key 'subject.jwt.\(unknown.stringValue.prefix(40))'; the keys are "
                        + keys.joined(separator: ", "))
            }
            func text(_ name: String) throws -> String {
                guard let value = try? jwt.decode(String.self, forKey: AnyKey(stringValue: name)) else {
                    throw AttestServiceError.invalidConfiguration("subject.jwt.\(name) is required (a string)")
                }
                return value
            }
            var settings = SubjectSource.JWTSettings(
                jwks: try text("jwks"), issuer: try text("issuer"), audience: try text("audience"))
            let algorithms = AnyKey(stringValue: "algorithms")
            if jwt.contains(algorithms) {
                guard let list = try? jwt.decode([String].self, forKey: algorithms) else {
                    throw AttestServiceError.invalidConfiguration(
                        "subject.jwt.algorithms must be a list such as [\"RS256\", \"ES256\"]")
                }
                settings.algorithms = list
            }
            let leeway = AnyKey(stringValue: "leewaySeconds")
            if jwt.contains(leeway) {
                guard let number = try? jwt.decode(Double.self, forKey: leeway), let value = Int(exactly: number)
                else {
                    throw AttestServiceError.invalidConfiguration("subject.jwt.leewaySeconds must be a whole number")
                }
                settings.leewaySeconds = value
            }
            return .jwt(settings)
        default:
            throw AttestServiceError.invalidConfiguration(usage)
        }
    }

    static func decodeTokens<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>
    ) throws -> TokenSettings {
        guard let key = container.allKeys.first(where: { $0.stringValue == "tokens" }),
            let object = try? container.nestedContainer(keyedBy: AnyKey.self, forKey: key)
        else {
            throw AttestServiceError.invalidConfiguration(
                #"'tokens' must be an object: {"issuer": "rampart", "audience": "TEAMID.bundle", "lifetimeSeconds": 900}"#
            )
        }
        let keys = ["issuer", "audience", "lifetimeSeconds"]
        if let unknown = object.allKeys.first(where: { !keys.contains($0.stringValue) }) {
            throw AttestServiceError.invalidConfiguration(
                "unknown key 'tokens.\(unknown.stringValue.prefix(40))'; the keys are " + keys.joined(separator: ", "))
        }
        var settings = TokenSettings()
        for name in ["issuer", "audience"] {
            let field = AnyKey(stringValue: name)
            guard object.contains(field) else { continue }
            guard let value = try? object.decode(String.self, forKey: field) else {
                throw AttestServiceError.invalidConfiguration("tokens.\(name) must be a string")
            }
            if name == "issuer" { settings.issuer = value } else { settings.audience = value }
        }
        let lifetime = AnyKey(stringValue: "lifetimeSeconds")
        if object.contains(lifetime) {
            guard let number = try? object.decode(Double.self, forKey: lifetime), let value = Int(exactly: number)
            else {
                throw AttestServiceError.invalidConfiguration("tokens.lifetimeSeconds must be a whole number")
            }
            settings.lifetimeSeconds = value
        }
        return settings
    }
}
