import Foundation
import RampartAudit

/// `rampart audit PATH [--json|--sarif] [--fail-on LEVEL] [--baseline FILE] [--write-baseline FILE]`: the iOS
/// security guides' common mistakes in a project folder.
public enum AuditCommand: Command {
    /// `audit`.
    public static let name = "audit"
    /// One line for `rampart --help`.
    public static let abstract =
        "find the guides' common security mistakes in an iOS project (plists, entitlements, Swift, Objective-C)"
    /// The `--help` text.
    public static var help: String {
        let width = (AuditRule.all.map(\.id.count).max() ?? 0) + 2
        let rules = AuditRule.all.map { rule in
            "  " + rule.id.padding(toLength: width, withPad: " ", startingAt: 0)
                + rule.severity.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0) + rule.message
        }
        return """
            USAGE: rampart audit PATH [--json | --sarif] [--fail-on low|medium|high] [--baseline FILE]
                                 [--write-baseline FILE] [--at RFC3339]

            Reads the Info.plist files (XML or binary), .entitlements, Swift sources and Objective-C, C and C++
            sources (.m, .mm, .h, .c, .cpp) under PATH (skipping .build, Pods, Carthage, DerivedData and
            node_modules) and reports the mistakes the iOS security guides list, grouped by file with line and
            column, each with its fix and a reference (OWASP MASTG test and MASVS control, or Apple's
            documentation). An Xcode project's CODE_SIGN_ENTITLEMENTS says which entitlements release builds use.
            Sources are lexed, so comments and string contents never match (except for rules about literals), and
            logging under #if DEBUG (#ifdef DEBUG) is allowed. Literals are followed within a file through
            constants, properties, #defines, default parameter values and Data/.data(using:) conversions to the
            key, IV, nonce, salt and password parameters of CommonCrypto, CryptoKit, CryptoSwift and RNCryptor.
            SecRandomCopyBytes, SystemRandomNumberGenerator, arc4random and UUID() are secure and never reported.

            What was not read is said: files too large or unreadable, and sources of languages not read (Kotlin,
            Java, Dart, JavaScript, TypeScript, C#). Such an audit is never called clean: it exits 2 (1 with
            --fail-on) even without findings, and --json adds "notAudited", --sarif marks the invocation as not
            successful.

            WARNINGS (rule, severity, what it means):
            \(rules.joined(separator: "\n"))

            OPTIONS:
              --json                 print {"findings":[{"rule","severity","file","line","column","message","fix","reference"}]}
                                     with paths relative to PATH
              --sarif                print a SARIF 2.1.0 log, for CI code scanning
              --fail-on LEVEL        exit 1 when a finding is at or above LEVEL: low, medium (default) or high
              --baseline FILE        accept the findings FILE lists and report only new ones
              --write-baseline FILE  write every current finding to FILE (accepting them all) and exit 0
              --at TIME              judge pinned-certificate expiry at this RFC 3339 time instead of now
              -h, --help             show this help

            EXIT CODES:
              0  no finding at or above --fail-on (or the baseline was written), and everything was read
              1  findings at or above --fail-on (listed on standard output), or --fail-on was given and something
                 was not read
              2  bad usage, an unreadable PATH or baseline, nothing to audit, or something not read

            EXAMPLE:
              rampart audit MyApp --baseline audit-baseline.json --sarif > audit.sarif
            """
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `audit`.
    ///   - context: Streams and clock.
    /// - Returns: `.success` when no finding reaches `--fail-on`, `.failure` otherwise.
    /// - Throws: ``UsageError`` for bad usage, an unreadable path or baseline.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let sarif = arguments.flag("--sarif")
        let failOnOption = try arguments.option("--fail-on")
        let failOnText = failOnOption ?? "medium"
        let baselinePath = try arguments.option("--baseline")
        let writeBaselinePath = try arguments.option("--write-baseline")
        let time = try TrustInputs.time(&arguments, context: context)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let path = positionals.first else {
            throw UsageError("give one project folder (or file) to audit")
        }
        if json && sarif { throw UsageError("--json and --sarif are exclusive; choose one output") }
        guard let failOn = AuditRule.Severity(rawValue: failOnText) else {
            throw UsageError("--fail-on '\(failOnText)' is not a severity; use low, medium or high")
        }
        var baseline: AuditBaseline?
        var report: AuditReport
        do {
            if let baselinePath {
                guard let data = FileManager.default.contents(atPath: baselinePath) else {
                    throw UsageError("\(baselinePath): cannot read the baseline; check the path")
                }
                baseline = try AuditBaseline(data: data)
            }
            report = try Auditor(time: time).audit(path: path)
        } catch let error as AuditError {
            throw UsageError("\(error.reason)")
        }
        if let baseline { report = report.removing(baseline) }
        for note in report.notAudited { context.printError("rampart audit: not audited: \(note)") }
        if let writeBaselinePath {
            let baseline = AuditBaseline(accepting: report.findings)
            guard FileManager.default.createFile(atPath: writeBaselinePath, contents: baseline.serialized()) else {
                throw UsageError("\(writeBaselinePath): cannot write the baseline; check the folder exists")
            }
            context.printError(
                "rampart audit: wrote \(report.findings.count) accepted finding(s) to \(writeBaselinePath)")
            return .success
        }
        if json {
            try context.printJSON(report.json)
        } else if sarif {
            try context.printJSON(report.sarif)
        } else if report.findings.isEmpty {
            if report.isComplete {
                context.print("clean: no finding in \(path) (\(report.filesAudited) files audited)")
            } else {
                context.print(
                    "incomplete: no finding in the \(report.filesAudited) files audited in \(path), but "
                        + "\(report.notAudited.count) thing(s) were not read (listed on standard error)")
            }
        } else {
            context.print(report.text)
            let counts = AuditRule.Severity.allCases.reversed().compactMap { severity -> String? in
                let count = report.findings.filter { $0.rule.severity == severity }.count
                return count == 0 ? nil : "\(count) \(severity)"
            }
            let files = Set(report.findings.map(\.file)).count
            context.print(
                "\n\(report.findings.count) finding(s) (\(counts.joined(separator: ", "))) in \(files) file(s)")
        }
        if report.findings.contains(where: { $0.rule.severity >= failOn }) { return .failure }
        // An audit that did not read everything is not a pass: 2 (bad input), or 1 when --fail-on asks for a verdict.
        if !report.isComplete { return failOnOption == nil ? .usage : .failure }
        return .success
    }
}
