public import RampartCLI

/// `rampart-service`: the whole command set, where `rampart` has forwarders for the commands that need the service's
/// libraries (`serve`, `routes`, `demo`, `device`).
public enum RampartService {
    /// ``Rampart/commands`` with each forwarder replaced by the command it forwards to.
    public static let commands: [any Command.Type] = Rampart.commands.map { command in
        serviceCommands.first { $0.name == command.name } ?? command
    }

    /// The commands that need the service's libraries.
    static let serviceCommands: [any Command.Type] = [
        DeviceCommand.self, ServeCommand.self, RoutesCommand.self, DemoCommand.self,
    ]

    /// Runs `rampart` with `arguments` (without the program name) and the whole command set.
    ///
    /// - Parameters:
    ///   - arguments: The command line after `rampart`.
    ///   - context: The streams and clock to use.
    /// - Returns: The process exit status.
    public static func main(_ arguments: [String], context: CommandContext = .process) async -> Int32 {
        await Rampart.main(arguments, commands: commands, context: context)
    }
}
