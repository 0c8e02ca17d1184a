import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs every shell example of the README and the DocC articles, so that the docs cannot drift from the program.
///
/// The rules a document follows (they are the contract between the docs and this test):
///
/// - Every fenced block opened with ```` ```sh ```` (or `bash`, `shell`) is an example. The blocks of one document
///   run in order, each with `bash` (`set -eo pipefail`), in one fresh scratch directory per document, with the
///   built `rampart` first on `PATH`, `HOME` set to the scratch directory and no `RAMPART_*` variable inherited. The
///   scratch directory holds `Examples/` (the repository's) and three stand-in inputs the examples name:
///   `backup.tar`, `db.dump` and `photos/`. Background jobs (`rampart serve … &`) are killed when the block ends.
/// - A command that is meant to fail says so in a trailing comment `# exit N` (anything may follow, e.g.
///   `# exit 1: environmentMismatch`); any other command that fails ends the block and fails the test.
/// - A plain fenced block (no language) that follows a shell block with only blank lines between is that block's
///   output: standard output must equal it line for line (trailing blanks aside). `…` in an expected line matches
///   any text within that line.
/// - A block that cannot run here is preceded by the HTML comment `<!-- doc-test: skip REASON -->` (invisible on
///   GitHub and in DocC). Only the network, long-running servers on fixed ports, a full build or a full test run are
///   reasons; ``DocExampleTests/skipsAreFew()`` keeps the list short and each skip is reported with its reason.
struct DocExampleTests {
    /// The documents the test reads, relative to the package root: the README, the guides under `docs/` and the
    /// DocC articles.
    static let documents: [String] = {
        var paths = ["README.md"]
        let guides =
            (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appendingPathComponent("docs").path))
            ?? []
        paths += guides.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
        let sources = packageRoot.appendingPathComponent("Sources")
        let modules = (try? FileManager.default.contentsOfDirectory(atPath: sources.path)) ?? []
        for module in modules.sorted() {
            let docs = sources.appendingPathComponent(module).appendingPathComponent("Docs.docc")
            guard let enumerator = FileManager.default.enumerator(atPath: docs.path) else { continue }
            let articles = enumerator.compactMap { $0 as? String }.filter { $0.hasSuffix(".md") }.sorted()
            paths += articles.map { "Sources/\(module)/Docs.docc/\($0)" }
        }
        return paths
    }()

    @Test(
        "every shell example in the README and the DocC articles runs, printing what the docs show",
        arguments: documents)
    func document(path: String) throws {
        let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
        let examples = DocExample.parse(text)
        guard examples.contains(where: { $0.skipReason == nil }) else { return }
        let binary = try #require(Self.rampartDirectory, "the rampart binary was not built: swift build --build-tests")
        let scratch = try Self.makeScratch()
        defer { try? FileManager.default.removeItem(at: scratch) }
        for example in examples {
            let place = "\(path):\(example.line)"
            if let reason = example.skipReason {
                print("doc-test: skipped \(place): \(reason)")
                continue
            }
            let result = try Self.run(example.script, in: scratch, binaries: binary)
            try #require(
                result.status == 0,
                "\(place): the example exited \(result.status)\nstderr:\n\(result.stderr)\nstdout:\n\(result.stdout)")
            if let expected = example.output {
                let mismatch = DocExample.mismatch(expected: expected, actual: result.stdout)
                #expect(mismatch == nil, "\(place): \(mismatch ?? "")\nstdout:\n\(result.stdout)")
            }
        }
    }

    @Test("the docs skip few examples, each with a reason")
    func skipsAreFew() throws {
        var skipped: [String] = []
        for path in Self.documents {
            let text = try String(contentsOf: Self.packageRoot.appendingPathComponent(path), encoding: .utf8)
            for example in DocExample.parse(text) {
                guard let reason = example.skipReason else { continue }
                #expect(!reason.isEmpty, "\(path):\(example.line): a skip marker needs a reason")
                skipped.append("\(path):\(example.line)")
            }
        }
        // Today: the README's service-and-tests block, the release build (docs/pinning.md), the fixed-port service
        // blocks (docs/operations.md), `rampart serve` in RunningTheService and in the backend guide
        // (GatewayDocTests starts that configuration), and the examples against api.example.com and github.com. A new
        // skip must replace one of these.
        #expect(skipped.count <= 10, "too many skipped doc examples: \(skipped)")
    }

    @Test("the parser finds shell blocks, their output, skip markers and exit annotations")
    func parser() {
        let text = """
            Intro.

            ```sh
            echo one   # exit 0: fine
            ```

            ```
            one
            ```

            <!-- doc-test: skip needs the network -->
            ```sh
            curl https://example.com
            ```

            ```swift
            let x = 1
            ```

            ```sh
            false \\
              --flag   # exit 1
            ```
            """
        let examples = DocExample.parse(text)
        #expect(examples.count == 3)
        #expect(examples.first?.output == ["one"])
        #expect(examples.first?.line == 3)
        #expect(examples.dropFirst().first?.skipReason == "needs the network")
        #expect(examples.last?.output == nil)
        #expect(examples.last?.script.contains("set +e; false \\") == true)
        #expect(examples.last?.script.contains(#"[ "$__rc" -eq 1 ]"#) == true)
        let oneLine = DocExample.parse("```sh\nfalse   # exit 1\n```\n")
        #expect(oneLine.first?.script.contains(#"set +e; false  ; __rc=$?"#) == true)
        #expect(DocExample.mismatch(expected: ["a … c"], actual: "a bb c\n") == nil)
        #expect(DocExample.mismatch(expected: ["a"], actual: "a\nb\n") != nil)
    }

    // MARK: Running

    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The directory holding the built `rampart`: `RAMPART_BINARY_DIR` when set (the release build, to run the
    /// examples against the binary the README builds; taken as given, so a directory without it fails the tests
    /// instead of skipping them), else the one next to the test bundle.
    static let rampartDirectory: URL? = {
        if let directory = ProcessInfo.processInfo.environment["RAMPART_BINARY_DIR"], !directory.isEmpty {
            return URL(fileURLWithPath: directory, isDirectory: true)
        }
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? CommandLine.arguments.first ?? ""
        var directory = URL(fileURLWithPath: executable).deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("rampart").path) {
                return directory
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// A fresh scratch directory with `Examples/` and the stand-in inputs.
    static func makeScratch() throws -> URL {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-doc-\(UUID())")
        let manager = FileManager.default
        try manager.createDirectory(at: scratch.appendingPathComponent("photos"), withIntermediateDirectories: true)
        try manager.createSymbolicLink(
            at: scratch.appendingPathComponent("Examples"),
            withDestinationURL: packageRoot.appendingPathComponent("Examples"))
        try Data("a photo\n".utf8).write(to: scratch.appendingPathComponent("photos/1.jpg"))
        try Data(repeating: 0x61, count: 300_000).write(to: scratch.appendingPathComponent("backup.tar"))
        try Data("CREATE TABLE t (x);\n".utf8).write(to: scratch.appendingPathComponent("db.dump"))
        return scratch
    }

    /// Runs `script` with bash in `directory`, in its own process group; kills the group after two minutes.
    ///
    /// A ``SpawnedProcess`` leading its own process group: the child and everything it starts in the background are
    /// one group the test can always kill.
    static func run(
        _ script: String, in directory: URL, binaries: URL
    ) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let name = UUID().uuidString
        let scriptFile = directory.appendingPathComponent(".doc-\(name).sh")
        let outFile = directory.appendingPathComponent(".doc-\(name).out")
        let errFile = directory.appendingPathComponent(".doc-\(name).err")
        defer { for file in [scriptFile, outFile, errFile] { try? FileManager.default.removeItem(at: file) } }
        let quoted = "'" + directory.path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        try Data(("cd \(quoted)\n" + script).utf8).write(to: scriptFile)
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RAMPART_") }
        environment["PATH"] = binaries.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = directory.path

        let child = try SpawnedProcess(
            "/bin/bash", arguments: [scriptFile.path], environment: environment,
            standardOutput: .file(outFile.path), standardError: .file(errFile.path), newProcessGroup: true)
        let deadline = Date().addingTimeInterval(120)
        while child.isRunning, Date() < deadline { usleep(10_000) }
        child.signalGroup(SIGKILL)  // anything the block left running in the background, or the block when too slow
        let exitStatus = child.wait().status
        let stdout = (try? String(contentsOf: outFile, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errFile, encoding: .utf8)) ?? ""
        return (exitStatus, stdout, stderr)
    }
}

/// A doc example that could not be run at all.
struct DocExampleError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// One shell block of a document: the script to run, the output the document shows, or why it is skipped.
struct DocExample {
    /// The 1-based line of the opening fence.
    let line: Int
    /// The block as a bash script (prologue and `# exit N` checks added).
    let script: String
    /// The lines of the output block that follows, if any.
    let output: [String]?
    /// The reason given by a `<!-- doc-test: skip REASON -->` marker.
    let skipReason: String?

    static let shellLanguages: Set<String> = ["sh", "bash", "shell"]

    /// Finds the shell examples of a Markdown document.
    static func parse(_ text: String) -> [DocExample] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var examples: [DocExample] = []
        var index = 0
        while index < lines.count {
            let trimmed = lines[index].trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("```") else {
                index += 1
                continue
            }
            let language = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let start = index
            var end = index + 1
            while end < lines.count, lines[end].trimmingCharacters(in: .whitespaces) != "```" { end += 1 }
            let body = Array(lines[min(start + 1, lines.count)..<min(end, lines.count)])
            index = end + 1
            guard shellLanguages.contains(language) else { continue }
            var output: [String]?
            var next = index
            while next < lines.count, lines[next].trimmingCharacters(in: .whitespaces).isEmpty { next += 1 }
            if next < lines.count, lines[next].trimmingCharacters(in: .whitespaces) == "```" {
                var close = next + 1
                while close < lines.count, lines[close].trimmingCharacters(in: .whitespaces) != "```" { close += 1 }
                output = Array(lines[(next + 1)..<min(close, lines.count)])
                index = close + 1
            }
            examples.append(
                DocExample(
                    line: start + 1, script: script(body), output: output, skipReason: skipReason(before: start, lines)
                ))
        }
        return examples
    }

    /// The reason of a skip marker on the nearest non-blank line before the fence at `fence`.
    private static func skipReason(before fence: Int, _ lines: [String]) -> String? {
        var previous = fence - 1
        while previous >= 0, lines[previous].trimmingCharacters(in: .whitespaces).isEmpty { previous -= 1 }
        guard previous >= 0 else { return nil }
        let marker = lines[previous].trimmingCharacters(in: .whitespaces)
        let prefix = "<!-- doc-test: skip"
        guard marker.hasPrefix(prefix), marker.hasSuffix("-->") else { return nil }
        return String(marker.dropFirst(prefix.count).dropLast(3)).trimmingCharacters(in: .whitespaces)
    }

    /// The block as a script: `set -eo pipefail`, background jobs killed at the end, and each command annotated
    /// `# exit N` run with errexit off and its status checked.
    static func script(_ body: [String]) -> String {
        var lines = body
        let annotation = /\s#\s*exit\s+([0-9]+)\b.*$/
        var first = 0
        for index in lines.indices {
            let line = lines[index]
            let continues = line.hasSuffix("\\")
            if let match = line.firstMatch(of: annotation) {
                let code = match.1
                let command = String(line[..<match.range.lowerBound])
                lines[index] =
                    command + "; __rc=$?; set -e; [ \"$__rc\" -eq \(code) ] || "
                    + "{ echo \"doc-test: exit $__rc, expected \(code): line \(first + 1) of the block\" >&2; exit 97; }"
                // After the rewrite above: for a one-line command, first == index.
                lines[first] = "set +e; " + lines[first]
            }
            if !continues { first = index + 1 }
        }
        let prologue = "set -eo pipefail\ntrap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n"
        return prologue + lines.joined(separator: "\n") + "\n"
    }

    /// Why `actual` differs from the expected lines, or nil when it matches.
    static func mismatch(expected: [String], actual: String) -> String? {
        func clean(_ lines: [String]) -> [String] {
            var result = lines.map { String($0.reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()) }
            while result.last == "" { result.removeLast() }
            return result
        }
        let want = clean(expected)
        let got = clean(actual.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
        for index in 0..<max(want.count, got.count) {
            let wanted = index < want.count ? want[index] : nil
            let line = index < got.count ? got[index] : nil
            guard let wanted, let line else {
                return "output line \(index + 1): expected \(wanted.map { "'\($0)'" } ?? "no more lines"), "
                    + "got \(line.map { "'\($0)'" } ?? "no more lines")"
            }
            if !matches(line, pattern: wanted) {
                return "output line \(index + 1): expected '\(wanted)', got '\(line)'"
            }
        }
        return nil
    }

    /// Whether `line` equals `pattern`, where each `…` in the pattern matches any text.
    private static func matches(_ line: String, pattern: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard pieces.count > 1 else { return line == pattern }
        var rest = Substring(line)
        for (offset, piece) in pieces.enumerated() {
            if offset == 0 {
                guard rest.hasPrefix(piece) else { return false }
                rest = rest.dropFirst(piece.count)
            } else if offset == pieces.count - 1 {
                return rest.hasSuffix(piece)
            } else if let range = rest.range(of: piece) {
                rest = rest[range.upperBound...]
            } else {
                return false
            }
        }
        return true
    }
}
