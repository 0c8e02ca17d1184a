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
/// A request's target is first checked by the strict path rule of `RequestTarget` (dot segments, `//`, `%2F`, `\`
/// and encoded controls are refused before any matching). Then two lookups run and the **stricter** result wins:
///
/// 1. **As sent**: the normalised path bytes (unreserved escapes such as `%41` decoded, RFC 3986 6.2.2) against each
///    rule, byte for byte; the most specific matching rule applies (an exact path beats a prefix, a longer prefix
///    beats a shorter one, a named method beats `*`, then the earlier rule), else ``defaultPolicy``.
/// 2. **As a lenient backend might read it**: ASCII case folded, every escape decoded, `;parameters` dropped from
///    each segment (servlet containers do), a trailing `/` ignored, and the method also read as `GET` for `HEAD`
///    and as the value of `X-HTTP-Method-Override`, `X-HTTP-Method` or `X-Method-Override`; the most specific rule
///    that matches under that reading.
///
/// So `/API/Admin`, `/api/admin/` and `/api/admin;x=1` get the policy of a rule for `/api/admin` even when a laxer
/// `/api/*` would match their bytes, while an exception such as `/api/public/*` (open) under `/api/*`
/// (require-assertion) keeps working for the paths it names. The query never takes part: routes match on the path.
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

    /// The policy of a request, and whether a rule (rather than ``defaultPolicy``) decided it.
    ///
    /// - Parameters:
    ///   - method: The request's method as sent.
    ///   - target: The checked target.
    ///   - headers: The request's headers (lower-cased names), for method-override headers.
    /// - Returns: The stricter of the two lookups; `matched` is false when only ``defaultPolicy`` applied.
    func policy(
        method: String, target: RequestTarget, headers: [String: String]
    ) -> (policy: RoutePolicy, matched: Bool) {
        let methodBytes = Array(method.utf8)
        let asSent = compiled.filter { rule in
            (rule.method.map { $0 == methodBytes } ?? true)
                && (rule.exact.map { $0 == target.path } ?? rule.prefix.map { target.path.starts(with: $0) } ?? false)
        }
        var policy = Self.mostSpecific(asSent)?.policy ?? defaultPolicy
        let path = Self.lenient(target.path)
        var methods: Set<[UInt8]> = [Self.upper(methodBytes)]
        if Self.upper(methodBytes) == Array("HEAD".utf8) { methods.insert(Array("GET".utf8)) }
        for name in ["x-http-method-override", "x-http-method", "x-method-override"] {
            if let value = headers[name], value.utf8.count <= 32 { methods.insert(Self.upper(Array(value.utf8))) }
        }
        for candidate in methods {
            let lenientMatches = compiled.filter { rule in
                (rule.method.map { $0 == candidate } ?? true)
                    && (rule.exact == nil
                        ? (path + [UInt8(ascii: "/")]).starts(with: rule.lenientPath)
                            || path.starts(with: rule.lenientPath)
                        : path == rule.lenientPath)
            }
            if let rule = Self.mostSpecific(lenientMatches), rule.policy.strictness > policy.strictness {
                policy = rule.policy
            }
        }
        return (policy, !asSent.isEmpty)
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
        var decoded: [UInt8] = []
        decoded.reserveCapacity(path.count)
        var index = 0
        while index < path.count {
            // RequestTarget left only well-formed escapes.
            if path[index] == UInt8(ascii: "%"), index + 2 < path.count,
                let value = UInt8(String(decoding: path[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
            {
                decoded.append(value)
                index += 3
            } else {
                decoded.append(path[index])
                index += 1
            }
        }
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
