import Foundation
import RampartAudit
import RampartCrypto

/// `rampart-bench audit`: `rampart audit` over a generated project of at least 100,000 lines of Swift (the package's
/// own sources, copied until the count is reached), in lines and bytes per second, and as a multiple of the cost
/// of one SHA-256 over the same bytes (reading every byte once is the floor); then recall and precision per rule on
/// the labelled corpus of real projects (``AuditCorpus``).
enum AuditBenchmarks {
    static let targetLines = 100_000

    static func run(_ options: BenchOptions) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-bench-audit-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        guard let (lines, bytes) = generate(into: folder) else {
            print("  could not find the package's sources to build a project from")
            return
        }
        let auditor = Auditor()
        var report: AuditReport?
        let audits = measure(seconds: options.seconds) { report = try? auditor.audit(path: folder.path) }
        let everything = Array(bytes.joined())
        let floor = measure(seconds: options.seconds) { _ = SHA256.hash(everything) }
        let files = report?.filesAudited ?? 0
        print("  project: \(files) files, \(lines) lines, \(everything.count) B of Swift")
        print("  audit   \(formatRate(audits * Double(lines))) lines/s")
        print(String(format: "          %12.1f MiB/s", audits * Double(everything.count) / 1_048_576))
        print(String(format: "  one 100,000-line audit takes %.2f s", Double(targetLines) / (audits * Double(lines))))
        print(String(format: "  ratio: one audit costs %.0f SHA-256s of the same bytes", floor / audits))
        print("  labelled corpus (recall and precision per rule; labels in AuditCorpus.swift):")
        AuditCorpus.run()
    }

    /// Copies the package's `.swift` files into `folder` (renamed, in numbered copies) until there are at least
    /// ``targetLines`` lines; returns the line count and the files' bytes.
    static func generate(into folder: URL) -> (Int, [[UInt8]])? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var sources: [[UInt8]] = []
        for folderName in ["Sources", "Tests", "Examples"] {
            let base = root.appendingPathComponent(folderName)
            guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                continue
            }
            for case let url as URL in enumerator where url.pathExtension == "swift" {
                if let data = try? Data(contentsOf: url) { sources.append([UInt8](data)) }
            }
        }
        guard !sources.isEmpty else { return nil }
        var lines = 0
        var written: [[UInt8]] = []
        var index = 0
        while lines < targetLines {
            let source = sources[index % sources.count]
            let url = folder.appendingPathComponent("copy\(index / sources.count)/File\(index).swift")
            try? FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            guard (try? Data(source).write(to: url)) != nil else { return nil }
            lines += source.reduce(into: 1) { count, byte in if byte == 0x0A { count += 1 } }
            written.append(source)
            index += 1
        }
        return (lines, written)
    }
}
