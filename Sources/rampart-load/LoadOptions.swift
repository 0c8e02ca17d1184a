import Foundation
import RampartLoadReport

/// Where the signed request goes.
enum LoadGateway: String, CaseIterable, Sendable {
    /// Envoy's `ext_authz` shape: the request goes to `/ext-authz` followed by the target the app signed.
    case envoy
    /// The request goes to the target itself (a demo route of `rampart serve --demo`, for instance).
    case direct
}

/// The command line of `rampart-load`.
struct LoadOptions: Sendable, Equatable {
    var servers: [LoadServerAddress] = []
    var admins: [LoadServerAddress] = []
    var serverPIDs: [Int32] = []
    var databaseProcess: String?
    var simulator: String?
    var teamID = "BENCH12345"
    var bundleID = "com.rampart.bench"
    var keys: Int?
    var concurrency = 8
    /// Event-loop threads (`--threads`); nil for ``loopCount``'s default.
    var threads: Int?
    var seconds = 5.0
    var warmup = 0.5
    var flow = LoadFlow.twoRoundTrips
    var gateway = LoadGateway.envoy
    var target = "/api/points/use"
    var subjectHeader = "X-User-Id"
    var body = #"{"amount":1}"#

    /// The keys to register: `--keys`, else one per worker (at least 16), so no two workers share a key.
    var keyCount: Int { max(keys ?? 16, concurrency) }

    /// The event-loop threads the workers are spread over: `--threads`, else one per 128 workers (at least one, at
    /// most one per core); never more than the workers.
    ///
    /// Measured on two cores shared with the server: one loop costs less CPU per request than two at concurrency 8
    /// (fewer wake-ups, more answers per `epoll_wait`) and the same at 64, while using about half a core at most.
    var loopCount: Int {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return min(concurrency, threads ?? min(cores, max(1, concurrency / Self.workersPerLoop)))
    }

    /// Workers per event-loop thread when `--threads` is not given.
    static let workersPerLoop = 128

    /// The path sent to the server for the signed target.
    var requestPath: String { gateway == .envoy ? "/ext-authz" + target : target }

    static let usage = """
        rampart-load: drives protected requests (App Attest signed requests) against a running `rampart serve`

        USAGE: rampart-load --server URL [--server URL] --simulator DIR [options]

        Registers simulated App Attest keys (the simulator CA in DIR, which the server must trust with
        `rampart serve --root DIR/root.pem`), then sends signed requests at a fixed concurrency for a bounded time,
        signing in this process, over kept-alive connections. Prints one JSON object.

        OPTIONS:
          --server URL            the public listener (http://127.0.0.1:PORT); repeat to split the load across servers
          --admin URL             an admin listener whose /metrics is read before and after (stage CPU); repeatable
          --server-pid PID        a server process whose CPU (/proc/PID/stat) is measured; repeatable
          --database-process NAME also measure every process named NAME (e.g. postgres)
          --simulator DIR         the simulator CA folder (created when empty)
          --team-id ID            the app's team id (default BENCH12345)
          --bundle-id ID          the app's bundle id (default com.rampart.bench)
          --keys N                keys to register (default: the concurrency, at least 16)
          --concurrency N         workers, each with its own keys and connection (default 8)
          --threads N             threads driving the workers' connections (default: one per 128 workers, at
                                  most one per core)
          --seconds S             the measured time (default 5, at most 600)
          --warmup S              unmeasured time before it (default 0.5)
          --flow FLOW             two-round-trips (default) or one-round-trip (Rampart-Next-Challenge)
          --gateway KIND          envoy (default: POST /ext-authz<target>) or direct (POST <target>)
          --target PATH           the target the app signs (default /api/points/use)
          --subject-header NAME   the header the server takes the subject from (default X-User-Id)
          --body TEXT             the JSON body (default {"amount":1})
        """

    /// Parses the arguments after the program name.
    ///
    /// - Parameter arguments: The arguments.
    /// - Returns: The options, or nil for `--help`.
    /// - Throws: ``LoadError`` naming the bad argument.
    static func parse(_ arguments: [String]) throws -> LoadOptions? {
        var options = LoadOptions()
        var index = 0
        func value(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw LoadError("\(name) needs a value; see --help") }
            return arguments[index]
        }
        func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double {
            let text = try value(name)
            guard let number = Double(text), range.contains(number) else {
                throw LoadError("\(name) must be a number in \(range.lowerBound)...\(range.upperBound) (got \(text))")
            }
            return number
        }
        func integer(_ name: String, _ range: ClosedRange<Int>) throws -> Int {
            let text = try value(name)
            guard let number = Int(text), range.contains(number) else {
                throw LoadError(
                    "\(name) must be a whole number in \(range.lowerBound)...\(range.upperBound) (got \(text))")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h": return nil
            case "--server": options.servers.append(try LoadServerAddress(try value(argument)))
            case "--admin": options.admins.append(try LoadServerAddress(try value(argument)))
            case "--server-pid": options.serverPIDs.append(Int32(try integer(argument, 1...Int(Int32.max))))
            case "--database-process": options.databaseProcess = try value(argument)
            case "--simulator": options.simulator = try value(argument)
            case "--team-id": options.teamID = try value(argument)
            case "--bundle-id": options.bundleID = try value(argument)
            case "--keys": options.keys = try integer(argument, 1...100_000)
            case "--concurrency": options.concurrency = try integer(argument, LoadReport.concurrencyRange)
            case "--threads": options.threads = try integer(argument, 1...256)
            case "--seconds": options.seconds = try number(argument, 0.1...600)
            case "--warmup": options.warmup = try number(argument, 0...60)
            case "--flow":
                let text = try value(argument)
                guard let flow = LoadFlow(rawValue: text) else {
                    throw LoadError("--flow must be \(LoadFlow.names) (got \(text))")
                }
                options.flow = flow
            case "--gateway":
                let text = try value(argument)
                guard let gateway = LoadGateway(rawValue: text) else {
                    throw LoadError("--gateway must be envoy or direct (got \(text))")
                }
                options.gateway = gateway
            case "--target":
                let text = try value(argument)
                guard text.hasPrefix("/"), !text.contains(where: { $0 == " " || $0.isNewline }) else {
                    throw LoadError("--target must be a path starting with '/' without spaces (got \(text.prefix(80)))")
                }
                options.target = text
            case "--subject-header": options.subjectHeader = try value(argument)
            case "--body": options.body = try value(argument)
            default: throw LoadError("unknown argument '\(argument.prefix(80))'; see --help")
            }
            index += 1
        }
        guard !options.servers.isEmpty else { throw LoadError("--server URL is required; see --help") }
        guard options.simulator != nil else {
            throw LoadError("--simulator DIR is required (the CA the server trusts with --root DIR/root.pem)")
        }
        return options
    }
}
