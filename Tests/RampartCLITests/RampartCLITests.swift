import Foundation
import RampartCLI
import RampartServiceCLI
import Testing

/// Runs `rampart` in-process, with the whole command set (as `rampart-service` has it), and captures what it
/// prints.
func runRampart(
    _ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:],
    now: @escaping @Sendable () -> Date = { Date(timeIntervalSince1970: 1_790_000_000) }
) async -> (status: Int32, stdout: String, stderr: String) {
    let output = Captured()
    let error = Captured()
    let context = CommandContext(
        standardOutput: { output.append($0) },
        standardError: { error.append($0) },
        readStandardInput: { stdin },
        environment: environment,
        now: now
    )
    let status = await RampartService.main(arguments, context: context)
    return (status, output.text, error.text)
}

/// A thread-safe text sink.
final class Captured: @unchecked Sendable {
    private let lock = NSLock()
    private var buffer = ""

    func append(_ text: String) { lock.withLock { buffer += text } }

    var text: String { lock.withLock { buffer } }
}

struct RampartCLITests {
    @Test("help that was asked for is stdout and exit 0; no subcommand at all is the help on stderr and exit 2")
    func help() async {
        let bare = await runRampart([])
        #expect(bare.status == 2)
        #expect(bare.stdout.isEmpty)
        #expect(bare.stderr.contains("USAGE: rampart"))
        for asked in [["--help"], ["-h"], ["help"], ["help", "vault"]] {
            let help = await runRampart(asked)
            #expect(help.status == 0, "\(asked)")
            #expect(help.stdout.contains("USAGE: rampart"), "\(asked)")
            #expect(help.stderr.isEmpty, "\(asked)")
        }
    }

    @Test("an unknown subcommand is exit 2 with one line on stderr")
    func unknown() async {
        let result = await runRampart(["frobnicate"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown subcommand 'frobnicate'"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("every subcommand answers --help with exit 0 and a USAGE line")
    func subcommandHelp() async {
        for command in Rampart.commands {
            let result = await runRampart([command.name, "--help"])
            #expect(result.status == 0, "\(command.name)")
            #expect(result.stdout.contains("USAGE:"), "\(command.name)")
        }
    }
}

struct NestedHelpTests {
    @Test("a nested subcommand's --help shows its own usage", arguments: ["verify-attestation", "simulate"])
    func nestedHelp(name: String) async {
        let result = await runRampart(["appattest", name, "--help"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("rampart appattest \(name)"))
        #expect(!result.stdout.contains("<verify-attestation|verify-assertion|receipt|simulate>"))
    }
}

struct TimeOptionTests {
    @Test("--at takes RFC 3339 times with or without fractional seconds; anything else is a UsageError")
    func timeOption() throws {
        var whole = Arguments(["--at", "2024-04-18T16:14:55Z"])
        #expect(try whole.timeOption("--at") == Date(timeIntervalSince1970: 1_713_456_895))
        var fractional = Arguments(["--at=2024-03-01T00:00:00.500Z"])
        #expect(try fractional.timeOption("--at") == Date(timeIntervalSince1970: 1_709_251_200.5))
        var absent = Arguments([])
        #expect(try absent.timeOption("--at") == nil)
        var bad = Arguments(["--at", "yesterday"])
        #expect(throws: UsageError.self) { try bad.timeOption("--at") }
    }
}
