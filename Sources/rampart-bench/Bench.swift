import Foundation
import RampartCrypto

/// One benchmark: a name, a description for `--help`, and the function that runs it and prints its results.
struct Benchmark: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (BenchOptions) -> Void
}

/// Options shared by every benchmark.
struct BenchOptions: Sendable, Equatable {
    /// How long each measured loop runs, in seconds.
    var seconds: Double = 2
    /// The runs of the service benchmark (`--setup`, `--flow`, `--concurrency`).
    var service = ServiceBenchmarks.Selection()
}

enum Bench {
    static let benchmarks: [Benchmark] = [
        Benchmark(name: "crypto", summary: "OpenSSL primitive costs (the floors other ratios divide by)") { options in
            CryptoBenchmarks.run(options)
        },
        Benchmark(name: "pins", summary: "certificates parsed + SPKI-pinned per second vs SHA-256 of the same bytes") {
            options in
            PinsBenchmarks.run(options)
        },
        Benchmark(name: "trust", summary: "chain evaluation + pin check per second, cold and cached, vs ECDSA") {
            options in
            TrustBenchmarks.run(options)
        },
        Benchmark(name: "seal", summary: "file encryption (1 GiB) vs the AES-GCM floor, cp and age") { options in
            SealBenchmarks.run(options)
        },
        Benchmark(name: "vault", summary: "vault items written/read per second vs AES-GCM; open time (KDF)") {
            options in
            VaultBenchmarks.run(options)
        },
        Benchmark(
            name: "appattest",
            summary: "App Attest attestations/s (cold, cached intermediate) and assertions/s vs their signature checks"
        ) { options in
            AppAttestBenchmarks.run(options)
        },
        Benchmark(
            name: "keyattest",
            summary: "Android Key Attestation chains verified/s (real device chains) vs their signature checks"
        ) { options in
            KeyAttestationBenchmarks.run(options)
        },
        Benchmark(name: "audit", summary: "rampart audit over a 100,000-line Swift project, lines/s vs SHA-256") {
            options in
            AuditBenchmarks.run(options)
        },
        Benchmark(
            name: "service",
            summary:
                "protected requests/s, p50/p99, server CPU by stage: rampart serve driven by rampart-load (SQLite, "
                + "PostgreSQL, 2 processes; both flows; concurrency 1-256) vs one P-256 verify"
        ) { options in
            ServiceBenchmarks.run(options)
        },
    ]

    static let help = """
        rampart-bench: measures Rampart against the cost of the OpenSSL primitives it uses, and against peers

        USAGE: rampart-bench [--seconds S] [NAME...] [--setup SETUP]... [--flow FLOW]... [--concurrency N]...

        With no NAME every benchmark runs. Benchmarks:
        \(benchmarks.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0))\($0.summary)" }.joined(separator: "\n"))

        OPTIONS:
          --seconds S         how long each measured loop (each service run) lasts, in seconds (default 2)
        \(ServiceBenchmarks.Selection.help)
        """

    /// What the command line asks for: the options, and the benchmarks to run (empty for every one).
    struct Invocation: Equatable {
        var options = BenchOptions()
        var names: [String] = []
    }

    /// Parses the arguments after the program name.
    ///
    /// - Parameter arguments: The arguments.
    /// - Returns: The invocation, or nil for `--help`.
    /// - Throws: ``BenchError`` saying which argument is wrong and what it takes.
    static func parse(_ arguments: [String]) throws(BenchError) -> Invocation? {
        var invocation = Invocation()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--help", "-h":
                return nil
            case "--seconds":
                guard index + 1 < arguments.count, let value = Double(arguments[index + 1]), value > 0 else {
                    throw BenchError("--seconds needs a positive number")
                }
                invocation.options.seconds = value
                index += 1
            default:
                if let option = ServiceBenchmarks.Selection.Option(rawValue: argument) {
                    index += 1
                    try invocation.options.service.read(option, index < arguments.count ? arguments[index] : nil)
                } else if argument.hasPrefix("-") {
                    throw BenchError("unknown option '\(argument.prefix(80))'; see --help")
                } else if benchmarks.contains(where: { $0.name == argument }) {
                    invocation.names.append(argument)
                } else {
                    throw BenchError(
                        "unknown benchmark '\(argument.prefix(80))'; the benchmarks are "
                            + benchmarks.map(\.name).joined(separator: ", "))
                }
            }
            index += 1
        }
        let names = invocation.names
        if !invocation.options.service.isEmpty && !names.isEmpty && !names.contains("service") {
            throw BenchError(
                "--setup, --flow and --concurrency choose the service benchmark's runs, and it is not among "
                    + "\(names.joined(separator: ", ")); add service")
        }
        return invocation
    }

    static func main(_ arguments: [String]) -> Int32 {
        let invocation: Invocation
        do {
            guard let parsed = try parse(arguments) else {
                print(help)
                return 0
            }
            invocation = parsed
        } catch {
            FileHandle.standardError.write(Data("rampart-bench: \(error)\n".utf8))
            return 2
        }
        let (options, names) = (invocation.options, invocation.names)
        for benchmark in benchmarks where names.isEmpty || names.contains(benchmark.name) {
            print("== \(benchmark.name): \(benchmark.summary)")
            benchmark.run(options)
        }
        return 0
    }
}

/// Runs `body` repeatedly for about `seconds` and returns operations per second.
func measure(seconds: Double, _ body: () -> Void) -> Double {
    // Warm up once so lazy initialisation is not measured.
    body()
    let clock = ContinuousClock()
    let start = clock.now
    var iterations = 0
    var elapsed = Duration.zero
    while elapsed < .milliseconds(Int(seconds * 1000)) {
        for _ in 0..<16 { body() }
        iterations += 16
        elapsed = clock.now - start
    }
    let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Double(iterations) / total
}

/// Formats a rate with thousands separators.
func formatRate(_ value: Double) -> String {
    String(format: "%12.0f", value)
}
