import Foundation
import Testing

/// The iOS guide's code (`docs/ios-guide.md`, section "In your iOS app") is the example app's code: every Swift block
/// there (but the package manifest, marked `<!-- package manifest -->`) appears, line for line, in a file of
/// Examples/iOSApp/Sources.
struct ReadmeAppCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        .standardizedFileURL

    /// The lines of `text`, each without leading and trailing whitespace, empty lines dropped.
    static func lines(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func swiftBlocks(of section: String) -> [(marked: Bool, body: String)] {
        var blocks: [(Bool, String)] = []
        var inside = false
        var marked = false
        var previous = ""
        var body: [Substring] = []
        for line in section.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inside && line.hasPrefix("```swift") {
                inside = true
                marked = previous.contains("<!-- package manifest -->")
                body = []
            } else if inside && line.hasPrefix("```") {
                inside = false
                blocks.append((marked, body.joined(separator: "\n")))
            } else if inside {
                body.append(line)
            }
            if !line.trimmingCharacters(in: .whitespaces).isEmpty { previous = String(line) }
        }
        return blocks
    }

    @Test("every Swift block of the iOS guide is the example app's code")
    func blocksComeFromTheExample() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("docs/ios-guide.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "## In your iOS app"))
        let rest = readme[start.upperBound...]
        let section = String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
        let sources = try FileManager.default.subpathsOfDirectory(
            atPath: Self.root.appendingPathComponent("Examples/iOSApp/Sources").path
        ).filter { $0.hasSuffix(".swift") }.map {
            Self.lines(
                try String(
                    contentsOf: Self.root.appendingPathComponent("Examples/iOSApp/Sources/\($0)"), encoding: .utf8))
        }
        let blocks = Self.swiftBlocks(of: section)
        #expect(blocks.filter { !$0.marked }.count >= 5)
        for block in blocks where !block.marked {
            let wanted = Self.lines(block.body)
            let found = sources.contains { file in
                file.indices.contains { index in
                    index + wanted.count <= file.count && Array(file[index..<(index + wanted.count)]) == wanted
                }
            }
            #expect(found, "not in Examples/iOSApp/Sources:\n\(block.body)")
        }
    }
}
