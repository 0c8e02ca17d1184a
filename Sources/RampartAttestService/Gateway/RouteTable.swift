/// One route of the backend Rampart protects: a method, a path and the ``RoutePolicy`` requests to it get.
///
/// `path` is an exact path (`/api/profile`) or a prefix ending in `*` (`/api/points/*` covers every path that
/// starts with `/api/points/`). `method` is an upper-case HTTP method or `*` for any.
public struct RouteRule: Hashable, Sendable, CustomStringConvertible {
    /// `GET`, `POST`, …, or `*`.
    public var method: String
    /// An exact path, or a prefix followed by `*`.
    public var path: String
    /// The policy of matching requests.
    public var policy: RoutePolicy

    /// Creates a rule; ``RouteTable/init(rules:defaultPolicy:)`` checks it.
    ///
    /// - Parameters:
    ///   - method: The method, or `*`.
    ///   - path: The path, or a prefix and `*`.
    ///   - policy: The policy.
    public init(method: String, path: String, policy: RoutePolicy) {
        self.method = method
        self.path = path
        self.policy = policy
    }

    /// `METHOD path -> policy`.
    public var description: String { "\(method) \(path) -> \(policy.rawValue)" }
}

/// The backend's routes and the policy each request gets, chosen so that no spelling of a path reaches a laxer
/// policy than the route a backend would serve it from.
///
/// **The most specific rule wins** (not the first): an exact path beats a prefix, a longer prefix beats a shorter
/// one, a named method beats `*`, and only between rules equal on all three does the earlier one win. A request no
/// rule matches gets ``defaultPolicy``.
///
/// A request's target is first checked by the strict path rule of `RequestTarget`: a target that common backends
/// could read as different paths (dot segments in any spelling, `..;`, `//`, `%2F`, `%25`, `\`, encoded non-ASCII,
/// segments ending in `.` or a space) is refused before any matching. Then every reading a backend could give the
/// remaining path is looked up, and the **strictest** policy wins:
///
/// 1. **As sent**: the normalised path bytes (unreserved escapes such as `%41` decoded, RFC 3986 6.2.2) against each
///    rule, byte for byte.
/// 2. **As a lenient backend reads it**: ASCII case folded (ASP.NET Core, Spring with case-insensitive matching),
///    every escape decoded, `;parameters` dropped from each segment (servlet containers, Spring), a trailing `/`
///    ignored (Express and Spring by default), and also with the last segment's `.suffix` dropped (Rails'
///    `(.:format)`, Spring's suffix patterns), matched with the same specificity order.
///
/// Each lookup runs for every method the request could mean to a backend: the method as sent, `GET` for `HEAD`,
/// each method named in `X-HTTP-Method-Override`, `X-HTTP-Method` or `X-Method-Override` (a list names several),
/// and *any* method when an override names an unknown method, when the query has a `_method` field, or when a
/// `POST` carries a form body (`application/x-www-form-urlencoded`, `multipart/form-data`) whose `_method` field
/// Rails, Laravel and Symfony read and the gateway may not see. An override that is not a list of method tokens is
/// refused (`invalidField`).
///
/// So `/API/Admin`, `/api/admin/`, `/api/admin;x=1` and `/api/admin.json` get the policy of a rule for `/api/admin`
/// even when a laxer `/api/*` would match their bytes, while an exception such as `/api/public/*` (open) under
/// `/api/*` (require-assertion) keeps working for the paths it names. The query never takes part: routes match on
/// the path.
public struct RouteTable: Hashable, Sendable {
    /// The most rules a table holds (a configuration bound; each request scans them).
    public static let maximumRuleCount = 1024

    /// The rules, in configuration order.
    public let rules: [RouteRule]
    /// The policy of a request no rule matches (default ``RoutePolicy/requireAssertion``).
    public let defaultPolicy: RoutePolicy

    struct Compiled: Hashable, Sendable {
        let method: [UInt8]?  // nil: any
        let exact: [UInt8]?
        let prefix: [UInt8]?
        let lenientPath: [UInt8]
        let policy: RoutePolicy
        let order: Int
    }

    let compiled: [Compiled]

    /// A table without rules: every request gets `policy`.
    ///
    /// - Parameter policy: The policy of every request.
    /// - Returns: The table.
    public static func everyRoute(_ policy: RoutePolicy) -> RouteTable {
        RouteTable(rules: [], defaultPolicy: policy, compiled: [])
    }

    private init(rules: [RouteRule], defaultPolicy: RoutePolicy, compiled: [Compiled]) {
        self.rules = rules
        self.defaultPolicy = defaultPolicy
        self.compiled = compiled
    }

    /// Checks and compiles `rules`.
    ///
    /// - Parameters:
    ///   - rules: The routes.
    ///   - defaultPolicy: The policy of unmatched requests.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the rule and what to change.
    public init(rules: [RouteRule], defaultPolicy: RoutePolicy = .requireAssertion) throws {
        guard rules.count <= Self.maximumRuleCount else {
            throw AttestServiceError.invalidConfiguration(
                "routes has \(rules.count) rules; at most \(Self.maximumRuleCount) are allowed (use '*' prefixes)")
        }
        var compiled: [Compiled] = []
        var seen: Set<[UInt8]> = []
        for (order, rule) in rules.enumerated() {
            let entry = try Self.compile(rule, order: order)
            let key = Array("\(rule.method) \(rule.path)".utf8)
            guard seen.insert(key).inserted else {
                throw AttestServiceError.invalidConfiguration(
                    "routes lists '\(rule.method.prefix(32)) \(rule.path.prefix(80))' twice; keep one rule per method "
                        + "and path")
            }
            compiled.append(entry)
        }
        self.rules = rules
        self.defaultPolicy = defaultPolicy
        self.compiled = compiled
    }

    private static func compile(_ rule: RouteRule, order: Int) throws -> Compiled {
        let shown = "'\(rule.method.prefix(32)) \(rule.path.prefix(80))'"
        let methodBytes = Array(rule.method.utf8)
        guard
            rule.method == "*"
                || (1...32).contains(methodBytes.count)
                    && methodBytes.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) })
        else {
            throw AttestServiceError.invalidConfiguration(
                "routes rule \(shown): method must be an upper-case HTTP method such as POST, or '*' for any")
        }
        var path = Array(rule.path.utf8)
        let isPrefix = path.last == UInt8(ascii: "*")
        if isPrefix { path.removeLast() }
        guard path.first == UInt8(ascii: "/"), !path.contains(UInt8(ascii: "*")), !path.contains(UInt8(ascii: "?"))
        else {
            throw AttestServiceError.invalidConfiguration(
                "routes rule \(shown): path must start with '/', hold no query, and use '*' only at the end "
                    + "(e.g. \"/api/points/*\")")
        }
        let target: RequestTarget
        do {
            target = try RequestTarget(String(decoding: path, as: UTF8.self))
        } catch let error as AttestServiceError {
            throw AttestServiceError.invalidConfiguration("routes rule \(shown): \(error.reason)")
        }
        return Compiled(
            method: rule.method == "*" ? nil : methodBytes, exact: isPrefix ? nil : target.path,
            prefix: isPrefix ? target.path : nil,
            lenientPath: isPrefix ? lenientPrefix(target.path) : lenient(target.path), policy: rule.policy,
            order: order)
    }

    /// The policy a request gets, for `rampart routes` and for code that wants to ask before deploying a table.
    ///
    /// - Parameters:
    ///   - method: The request's method, e.g. `GET`.
    ///   - target: The request target as sent (path and query).
    ///   - headers: The request's headers, for method overrides and the content type (names in any case).
    /// - Returns: The policy, and the rule that decided it (nil: ``defaultPolicy``).
    /// - Throws: ``AttestServiceError``: `invalidTarget` for a target backends read differently (the service answers
    ///   400, or 403 on `/auth-request`), `invalidField` for a method-override header that names no method.
    public func decision(
        method: String, target: String, headers: [String: String] = [:]
    ) throws -> (policy: RoutePolicy, rule: RouteRule?) {
        var lowercased: [String: String] = [:]
        for (name, value) in headers { lowercased[name.lowercased()] = value }
        let decision = try policy(method: method, target: RequestTarget(target), headers: lowercased)
        return (decision.policy, decision.rule)
    }

    /// The policy of a request and the rule that decided it.
    struct Decision {
        /// The strictest policy of every reading.
        var policy: RoutePolicy
        /// The rule that gave ``policy``; nil when ``RouteTable/defaultPolicy`` did.
        var rule: RouteRule?
    }

    /// The policy of a request (see the type's discussion).
    ///
    /// - Parameters:
    ///   - method: The request's method as sent.
    ///   - target: The checked target.
    ///   - headers: The request's headers (lower-cased names), for method overrides and the content type.
    /// - Returns: The strictest policy of every reading and the rule that gave it.
    /// - Throws: ``AttestServiceError`` (`invalidField`) for a method-override header that is not a list of methods.
    func policy(method: String, target: RequestTarget, headers: [String: String]) throws -> Decision {
        let methodBytes = Array(method.utf8)
        let asSent = Self.mostSpecific(
            compiled.filter { rule in
                Self.matches(rule.method, methodBytes) && Self.matchesAsSent(rule, target.path)
            })
        var decision = Decision(policy: asSent?.policy ?? defaultPolicy, rule: asSent.map { rules[$0.order] })
        func consider(_ rule: Compiled?) {
            let policy = rule?.policy ?? defaultPolicy
            // A stricter reading wins; an equally strict rule names the rule where only the default decided.
            if policy.strictness > decision.policy.strictness
                || (decision.rule == nil && rule != nil && policy == decision.policy)
            {
                decision.policy = policy
                decision.rule = rule.map { rules[$0.order] }
            }
        }
        let readings = Self.lenientReadings(target.path)
        var candidates: [[UInt8]] = []
        for method in try Self.methods(method: methodBytes, target: target, headers: headers) {
            // Any method: each method a rule names, and one no rule names (only '*' rules and the default).
            candidates += method.map { [$0] } ?? (Array(Set(compiled.compactMap(\.method))) + [[]])
        }
        for candidate in candidates {
            // Another method the backend may route the request as: its rule for the path, else the default.
            if candidate != Self.upper(methodBytes) {
                consider(
                    Self.mostSpecific(
                        compiled.filter { rule in
                            Self.matches(rule.method, candidate) && Self.matchesAsSent(rule, target.path)
                        }))
            }
            // Other spellings of the path that a backend maps to a rule.
            for path in readings {
                consider(
                    Self.mostSpecific(
                        compiled.filter { rule in
                            Self.matches(rule.method, candidate)
                                && (rule.exact == nil
                                    ? (path + [UInt8(ascii: "/")]).starts(with: rule.lenientPath)
                                        || path.starts(with: rule.lenientPath)
                                    : path == rule.lenientPath)
                        }))
            }
        }
        return decision
    }

    /// Whether a rule's method covers `candidate` (a rule's nil method is `*`).
    private static func matches(_ ruleMethod: [UInt8]?, _ candidate: [UInt8]) -> Bool {
        ruleMethod == nil || ruleMethod == candidate
    }

    /// Whether a rule's path covers the normalised path byte for byte.
    private static func matchesAsSent(_ rule: Compiled, _ path: [UInt8]) -> Bool {
        rule.exact.map { $0 == path } ?? rule.prefix.map { path.starts(with: $0) } ?? false
    }

    /// The method-override headers backends honour (Express's method-override, Rails, Spring's
    /// HiddenHttpMethodFilter reads the form field only, ASP.NET Core's HttpMethodOverride).
    static let overrideHeaders = ["x-http-method-override", "x-http-method", "x-method-override"]

    /// The longest method name an override may hold.
    static let maximumMethodLength = 32

    /// The methods a backend may read the request as; nil stands for any method.
    private static func methods(
        method: [UInt8], target: RequestTarget, headers: [String: String]
    ) throws -> [[UInt8]?] {
        var methods: [[UInt8]?] = [upper(method)]
        if upper(method) == Array("HEAD".utf8) { methods.append(Array("GET".utf8)) }
        for name in overrideHeaders {
            guard let value = headers[name] else { continue }
            let items = value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
            guard items.count <= 16 else {
                throw AttestServiceError.invalidField(
                    "the \(name) header names more than 16 methods; send one method")
            }
            for item in items {
                let token = Array(
                    item.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }
                        .reversed())
                guard (1...maximumMethodLength).contains(token.count), token.allSatisfy(isLetter) else {
                    throw AttestServiceError.invalidField(
                        "the \(name) header must name an HTTP method such as DELETE (or a comma-separated list); "
                            + "backends read other values differently, so send one method or none")
                }
                let named = upper(token)
                methods.append(knownMethods.contains(named) ? named : nil)
            }
        }
        let query = target.raw.utf8.split(separator: UInt8(ascii: "?"), maxSplits: 1).dropFirst().first ?? []
        let queryNamesMethod = query.split(separator: UInt8(ascii: "&")).contains { field in
            upper(RequestTarget.percentDecoded(field.prefix { $0 != UInt8(ascii: "=") })) == Array("_METHOD".utf8)
        }
        let contentType = headers["content-type"].map { upper(Array($0.utf8)) } ?? []
        let formBody = ["APPLICATION/X-WWW-FORM-URLENCODED", "MULTIPART/FORM-DATA"].contains {
            contentType.starts(with: Array($0.utf8))
        }
        if queryNamesMethod || (formBody && upper(method) == Array("POST".utf8)) { methods.append(nil) }
        return methods
    }

    /// RFC 9110 9.3's methods and RFC 5789's `PATCH`: what a backend's override maps to a route.
    private static let knownMethods: Set<[UInt8]> = Set(
        ["GET", "HEAD", "POST", "PUT", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH"].map { Array($0.utf8) })

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// The lenient readings of a normalised path: ``lenient(_:)``, and that without the last segment's `.suffix`.
    static func lenientReadings(_ path: [UInt8]) -> [[UInt8]] {
        let reading = lenient(path)
        let lastSegment = reading.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        guard let dot = reading[lastSegment...].lastIndex(of: UInt8(ascii: ".")), dot > lastSegment else {
            return [reading]
        }
        return [reading, Array(reading[..<dot])]
    }

    /// Exact paths beat prefixes, longer prefixes beat shorter ones, a named method beats `*`, then rule order.
    private static func mostSpecific(_ rules: [Compiled]) -> Compiled? {
        rules.min { lhs, rhs in
            let left = (lhs.exact != nil ? 1 : 0, lhs.prefix?.count ?? 0, lhs.method != nil ? 1 : 0, -lhs.order)
            let right = (rhs.exact != nil ? 1 : 0, rhs.prefix?.count ?? 0, rhs.method != nil ? 1 : 0, -rhs.order)
            return left > right
        }
    }

    private static func upper(_ bytes: [UInt8]) -> [UInt8] {
        bytes.map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 0x20 : $0 }
    }

    /// The lenient reading of a normalised path: escapes decoded, ASCII lower-cased, `;…` dropped from each
    /// segment, and no trailing `/` (except for the root).
    static func lenient(_ path: [UInt8]) -> [UInt8] {
        let decoded = RequestTarget.percentDecoded(path)
        var result: [UInt8] = []
        var inParameters = false
        for byte in decoded {
            if byte == UInt8(ascii: "/") {
                inParameters = false
            } else if byte == UInt8(ascii: ";") {
                inParameters = true
            }
            if inParameters { continue }
            result.append((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 0x20 : byte)
        }
        while result.count > 1, result.last == UInt8(ascii: "/") { result.removeLast() }
        return result
    }

    /// The lenient reading of a prefix: as ``lenient(_:)``, but a trailing `/` is kept (it separates the prefix
    /// from what follows).
    static func lenientPrefix(_ prefix: [UInt8]) -> [UInt8] {
        var result = lenient(prefix)
        if prefix.last == UInt8(ascii: "/"), result.last != UInt8(ascii: "/") { result.append(UInt8(ascii: "/")) }
        return result
    }
}
