import Foundation
import RampartAudit
import RampartCLI
import Testing

/// Output captured from a command run; written from one task at a time, guarded by a lock.
final class AuditOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out = ""
    private var err = ""
    func append(out text: String) { lock.withLock { out += text } }
    func append(err text: String) { lock.withLock { err += text } }
    var standardOutput: String { lock.withLock { out } }
    var standardError: String { lock.withLock { err } }
}

/// `rampart audit`: the sample app, the example app, outputs, exit codes, baselines and usage errors.
struct AuditCommandTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func run(_ arguments: [String]) async -> (status: Int32, output: String, errors: String) {
        let captured = AuditOutput()
        let context = CommandContext(
            standardOutput: { captured.append(out: $0) }, standardError: { captured.append(err: $0) },
            readStandardInput: { Data() }, environment: [:],
            now: { Date(timeIntervalSince1970: 1_780_000_000) })
        let status = await Rampart.main(["audit"] + arguments, context: context)
        return (status, captured.standardOutput, captured.standardError)
    }

    static func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("the sample app with every mistake gets each one reported exactly once")
    func sampleApp() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SampleApp.write(to: folder, fixed: false)
        let report = try Auditor(time: Date(timeIntervalSince1970: 1_780_000_000)).audit(path: folder.path)
        #expect(report.findings.map(\.rule.id).sorted() == SampleApp.mistakes, "\(report.findings)")
        #expect(report.findings.allSatisfy { !$0.file.hasPrefix("Pods") && !$0.file.hasPrefix("DerivedData") })
        #expect(report.findings.allSatisfy { !$0.file.hasPrefix("/") })
    }

    @Test("the fixed sample app is clean")
    func fixedSampleApp() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SampleApp.write(to: folder, fixed: true)
        let report = try Auditor(time: Date(timeIntervalSince1970: 1_780_000_000)).audit(path: folder.path)
        #expect(report.findings.isEmpty, "\(report.findings)")
        let result = await Self.run([folder.path])
        #expect(result.status == 0)
        #expect(result.output.hasPrefix("clean: no finding in"))
    }

    @Test("the repository's example iOS app audits clean")
    func exampleApp() async throws {
        let path = Self.packageRoot.appendingPathComponent("Examples/iOSApp").path
        let report = try Auditor().audit(path: path)
        #expect(report.findings.isEmpty, "\(report.findings)")
        #expect(report.filesAudited >= 8)
        #expect(await Self.run([path]).status == 0)
    }

    /// Findings in the repository's own Sources that are what their rule says and intended, each with why.
    static let acceptedInSources: [(file: String, rule: String, reason: String)] = [
        (
            "rampart-bench/CryptoBenchmarks.swift", "hardcoded-crypto-key",
            "the KDF benchmark derives from one fixed password so that runs are comparable; it ships in no app"
        ),
        (
            "rampart-bench/SealBenchmarks.swift", "fixed-nonce",
            "the AES-GCM throughput floor seals throwaway bytes under a fresh random key with one nonce"
        ),
        (
            "rampart-bench/VaultBenchmarks.swift", "hardcoded-crypto-key",
            "the vault-open benchmark times Argon2id over a fixed passphrase"
        ),
    ]

    @Test("the self-audit: the repository's Sources report only the accepted findings, and Examples none")
    func selfAudit() throws {
        let sources = try Auditor().audit(path: Self.packageRoot.appendingPathComponent("Sources").path)
        let found = sources.findings.map { "\($0.file) \($0.rule.id)" }.sorted()
        #expect(found == Self.acceptedInSources.map { "\($0.file) \($0.rule)" }.sorted(), "\(sources.findings)")
        #expect(sources.isComplete)
        #expect(sources.objectiveCLines > 0)
        let examples = try Auditor().audit(path: Self.packageRoot.appendingPathComponent("Examples").path)
        #expect(examples.findings.isEmpty, "\(examples.findings)")
    }

    @Test("the text report groups findings by file, with line, column, fix and reference; exit 1")
    func textReport() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SampleApp.write(to: folder, fixed: false)
        let result = await Self.run([folder.path])
        #expect(result.status == 1)
        let lines = result.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.filter { $0 == "Points/Sources/Crypto.swift" }.count == 1)
        #expect(lines.contains { $0.hasPrefix("  13:9  medium  weak-hash  MD5 and SHA-1") })
        #expect(lines.contains { $0.hasPrefix("      fix: ") })
        #expect(lines.contains { $0.hasPrefix("      see: MASTG-TEST-0061") })
        #expect(result.output.contains("\(SampleApp.mistakes.count) finding(s) ("))
    }

    @Test("--json prints the findings with relative paths and every field")
    func json() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SampleApp.write(to: folder, fixed: false)
        let result = await Self.run([folder.path, "--json"])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let findings = try #require(object?["findings"] as? [[String: Any]])
        #expect(findings.count == SampleApp.mistakes.count)
        let keys: Set<String> = ["rule", "severity", "file", "line", "column", "message", "fix", "reference"]
        #expect(findings.allSatisfy { Set($0.keys) == keys })
        let md5 = try #require(findings.first { ($0["message"] as? String)?.contains("Insecure.MD5") == true })
        #expect(md5["file"] as? String == "Points/Sources/Crypto.swift")
        #expect(md5["line"] as? Int == 8)
        #expect(md5["column"] as? Int == 9)
        #expect(md5["severity"] as? String == "medium")
        #expect(md5["rule"] as? String == "weak-hash")
    }

    @Test("--sarif prints a SARIF 2.1.0 log")
    func sarif() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try SampleApp.write(to: folder, fixed: false)
        let result = await Self.run([folder.path, "--sarif"])
        #expect(result.status == 1)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        #expect(log["$schema"] as? String == "https://json.schemastore.org/sarif-2.1.0.json")
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let driver = (run["tool"] as? [String: Any])?["driver"] as? [String: Any]
        #expect((driver?["rules"] as? [Any])?.count == AuditRule.all.count)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == SampleApp.mistakes.count)
        let first = try #require(results.first)
        #expect(Set(first.keys) == ["ruleId", "ruleIndex", "level", "message", "locations", "partialFingerprints"])
        let location = (first["locations"] as? [[String: Any]])?.first?["physicalLocation"] as? [String: Any]
        let artifact = location?["artifactLocation"] as? [String: Any]
        #expect(artifact?["uriBaseId"] as? String == "%SRCROOT%")
        #expect((artifact?["uri"] as? String)?.hasPrefix("/") == false)
        #expect(((location?["region"] as? [String: Any])?["startLine"] as? Int ?? 0) >= 1)
    }

    @Test("--fail-on: exit 1 only for findings at or above the level")
    func failOn() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("let d = Insecure.MD5.hash(data: x)".utf8).write(to: folder.appendingPathComponent("A.swift"))
        #expect(await Self.run([folder.path]).status == 1)
        #expect(await Self.run([folder.path, "--fail-on", "high"]).status == 0)
        #expect(await Self.run([folder.path, "--fail-on", "low"]).status == 1)
    }

    @Test("a baseline accepts the known findings and reports only new ones")
    func baseline() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let project = folder.appendingPathComponent("App")
        try SampleApp.write(to: project, fixed: false)
        let baseline = folder.appendingPathComponent("baseline.json").path
        let written = await Self.run([project.path, "--write-baseline", baseline])
        #expect(written.status == 0)
        #expect(written.errors.contains("wrote \(SampleApp.mistakes.count) accepted finding(s)"))
        let text = try String(contentsOfFile: baseline, encoding: .utf8)
        #expect(!text.contains("pk_live"))
        #expect(await Self.run([project.path, "--baseline", baseline]).status == 0)
        // Moving code keeps the findings accepted; a new mistake is reported alone.
        let crypto = project.appendingPathComponent("Points/Sources/Crypto.swift")
        let source = try String(contentsOf: crypto, encoding: .utf8)
        try Data(("\n\n" + source + "\nlet again = Insecure.SHA1.hash(data: d)\n").utf8).write(to: crypto)
        let result = await Self.run([project.path, "--baseline", baseline, "--json"])
        #expect(result.status == 1)
        let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        let findings = object?["findings"] as? [[String: Any]] ?? []
        #expect(findings.map { $0["message"] as? String ?? "" }.allSatisfy { $0.contains("Insecure.SHA1") })
        #expect(findings.count == 1)
    }

    @Test(
        "bad usage exits 2 with a message that says what to do",
        arguments: [
            ([], "give one project folder"),
            (["/nonexistent/rampart-audit"], "does not exist"),
            ([".", "--fail-on", "severe"], "use low, medium or high"),
            ([".", "--json", "--sarif"], "choose one output"),
            ([".", "--baseline", "/nonexistent/baseline.json"], "cannot read the baseline"),
        ])
    func badUsage(arguments: [String], message: String) async {
        let result = await Self.run(arguments)
        #expect(result.status == 2)
        #expect(result.errors.contains(message), "\(result.errors)")
    }

    @Test("a baseline that is not one is refused with invalidBaseline")
    func invalidBaseline() async throws {
        let error = #expect(throws: AuditError.self) { try AuditBaseline(data: Data("[]".utf8)) }
        #expect(error?.code == .invalidBaseline)
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("b.json").path
        _ = FileManager.default.createFile(atPath: path, contents: Data(#"{"version":2,"accepted":[]}"#.utf8))
        let result = await Self.run([folder.path, "--baseline", path])
        #expect(result.status == 2)
        #expect(result.errors.contains("--write-baseline"))
    }

    @Test("an Objective-C-only project is audited: its .m and .h files are read and their mistakes reported")
    func objectiveCOnly() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"NSLog(@"password: %@", pwd);"#.utf8).write(to: folder.appendingPathComponent("Login.m"))
        try Data("@interface Login : NSObject\n@end\n".utf8).write(to: folder.appendingPathComponent("Login.h"))
        let report = try Auditor().audit(path: folder.path)
        #expect(report.filesAudited == 2)
        #expect(report.objectiveCLines == 4)
        #expect(report.isComplete)
        #expect(report.findings.map(\.rule.id) == ["secret-logged"])
        #expect(report.findings.map(\.file) == ["Login.m"])
        let result = await Self.run([folder.path])
        #expect(result.status == 1)
        #expect(result.output.contains("Login.m"))
    }

    @Test("a run that audited nothing says so and exits 2, or 1 with --fail-on; never clean")
    func nothingAudited() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("# App\n".utf8).write(to: folder.appendingPathComponent("README.md"))
        let report = try Auditor().audit(path: folder.path)
        #expect(report.filesAudited == 0)
        #expect(!report.isComplete)
        let result = await Self.run([folder.path])
        #expect(result.status == 2)
        #expect(!result.output.contains("clean"))
        #expect(result.output.hasPrefix("incomplete: no finding in the 0 files audited"))
        #expect(result.errors.contains("not audited: no file was audited"))
        #expect(await Self.run([folder.path, "--fail-on", "high"]).status == 1)
        #expect(await Self.run([folder.path, "--json"]).status == 2)
    }

    @Test("sources of a kind not read are listed; the run is incomplete in text, JSON and SARIF")
    func unreadKinds() async throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("let a = 1\n".utf8).write(to: folder.appendingPathComponent("App.swift"))
        try Data("val a = 1\n".utf8).write(to: folder.appendingPathComponent("Shared.kt"))
        try Data("val b = 1\n".utf8).write(to: folder.appendingPathComponent("Other.kt"))
        let report = try Auditor().audit(path: folder.path)
        #expect(report.notRead == [".kt": 2])
        #expect(report.notAudited == ["2 .kt files: this kind of source is not read"])
        let text = await Self.run([folder.path])
        #expect(text.status == 2)
        #expect(text.output.hasPrefix("incomplete:"))
        #expect(text.errors.contains("2 .kt files"))
        let json = await Self.run([folder.path, "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
        #expect(object?["notAudited"] as? [String] == ["2 .kt files: this kind of source is not read"])
        let sarif = await Self.run([folder.path, "--sarif"])
        let log = try JSONSerialization.jsonObject(with: Data(sarif.output.utf8)) as? [String: Any]
        let run = try #require((log?["runs"] as? [[String: Any]])?.first)
        let invocation = try #require((run["invocations"] as? [[String: Any]])?.first)
        #expect(invocation["executionSuccessful"] as? Bool == false)
        let notes = invocation["toolExecutionNotifications"] as? [[String: Any]]
        #expect(notes?.count == 1)
        // A complete run's JSON has no notAudited key, and its SARIF invocation succeeded.
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Shared.kt"))
        try FileManager.default.removeItem(at: folder.appendingPathComponent("Other.kt"))
        let complete = await Self.run([folder.path, "--json"])
        #expect(complete.status == 0)
        let completeObject = try JSONSerialization.jsonObject(with: Data(complete.output.utf8)) as? [String: Any]
        #expect(completeObject?["notAudited"] == nil)
    }

    @Test("a skipped file makes the run incomplete: exit 2 even without findings")
    func skippedFileIsIncomplete() throws {
        let folder = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("let a = 1".utf8).write(to: folder.appendingPathComponent("Big.swift"))
        try Data("a()".utf8).write(to: folder.appendingPathComponent("Small.swift"))
        let report = try Auditor(maximumFileSize: 4).audit(path: folder.path)
        #expect(report.filesAudited == 1)
        #expect(report.findings.isEmpty)
        #expect(!report.isComplete)
        #expect(report.notAudited == ["Big.swift: larger than 4 bytes"])
    }

    @Test("rampart audit --help lists every rule and the exit codes")
    func help() async {
        let captured = AuditOutput()
        let context = CommandContext(
            standardOutput: { captured.append(out: $0) }, standardError: { captured.append(err: $0) },
            readStandardInput: { Data() }, environment: [:], now: { Date() })
        #expect(await Rampart.main(["audit", "--help"], context: context) == 0)
        for rule in AuditRule.all { #expect(captured.standardOutput.contains(rule.id)) }
        #expect(captured.standardOutput.contains("EXIT CODES:"))
        #expect(captured.standardOutput.contains("WARNINGS"))
    }
}

/// The auditor's limits and path errors, each with its code.
struct AuditorLimitTests {
    @Test("more files than the limit is refused with tooManyFiles")
    func tooManyFiles() throws {
        let folder = try AuditCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["A.swift", "B.swift", "C.swift"] {
            try Data("let a = 1".utf8).write(to: folder.appendingPathComponent(name))
        }
        #expect(try Auditor(maximumFileCount: 3).audit(path: folder.path).filesAudited == 3)
        let error = #expect(throws: AuditError.self) { try Auditor(maximumFileCount: 2).audit(path: folder.path) }
        #expect(error?.code == .tooManyFiles)
    }

    @Test("a file over the size limit is skipped and listed, not read")
    func fileTooLarge() throws {
        let folder = try AuditCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data("let d = Insecure.MD5.hash(data: x)".utf8).write(to: folder.appendingPathComponent("Big.swift"))
        let report = try Auditor(maximumFileSize: 10).audit(path: folder.path)
        #expect(report.findings.isEmpty)
        #expect(report.skipped == ["Big.swift: larger than 10 bytes"])
    }

    @Test("a missing path is refused with unreadablePath")
    func missingPath() {
        let error = #expect(throws: AuditError.self) { try Auditor().audit(path: "/nonexistent/rampart-audit") }
        #expect(error?.code == .unreadablePath)
    }

    @Test("a single file can be audited, reported by its name")
    func singleFile() throws {
        let folder = try AuditCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("Hash.swift")
        try Data("let d = Insecure.SHA1.hash(data: x)".utf8).write(to: file)
        #expect(try Auditor().audit(path: file.path).findings.map(\.file) == ["Hash.swift"])
    }
}
