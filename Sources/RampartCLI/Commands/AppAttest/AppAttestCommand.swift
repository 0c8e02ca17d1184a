import Foundation

/// `rampart appattest …`: verify App Attest attestations, assertions and receipts, and simulate a device.
public enum AppAttestCommand: Command {
    /// `appattest`.
    public static let name = "appattest"
    /// One line for `rampart --help`.
    public static let abstract = "verify App Attest attestations, assertions and receipts; simulate a device"

    static let subcommands: [any AppAttestSubcommand.Type] = [
        VerifyAttestationCommand.self, VerifyAssertionCommand.self, ReceiptCommand.self, SimulateCommand.self,
    ]

    /// The `--help` text: every subcommand's usage and options.
    public static var help: String {
        ([
            """
            USAGE: rampart appattest <verify-attestation|verify-assertion|receipt|simulate> [options]

            Server-side App Attest (Apple's "Validating apps that connect to your server"). Base64 inputs accept the
            standard and URL-safe alphabets, padded or not; B64|@FILE also reads a file (base64 text or raw bytes) and
            @- reads standard input. Times are RFC 3339 (2024-04-18T16:14:55Z).

            EXIT CODES:
              0  valid (or, for simulate, objects written)
              1  invalid: a check failed; the reason code and message say which (with --json: {"valid":false,...})
              2  bad usage or malformed input (one line on stderr)
            """
        ] + subcommands.map { "\n" + $0.help }).joined(separator: "\n")
    }

    /// The help of one subcommand, with the shared input conventions and its own exit codes.
    ///
    /// - Parameter name: `verify-attestation`, `verify-assertion`, `receipt` or `simulate`.
    /// - Returns: Its help, or nil for an unknown name.
    public static func help(forSubcommand name: String) -> String? {
        guard let subcommand = subcommands.first(where: { $0.name == name }) else { return nil }
        let exitCodes =
            name == "simulate"
            ? """
            EXIT CODES:
              0  the objects were made (and written to --out-dir, --ca-dir)
              2  bad usage, an unreadable --ca-dir, or a file that could not be written (one line on stderr)
            """
            : """
            EXIT CODES:
              0  valid
              1  invalid: a check failed; the reason code and message say which (with --json: {"valid":false,...})
              2  bad usage or malformed input (one line on stderr)
            """
        return subcommand.help + "\n\n" + inputHelp + "\n\n" + exitCodes
    }

    private static let inputHelp = """
        Base64 inputs accept the standard and URL-safe alphabets, padded or not; B64|@FILE also reads a file (base64
        text or raw bytes) and @- reads standard input. Times are RFC 3339 (2024-04-18T16:14:55Z).
        """

    /// Runs the subcommand named by the first argument.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `appattest`.
    ///   - context: Streams, input and clock.
    /// - Returns: The subcommand's exit code.
    /// - Throws: ``UsageError`` for a missing or unknown subcommand, or the subcommand's errors.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        guard let name = arguments.popFirstPositional() else {
            throw UsageError("name a subcommand: verify-attestation, verify-assertion, receipt or simulate")
        }
        guard let subcommand = subcommands.first(where: { $0.name == name }) else {
            throw UsageError(
                "unknown appattest subcommand '\(name)'; use verify-attestation, verify-assertion, receipt or simulate")
        }
        do {
            return try subcommand.run(&arguments, context: context)
        } catch let error as UsageError {
            // Point at the subcommand's own help, with the same prefix as its other errors.
            context.printError("rampart appattest \(name): \(error.message) (see 'rampart appattest \(name) --help')")
            return .usage
        }
    }
}

/// One `rampart appattest` subcommand.
protocol AppAttestSubcommand: Sendable {
    /// The word after `appattest`.
    static var name: String { get }
    /// The usage block printed in `rampart appattest --help`.
    static var help: String { get }
    /// Runs the subcommand.
    static func run(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode
}
