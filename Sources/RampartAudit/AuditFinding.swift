/// One mistake found: which rule, where (a path relative to the audited folder, 1-based line and column), and what
/// exactly was seen.
public struct AuditFinding: Hashable, Sendable, CustomStringConvertible {
    /// The rule that found it.
    public let rule: AuditRule
    /// The file, relative to the audited path, with `/` separators.
    public let file: String
    /// The 1-based line.
    public let line: Int
    /// The 1-based column, in Unicode scalars.
    public let column: Int
    /// What was seen, e.g. `Insecure.MD5` or `NSExceptionDomains › legacy.example.com`.
    public let detail: String
    /// What identifies the finding across edits that move it: the rule, the file and the text it was found in.
    /// Never the secret itself: the baseline stores a hash of it.
    let fingerprintText: String

    /// Creates a finding.
    ///
    /// - Parameters:
    ///   - rule: The rule.
    ///   - file: The relative path.
    ///   - line: The 1-based line.
    ///   - column: The 1-based column.
    ///   - detail: What was seen.
    ///   - fingerprintText: The text that identifies it for the baseline (default: `detail`).
    public init(rule: AuditRule, file: String, line: Int, column: Int, detail: String, fingerprintText: String? = nil) {
        self.rule = rule
        self.file = file
        self.line = line
        self.column = column
        self.detail = detail
        self.fingerprintText = fingerprintText ?? detail
    }

    /// The rule's message followed by the detail.
    public var message: String { detail.isEmpty ? rule.message : "\(rule.message) (\(detail))" }

    /// A stable 64-bit FNV-1a hash of the rule, file and fingerprint text, in hex; the baseline's key.
    public var fingerprint: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "\(rule.id)\u{0}\(file)\u{0}\(fingerprintText)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `file:line:column: severity rule: message`.
    public var description: String { "\(file):\(line):\(column): \(rule.severity) \(rule.id): \(message)" }
}
