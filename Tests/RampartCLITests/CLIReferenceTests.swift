import Foundation
import RampartCLI
import RampartServiceCLI
import Testing

/// `docs/cli.md` holds every subcommand's `--help` text below its marker, generated from the commands themselves, so
/// the reference cannot drift. `RAMPART_WRITE_CLI_REFERENCE=1` rewrites it.
struct CLIReferenceTests {
    static let path = DocExampleTests.packageRoot.appendingPathComponent("docs/cli.md")
    static let marker = "<!-- generated from rampart --help; do not edit below -->"

    /// The generated part: `rampart --help`, then each subcommand's help, each in a plain block.
    static var generated: String {
        var text = "\n## `rampart`\n\n```\n\(Rampart.help)\n```\n"
        for command in RampartService.commands {
            text += "\n## `rampart \(command.name)`\n\n\(command.abstract)\n\n```\n\(command.help)\n```\n"
        }
        return text
    }

    @Test("docs/cli.md is every subcommand's --help, as the commands print it")
    func referenceMatchesHelp() throws {
        let text = try String(contentsOf: Self.path, encoding: .utf8)
        let marker = try #require(text.range(of: Self.marker), "docs/cli.md lost its marker line")
        let written = String(text[marker.upperBound...])
        if ProcessInfo.processInfo.environment["RAMPART_WRITE_CLI_REFERENCE"] == "1" {
            try Data((text[..<marker.upperBound] + Self.generated).utf8).write(to: Self.path)
            return
        }
        #expect(
            written == Self.generated,
            "docs/cli.md differs from the commands' help: run RAMPART_WRITE_CLI_REFERENCE=1 swift test --filter CLIReferenceTests"
        )
    }
}
