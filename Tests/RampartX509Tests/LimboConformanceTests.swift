import Foundation
import TestSupport
import Testing

/// The `rampart-limbo` executable built next to the test bundle, or nil when it is missing.
private let limboHarnessPath: String? = {
    guard let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else {
        return nil
    }
    let path = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("rampart-limbo").path
    return FileManager.default.isExecutableFile(atPath: path) ? path : nil
}()

/// x509-limbo conformance: `rampart-limbo` on `../shared/vectors/x509-limbo/limbo.json` (read in place), scored
/// against the expected results, with every divergence listed in the LimboConformance article.
@Suite(
    .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"),
    .enabled(
        if: limboHarnessPath != nil, "rampart-limbo was not built next to the tests; run swift build --build-tests"))
struct LimboConformanceTests {
    /// The fewest SERVER cases that must be right (issue 15: at least 190 of 198).
    static let minimumRight = 190

    struct Outcome {
        let expected: [String: String]
        let kinds: [String: String]
        let actual: [String: (result: String, context: String)]
    }

    /// Runs the harness on limbo.json under `policy` and returns its results by id.
    static func run(policy: String) throws -> Outcome {
        let suite = try Vectors.data("x509-limbo/limbo.json")
        // run writes standard input from another thread: the harness may fill its output pipe before it has read
        // all of it.
        let result = try SpawnedProcess.run(
            try #require(limboHarnessPath), ["--policy", policy], input: Array(suite))
        #expect(result.termination == .exited(0), "rampart-limbo \(result.termination): \(result.errorText)")
        let data = Data(result.stdout)

        let testcases = try #require(
            (try JSONSerialization.jsonObject(with: suite) as? [String: Any])?["testcases"] as? [[String: Any]])
        var expected: [String: String] = [:]
        var kinds: [String: String] = [:]
        for testcase in testcases {
            guard let id = testcase["id"] as? String else { continue }
            expected[id] = testcase["expected_result"] as? String
            kinds[id] = testcase["validation_kind"] as? String
        }
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 1)
        #expect(object["harness"] as? String == "rampart")
        var actual: [String: (String, String)] = [:]
        for result in try #require(object["results"] as? [[String: Any]]) {
            guard let id = result["id"] as? String, let value = result["actual_result"] as? String else {
                Issue.record("a result without id or actual_result: \(result)")
                continue
            }
            actual[id] = (value, result["context"] as? String ?? "")
        }
        return Outcome(expected: expected, kinds: kinds, actual: actual)
    }

    /// The divergences the LimboConformance article publishes for `policy`: the rows `| `id` | expected | Rampart |
    /// reason |` of its "Divergences under <policy>" section.
    static func publishedDivergences(policy: String) throws -> [String: String] {
        let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/RampartChainVerification/Docs.docc/LimboConformance.md")
            .standardizedFileURL
        let text = try String(contentsOf: article, encoding: .utf8)
        var divergences: [String: String] = [:]
        var inSection = false
        for line in text.split(separator: "\n") {
            if line.hasPrefix("#") { inSection = line == "### Divergences under \(policy)" }
            guard inSection, line.hasPrefix("| `") else { continue }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4 else { continue }
            let id = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            divergences[id] = cells[2]
        }
        return divergences
    }

    @Test(
        "rampart-limbo answers every testcase under each policy, gets at least 190 of the 198 SERVER cases right under webpki, and diverges only where the article says",
        arguments: ["webpki", "apple"])
    func conformance(policy: String) throws {
        let outcome = try Self.run(policy: policy)
        let published = try Self.publishedDivergences(policy: policy)
        #expect(!published.isEmpty, "the article has no divergence table for \(policy)")
        #expect(outcome.actual.count == outcome.expected.count, "every testcase gets exactly one result")
        var right = 0
        var server = 0
        var diverging: [String: String] = [:]
        for (id, expected) in outcome.expected where outcome.kinds[id] == "SERVER" {
            server += 1
            let actual = try #require(outcome.actual[id], "no result for \(id)")
            #expect(actual.result != "SKIPPED" || !actual.context.isEmpty, "\(id) is skipped without a reason")
            if actual.result == expected {
                right += 1
            } else {
                diverging[id] = actual.result
            }
        }
        #expect(server == 198)
        if policy == "webpki" { #expect(right >= Self.minimumRight, "\(right) of \(server) SERVER cases right") }
        for (id, actual) in diverging.sorted(by: { $0.key < $1.key }) {
            let context = outcome.actual[id]?.context ?? ""
            #expect(published[id] != nil, "\(id) diverges (\(actual): \(context)) but the article does not list it")
            if let listed = published[id] { #expect(listed == actual, "\(id): the article says \(listed)") }
        }
        for id in published.keys.sorted() where diverging[id] == nil {
            Issue.record("the article lists \(id) as a divergence, but Rampart now answers it as expected")
        }
    }

    @Test("CLIENT testcases are skipped with a reason; no SERVER case is skipped")
    func skips() throws {
        let outcome = try Self.run(policy: "webpki")
        for (id, kind) in outcome.kinds {
            let actual = try #require(outcome.actual[id])
            if kind == "CLIENT" {
                #expect(actual.result == "SKIPPED")
                #expect(actual.context.contains("CLIENT validation is not modelled"))
            } else {
                #expect(actual.result != "SKIPPED", "\(id) skipped: \(actual.context)")
            }
        }
    }
}
