import Foundation
import RampartChainVerification
import RampartPinning
import RampartTLS
import RampartX509

/// `rampart check --config FILE (HOST[:PORT] | CHAIN --host NAME)`: would an app with this pin configuration connect?
public enum CheckCommand: Command {
    /// `check`.
    public static let name = "check"
    /// One line for `rampart --help`.
    public static let abstract = "check a chain or live server against an Info.plist or JSON pin configuration"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart check --config FILE (HOST[:PORT] | CHAIN.pem --host NAME) [--ca ROOT.pem]... [--at RFC3339]
                             [--servername NAME] [--require-pinned] [--policy apple|webpki] [--json]

        Decides what iOS (with TrustKit's additions) would do: the default chain evaluation first — pinning only
        tightens it — then the NSPinnedDomains policy of the host: NSIncludesSubdomains covers one more label,
        CA pins match the verified path's CA certificates (anchor included), leaf pins the leaf, and when both lists
        are present both must match. FILE is an Info.plist (XML or binary) or Rampart JSON; the format is detected
        from its content. Unknown keys are ignored, as iOS ignores them, and listed on stderr.

        OPTIONS:
          --config FILE      the pin configuration
          --host NAME        with a chain file: the host name connected to
          --ca FILE          the device's trust store: root(s) in FILE instead of the system store (repeatable)
          --at TIME          evaluate at this RFC 3339 time instead of now
          --servername NAME  for a live server: the SNI name and host name
          --timeout S        seconds allowed for a live connection (default 10)
          --require-pinned   refuse (exit 1) when no policy covers the host
          --policy P         the default evaluation: apple (default: what iOS accepts) or webpki
          --json             print {"allowed", "outcome", "host", "policy", "chainPolicy", "message", "chain",
                             "report"}
          -h, --help         show this help

        OUTCOMES: pinned, notPinned, pinsExpired, reportOnlyMismatch (allowed); defaultEvaluationFailed,
        pinMismatch (refused). A refusal for a pinned domain includes TrustKit's failure report with --json.

        EXIT CODES:
          0  the connection would be allowed
          1  it would be refused (default evaluation failed — a certificate or --ca root that is well-formed DER
             but breaks RFC 5280 is malformedCertificate —, or pin mismatch; or not pinned with --require-pinned)
          2  bad usage, an unreadable configuration or chain, or an unreachable server

        EXAMPLE:
          rampart pinset chain.pem --host api.example.com --ca root.pem --format plist > pins.plist
          rampart check --config pins.plist chain.pem --host api.example.com --ca root.pem
        """

    struct Output: Encodable {
        let allowed: Bool
        let outcome: String
        let host: String
        let policy: PolicyJSON?
        /// The chain policy of the default evaluation: `apple` or `webpki`.
        let chainPolicy: String
        let message: String
        let chain: ChainJSON?
        let report: PinFailureReport?
    }

    struct PolicyJSON: Encodable {
        let domain: String
        let includesSubdomains: Bool
        let reportOnly: Bool
    }

    struct ChainJSON: Encodable {
        let reason: String
        let certificate: Int?
        let message: String
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `check`.
    ///   - context: Streams, input and clock.
    /// - Returns: `.success` when allowed, `.failure` when refused.
    /// - Throws: ``UsageError`` for bad usage or input.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let requirePinned = arguments.flag("--require-pinned")
        let configPath = try arguments.requiredOption("--config")
        let host = try arguments.option("--host")
        let serverName = try arguments.option("--servername")
        let trust = try TrustInputs.anchors(&arguments, context: context)
        let time = try TrustInputs.time(&arguments, context: context)
        let timeout = try TrustInputs.timeout(&arguments)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let target = positionals.first else {
            throw UsageError("give one HOST[:PORT] or one chain file")
        }
        guard let data = FileManager.default.contents(atPath: configPath) else {
            throw UsageError("\(configPath): cannot read the configuration; check the path")
        }
        let configuration: PinConfiguration
        do {
            configuration = try PinConfiguration(contentsOf: data)
        } catch let error as PinningError {
            throw UsageError("\(configPath): \(error)")
        }
        for warning in configuration.warnings {
            context.printError("rampart check: warning: \(configPath): \(warning)")
        }
        let source = try await TrustInputs.chain(
            positional: target, host: host, serverName: serverName, timeout: timeout, context: context)
        let decision: PinningDecision
        if let refusal = source.refusal ?? trust.refusal {
            decision = configuration.decision(
                host: source.host, presented: source.certificates, verdict: .untrusted(refusal), at: time)
        } else {
            let validator: PinValidator
            do {
                validator = try PinValidator(
                    configuration: configuration, trustAnchors: trust.anchors, options: trust.options)
            } catch let error as X509Error {
                throw UsageError("cannot load the trust anchors: \(error)")
            }
            decision = validator.evaluate(chain: source.certificates, host: source.host, at: time)
        }
        let allowed = decision.isAllowed && !(requirePinned && decision.outcome == .notPinned)
        if json {
            try context.printJSON(
                Output(
                    allowed: allowed, outcome: decision.outcome.description, host: decision.host,
                    policy: decision.policy.map {
                        PolicyJSON(
                            domain: $0.domain, includesSubdomains: $0.includesSubdomains, reportOnly: $0.isReportOnly)
                    },
                    chainPolicy: trust.policy.description,
                    message: decision.message,
                    chain: decision.chainVerdict.failure.map {
                        ChainJSON(reason: $0.reason.description, certificate: $0.certificateIndex, message: $0.message)
                    },
                    report: decision.failureReport(port: Int(source.endpoint?.port ?? 443))))
        } else {
            let applied = decision.policy.map { "\($0.domain)\($0.includesSubdomains ? " (includes subdomains)" : "")" }
            context.print("\(allowed ? "allowed" : "refused"): \(decision.host) [\(decision.outcome)]")
            context.print("policy: \(applied ?? "none")")
            context.print(decision.message)
            if requirePinned && decision.outcome == .notPinned {
                context.print("refused because --require-pinned was given and no pinned domain covers the host")
            }
        }
        return allowed ? .success : .failure
    }
}
