import Foundation

/// The result of an audit: the findings and what was read.
public struct AuditReport: Sendable {
    /// The findings, sorted by file, line and column.
    public let findings: [AuditFinding]
    /// How many files were read.
    public let filesAudited: Int
    /// How many lines of Swift were read.
    public let swiftLines: Int
    /// Files left out, each with why (too large, unreadable, not a property list).
    public let skipped: [String]
    /// How many lines of Objective-C, C and C++ were read.
    public let objectiveCLines: Int
    /// Source files of languages the audit does not read, counted by kind (`.kt` → 3).
    public let notRead: [String: Int]

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - findings: The findings.
    ///   - filesAudited: Files read.
    ///   - swiftLines: Swift lines read.
    ///   - skipped: Files left out, with why.
    ///   - objectiveCLines: Objective-C, C and C++ lines read.
    ///   - notRead: Source files of languages not read, by kind.
    public init(
        findings: [AuditFinding], filesAudited: Int, swiftLines: Int, skipped: [String], objectiveCLines: Int = 0,
        notRead: [String: Int] = [:]
    ) {
        self.findings = findings
        self.filesAudited = filesAudited
        self.swiftLines = swiftLines
        self.skipped = skipped
        self.objectiveCLines = objectiveCLines
        self.notRead = notRead
    }

    /// Whether everything under the path was read: at least one file, none skipped, no source of an unread kind.
    /// An incomplete audit is never reported as clean.
    public var isComplete: Bool { filesAudited > 0 && skipped.isEmpty && notRead.isEmpty }

    /// What was not read, one line each: files skipped with why, and the kinds of source not read with their
    /// counts (`3 .kt files: Kotlin is not read`). Empty for a complete audit that read something.
    public var notAudited: [String] {
        var lines = skipped
        for (kind, count) in notRead.sorted(by: { $0.key < $1.key }) {
            lines.append("\(count) \(kind) file\(count == 1 ? "" : "s"): this kind of source is not read")
        }
        if filesAudited == 0 {
            lines.append(
                "no file was audited: no Swift, Objective-C or C source, Info.plist, .entitlements or project.pbxproj")
        }
        return lines
    }

    /// The same report without the findings `baseline` accepts.
    ///
    /// - Parameter baseline: The accepted findings.
    /// - Returns: The report of the new findings.
    public func removing(_ baseline: AuditBaseline) -> AuditReport {
        var remaining = baseline.counts
        let kept = findings.filter { finding in
            if let count = remaining[finding.fingerprint], count > 0 {
                remaining[finding.fingerprint] = count - 1
                return false
            }
            return true
        }
        return AuditReport(
            findings: kept, filesAudited: filesAudited, swiftLines: swiftLines, skipped: skipped,
            objectiveCLines: objectiveCLines, notRead: notRead)
    }

    /// The report for people: findings grouped by file, each with line, column, severity, rule, fix and reference.
    public var text: String {
        var lines: [String] = []
        var current: String?
        for finding in findings {
            if finding.file != current {
                if current != nil { lines.append("") }
                lines.append(finding.file)
                current = finding.file
            }
            lines.append(
                "  \(finding.line):\(finding.column)  \(finding.rule.severity)  \(finding.rule.id)  \(finding.message)")
            lines.append("      fix: \(finding.rule.fix)")
            lines.append("      see: \(finding.rule.reference)")
        }
        return lines.joined(separator: "\n")
    }

    /// The `--json` form: `{"findings":[{"rule","severity","file","line","column","message","fix","reference"}]}`,
    /// with `"notAudited":[…]` when something was not read.
    public struct JSON: Encodable, Sendable {
        /// The findings.
        public let findings: [Entry]
        /// What was not read (absent when the audit is complete).
        public let notAudited: [String]?

        /// One finding.
        public struct Entry: Encodable, Sendable {
            /// The rule id.
            public let rule: String
            /// `low`, `medium` or `high`.
            public let severity: String
            /// The path relative to the audited folder.
            public let file: String
            /// The 1-based line.
            public let line: Int
            /// The 1-based column.
            public let column: Int
            /// What was found.
            public let message: String
            /// What to do.
            public let fix: String
            /// The MASTG test, MASVS control or Apple documentation page.
            public let reference: String
        }
    }

    /// The findings in the `--json` shape.
    public var json: JSON {
        JSON(
            findings: findings.map {
                JSON.Entry(
                    rule: $0.rule.id, severity: $0.rule.severity.rawValue, file: $0.file, line: $0.line,
                    column: $0.column, message: $0.message, fix: $0.rule.fix, reference: $0.rule.reference)
            }, notAudited: isComplete ? nil : notAudited)
    }
}

extension AuditReport {
    /// The findings as a SARIF 2.1.0 log (OASIS Static Analysis Results Interchange Format), for CI code scanning.
    ///
    /// Results carry `ruleId`, `level` (`error` for high, `warning` for medium, `note` for low), the message, a
    /// location relative to `%SRCROOT%` and a `partialFingerprints` entry; rules carry the fix as `help` and a
    /// `security-severity` property.
    public var sarif: SARIF.Log {
        let rules = AuditRule.all
        return SARIF.Log(
            runs: [
                SARIF.Run(
                    tool: SARIF.Tool(
                        driver: SARIF.Driver(
                            rules: rules.map { rule in
                                SARIF.Rule(
                                    id: rule.id, shortDescription: SARIF.Text(text: rule.message),
                                    help: SARIF.Text(text: "\(rule.fix). See \(rule.reference)"),
                                    defaultConfiguration: SARIF.Configuration(level: SARIF.level(rule.severity)),
                                    properties: SARIF.RuleProperties(
                                        securitySeverity: SARIF.securitySeverity(rule.severity),
                                        tags: ["security"]))
                            })),
                    invocations: [
                        SARIF.Invocation(
                            executionSuccessful: isComplete,
                            toolExecutionNotifications: notAudited.map {
                                SARIF.Notification(level: "warning", message: SARIF.Text(text: "not audited: \($0)"))
                            })
                    ],
                    results: findings.map { finding in
                        SARIF.Result(
                            ruleId: finding.rule.id, ruleIndex: rules.firstIndex(of: finding.rule) ?? 0,
                            level: SARIF.level(finding.rule.severity), message: SARIF.Text(text: finding.message),
                            locations: [
                                SARIF.Location(
                                    physicalLocation: SARIF.PhysicalLocation(
                                        artifactLocation: SARIF.ArtifactLocation(uri: finding.file),
                                        region: SARIF.Region(startLine: finding.line, startColumn: finding.column)))
                            ],
                            partialFingerprints: ["rampartAudit/v1": finding.fingerprint])
                    })
            ])
    }
}

/// The parts of SARIF 2.1.0 that `rampart audit --sarif` writes.
public enum SARIF {
    /// The top-level log.
    public struct Log: Encodable, Sendable {
        /// `2.1.0`.
        public let version = "2.1.0"
        /// The schema URL.
        public let schema = "https://json.schemastore.org/sarif-2.1.0.json"
        /// One run.
        public let runs: [Run]
        enum CodingKeys: String, CodingKey {
            case version, runs
            case schema = "$schema"
        }
    }
    /// One run of the tool.
    public struct Run: Encodable, Sendable {
        let tool: Tool
        let invocations: [Invocation]
        let results: [Result]
    }
    /// SARIF's invocation: `executionSuccessful` is false when something was not read, each thing named in a
    /// notification.
    struct Invocation: Encodable, Sendable {
        let executionSuccessful: Bool
        let toolExecutionNotifications: [Notification]
    }
    struct Notification: Encodable, Sendable {
        let level: String
        let message: Text
    }
    struct Tool: Encodable, Sendable { let driver: Driver }
    struct Driver: Encodable, Sendable {
        let name = "rampart audit"
        let rules: [Rule]
    }
    struct Rule: Encodable, Sendable {
        let id: String
        let shortDescription: Text
        let help: Text
        let defaultConfiguration: Configuration
        let properties: RuleProperties
    }
    struct RuleProperties: Encodable, Sendable {
        let securitySeverity: String
        let tags: [String]
        enum CodingKeys: String, CodingKey {
            case tags
            case securitySeverity = "security-severity"
        }
    }
    struct Configuration: Encodable, Sendable { let level: String }
    struct Text: Encodable, Sendable { let text: String }
    struct Result: Encodable, Sendable {
        let ruleId: String
        let ruleIndex: Int
        let level: String
        let message: Text
        let locations: [Location]
        let partialFingerprints: [String: String]
    }
    struct Location: Encodable, Sendable { let physicalLocation: PhysicalLocation }
    struct PhysicalLocation: Encodable, Sendable {
        let artifactLocation: ArtifactLocation
        let region: Region
    }
    struct ArtifactLocation: Encodable, Sendable {
        let uri: String
        let uriBaseId = "%SRCROOT%"
    }
    struct Region: Encodable, Sendable {
        let startLine: Int
        let startColumn: Int
    }

    static func level(_ severity: AuditRule.Severity) -> String {
        switch severity {
        case .high: "error"
        case .medium: "warning"
        case .low: "note"
        }
    }

    static func securitySeverity(_ severity: AuditRule.Severity) -> String {
        switch severity {
        case .high: "8.0"
        case .medium: "5.5"
        case .low: "3.0"
        }
    }
}
