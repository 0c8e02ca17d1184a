public import Foundation

/// One `rampart` subcommand.
public protocol Command: Sendable {
    /// The subcommand word, e.g. `pins`.
    static var name: String { get }
    /// One line for the command list.
    static var abstract: String { get }
    /// The full `--help` text: usage line, description, options, exit codes, an example.
    static var help: String { get }
    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after the subcommand name (`--help` already handled).
    ///   - context: Where output goes and where input comes from.
    /// - Returns: The exit code.
    /// - Throws: ``UsageError`` (exit 2) or any error, which the runner prints in one line.
    static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode

    /// The help of a nested subcommand (`rampart appattest simulate --help`), or nil to show ``help``.
    ///
    /// - Parameter name: The word after the subcommand.
    /// - Returns: That nested subcommand's help text, or nil.
    static func help(forSubcommand name: String) -> String?
}

extension Command {
    /// Commands without nested subcommands always show their own ``help``.
    ///
    /// - Parameter name: The word after the subcommand.
    /// - Returns: nil.
    public static func help(forSubcommand name: String) -> String? { nil }
}

/// The world a command sees: its output streams, standard input, environment and clock. Tests replace all of them.
public final class CommandContext: Sendable {
    /// Writes to standard output.
    public let standardOutput: @Sendable (String) -> Void
    /// Writes to standard error.
    public let standardError: @Sendable (String) -> Void
    /// Reads all of standard input.
    public let readStandardInput: @Sendable () -> Data
    /// The environment variables.
    public let environment: [String: String]
    /// The current time; fixed in tests.
    public let now: @Sendable () -> Date

    /// Creates a context.
    ///
    /// - Parameters:
    ///   - standardOutput: Sink for stdout text.
    ///   - standardError: Sink for stderr text.
    ///   - readStandardInput: Source of stdin bytes.
    ///   - environment: Environment variables.
    ///   - now: The clock.
    public init(
        standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void,
        readStandardInput: @escaping @Sendable () -> Data,
        environment: [String: String],
        now: @escaping @Sendable () -> Date
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.readStandardInput = readStandardInput
        self.environment = environment
        self.now = now
    }

    /// The real process: stdout, stderr, stdin, `ProcessInfo` environment and the system clock.
    public static let process = CommandContext(
        standardOutput: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
        standardError: { text in FileHandle.standardError.write(Data(text.utf8)) },
        readStandardInput: { FileHandle.standardInput.readDataToEndOfFile() },
        environment: ProcessInfo.processInfo.environment,
        now: { Date() }
    )

    /// Writes `text` and a newline to standard output.
    ///
    /// - Parameter text: The line.
    public func print(_ text: String) { standardOutput(text + "\n") }

    /// Writes `text` and a newline to standard error.
    ///
    /// - Parameter text: The line.
    public func printError(_ text: String) { standardError(text + "\n") }

    /// Prints an `Encodable` value as pretty, key-sorted JSON on standard output.
    ///
    /// - Parameter value: The value.
    /// - Throws: An encoding error (a programming error).
    public func printJSON(_ value: some Encodable) throws {
        print(try JSONOutput.string(value))
    }
}

/// The JSON style of every `--json` output: pretty, keys sorted, slashes unescaped, RFC 3339 dates.
public enum JSONOutput {
    /// Encodes `value`.
    ///
    /// - Parameter value: The value.
    /// - Returns: The JSON text.
    /// - Throws: An encoding error.
    public static func string(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
