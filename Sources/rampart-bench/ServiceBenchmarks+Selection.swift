import RampartLoadReport

extension ServiceBenchmarks {
    /// A service setup `--setup` names: where each `rampart serve` process keeps its state.
    enum SetupKind: String, CaseIterable, Sendable {
        /// One process on a SQLite file.
        case sqlite
        /// One process on PostgreSQL (`RAMPART_BENCH_POSTGRES_URL`).
        case postgres
        /// Two processes on one PostgreSQL database, the load split across both.
        case postgresTwoProcesses = "postgres-2"

        /// The setup's name in the results.
        var title: String {
            switch self {
            case .sqlite: "SQLite"
            case .postgres: "PostgreSQL"
            case .postgresTwoProcesses: "PostgreSQL ×2"
            }
        }

        /// The raw values as a list for a message or `--help`: `sqlite, postgres or postgres-2`.
        static let names =
            allCases.dropLast().map(\.rawValue).joined(separator: ", ") + " or "
            + (allCases.last?.rawValue ?? "")
    }

    /// The part of the matrix `rampart-bench service` runs: the setups, flows and concurrencies named with
    /// `--setup`, `--flow` and `--concurrency` (each repeatable), or all of them where none is named.
    struct Selection: Sendable, Equatable {
        /// The setups named, in the order given (duplicates kept); empty for every one.
        private(set) var setups: [SetupKind] = []
        /// The flows named; empty for both.
        private(set) var flows: [LoadFlow] = []
        /// The concurrencies named; empty for ``ServiceBenchmarks/concurrencies``.
        private(set) var concurrencies: [Int] = []

        /// The options a selection reads.
        enum Option: String, CaseIterable, Sendable {
            case setup = "--setup"
            case flow = "--flow"
            case concurrency = "--concurrency"
        }

        /// The concurrencies `--concurrency` accepts (those of `rampart-load --concurrency`).
        static let concurrencyRange = LoadReport.concurrencyRange

        /// The lines `rampart-bench --help` shows for the options.
        static let help = [
            "  --setup SETUP       service only: \(SetupKind.names) (two processes on one PostgreSQL); repeatable",
            "  --flow FLOW         service only: \(LoadFlow.names) (one-round-trip: "
                + "Rampart-Next-Challenge); repeatable",
            "  --concurrency N     service only: workers, "
                + "\(concurrencyRange.lowerBound)...\(concurrencyRange.upperBound); repeatable",
            "Without --setup, --flow or --concurrency the service benchmark runs every setup, both flows and "
                + "concurrency " + ServiceBenchmarks.concurrencies.map(String.init).joined(separator: ", ") + ".",
        ].joined(separator: "\n")

        /// Whether nothing was named: the whole matrix runs.
        var isEmpty: Bool { setups.isEmpty && flows.isEmpty && concurrencies.isEmpty }

        /// The setups to run, in the matrix's order.
        var chosenSetups: [SetupKind] { SetupKind.allCases.filter { setups.isEmpty || setups.contains($0) } }

        /// The flows to run, in the matrix's order.
        var chosenFlows: [LoadFlow] { LoadFlow.allCases.filter { flows.isEmpty || flows.contains($0) } }

        /// The concurrencies to run, lowest first, each once.
        var chosenConcurrencies: [Int] {
            concurrencies.isEmpty ? ServiceBenchmarks.concurrencies : Array(Set(concurrencies)).sorted()
        }

        /// Reads the value of an option.
        ///
        /// - Parameters:
        ///   - option: The option.
        ///   - value: The argument after it; nil when there is none.
        /// - Throws: ``BenchError`` naming the option and the values it takes.
        mutating func read(_ option: Option, _ value: String?) throws(BenchError) {
            switch option {
            case .setup:
                guard let value else { throw BenchError("--setup needs a value: \(SetupKind.names)") }
                guard let setup = SetupKind(rawValue: value) else {
                    throw BenchError("--setup must be \(SetupKind.names) (got \(value.prefix(80)))")
                }
                setups.append(setup)
            case .flow:
                guard let value else { throw BenchError("--flow needs a value: \(LoadFlow.names)") }
                guard let flow = LoadFlow(rawValue: value) else {
                    throw BenchError("--flow must be \(LoadFlow.names) (got \(value.prefix(80)))")
                }
                flows.append(flow)
            case .concurrency:
                let range = Self.concurrencyRange
                let whole = "a whole number in \(range.lowerBound)...\(range.upperBound)"
                guard let value else { throw BenchError("--concurrency needs a value: \(whole)") }
                guard let number = Int(value), range.contains(number) else {
                    throw BenchError("--concurrency must be \(whole) (got \(value.prefix(80)))")
                }
                concurrencies.append(number)
            }
        }
    }
}
