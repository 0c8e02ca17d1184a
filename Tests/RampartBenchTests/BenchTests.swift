import Foundation
import RampartLoadReport
import TestSupport
import Testing

@testable import rampart_bench

/// A command line `rampart-bench` refuses, and the one line it says.
struct BenchRejection: CustomTestStringConvertible, Sendable {
    let arguments: [String]
    let message: String
    var testDescription: String { arguments.joined(separator: " ") }
}

/// `rampart-bench`'s command line: the benchmarks named, `--seconds`, and the service benchmark's selection.
struct BenchTests {
    private func parse(_ arguments: [String]) throws -> Bench.Invocation {
        try #require(try Bench.parse(arguments), "parse(\(arguments)) took it for --help")
    }

    @Test("no option: every benchmark, and the service benchmark's whole matrix")
    func defaults() throws {
        let invocation = try parse([])
        #expect(invocation.names.isEmpty)
        #expect(invocation.options.seconds == 2)
        let selection = invocation.options.service
        #expect(selection.isEmpty)
        #expect(selection.chosenSetups == [.sqlite, .postgres, .postgresTwoProcesses])
        #expect(selection.chosenFlows == [.twoRoundTrips, .oneRoundTrip])
        #expect(selection.chosenConcurrencies == [1, 8, 64, 256])
        #expect(try Bench.parse(["service", "--help"]) == nil)
        #expect(try Bench.parse(["-h"]) == nil)
    }

    @Test("one run: a setup and a concurrency; the flows left unnamed both run")
    func oneSetupOneConcurrency() throws {
        let invocation = try parse(["--seconds", "2", "service", "--setup", "sqlite", "--concurrency", "8"])
        #expect(invocation.names == ["service"])
        #expect(invocation.options.seconds == 2)
        #expect(invocation.options.service.chosenSetups == [.sqlite])
        #expect(invocation.options.service.chosenFlows == [.twoRoundTrips, .oneRoundTrip])
        #expect(invocation.options.service.chosenConcurrencies == [8])
    }

    @Test("repeated options: each value once, setups and flows in the matrix's order, concurrencies lowest first")
    func repeatedOptions() throws {
        let invocation = try parse([
            "service", "--setup", "postgres-2", "--setup", "sqlite", "--setup", "sqlite", "--flow", "one-round-trip",
            "--concurrency", "256", "--concurrency", "1", "--concurrency", "256", "--seconds", "0.5",
        ])
        let selection = invocation.options.service
        #expect(selection.chosenSetups == [.sqlite, .postgresTwoProcesses])
        #expect(selection.chosenFlows == [.oneRoundTrip])
        #expect(selection.chosenConcurrencies == [1, 256])
        #expect(invocation.options.seconds == 0.5)
        #expect(
            try parse(["--flow", "one-round-trip", "--flow", "two-round-trips"]).options.service.chosenFlows
                == [.twoRoundTrips, .oneRoundTrip])
        #expect(try parse(["--setup", "postgres"]).options.service.chosenSetups == [.postgres])
    }

    @Test("the selection applies wherever the service benchmark runs: alone, among others, or with every one")
    func selectionWithOtherBenchmarks() throws {
        #expect(try parse(["--setup", "sqlite"]).names.isEmpty)
        #expect(try parse(["crypto", "service", "--flow", "two-round-trips"]).names == ["crypto", "service"])
        #expect(try parse(["crypto", "pins"]).options.service.isEmpty)
    }

    static let rejections: [BenchRejection] = [
        .init(arguments: ["--setup", "mysql"], message: "--setup must be sqlite, postgres or postgres-2 (got mysql)"),
        .init(
            arguments: ["--setup", "SQLite"], message: "--setup must be sqlite, postgres or postgres-2 (got SQLite)"),
        .init(arguments: ["service", "--setup"], message: "--setup needs a value: sqlite, postgres or postgres-2"),
        .init(
            arguments: ["--flow", "two-trips"],
            message: "--flow must be two-round-trips or one-round-trip (got two-trips)"),
        .init(arguments: ["--flow"], message: "--flow needs a value: two-round-trips or one-round-trip"),
        .init(arguments: ["--concurrency", "0"], message: "--concurrency must be a whole number in 1...4096 (got 0)"),
        .init(
            arguments: ["--concurrency", "4097"],
            message: "--concurrency must be a whole number in 1...4096 (got 4097)"),
        .init(
            arguments: ["--concurrency", "eight"],
            message: "--concurrency must be a whole number in 1...4096 (got eight)"),
        .init(
            arguments: ["--concurrency", "8.5"], message: "--concurrency must be a whole number in 1...4096 (got 8.5)"),
        .init(arguments: ["--concurrency"], message: "--concurrency needs a value: a whole number in 1...4096"),
        .init(
            arguments: ["crypto", "--setup", "sqlite"],
            message: "--setup, --flow and --concurrency choose the service benchmark's runs, and it is not among "
                + "crypto; add service"),
        .init(
            arguments: ["crypto", "pins", "--concurrency", "8"],
            message: "--setup, --flow and --concurrency choose the service benchmark's runs, and it is not among "
                + "crypto, pins; add service"),
        .init(arguments: ["--seconds", "0"], message: "--seconds needs a positive number"),
        .init(arguments: ["--seconds", "soon"], message: "--seconds needs a positive number"),
        .init(arguments: ["--seconds"], message: "--seconds needs a positive number"),
        .init(arguments: ["--sedup", "sqlite"], message: "unknown option '--sedup'; see --help"),
        .init(
            arguments: ["servise"],
            message: "unknown benchmark 'servise'; the benchmarks are crypto, pins, trust, seal, vault, appattest, "
                + "keyattest, audit, service"),
    ]

    @Test("bad arguments are refused with one line naming the argument and what it takes", arguments: rejections)
    func rejection(_ rejection: BenchRejection) {
        #expect(throws: BenchError(rejection.message)) { try Bench.parse(rejection.arguments) }
    }

    @Test("--help shows each selection option with the values it takes, and what runs without them")
    func help() {
        for line in [
            "USAGE: rampart-bench [--seconds S] [NAME...] [--setup SETUP]... [--flow FLOW]... [--concurrency N]...",
            "  --setup SETUP       service only: sqlite, postgres or postgres-2 (two processes on one PostgreSQL); "
                + "repeatable",
            "  --flow FLOW         service only: two-round-trips or one-round-trip (one-round-trip: "
                + "Rampart-Next-Challenge); repeatable",
            "  --concurrency N     service only: workers, 1...4096; repeatable",
            "Without --setup, --flow or --concurrency the service benchmark runs every setup, both flows and "
                + "concurrency 1, 8, 64, 256.",
        ] {
            #expect(Bench.help.split(separator: "\n").contains { $0 == line }, "\(line)\n--- in ---\n\(Bench.help)")
        }
    }

    @Test("rampart-bench exits 2 with the refusal on standard error, and runs nothing")
    func exitStatus() throws {
        let executable = try #require(Self.benchExecutable, "rampart-bench was not built: swift build --build-tests")
        let result = try SpawnedProcess.run(executable.path, ["service", "--setup", "mysql"])
        #expect(result.termination == .exited(2))
        #expect(result.errorText == "rampart-bench: --setup must be sqlite, postgres or postgres-2 (got mysql)\n")
        #expect(result.stdout.isEmpty)
    }

    /// The built `rampart-bench`, next to the test bundle.
    static let benchExecutable: URL? = {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? ""
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("rampart-bench")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()
}
