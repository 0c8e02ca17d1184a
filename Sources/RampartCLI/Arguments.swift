public import Foundation

/// The command line of one subcommand, consumed piece by piece.
///
/// A command asks for its flags and options by name (each removes what it matched), then for its positionals, then
/// calls ``finish()``, which rejects anything left over. `--name value` and `--name=value` are both accepted; `--`
/// ends option parsing.
public struct Arguments: Sendable {
    private var tokens: [String]
    private var afterTerminator: [String]

    /// Wraps the arguments that follow the subcommand name.
    ///
    /// - Parameter tokens: The raw arguments.
    public init(_ tokens: [String]) {
        if let end = tokens.firstIndex(of: "--") {
            self.tokens = Array(tokens[..<end])
            self.afterTerminator = Array(tokens[(end + 1)...])
        } else {
            self.tokens = tokens
            self.afterTerminator = []
        }
    }

    /// Whether any argument is left.
    public var isEmpty: Bool { tokens.isEmpty && afterTerminator.isEmpty }

    /// Removes the first argument when it is one of `names` (an action word, as in `pinset sign`) and returns it.
    ///
    /// - Parameter names: The action words.
    /// - Returns: The word, or nil when the first argument is none of them.
    public mutating func leadingWord(in names: [String]) -> String? {
        guard let first = tokens.first, names.contains(first) else { return nil }
        tokens.removeFirst()
        return first
    }

    /// Whether `--help` or `-h` was given (consumed).
    public mutating func wantsHelp() -> Bool { flag("--help") || flag("-h") }

    /// Removes a boolean flag and says whether it was present.
    ///
    /// - Parameter name: The flag, e.g. `--json`.
    /// - Returns: `true` if it was given at least once.
    public mutating func flag(_ name: String) -> Bool {
        let before = tokens.count
        tokens.removeAll { $0 == name }
        return tokens.count != before
    }

    /// Removes every occurrence of an option that takes a value and returns the values in order.
    ///
    /// - Parameter name: The option, e.g. `--ca`.
    /// - Returns: The values given.
    /// - Throws: ``UsageError`` when the option is last and has no value.
    public mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token == name {
                guard index + 1 < tokens.count else { throw UsageError("\(name) needs a value") }
                values.append(tokens[index + 1])
                tokens.removeSubrange(index...(index + 1))
            } else if token.hasPrefix(name + "=") {
                values.append(String(token.dropFirst(name.count + 1)))
                tokens.remove(at: index)
            } else {
                index += 1
            }
        }
        return values
    }

    /// Removes an option that may be given at most once.
    ///
    /// - Parameter name: The option, e.g. `--host`.
    /// - Returns: Its value, or nil when absent.
    /// - Throws: ``UsageError`` when it is given twice or has no value.
    public mutating func option(_ name: String) throws -> String? {
        let values = try options(name)
        guard values.count <= 1 else { throw UsageError("\(name) may be given only once") }
        return values.first
    }

    /// Removes an RFC 3339 time option such as `--at 2024-04-18T16:14:55Z` (fractional seconds allowed).
    ///
    /// - Parameter name: The option, e.g. `--at`.
    /// - Returns: The time, or nil when the option is absent.
    /// - Throws: ``UsageError`` when it is given twice, has no value, or is not an RFC 3339 time.
    public mutating func timeOption(_ name: String) throws -> Date? {
        guard let text = try option(name) else { return nil }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        throw UsageError("\(name) needs an RFC 3339 time such as 2026-06-01T00:00:00Z")
    }

    /// Removes an option that must be present.
    ///
    /// - Parameter name: The option.
    /// - Returns: Its value.
    /// - Throws: ``UsageError`` when it is missing.
    public mutating func requiredOption(_ name: String) throws -> String {
        guard let value = try option(name) else { throw UsageError("missing \(name)") }
        return value
    }

    /// Removes and returns the remaining positional arguments, rejecting any unknown option.
    ///
    /// Call this after every flag and option has been read.
    ///
    /// - Returns: The positionals in order.
    /// - Throws: ``UsageError`` naming the first unknown option.
    public mutating func positionals() throws -> [String] {
        if let unknown = tokens.first(where: { $0.hasPrefix("-") && $0 != "-" }) {
            throw UsageError("unknown option \(unknown)")
        }
        let result = tokens + afterTerminator
        tokens = []
        afterTerminator = []
        return result
    }

    /// Removes the first positional argument if it is not an option (a sub-subcommand name, for example).
    ///
    /// - Returns: The first token, or nil.
    public mutating func popFirstPositional() -> String? {
        guard let first = tokens.first, !first.hasPrefix("-") else { return nil }
        tokens.removeFirst()
        return first
    }

    /// The arguments that are not options, in order, without consuming them (option values included: a caller
    /// looking for a word such as an action name must check each against the names it knows).
    public var words: [String] { tokens.filter { !$0.hasPrefix("-") } }

    /// Fails if anything is left.
    ///
    /// - Throws: ``UsageError`` naming the first leftover argument.
    public func finish() throws {
        if let extra = (tokens + afterTerminator).first {
            throw UsageError(extra.hasPrefix("-") ? "unknown option \(extra)" : "unexpected argument \(extra)")
        }
    }
}

/// Bad usage or bad input: the command prints the message and exits with status 2.
public struct UsageError: Error, Sendable, CustomStringConvertible {
    /// What was wrong and, where it helps, what to do.
    public let message: String

    /// Creates the error.
    ///
    /// - Parameter message: What was wrong.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// A command's outcome when it ends without throwing.
public struct ExitCode: Error, Sendable, Hashable {
    /// The process status.
    public let rawValue: Int32

    /// Wraps a status.
    ///
    /// - Parameter rawValue: The status.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// 0: success, or a positive verdict.
    public static let success = ExitCode(0)
    /// 1: a negative verdict (pin mismatch, untrusted chain, invalid attestation).
    public static let failure = ExitCode(1)
    /// 2: bad usage or input.
    public static let usage = ExitCode(2)
}
