import Foundation
import RampartAttestService

/// `rampart serve`: the App Attest service (challenges, key registration, protected requests) over HTTP.
public enum ServeCommand: Command {
    /// `serve`.
    public static let name = "serve"
    /// One line for `rampart --help`.
    public static let abstract = "run the App Attest service (SQLite by default, PostgreSQL for several processes)"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart serve [--config FILE] [--listen HOST:PORT] [--db sqlite:PATH|postgres://...]
                             [--team-id T --bundle-id B] [--environment production|development] [--root PEM] [--json]

        Serves the App Attest API until SIGTERM or SIGINT, then answers the requests in flight, closes the store
        and exits 0 (SIGHUP is logged and ignored: the configuration is read once, at start). Apps get one-time challenges (POST /v1/challenges), register an attested key once
        (POST /v1/attestations) and sign each sensitive request with an assertion (POST /v1/assertions, and the
        protected demo route POST /v1/demo/points/use). GET /healthz, GET /metrics (Prometheus), and
        GET /v1/keys/{keyId} for operators. Every answer is JSON; errors are {"error","message"} with a 4xx.
        One JSON log line per request goes to standard error; no challenge, assertion, key or payload is logged.

        OPTIONS:
          --config FILE        JSON configuration (keys: listen, database, teamId, bundleId, environment, root,
                               challengeLifetimeSeconds, riskBlockThreshold, riskDecaySeconds, counterReorderWindow,
                               limits {challengesPerAddressPerMinute, challengesPerSubjectPerMinute,
                               outstandingChallengesPerSubject, failuresPerAddressPerMinute}, maximumBodyBytes,
                               postgresPoolSize, operatorToken, routes); flags override it; every key is checked
          --listen HOST:PORT   address to listen on (default 127.0.0.1:8080; [::1]:8080 for IPv6)
          --db URL             sqlite:PATH (default sqlite:rampart.db, WAL) or postgres://user:pw@host:port/db,
                               which several serve processes may share
          --team-id T          the app's Apple Developer team id
          --bundle-id B        the app's bundle id
          --environment E      production (default) or development: the App Attest environment accepted
          --root PEM           the attestation root to trust (default: Apple's App Attest root); the root written by
                               `rampart appattest simulate` lets simulated devices register
          --json               print the startup line as JSON
          -h, --help           show this help

        EXIT CODES:
          0  stopped by SIGTERM or SIGINT after draining
          2  bad usage or configuration, unreadable root, store or listen failure (one line on stderr)

        EXAMPLE:
          rampart serve --team-id ABCDE12345 --bundle-id com.example.app --db sqlite:/var/lib/rampart/attest.db
          curl -s -X POST localhost:8080/v1/challenges -d '{"purpose":"attestation","subject":"user_123"}'
        """

    /// What `--json` prints at startup.
    struct Started: Encodable {
        let listening: String
        let database: String
        let environment: String
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `serve`.
    ///   - context: Streams and environment.
    /// - Returns: `.success` after a graceful stop.
    /// - Throws: ``UsageError`` for bad usage or configuration.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        var configuration = ServiceConfiguration()
        do {
            if let file = try arguments.option("--config") { configuration = try ServiceConfiguration.load(path: file) }
        } catch let error as AttestServiceError {
            throw UsageError(error.reason)
        }
        if let value = try arguments.option("--listen") { configuration.listen = value }
        if let value = try arguments.option("--db") { configuration.database = value }
        if let value = try arguments.option("--team-id") { configuration.teamId = value }
        if let value = try arguments.option("--bundle-id") { configuration.bundleId = value }
        if let value = try arguments.option("--environment") { configuration.environment = value }
        if let value = try arguments.option("--root") { configuration.root = value }
        try arguments.finish()

        let server: AttestationServer
        do {
            try configuration.validate()
            let verifier = try configuration.makeVerifier()
            let log = ServiceLog(sink: context.printError)
            server = try AttestationServer(configuration: configuration, verifier: verifier, log: log)
        } catch let error as AttestServiceError {
            throw UsageError(error.reason)
        }
        let (host, _) = try configuration.listenAddress()
        let address = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
        let database = configuration.database.hasPrefix("postgres") ? "postgres" : configuration.database
        if json {
            try context.printJSON(
                Started(listening: address, database: database, environment: configuration.environment))
        } else {
            context.print("rampart serve: listening on \(address) (\(database), \(configuration.environment))")
        }
        await server.runUntilTerminated()
        return .success
    }
}
