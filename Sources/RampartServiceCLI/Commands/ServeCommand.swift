import Foundation
import RampartAttestService
public import RampartCLI

/// `rampart serve`: the App Attest service (challenges, key registration, protected requests) over HTTP.
public enum ServeCommand: Command {
    /// `serve`.
    public static let name = "serve"
    /// One line for `rampart --help`.
    public static let abstract = "run the App Attest service (SQLite by default, PostgreSQL for several processes)"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart serve [--config FILE] [--subject-header NAME] [--demo] [--listen HOST:PORT]
                             [--admin-listen HOST:PORT] [--operator-token-file FILE] [--db sqlite:PATH|postgres://...]
                             [--team-id T --bundle-id B] [--environment production|development] [--root PEM] [--json]

        Serves the App Attest API until SIGTERM or SIGINT, then answers the requests in flight, closes the store and
        exits 0. SIGHUP reads the subject.jwt JWKS file again and logs the outcome; the rest of the configuration is
        read once, at start. Apps get one-time challenges (POST /v1/challenges {"purpose"}), register an attested key
        once (POST /v1/attestations {"keyId","attestationObject","challenge"}) and sign each sensitive request
        (docs/request-signature.md). Your gateway checks those requests: Envoy ext_authz on /ext-authz/<target>, Traefik
        and Caddy forward auth on /forward-auth, nginx auth_request on /auth-request; verdicts 200 (with
        Rampart-Subject, Rampart-Key-Id, Rampart-Counter, Rampart-Environment, Rampart-Policy,
        Rampart-Verified-Digest, Rampart-Next-Challenge), 401, 403, 409, 429, each refusal with its code in Rampart-Error. A signed
        POST /v1/tokens gives a short-lived access token for routes under the token policy (keys at
        GET /.well-known/jwks.json). Every answer is JSON; errors are {"error","message"}. One JSON log line per request
        goes to standard error; no challenge, assertion, body or subject is logged, and a key appears only as an
        8-hex-digit fingerprint (SHA-256 of its id).

        The subject (your user or session) never comes from the app's body: set "subject" in --config to
        {"header": "X-User-Id"} (a header your proxy sets after authenticating, and strips from clients; or
        --subject-header NAME), {"jwt": {"jwks": FILE, "issuer": I, "audience": A, "algorithms": ["RS256","ES256"],
        "leewaySeconds": 60}} (the app's session token in Authorization), or {"internal": true} (only your backend
        names subjects, on the internal listener). Without one, serve refuses to start, except with --demo. A header
        subject is believed only from trustedProxies peers (a warning at start when that list is empty), and every
        subject must be 1...256 printable ASCII characters without a leading or trailing space (subjectRequired).
        Keys and tokens of the other App Attest environment are refused (wrongEnvironment).

        Routes: "routes": [{"method": "POST", "path": "/api/points/*", "policy": "require-assertion"}, ...]
        (exact paths or trailing-* prefixes; method or "*"), "defaultPolicy" (require-assertion; a warning at start
        when open); policies open, limited (checked when signed, logged, allowed), token, require-assertion. The most
        specific rule wins. A target common backends read as different paths (dot segments in any spelling, also
        '..;', '//', %2F, %5C, '\\', %25, encoded non-ASCII, a segment ending in '.' or a space) is refused (400
        invalidTarget; 403 on /auth-request); a reading that maps to a stricter route (other case, trailing '/',
        ;params, a .json suffix, a method-override header, a form POST's _method) gets the stricter policy. 'rampart
        routes --config FILE METHOD TARGET' says which policy a request gets.

        Two listeners: the public one (--listen) for apps and gateways, and the internal one (--admin-listen,
        loopback by default) for your backend and operators: POST /v1/verify (the sidecar check), POST
        /v1/challenges and POST /v1/attestations with "subject" in the body, GET /v1/keys/{keyId}, GET /metrics
        (Prometheus) and GET /healthz. With an operator token, internal routes need 'Authorization: Bearer <token>';
        without one the internal listener must be on loopback. The internal listener refuses what a browser could
        send: Origin, a Host that is not loopback, its own address or one of adminHosts (403 crossOriginRequest), and
        a POST without Content-Type: application/json (415 unsupportedMediaType).

        Each request must arrive whole within requestTimeoutSeconds (default 10 s, 408 otherwise); badly framed
        HTTP (bare LF, obs-fold, two Content-Lengths) is 400 malformedRequest, on every request of a kept-alive connection.
        Connections are limited per listener (connectionLimit, 4096) and per client address
        (connectionsPerAddress, 64; the trustedProxies are exempt, a gateway's checks all coming from its address).

        OPTIONS:
          --config FILE        JSON configuration (keys: listen, adminListen, database, teamId, bundleId,
                               environment, root, subject, routes, defaultPolicy, tokens {issuer, audience,
                               lifetimeSeconds}, challengeLifetimeSeconds, riskBlockThreshold, riskDecaySeconds,
                               counterReorderWindow, limits {challengesPerAddressPerMinute,
                               challengesPerSubjectPerMinute, failuresPerAddressPerMinute, ipv6PrefixLength (IPv6
                               budgets per network, 64)}, maximumBodyBytes, postgresPoolSize, operatorToken,
                               adminHosts (Host names of the internal listener), connectionLimit, connectionsPerAddress,
                               requestTimeoutSeconds, trustedProxies
                       (gateway addresses whose X-Forwarded-For is believed; default loopback), challenges
                       {sealingKeys}); flags override it;
                               every key is checked
          --subject-header NAME
                               take the subject from the header NAME (same as "subject": {"header": NAME})
          --demo               add the demo routes POST /v1/demo/points/use and /balance (signed requests under
                               require-assertion and limited); without a subject configuration, the subject is the
                               X-User-Id header (a warning is logged: any client can set it)
          --listen HOST:PORT   public address (default 127.0.0.1:8080; [::1]:8080 for IPv6)
          --admin-listen HOST:PORT
                               internal address for the backend, operator routes and metrics (default
                               127.0.0.1:8081; port 0 picks a free one); anything but loopback needs an operator token
          --operator-token-file FILE
                               the operator token (the file's first line); else $RAMPART_OPERATOR_TOKEN, else
                               operatorToken in --config. At least 32 bytes with 16 different ones
                               (`openssl rand -hex 32`); a weaker token refuses to start
          --db URL             sqlite:PATH (default sqlite:rampart.db, WAL) or postgres://user:pw@host:port/db,
                               which several serve processes may share
          --team-id T          the app's Apple Developer team id
          --bundle-id B        the app's bundle id
          --environment E      production (default) or development: the App Attest environment accepted
          --root PEM           the attestation root to trust (default: Apple's App Attest root); the root written by
                               `rampart appattest simulate` lets simulated devices register
          --json               print the startup line as JSON
          -h, --help           show this help

        ENVIRONMENT:
          RAMPART_OPERATOR_TOKEN   the operator token, when --operator-token-file is not given
          RAMPART_CHALLENGE_KEYS   the challenge sealing keys, base64 (`openssl rand -base64 32`), comma-separated,
                                   newest first (the first seals, every one opens; not together with
                                   challenges.sealingKeys); without either, the database keeps one that every
                                   process on it shares

        EXIT CODES:
          0  stopped by SIGTERM or SIGINT after draining
          2  bad usage or configuration (no subject source, a weak operator token, a non-loopback admin address
             without one), unreadable root or token file, store or listen failure (one line on stderr)

        EXAMPLE:
          rampart serve --team-id ABCDE12345 --bundle-id com.example.app --subject-header X-User-Id \\
                        --db sqlite:/var/lib/rampart/attest.db
          curl -s -X POST localhost:8080/v1/challenges -H 'X-User-Id: user_123' -d '{"purpose":"attestation"}'
          curl -s localhost:8081/metrics
        """

    /// What `--json` prints at startup.
    struct Started: Encodable {
        let listening: String
        let admin: String
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
        if let value = try arguments.option("--admin-listen") { configuration.adminListen = value }
        if let value = try arguments.option("--subject-header") { configuration.subject = .header(value) }
        if arguments.flag("--demo") { configuration.demo = true }
        if let file = try arguments.option("--operator-token-file") {
            configuration.operatorToken = try readToken(file)
        } else if let value = context.environment[ServiceConfiguration.operatorTokenEnvironmentVariable] {
            configuration.operatorToken = value
        }
        try arguments.finish()

        let server: AttestationServer
        do {
            try configuration.validate()
            let verifier = try configuration.makeVerifier()
            // Buffered: a request only queues its log line; one writer thread writes them in batches.
            let log = ServiceLog.buffered(sink: context.printError)
            server = try AttestationServer(configuration: configuration, verifier: verifier, log: log)
        } catch let error as AttestServiceError {
            throw UsageError(error.reason)
        }
        let (host, _) = try configuration.listenAddress()
        let address = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)"
        let (adminHost, _) = try configuration.adminListenAddress()
        let admin = "http://\(adminHost.contains(":") ? "[\(adminHost)]" : adminHost):\(server.adminPort)"
        let database = configuration.database.hasPrefix("postgres") ? "postgres" : configuration.database
        if json {
            try context.printJSON(
                Started(listening: address, admin: admin, database: database, environment: configuration.environment))
        } else {
            context.print(
                "rampart serve: listening on \(address), admin on \(admin) (\(database), \(configuration.environment))")
        }
        await server.runUntilTerminated()
        return .success
    }

    /// The operator token in `file`: its first line, without the line break.
    static func readToken(_ file: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw UsageError("cannot read the operator token file \(file); check the path and its permissions")
        }
        let text = String(decoding: data, as: UTF8.self)
        return String(text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            .trimmingCharacters(in: CharacterSet(charactersIn: "\r"))
    }
}
