import Foundation

/// Everything `rampart serve` needs, from a JSON configuration file and command-line flags (flags win).
///
/// ```json
/// {
///   "listen": "127.0.0.1:8080",
///   "database": "sqlite:rampart.db",
///   "teamId": "ABCDE12345", "bundleId": "com.example.app", "environment": "production",
///   "root": "/etc/rampart/app-attest-root.pem",
///   "challengeLifetimeSeconds": 300, "riskBlockThreshold": 5, "maximumBodyBytes": 65536,
///   "routes": { "/v1/demo/points/use": "require-assertion", "/v1/demo/points/balance": "limited" }
/// }
/// ```
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
    /// Failures after which a key is blocked.
    public var riskBlockThreshold: Int = 5
    /// The request body cap in bytes.
    public var maximumBodyBytes: Int = HTTPServer.Configuration.defaultMaximumBodyByteCount
    /// PostgreSQL connections per process.
    public var postgresPoolSize: Int = PostgresAttestationStore.defaultPoolSize
    /// When set, `GET /v1/keys/{keyId}` requires `Authorization: Bearer <token>`.
    public var operatorToken: String?
    /// Policies of the protected routes, by path.
    public var routes: [String: RoutePolicy] = [:]

    /// The defaults.
    public init() {}

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case listen, database, teamId, bundleId, environment, root, challengeLifetimeSeconds, riskBlockThreshold
        case maximumBodyBytes, postgresPoolSize, operatorToken, routes
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
        riskBlockThreshold = try container.decodeIfPresent(Int.self, forKey: .riskBlockThreshold) ?? riskBlockThreshold
        maximumBodyBytes = try container.decodeIfPresent(Int.self, forKey: .maximumBodyBytes) ?? maximumBodyBytes
        postgresPoolSize = try container.decodeIfPresent(Int.self, forKey: .postgresPoolSize) ?? postgresPoolSize
        operatorToken = try container.decodeIfPresent(String.self, forKey: .operatorToken)
        routes = try container.decodeIfPresent([String: RoutePolicy].self, forKey: .routes) ?? routes
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
            throw AttestServiceError.invalidConfiguration(
                "\(path): \(key.isEmpty ? "not a JSON object" : "'\(key)' has the wrong type or value")")
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
        guard riskBlockThreshold >= 1 else {
            throw AttestServiceError.invalidConfiguration("riskBlockThreshold must be at least 1")
        }
        guard maximumBodyBytes >= 1024, maximumBodyBytes <= 1 << 20 else {
            throw AttestServiceError.invalidConfiguration("maximumBodyBytes must be 1024...1048576")
        }
        guard postgresPoolSize >= 1, postgresPoolSize <= 64 else {
            throw AttestServiceError.invalidConfiguration("postgresPoolSize must be 1...64")
        }
        _ = try listenAddress()
    }
}

extension ServiceConfiguration: Sendable {}
