import Foundation
import RampartChainVerification
import RampartPinning
import RampartTLS
import RampartX509

/// `rampart pinset (HOST[:PORT] | CHAIN --host NAME) --format plist|json`: a pin configuration from a verified chain.
public enum PinsetCommand: Command {
    /// `pinset`.
    public static let name = "pinset"
    /// One line for `rampart --help`.
    public static let abstract = "write an NSPinnedDomains (plist) or Rampart JSON pin set from a verified chain"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart pinset (HOST[:PORT] | CHAIN.pem --host NAME) --format plist|json [--ca ROOT.pem]...
                              [--include-subdomains] [--leaf] [--servername NAME] [--at RFC3339]
                              [--timeout S] [--json]

        Evaluates the chain (from a live server or a file) and, when it is trusted, prints a pin configuration for
        the host built from the *verified* path. By default it pins the CA keys — every intermediate and the root —
        as Apple advises (CA keys, at least two pins) in NSPinnedCAIdentities; with --leaf it pins the server's own
        key in NSPinnedLeafIdentities instead.

        OPTIONS:
          --format F            plist (an Info.plist NSAppTransportSecurity → NSPinnedDomains fragment) or json
                                (Rampart JSON); --json alone means --format json
          --host NAME           with a chain file: the host name to pin
          --include-subdomains  set NSIncludesSubdomains (covers exactly one more label)
          --leaf                pin the leaf key instead of the CA keys
          --ca FILE             trust the root(s) in FILE instead of the system trust store (repeatable)
          --servername NAME     for a live server: the SNI name and host to pin
          --at TIME             validate at this RFC 3339 time instead of now
          --timeout S           seconds allowed for a live connection (default 10)
          -h, --help            show this help

        EXIT CODES:
          0  the configuration was printed (a warning on stderr when it holds a single pin)
          1  the chain is not trusted, so there is nothing safe to pin (the reason is printed)
          2  bad usage or input

        EXAMPLE:
          rampart pinset chain.pem --host api.example.com --ca root.pem --format plist --include-subdomains
        """

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `pinset`.
    ///   - context: Streams, input and clock.
    /// - Returns: `.success` with the configuration printed, `.failure` when the chain is not trusted.
    /// - Throws: ``UsageError`` for bad usage or input.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let includeSubdomains = arguments.flag("--include-subdomains")
        let leaf = arguments.flag("--leaf")
        let formatName = try arguments.option("--format") ?? (json ? "json" : nil)
        guard let formatName else { throw UsageError("give --format plist or --format json") }
        guard let format = PinConfiguration.Format(named: formatName) else {
            throw UsageError("--format must be plist or json")
        }
        let host = try arguments.option("--host")
        let serverName = try arguments.option("--servername")
        let trust = try TrustInputs.anchors(&arguments, context: context)
        let time = try TrustInputs.time(&arguments, context: context)
        let timeout = try TrustInputs.timeout(&arguments)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let target = positionals.first else {
            throw UsageError("give one HOST[:PORT] or one chain file")
        }
        let source = try await TrustInputs.chain(
            positional: target, host: host, serverName: serverName, timeout: timeout, context: context)
        let verifier: ChainVerifier
        do {
            verifier = try ChainVerifier(trustAnchors: trust.anchors, options: trust.options)
        } catch let error as X509Error {
            throw UsageError("cannot load the trust anchors: \(error)")
        }
        let verdict = verifier.verify(chain: source.certificates, at: time, purpose: .tlsServer(hostname: source.host))
        guard let path = verdict.path else {
            context.printError(
                "rampart pinset: the chain is not trusted, so its keys must not be pinned: \(verdict.failure?.description ?? "")"
            )
            return .failure
        }
        let policy: PinPolicy
        do {
            policy = try PinPolicy.suggested(
                for: source.host, path: path, pinLeaf: leaf, includesSubdomains: includeSubdomains)
        } catch let error as PinningError {
            throw UsageError("\(error.reason)")
        }
        let pinCount = (policy.caPins?.count ?? 0) + (policy.leafPins?.count ?? 0)
        if pinCount < 2 {
            context.printError(
                "rampart pinset: warning: only one pin; if that key changes the app cannot connect. Add a backup pin "
                    + "(the key of a spare certificate or another CA) before shipping.")
        }
        let configuration = try PinConfiguration(policies: [policy])
        let data = format == .json ? try configuration.jsonData() : try configuration.plistData()
        let text = String(decoding: data, as: UTF8.self)
        context.standardOutput(text.hasSuffix("\n") ? text : text + "\n")
        return .success
    }
}
