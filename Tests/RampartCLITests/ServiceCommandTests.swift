import Foundation
import Testing

struct ServiceCommandTests {
    @Test("rampart demo --json: every step of the story gets the expected answer, exit 0")
    func demo() async throws {
        let result = await runRampart(["demo", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let steps = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(steps.count == 8)
        #expect(steps.allSatisfy { $0["passed"] as? Bool == true })
        #expect(steps.map { $0["outcome"] as? String ?? "" }.contains("counterReplay"))
    }

    @Test(
        "rampart serve refuses bad configuration with exit 2 and one line naming the problem",
        arguments: [
            (["serve", "--listen", "127.0.0.1:0"], "--team-id"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--listen", "nowhere"], "HOST:PORT"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--environment", "staging"], "environment"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--root", "/nonexistent/root.pem"], "root"),
            (["serve", "--config", "/nonexistent/serve.json"], "configuration"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--db", "sqlite:/nonexistent/dir/x.db"], "SQLite"),
            (["serve", "--bogus"], "unknown option"),
        ])
    func serveUsage(arguments: [String], mention: String) async {
        let result = await runRampart(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}
