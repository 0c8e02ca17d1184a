import Foundation
import RampartAttestService
public import RampartCLI

/// `rampart routes --config FILE METHOD TARGET [--header NAME:VALUE]... [--json]`: which policy a request gets.
public enum RoutesCommand: Command {
    /// `routes`.
    public static let name = "routes"
    /// One line for `rampart --help`.
    public static let abstract = "say which route policy a request gets under a serve configuration (and why)"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart routes --config FILE METHOD TARGET [--header NAME:VALUE]... [--json]

        Answers what `rampart serve --config FILE` would decide for one request before any signature is checked: the
        route policy (open, limited, token, require-assertion), and the rule that gave it or "defaultPolicy". The
        most specific rule wins (an exact path beats a prefix, a longer prefix a shorter one, a named method '*'),
        and every reading a common backend could give the path is looked up, the strictest policy winning: other
        ASCII case, a trailing '/', ';params' and a '.json'-style suffix read as the stricter route's path, and the
        method also as HEAD's GET, as a method-override header names it (--header X-HTTP-Method-Override:DELETE),
        and as any method for a POST form body or a '_method' query field. A target that backends read as
        different paths (dot segments in any spelling such as '..;' or '%2e%2e', '//', %2F, %25, '\\', encoded
        non-ASCII, a segment ending in '.' or a space) is refused, as the service refuses it (400 invalidTarget;
        403 on /auth-request).

        OPTIONS:
          --config FILE         the rampart serve JSON configuration (its routes and defaultPolicy)
          --header NAME:VALUE   a request header (method overrides, Content-Type); repeatable
          --json                print {"policy","rule"} (rule: {"method","path","policy"} or null)
          -h, --help            show this help

        EXIT CODES:
          0  the request gets a policy (printed)
          1  the service would refuse the target or a method-override header (the reason on standard error)
          2  bad usage or an unreadable configuration

        EXAMPLE:
          rampart routes --config rampart.json GET '/api/feed/..;/points/balance'
        """

    struct Output: Encodable {
        let policy: String
        let rule: Rule?
    }

    struct Rule: Encodable {
        let method: String
        let path: String
        let policy: String
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `routes`.
    ///   - context: Streams.
    /// - Returns: `.success` with a policy, `.failure` for a refused target.
    /// - Throws: ``UsageError`` for bad usage or configuration.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        guard let file = try arguments.option("--config") else {
            throw UsageError("give the serve configuration with --config FILE")
        }
        var headers: [String: String] = [:]
        for header in try arguments.options("--header") {
            guard let colon = header.firstIndex(of: ":"), colon != header.startIndex else {
                throw UsageError("--header takes NAME:VALUE, e.g. --header X-HTTP-Method-Override:DELETE")
            }
            let name = header[..<colon].lowercased()
            let value = header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let positionals = try arguments.positionals()
        guard positionals.count == 2 else {
            throw UsageError(
                "give the request's METHOD and TARGET, e.g. rampart routes --config rampart.json GET /api/x")
        }
        let table: RouteTable
        do {
            table = try ServiceConfiguration.load(path: file).routeTable()
        } catch let error as AttestServiceError {
            throw UsageError(error.reason)
        }
        let decision: (policy: RoutePolicy, rule: RouteRule?)
        do {
            decision = try table.decision(method: positionals[0], target: positionals[1], headers: headers)
        } catch let error as AttestServiceError {
            context.printError("rampart routes: refused (\(error.code)): \(error.reason)")
            return .failure
        }
        if json {
            try context.printJSON(
                Output(
                    policy: decision.policy.rawValue,
                    rule: decision.rule.map {
                        Rule(method: $0.method, path: $0.path, policy: $0.policy.rawValue)
                    }))
        } else {
            let reason = decision.rule.map { "rule \($0.method) \($0.path)" } ?? "defaultPolicy"
            context.print("\(decision.policy.rawValue) (\(reason))")
        }
        return .success
    }
}
