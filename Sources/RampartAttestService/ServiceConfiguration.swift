import Foundation
import RampartHTTP

/// Everything `rampart serve` needs, from a JSON configuration file and command-line flags (flags win).
///
/// ```json
/// {
///   "listen": "127.0.0.1:8080",
///   "database": "sqlite:rampart.db",
///   "teamId": "ABCDE12345", "bundleId": "com.example.app", "environment": "production",
///   "root": "/etc/rampart/app-attest-root.pem",
///   "challengeLifetimeSeconds": 300, "riskBlockThreshold": 5, "riskDecaySeconds": 86400,
///   "counterReorderWindow": 16, "maximumBodyBytes": 65536,
///   "limits": { "challengesPerAddressPerMinute": 120, "challengesPerSubjectPerMinute": 60,
///               "failuresPerAddressPerMinute": 30 },
///   "subject": { "header": "X-User-Id" },
///   "routes": [ { "method": "POST", "path": "/api/points/*", "policy": "require-assertion" },
///               { "method": "GET", "path": "/api/catalog/*", "policy": "open" } ],
///   "defaultPolicy": "require-assertion",
///   "tokens": { "issuer": "rampart", "audience": "ABCDE12345.com.example.app", "lifetimeSeconds": 900 }
/// }
/// ```
///
/// Every value is checked when the file is read: an unknown key, a value of the wrong type, a number out of range
/// or a route rule that cannot be matched safely is refused with a message naming the key. A key that is accepted
/// but has no effect (`limits.outstandingChallengesPerSubject`) is a ``Warning`` in ``warnings``, logged at start.
/// `rampart serve` refuses to start without `subject` (``SubjectSource``), except with `--demo`.
public struct ServiceConfiguration: Hashable, Decodable {
    /// `HOST:PORT` to listen on; IPv6 hosts in brackets, e.g. `[::1]:8080`.
    public var listen: String = "127.0.0.1:8080"
    /// `sqlite:PATH` or `postgres://user:password@host:port/database`.
    public var database: String = "sqlite:rampart.db"
    /// The Apple Developer team id of the app.
    public var teamId: String?
    /// The app's bundle id.
    public var bundleId: String?
    /// `production` or `development`.
    public var environment: String = "production"
    /// A PEM file with the App Attest root to trust; nil means Apple's App Attest root.
    public var root: String?
    /// Seconds a challenge stays valid.
    public var challengeLifetimeSeconds: Double = 300
    /// Risk points at which a key is blocked.
    public var riskBlockThreshold: Int = 5
    /// Seconds for a key's risk to lose one point; 0 means risk never decays.
    public var riskDecaySeconds: Double = 86400
    /// How far below the stored counter a signed assertion may be and count as reordering (not risk).
    public var counterReorderWindow: Int = 16
    /// Issuance and failure limits.
    public var limits: RequestLimits = .default
    /// The request body cap in bytes.
    public var maximumBodyBytes: Int = HTTPServer.Configuration.defaultMaximumBodyByteCount
    /// PostgreSQL connections per process.
    public var postgresPoolSize: Int = PostgresAttestationStore.defaultPoolSize
    /// When set, the operator routes require `Authorization: Bearer <token>`; at least 32 bytes and not a
    /// repetition of a few characters (see ``validateListeners()``).
    public var operatorToken: String?
    /// Host names (or addresses) the internal listener answers besides loopback ones and its own listen address:
    /// the names your backend calls it by. Any other `Host` is refused (`crossOriginRequest`), so a web page cannot
    /// reach the listener through DNS rebinding. At most 64.
    public var adminHosts: [String] = []
    /// `HOST:PORT` of the admin listener (operator routes, `/metrics`, `/healthz`); loopback unless a token is set.
    public var adminListen: String = ServiceConfiguration.defaultAdminListen
    /// The most simultaneous connections per listener (see ``HTTPServer/Configuration/connectionLimit``).
    public var connectionLimit: Int = HTTPServer.Configuration.defaultConnectionLimit
    /// The most simultaneous connections from one client address, 0 for none; the ``trustedProxies`` are exempt
    /// (see ``HTTPServer/Configuration/proxyAddresses``).
    public var connectionsPerAddress: Int = HTTPServer.Configuration.defaultConnectionsPerAddress
    /// Seconds a request has to arrive whole, head and body (see ``HTTPServer/Configuration/requestTimeoutSeconds``).
    public var requestTimeoutSeconds: Double = HTTPServer.Configuration.defaultRequestTimeoutSeconds
    /// The gateways and reverse proxies whose `X-Forwarded-For` names the client (IP addresses; default the loopback
    /// addresses). Per-address failure and issuance limits charge the last `X-Forwarded-For` entry of a request from
    /// one of them, and the TCP peer otherwise: a client that reaches the listener directly cannot choose the
    /// address it is charged as. Their connections are exempt from ``connectionsPerAddress``.
    public var trustedProxies: [String] = ServiceConfiguration.defaultTrustedProxies
    /// The default ``trustedProxies``: `127.0.0.1` and `::1`.
    public static let defaultTrustedProxies = ["127.0.0.1", "::1"]
    /// The challenge sealing keys (see ``challengeSealingKeys(environment:)``).
    public var challenges = ChallengeSettings()
    /// Where the subject of public requests comes from; nil: not configured (`rampart serve` refuses to start
    /// unless ``demo`` is set, which defaults it to ``SubjectSource/demoDefault``).
    public var subject: SubjectSource?
    /// The backend's routes and their policies (``RouteTable``), for the gateway checks and `POST /v1/verify`.
    public var routes: [RouteRule] = []
    /// The policy of a request no route matches.
    public var defaultPolicy: RoutePolicy = .requireAssertion
    /// The access tokens of `POST /v1/tokens`.
    public var tokens = TokenSettings()
    /// The Android Key Attestation policy (`"android"`); nil: Android keys are refused (`androidNotConfigured`).
    public var android: AndroidSettings?
    /// Whether the demo routes `/v1/demo/points/*` exist (`--demo`; `rampart demo` sets it).
    public var demo = false
    /// The keys of the file that were accepted but change nothing (``Warning``); ``AttestationServer`` logs them.
    public private(set) var warnings: [Warning] = []

    /// The access-token settings (`"tokens"` in the file).
    public struct TokenSettings: Hashable, Sendable {
        /// The `iss` of issued tokens (default `rampart`).
        public var issuer = "rampart"
        /// The `aud` of issued tokens; nil: the app id `TEAMID.bundle`.
        public var audience: String?
        /// Seconds a token lives (default 900).
        public var lifetimeSeconds = 900

        /// The defaults.
        public init() {}
    }

    /// The defaults.
    public init() {}

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case listen, database, teamId, bundleId, environment, root, challengeLifetimeSeconds, riskBlockThreshold
        case maximumBodyBytes, postgresPoolSize, operatorToken, routes, riskDecaySeconds, counterReorderWindow, limits
        case adminListen, connectionLimit, connectionsPerAddress, requestTimeoutSeconds, trustedProxies, adminHosts
        case subject, defaultPolicy, tokens, challenges, android
    }

    private enum LimitKeys: String, CodingKey, CaseIterable {
        case challengesPerAddressPerMinute, challengesPerSubjectPerMinute, failuresPerAddressPerMinute
        case ipv6PrefixLength
        /// Accepted (a whole number) and ignored, with ``Warning/outstandingChallengesPerSubject``.
        case outstandingChallengesPerSubject
    }

    /// Decodes a configuration file; absent keys keep their defaults, unknown keys are refused.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: A decoding error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let known = Set(container.allKeys.map(\.stringValue))
        let all = try decoder.container(keyedBy: AnyKey.self)
        if let unknown = all.allKeys.first(where: { !known.contains($0.stringValue) }) {
            throw AttestServiceError.invalidConfiguration(
                "unknown configuration key '\(unknown.stringValue)'; the keys are "
                    + CodingKeys.allCases.map(\.rawValue).joined(separator: ", "))
        }
        listen = try container.decodeIfPresent(String.self, forKey: .listen) ?? listen
        database = try container.decodeIfPresent(String.self, forKey: .database) ?? database
        teamId = try container.decodeIfPresent(String.self, forKey: .teamId)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId)
        environment = try container.decodeIfPresent(String.self, forKey: .environment) ?? environment
        root = try container.decodeIfPresent(String.self, forKey: .root)
        challengeLifetimeSeconds =
            try container.decodeIfPresent(Double.self, forKey: .challengeLifetimeSeconds) ?? challengeLifetimeSeconds
        riskBlockThreshold = try Self.integer(container, .riskBlockThreshold) ?? riskBlockThreshold
        riskDecaySeconds = try container.decodeIfPresent(Double.self, forKey: .riskDecaySeconds) ?? riskDecaySeconds
        counterReorderWindow = try Self.integer(container, .counterReorderWindow) ?? counterReorderWindow
        maximumBodyBytes = try Self.integer(container, .maximumBodyBytes) ?? maximumBodyBytes
        postgresPoolSize = try Self.integer(container, .postgresPoolSize) ?? postgresPoolSize
        if container.contains(.limits) {
            let nested = try container.nestedContainer(keyedBy: AnyKey.self, forKey: .limits)
            if let unknown = nested.allKeys.first(where: { LimitKeys(rawValue: $0.stringValue) == nil }) {
                throw AttestServiceError.invalidConfiguration(
                    "unknown configuration key 'limits.\(unknown.stringValue)'; the limits are "
                        + LimitKeys.allCases.filter { $0 != .outstandingChallengesPerSubject }.map(\.rawValue)
                        .joined(separator: ", "))
            }
            let limitsContainer = try container.nestedContainer(keyedBy: LimitKeys.self, forKey: .limits)
            func limit(_ key: LimitKeys, _ current: Int) throws -> Int {
                try Self.integer(limitsContainer, key, name: "limits.\(key.rawValue)") ?? current
            }
            limits.challengesPerAddressPerMinute = try limit(
                .challengesPerAddressPerMinute, limits.challengesPerAddressPerMinute)
            limits.challengesPerSubjectPerMinute = try limit(
                .challengesPerSubjectPerMinute, limits.challengesPerSubjectPerMinute)
            limits.failuresPerAddressPerMinute = try limit(
                .failuresPerAddressPerMinute, limits.failuresPerAddressPerMinute)
            limits.ipv6PrefixLength = try limit(.ipv6PrefixLength, limits.ipv6PrefixLength)
            if limitsContainer.contains(.outstandingChallengesPerSubject) {
                // Still a whole number, as before; the value is not used, and the warning says so.
                _ = try limit(.outstandingChallengesPerSubject, 0)
                warnings.append(.outstandingChallengesPerSubject)
            }
        }
        operatorToken = try container.decodeIfPresent(String.self, forKey: .operatorToken)
        if let hosts = try container.decodeIfPresent([String].self, forKey: .adminHosts) {
            guard hosts.count <= 64,
                hosts.allSatisfy({ host in
                    (1...253).contains(host.utf8.count)
                        && host.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }
                })
            else {
                throw AttestServiceError.invalidConfiguration(
                    "adminHosts must list at most 64 host names or addresses without ports, e.g. "
                        + "[\"rampart-admin.internal\"]")
            }
            adminHosts = hosts
        }
        if container.contains(.routes) { routes = try Self.decodeRoutes(container) }
        if container.contains(.defaultPolicy) {
            let name = try container.decode(String.self, forKey: .defaultPolicy)
            guard let policy = RoutePolicy(rawValue: name) else {
                throw AttestServiceError.invalidConfiguration(
                    "defaultPolicy must be one of \(RoutePolicy.names)")
            }
            defaultPolicy = policy
        }
        if container.contains(.subject) { subject = try Self.decodeSubject(container) }
        if container.contains(.tokens) { tokens = try Self.decodeTokens(container) }
        adminListen = try container.decodeIfPresent(String.self, forKey: .adminListen) ?? adminListen
        connectionLimit = try container.decodeIfPresent(Int.self, forKey: .connectionLimit) ?? connectionLimit
        connectionsPerAddress =
            try container.decodeIfPresent(Int.self, forKey: .connectionsPerAddress) ?? connectionsPerAddress
        requestTimeoutSeconds =
            try container.decodeIfPresent(Double.self, forKey: .requestTimeoutSeconds) ?? requestTimeoutSeconds
        if let proxies = try container.decodeIfPresent([String].self, forKey: .trustedProxies) {
            guard proxies.count <= 64 else {
                throw AttestServiceError.invalidConfiguration("trustedProxies holds at most 64 addresses")
            }
            trustedProxies = try proxies.map { text in
                guard let address = Self.canonicalAddress(text) else {
                    throw AttestServiceError.invalidConfiguration(
                        "trustedProxies: '\(text.prefix(64))' is not an IP address; list your gateways' addresses, "
                            + "e.g. [\"127.0.0.1\", \"10.0.0.5\"] (ranges are not accepted)")
                }
                return address
            }
        }
        challenges = try container.decodeIfPresent(ChallengeSettings.self, forKey: .challenges) ?? challenges
        if container.contains(.android) { android = try Self.decodeAndroid(container.superDecoder(forKey: .android)) }
    }

    /// An integer-valued key, read as a number first so that `1e30` or `2.5` is named as the key's problem instead
    /// of failing the whole file.
    private static func integer<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>, _ key: Key, name: String? = nil
    ) throws -> Int? {
        guard let number = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard let value = Int(exactly: number), value.magnitude <= 1 << 40 else {
            throw AttestServiceError.invalidConfiguration(
                "'\(name ?? key.stringValue)' must be a whole number in range (got \(number)); see `rampart serve --help`"
            )
        }
        return value
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads a configuration file.
    ///
    /// - Parameter path: The JSON file.
    /// - Returns: The configuration.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming what was wrong.
    public static func load(path: String) throws -> ServiceConfiguration {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw AttestServiceError.invalidConfiguration("cannot read the configuration file \(path)")
        }
        do {
            return try JSONDecoder().decode(ServiceConfiguration.self, from: data)
        } catch let error as AttestServiceError {
            throw error
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
            DecodingError.dataCorrupted(let context)
        {
            let key = context.codingPath.map(\.stringValue).joined(separator: ".")
            guard key.isEmpty else {
                throw AttestServiceError.invalidConfiguration(
                    "\(path): '\(key)' has the wrong type or value; see `rampart serve --help` for each key's type")
            }
            let found = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            throw AttestServiceError.invalidConfiguration(
                found == nil
                    ? "\(path) is not valid JSON; a configuration file is one JSON object"
                    : "\(path) is not a JSON object; a configuration file is one JSON object of keys")
        } catch {
            throw AttestServiceError.invalidConfiguration("\(path) is not a valid configuration file")
        }
    }

    /// The listen address split into host and port.
    ///
    /// - Returns: The host (without brackets) and port.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`).
    public func listenAddress() throws -> (host: String, port: UInt16) {
        guard let colon = listen.lastIndex(of: ":"), let port = UInt16(listen[listen.index(after: colon)...]) else {
            throw AttestServiceError.invalidConfiguration(
                "listen address '\(listen)' must be HOST:PORT, e.g. 127.0.0.1:8080 or [::1]:8080")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    /// Opens the configured store: `sqlite:PATH` (or a bare path) or a `postgres://` URL.
    ///
    /// - Returns: The store.
    /// - Throws: ``AttestServiceError`` (`storeFailure`, `invalidConfiguration`).
    public func openStore() throws -> any AttestationStore {
        if database.hasPrefix("postgres://") || database.hasPrefix("postgresql://") {
            return try PostgresAttestationStore(url: database, poolSize: postgresPoolSize)
        }
        if !database.hasPrefix("sqlite:"), let scheme = database.range(of: "://") {
            throw AttestServiceError.invalidConfiguration(
                "the database scheme '\(database[..<scheme.lowerBound])' is not supported; use sqlite:PATH or "
                    + "postgres://user:password@host:port/database")
        }
        let path = database.hasPrefix("sqlite:") ? String(database.dropFirst("sqlite:".count)) : database
        guard !path.isEmpty else {
            throw AttestServiceError.invalidConfiguration("--db sqlite:PATH needs a path, e.g. sqlite:rampart.db")
        }
        return try SQLiteAttestationStore(path: path)
    }

    /// Checks the values that have ranges.
    ///
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`).
    public func validate() throws {
        guard environment == "production" || environment == "development" else {
            throw AttestServiceError.invalidConfiguration("environment must be 'production' or 'development'")
        }
        guard challengeLifetimeSeconds >= 1, challengeLifetimeSeconds <= 3600 else {
            throw AttestServiceError.invalidConfiguration("challengeLifetimeSeconds must be 1...3600")
        }
        guard riskBlockThreshold >= 1, riskBlockThreshold <= 1000 else {
            throw AttestServiceError.invalidConfiguration("riskBlockThreshold must be 1...1000")
        }
        guard riskDecaySeconds == 0 || (riskDecaySeconds >= 1 && riskDecaySeconds <= 365 * 86400) else {
            throw AttestServiceError.invalidConfiguration(
                "riskDecaySeconds must be 0 (no decay) or 1...31536000 (seconds per point of risk)")
        }
        guard counterReorderWindow >= 0, counterReorderWindow <= 1024 else {
            throw AttestServiceError.invalidConfiguration("counterReorderWindow must be 0...1024")
        }
        for (name, value) in [
            ("challengesPerAddressPerMinute", limits.challengesPerAddressPerMinute),
            ("challengesPerSubjectPerMinute", limits.challengesPerSubjectPerMinute),
            ("failuresPerAddressPerMinute", limits.failuresPerAddressPerMinute),
        ] where value < 0 || value > 1_000_000 {
            throw AttestServiceError.invalidConfiguration("limits.\(name) must be 0 (no limit)...1000000")
        }
        guard (32...128).contains(limits.ipv6PrefixLength) else {
            throw AttestServiceError.invalidConfiguration(
                "limits.ipv6PrefixLength must be 32...128 (the leading bits of an IPv6 address that share one budget; "
                    + "64 is one subscriber's network)")
        }
        _ = try routeTable()
        try subject?.validate()
        try tokenConfiguration()?.validate()
        guard maximumBodyBytes >= 1024, maximumBodyBytes <= 1 << 20 else {
            throw AttestServiceError.invalidConfiguration("maximumBodyBytes must be 1024...1048576")
        }
        guard postgresPoolSize >= 1, postgresPoolSize <= 64 else {
            throw AttestServiceError.invalidConfiguration("postgresPoolSize must be 1...64")
        }
        _ = try listenAddress()
        try validateListeners()
    }

    /// The service tunables this configuration sets.
    public var serviceConfiguration: AttestationService.Configuration {
        AttestationService.Configuration(
            challengeLifetime: challengeLifetimeSeconds, riskBlockThreshold: riskBlockThreshold,
            riskDecayInterval: riskDecaySeconds > 0 ? riskDecaySeconds : nil,
            counterReorderWindow: UInt32(clamping: counterReorderWindow), limits: limits, environment: environment)
    }
}

extension ServiceConfiguration: Sendable {}

extension ServiceConfiguration {
    /// The canonical text of an IPv4 or IPv6 address (as the server reports peers: `inet_ntop` of the parsed
    /// bytes, an IPv4-mapped IPv6 address as its IPv4 text), or nil when `text` is not one.
    ///
    /// - Parameter text: An address such as `10.0.0.5` or `2001:DB8::1`.
    /// - Returns: `10.0.0.5`, `2001:db8::1`, or nil.
    static func canonicalAddress(_ text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= 64 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            guard inet_ntop(AF_INET, &v4, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        } else {
            var v6 = in6_addr()
            guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            if bytes.prefix(10).allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                var mapped = in_addr()
                withUnsafeMutableBytes(of: &mapped) { $0.copyBytes(from: bytes.suffix(4)) }
                guard inet_ntop(AF_INET, &mapped, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            } else {
                guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
            }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
