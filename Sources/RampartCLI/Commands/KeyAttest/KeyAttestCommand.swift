import Foundation

/// `rampart keyattest …`: verify Android Key Attestation certificate chains offline.
public enum KeyAttestCommand: Command {
    /// `keyattest`.
    public static let name = "keyattest"
    /// One line for `rampart --help`.
    public static let abstract = "verify Android Key Attestation chains offline: Google's roots, KeyDescription, policy"

    /// The `--help` text.
    public static var help: String {
        """
        USAGE: rampart keyattest verify CHAIN [options]

        Android's hardware-backed equivalent of App Attest: an app generates a Keystore key with your challenge
        (KeyGenParameterSpec.Builder.setAttestationChallenge) and sends the key's certificate chain, which Google's
        roots anchor and whose leaf carries a KeyDescription (where the key lives, the boot state, the app).

        \(KeyAttestVerifyCommand.help)
        """
    }

    /// The help of `verify`.
    ///
    /// - Parameter name: The word after `keyattest`.
    /// - Returns: `verify`'s help, or nil for another word.
    public static func help(forSubcommand name: String) -> String? {
        name == KeyAttestVerifyCommand.name ? KeyAttestVerifyCommand.help : nil
    }

    /// Runs the subcommand named by the first argument.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `keyattest`.
    ///   - context: Streams, input and clock.
    /// - Returns: The subcommand's exit code.
    /// - Throws: ``UsageError`` for a missing or unknown subcommand, or the subcommand's errors.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        guard let name = arguments.popFirstPositional() else {
            throw UsageError("name a subcommand: verify")
        }
        guard name == KeyAttestVerifyCommand.name else {
            throw UsageError("unknown keyattest subcommand '\(name.prefix(40))'; use verify")
        }
        do {
            return try KeyAttestVerifyCommand.run(&arguments, context: context)
        } catch let error as UsageError {
            context.printError(
                "rampart keyattest verify: \(error.message) (see 'rampart keyattest verify --help')")
            return .usage
        }
    }
}
