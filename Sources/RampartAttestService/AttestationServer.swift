import Dispatch
public import Foundation
import RampartHTTP
import Synchronization

/// `rampart serve` as a library: the store, the service, the router and the HTTP server, started together and
/// stopped gracefully.
///
/// ```swift
/// let server = try AttestationServer(configuration: configuration, verifier: verifier, log: log)
/// await server.runUntilTerminated()   // SIGTERM or SIGINT: drain, close, return
/// ```
public final class AttestationServer {
    /// The attestation service behind the HTTP API.
    public let service: AttestationService
    /// The HTTP API of the public listener.
    public let router: ServiceRouter
    /// The HTTP API of the admin listener: operator routes, `/metrics` and `/healthz`.
    public let adminRouter: ServiceRouter
    let http: HTTPServer
    let adminHTTP: HTTPServer
    let store: any AttestationStore
    let log: ServiceLog
    /// The `jwt` subject source's verifier, whose JWKS file SIGHUP reads again.
    let sessionTokens: SessionTokenVerifier?

    /// Opens the store and starts listening.
    ///
    /// - Parameters:
    ///   - configuration: The validated configuration.
    ///   - verifier: The App Attest verifier (see ``ServiceConfiguration/makeVerifier(clock:)``).
    ///   - log: Where JSON log lines go.
    ///   - clock: The service's clock.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`, among others when no subject source is configured
    ///   outside the demo; `storeFailure`, `serverFailure`).
    public init(
        configuration: ServiceConfiguration, verifier: any AppAttestVerifying, log: ServiceLog = .disabled,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try configuration.validate()
        let (host, port) = try configuration.listenAddress()
        let (subjectSource, isDemoDefault) = try configuration.effectiveSubjectSource()
        let routes = try configuration.routeTable()
        let sealingKeys = try configuration.challengeSealingKeys()
        let keyAttestation = try configuration.makeKeyAttestationVerifier(clock: clock)
        let store = try configuration.openStore()
        let service = AttestationService(
            store: store, verifier: verifier,
            configuration: configuration.serviceConfiguration, sealingKeys: sealingKeys, keyAttestation: keyAttestation,
            clock: clock)
        let tokens = try configuration.tokenConfiguration().map {
            try AccessTokenIssuer(configuration: $0, store: store, sealingKeys: sealingKeys, clock: clock)
        }
        let sessionTokens = try subjectSource.jwtSettings.map {
            try SessionTokenVerifier(
                configuration: SessionTokenConfiguration(
                    jwksPath: $0.jwks, issuer: $0.issuer, audience: $0.audience, algorithms: $0.algorithms,
                    leewaySeconds: $0.leewaySeconds),
                log: log, metrics: service.metrics, clock: clock)
        }
        let verifier = SignedRequestVerifier(service: service, accessTokens: tokens, log: log)
        let router = ServiceRouter(
            service: service, listener: .publicAPI,
            subjects: SubjectResolver(source: subjectSource, sessionTokens: sessionTokens, clock: clock),
            verifier: verifier, routes: routes, demo: configuration.demo, operatorToken: nil, tokens: tokens,
            trustedProxies: configuration.trustedProxies, log: log)
        func listener(_ host: String, _ port: UInt16) -> HTTPServer.Configuration {
            .init(
                host: host, port: port, maximumBodyByteCount: configuration.maximumBodyBytes,
                connectionLimit: configuration.connectionLimit,
                connectionsPerAddress: configuration.connectionsPerAddress,
                proxyAddresses: Set(configuration.trustedProxies),
                requestTimeoutSeconds: configuration.requestTimeoutSeconds)
        }
        let http = HTTPServer(configuration: listener(host, port), responder: router)
        let (adminHost, adminPort) = try configuration.adminListenAddress()
        let adminRouter = ServiceRouter(
            service: service, listener: .admin, subjects: SubjectResolver(source: .internalOnly), verifier: verifier,
            routes: routes, demo: false, operatorToken: configuration.operatorToken, tokens: tokens,
            adminHosts: configuration.adminHosts + [adminHost], log: log)
        let adminHTTP = HTTPServer(configuration: listener(adminHost, adminPort), responder: adminRouter)
        do {
            do {
                try http.start()
            } catch let error as HTTPServerError {
                throw AttestServiceError.serverFailure(error.reason)
            }
            do {
                try adminHTTP.start()
            } catch let error as HTTPServerError {
                http.stop()
                throw AttestServiceError.serverFailure("the admin listener: \(error.reason)")
            }
        } catch {
            Task { await store.close() }
            throw error
        }
        self.service = service
        self.router = router
        self.adminRouter = adminRouter
        self.http = http
        self.adminHTTP = adminHTTP
        self.store = store
        self.log = log
        self.sessionTokens = sessionTokens
        if isDemoDefault {
            log.write(
                level: "warning", event: "demoSubjectSource",
                message: "--demo without a subject configuration: the subject is the X-User-Id header, which any "
                    + "client can set; configure \"subject\" before serving real users")
        }
        for warning in configuration.warnings {
            log.write(level: "warning", event: ServiceConfiguration.Warning.logEvent, message: warning.message)
        }
        if tokens != nil, sealingKeys == nil {
            log.write(
                level: "warning", event: "tokenKeysUnsealed",
                message: "access-token signing keys are stored unencrypted in the database, because no challenge "
                    + "sealing keys are configured: anyone who can read the database can mint tokens; set "
                    + "challenges.sealingKeys (or RAMPART_CHALLENGE_KEYS) to seal them")
        }
        if configuration.defaultPolicy == .open {
            log.write(
                level: "warning", event: "defaultPolicyOpen",
                message: "defaultPolicy is open: a request to any path no route names reaches the backend with no "
                    + "check, including paths added to the API later; list the open routes and keep defaultPolicy "
                    + "require-assertion (ask 'rampart routes --config FILE METHOD TARGET' which policy a path gets)")
        }
        if let name = configuration.subject?.headerName, configuration.trustedProxies.isEmpty {
            log.write(
                level: "warning", event: "subjectHeaderFromAnyPeer",
                message: "the subject comes from the '\(name)' header and trustedProxies is empty, so any client "
                    + "that reaches this listener can name any user; list the proxy that sets it in trustedProxies")
        }
        log.write(event: "listening", message: Self.url(host: host, port: self.port))
        log.write(event: "adminListening", message: Self.url(host: adminHost, port: self.adminPort))
    }

    /// `http://HOST:PORT`, with an IPv6 host in brackets.
    static func url(host: String, port: UInt16) -> String {
        "http://\(host.contains(":") ? "[\(host)]" : host):\(port)"
    }

    /// The bound port of the public listener.
    public var port: UInt16 { http.port ?? 0 }

    /// The bound port of the admin listener.
    public var adminPort: UInt16 { adminHTTP.port ?? 0 }

    /// Stops accepting, answers the requests in flight, then closes the store.
    public func stop() async {
        http.stop()
        adminHTTP.stop()
        await store.close()
        log.write(event: "stopped", message: "in-flight requests answered; store closed")
        log.flush()
    }

    /// Serves until the process gets SIGTERM or SIGINT, then stops gracefully and returns.
    ///
    /// SIGHUP does not stop the service (its default action would kill the process). With the `jwt` subject source
    /// it reads the session JWKS file again (``SessionTokenVerifier/reloadKeySet()``), logging `sessionKeysReloaded`
    /// with the keys read or `sessionKeysKept` with why the file was not used (the keys in use stay). The rest of the
    /// configuration is read once at start; without a JWKS file the signal is logged as `sighupIgnored` with what to
    /// do. Serving goes on either way.
    public func runUntilTerminated() async {
        let queue = DispatchQueue(label: "rampart.signals")
        // Ignore the default actions (terminate) so the dispatch sources see the signals instead.
        signal(SIGHUP, SIG_IGN)
        let hangUp = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
        let log = self.log
        let sessionTokens = self.sessionTokens
        hangUp.setEventHandler {
            guard let sessionTokens else {
                return log.write(
                    level: "warning", event: "sighupIgnored",
                    message: "SIGHUP: there is no session JWKS file to read again, and the rest of the configuration "
                        + "is read once at start; to apply a change, stop the service with SIGTERM (in-flight "
                        + "requests are answered) and start it again")
            }
            // The reload logs its outcome; on this queue, waiting for a reload a request started is fine.
            _ = try? sessionTokens.keys.reload(trigger: .signal)
        }
        hangUp.resume()
        let sources = [SIGTERM, SIGINT].map { number -> any DispatchSourceSignal in
            signal(number, SIG_IGN)
            return DispatchSource.makeSignalSource(signal: number, queue: queue)
        }
        let received: Int32 = await withCheckedContinuation { continuation in
            let once = OnceFlag()
            for source in sources {
                let number = Int32(source.handle)
                source.setEventHandler {
                    if once.claim() { continuation.resume(returning: number) }
                }
                source.resume()
            }
        }
        sources.forEach { $0.cancel() }
        hangUp.cancel()
        log.write(event: "terminating", message: "signal \(received): draining requests")
        await stop()
    }
}

/// A flag that can be claimed once, from any thread.
private final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)

    func claim() -> Bool { claimed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged }
}

extension AttestationServer: Sendable {}
