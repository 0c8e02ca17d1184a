import Foundation

/// A subcommand that `rampart` hands to `rampart-service`, the executable that links the service's libraries.
///
/// `rampart serve`, `routes`, `demo` and `device` need the service's libraries: libpq and (for URLSession) libcurl.
/// Linked into `rampart`, every command — `pins`, `seal`, `open` — would map them and their dependencies (GnuTLS,
/// Kerberos, LDAP) at start. So those commands live in RampartServiceCLI, which only `rampart-service` links; in
/// `rampart` each is a forwarder that replaces the process with `rampart-service` (installed next to it, or on
/// `PATH`) with the same arguments, so the command line users see is unchanged.
public protocol ForwardedCommand: Command {}

extension ForwardedCommand {
    /// Shown only if forwarding fails before `--help` could be answered by `rampart-service`.
    public static var help: String {
        "USAGE: rampart \(name) ... (run by rampart-service; see 'rampart-service \(name) --help')"
    }

    /// Not reached: ``Rampart/main(_:commands:context:)`` forwards these commands before parsing their arguments.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        ExitCode(Forwarding.exec(name, arguments.words, context: context))
    }
}

/// Finds `rampart-service` and runs it in place of this process.
enum Forwarding {
    /// The executable `rampart` hands service commands to.
    static let executableName = "rampart-service"

    /// Replaces the process with `rampart-service COMMAND ARGUMENTS...`; returns (exit status 2) only when it
    /// cannot, after saying why.
    static func exec(_ command: String, _ arguments: [String], context: CommandContext) -> Int32 {
        guard let path = locate() else {
            context.printError(
                "rampart \(command): this command is run by \(executableName), which is not next to rampart or on "
                    + "PATH; install it beside rampart (scripts/build-release.sh builds both)")
            return ExitCode.usage.rawValue
        }
        let argv = [executableName, command] + arguments
        var pointers = argv.map { strdup($0) }
        pointers.append(nil)
        // execv only returns on failure; then the copies are ours to free.
        execv(path, pointers)
        let reason = String(cString: strerror(errno))
        for pointer in pointers { free(pointer) }
        context.printError("rampart \(command): could not run \(path): \(reason)")
        return ExitCode.usage.rawValue
    }

    /// `rampart-service` in this executable's directory, else on `PATH`.
    static func locate() -> String? {
        var candidates: [String] = []
        if let me = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((me as NSString).deletingLastPathComponent + "/" + executableName)
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        candidates += path.split(separator: ":").map { "\($0)/\(executableName)" }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// `rampart serve`, run by `rampart-service`.
public enum ServeForwarder: ForwardedCommand {
    /// `serve`.
    public static let name = "serve"
    /// One line for `rampart --help` (RampartServiceCLI's ServeCommand.abstract; a test compares them).
    public static let abstract = "run the App Attest service (SQLite by default, PostgreSQL for several processes)"
}

/// `rampart routes`, run by `rampart-service` (it reads the serve configuration with the service's libraries).
public enum RoutesForwarder: ForwardedCommand {
    /// `routes`.
    public static let name = "routes"
    /// One line for `rampart --help` (RampartServiceCLI's RoutesCommand.abstract; a test compares them).
    public static let abstract = "say which route policy a request gets under a serve configuration (and why)"
}

/// `rampart demo`, run by `rampart-service`.
public enum DemoForwarder: ForwardedCommand {
    /// `demo`.
    public static let name = "demo"
    /// One line for `rampart --help` (RampartServiceCLI's DemoCommand.abstract; a test compares them).
    public static let abstract = "play the App Attest story: register, protected request, replay and tampering refused"
}

/// `rampart device`, run by `rampart-service` (its client sends HTTP through URLSession, which maps libcurl).
public enum DeviceForwarder: ForwardedCommand {
    /// `device`.
    public static let name = "device"
    /// One line for `rampart --help` (RampartServiceCLI's DeviceCommand.abstract; a test compares them).
    public static let abstract =
        "a simulated App Attest or Android device: register a key with a server and send signed requests"
}
