import Foundation
import RampartPinning
import RampartX509

/// `rampart lint CONFIG [--chain FILE [--host NAME]] [--at TIME] [--json]`: the pinning mistakes that cause outages.
public enum LintCommand: Command {
    /// `lint`.
    public static let name = "lint"
    /// One line for `rampart --help`.
    public static let abstract = "find the pin-configuration mistakes that brick apps (single pins, Apple hosts, …)"
    /// The `--help` text.
    public static var help: String {
        """
        USAGE: rampart lint CONFIG [--chain FILE [--host NAME]] [--at RFC3339] [--json]

        Reads a pin configuration in any format rampart reads (Info.plist NSPinnedDomains, TrustKit, OkHttp,
        Android network_security_config.xml, Rampart JSON; detected from the content) and lists the mistakes that
        make pinned apps fail in production. With --chain, the checks that need the server's certificates run too:
        the chain a server presents today (PEM or DER, leaf first), for the policies covering its leaf's names (or
        --host).

        WARNINGS (code: what it means):
          singlePin             one pin only: a changed key locks the app out until an update ships
          leafWithoutBackup     leaf pins only, none of them outside the server's current chain (or a single one)
          appleDomain           a pinned host under apple.com or icloud.com, which Apple asks apps not to pin
          pinnedCAExpired       a pinned CA certificate of --chain has expired (judged at --at)
          pinnedCAExpiringSoon  a pinned CA certificate of --chain expires within 90 days
          publicSuffix          includeSubdomains on a public suffix (a TLD, co.uk, github.io, …)
          malformedPin          a pin that is not the base64 of 32 bytes (the configuration cannot load)
          noPinMatchesChain     a pin list none of whose pins matches --chain: refused today
          emptyPinList          a pin list that is present but empty: every connection to the domain is refused

        OPTIONS:
          --chain FILE          the server's certificates, for the chain checks
          --host NAME           with --chain: the host the chain is for (default: the leaf's DNS names)
          --at TIME             judge expiry at this RFC 3339 time instead of now
          --json                print {"warnings":[{"code","domain","message"}]}
          -h, --help            show this help

        EXIT CODES:
          0  no warning
          1  warnings (listed on standard output)
          2  bad usage or an unreadable configuration

        EXAMPLE:
          rampart lint pins.plist --chain chain.pem
        """
    }

    struct Output: Encodable {
        let warnings: [Entry]
    }

    struct Entry: Encodable {
        let code: String
        let domain: String
        let message: String
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `lint`.
    ///   - context: Streams, input and clock.
    /// - Returns: `.success` when clean, `.failure` with warnings.
    /// - Throws: ``UsageError`` for bad usage or an unreadable configuration.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let chainPath = try arguments.option("--chain")
        let host = try arguments.option("--host")
        let time = try TrustInputs.time(&arguments, context: context)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let path = positionals.first else {
            throw UsageError("give one configuration file to lint")
        }
        if host != nil && chainPath == nil { throw UsageError("--host needs --chain") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read the configuration; check the path")
        }
        let chain = try chainPath.map { try TrustInputs.certificates(file: $0, context: context) } ?? []
        var warnings: [PinLintWarning]
        do {
            let configuration = try PinConfiguration(contentsOf: data)
            warnings = configuration.lint(at: time, chain: chain, host: host)
        } catch let error as PinningError where error.code == .invalidPin {
            warnings = [
                PinLintWarning(
                    code: .malformedPin, domain: "",
                    message: "\(error.reason); fix it first, since the other checks need the configuration to load")
            ]
        } catch let error as PinningError {
            throw UsageError("\(path): \(error)")
        }
        if json {
            try context.printJSON(
                Output(
                    warnings: warnings.map {
                        Entry(code: $0.code.description, domain: $0.domain, message: $0.message)
                    }))
        } else if warnings.isEmpty {
            context.print("clean: no warning for \(path)")
        } else {
            for warning in warnings { context.print("warning: \(warning)") }
        }
        return warnings.isEmpty ? .success : .failure
    }
}
