import Foundation

/// The `rampart` command-line tool: dispatches to subcommands and turns errors into one-line messages and exit codes.
public enum Rampart {
    /// This release's version (semantic versioning; CHANGELOG.md lists what each one changed), printed by
    /// `rampart --version`.
    public static let version = "0.9.0"

    /// Every subcommand, in the order `rampart --help` lists them. The service's commands are forwarders here
    /// (``ForwardedCommand``); `rampart-service` runs the same list with the real ones (RampartServiceCLI).
    public static let commands: [any Command.Type] = [
        PinsCommand.self,
        VerifyChainCommand.self,
        InspectCommand.self,
        PinsetCommand.self,
        CheckCommand.self,
        LintCommand.self,
        AuditCommand.self,
        VaultCommand.self,
        SealCommand.self,
        OpenCommand.self,
        RewrapCommand.self,
        AppAttestCommand.self,
        KeyAttestCommand.self,
        DeviceForwarder.self,
        ServeForwarder.self,
        RoutesForwarder.self,
        DemoForwarder.self,
    ]

    /// The top-level help text (the forwarders carry the service commands' names and abstracts).
    public static var help: String {
        var lines = [
            "rampart: security tooling for iOS apps and their servers",
            "",
            "USAGE: rampart <subcommand> [options]",
            "",
            "SUBCOMMANDS:",
        ]
        let width = (commands.map { $0.name.count }.max() ?? 0) + 2
        for command in commands {
            lines.append("  " + command.name.padding(toLength: width, withPad: " ", startingAt: 0) + command.abstract)
        }
        lines += [
            "",
            "Every subcommand takes --help (help on standard output, exit 0) and --json. Exit codes: 0 success,",
            "1 negative verdict (pin mismatch, untrusted chain, invalid attestation, tampered file, wrong passphrase",
            "or key), 2 bad usage or input. 'rampart' alone prints this help on standard error and exits 2;",
            "'rampart --version' prints the version.",
        ]
        return lines.joined(separator: "\n")
    }

    /// Runs `rampart` with `arguments` (without the program name).
    ///
    /// - Parameters:
    ///   - arguments: The command line after `rampart`.
    ///   - commands: The subcommands; a ``ForwardedCommand`` among them runs in `rampart-service`.
    ///   - context: The streams and clock to use.
    /// - Returns: The process exit status.
    public static func main(
        _ arguments: [String], commands: [any Command.Type] = commands, context: CommandContext = .process
    ) async -> Int32 {
        // Help that was asked for goes to standard output with exit 0; help shown because no subcommand was given
        // is a usage error: standard error, exit 2.
        guard let name = arguments.first else {
            context.printError(help)
            return ExitCode.usage.rawValue
        }
        // The service's commands (and their help) run in rampart-service.
        if let command = commands.first(where: { $0.name == name }), command is any ForwardedCommand.Type {
            return Forwarding.exec(name, Array(arguments.dropFirst()), context: context)
        }
        if ["--help", "-h", "help"].contains(name), arguments.count >= 2,
            let command = commands.first(where: { $0.name == arguments[1] }), command is any ForwardedCommand.Type
        {
            return Forwarding.exec(arguments[1], ["--help"], context: context)
        }
        if name == "--version" || name == "version" {
            context.print("rampart \(version)")
            return ExitCode.success.rawValue
        }
        guard name != "--help", name != "-h", name != "help" else {
            if arguments.count >= 2, let command = commands.first(where: { $0.name == arguments[1] }) {
                context.print(command.help)
            } else {
                context.print(help)
            }
            return ExitCode.success.rawValue
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            context.printError("rampart: unknown subcommand '\(name)'; run 'rampart --help' for the list")
            return ExitCode.usage.rawValue
        }
        var rest = Arguments(Array(arguments.dropFirst()))
        if rest.wantsHelp() {
            // `rampart appattest simulate --help` and `rampart vault --path F get --help` show the nested
            // subcommand's own help when it has one.
            let nested = rest.words.lazy.compactMap { command.help(forSubcommand: $0) }.first
            context.print(nested ?? command.help)
            return ExitCode.success.rawValue
        }
        do {
            return try await command.run(&rest, context: context).rawValue
        } catch let error as UsageError {
            context.printError("rampart \(name): \(error.message) (see 'rampart \(name) --help')")
            return ExitCode.usage.rawValue
        } catch let code as ExitCode {
            return code.rawValue
        } catch {
            context.printError("rampart \(name): \(error)")
            return ExitCode.usage.rawValue
        }
    }
}
