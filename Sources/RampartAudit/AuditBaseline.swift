public import Foundation

/// Findings a team has accepted, so that `rampart audit --baseline FILE` reports only new ones.
///
/// The file is JSON: `{"version":1,"accepted":[{"rule","file","fingerprint"}]}`. A fingerprint hashes the rule, the
/// file and the text of the finding's line (for a hard-coded secret, its name, never its value), so findings keep
/// their identity when lines move; a finding accepted twice may occur twice.
public struct AuditBaseline: Sendable {
    /// One accepted finding.
    public struct Entry: Codable, Hashable, Sendable {
        /// The rule id.
        public let rule: String
        /// The file, relative to the audited folder.
        public let file: String
        /// ``AuditFinding/fingerprint``.
        public let fingerprint: String
    }

    /// The accepted findings.
    public let entries: [Entry]

    var counts: [String: Int] { entries.reduce(into: [:]) { $0[$1.fingerprint, default: 0] += 1 } }

    /// The largest baseline read, in bytes (DoS bound).
    public static let maximumSize = 16 << 20

    private struct File: Codable {
        let version: Int
        let accepted: [Entry]
    }

    /// A baseline accepting `findings`.
    ///
    /// - Parameter findings: The findings to accept.
    public init(accepting findings: [AuditFinding]) {
        entries = findings.map { Entry(rule: $0.rule.id, file: $0.file, fingerprint: $0.fingerprint) }
    }

    /// Reads a baseline file.
    ///
    /// - Parameter data: The file's bytes.
    /// - Throws: ``AuditError`` with ``AuditError/Code/invalidBaseline`` when it is too large or not a version 1
    ///   baseline.
    public init(data: Data) throws {
        guard data.count <= Self.maximumSize else {
            throw AuditError.make(.invalidBaseline, "the baseline is larger than \(Self.maximumSize) bytes")
        }
        guard let file = try? JSONDecoder().decode(File.self, from: data), file.version == 1 else {
            throw AuditError.make(
                .invalidBaseline,
                "expected {\"version\":1,\"accepted\":[…]} as written by 'rampart audit --write-baseline'; write it again"
            )
        }
        entries = file.accepted
    }

    /// The baseline's JSON, entries sorted, one per line.
    ///
    /// - Returns: The file's bytes.
    public func serialized() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let sorted = entries.sorted { ($0.file, $0.rule, $0.fingerprint) < ($1.file, $1.rule, $1.fingerprint) }
        return (try? encoder.encode(File(version: 1, accepted: sorted))) ?? Data()
    }
}
