import Foundation
import Testing

struct ServiceCommandTests {
    @Test("rampart demo --json: every step of the story gets the expected answer, exit 0")
    func demo() async throws {
        let result = await runRampart(["demo", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let steps = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        #expect(steps.count == 10)
        #expect(steps.allSatisfy { $0["passed"] as? Bool == true })
        for code in ["counterReplay", "digestMismatch", "invalidField"] {
            #expect(steps.map { $0["outcome"] as? String ?? "" }.contains(code))
        }
    }

    @Test(
        "rampart serve refuses bad configuration with exit 2 and one line naming the problem",
        arguments: [
            (["serve", "--listen", "127.0.0.1:0"], "--team-id"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--listen", "nowhere"], "HOST:PORT"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--environment", "staging"], "environment"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--root", "/nonexistent/root.pem"], "root"),
            (["serve", "--config", "/nonexistent/serve.json"], "configuration"),
            (
                [
                    "serve", "--team-id", "T", "--bundle-id", "b", "--subject-header", "X-User-Id", "--db",
                    "sqlite:/nonexistent/dir/x.db",
                ],
                "SQLite"
            ),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--listen", "127.0.0.1:0"], "\"subject\""),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--subject-header", "X User"], "subject.header"),
            (["serve", "--bogus"], "unknown option"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--admin-listen", "nowhere"], "admin listen address"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--admin-listen", "0.0.0.0:0"], "not loopback"),
            (["serve", "--team-id", "T", "--bundle-id", "b", "--operator-token-file", "/nonexistent/t"], "token file"),
        ])
    func serveUsage(arguments: [String], mention: String) async {
        let result = await runRampart(arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(mention), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("rampart serve refuses a weak operator token from the environment or a file, exit 2")
    func weakOperatorToken() async throws {
        let base = ["serve", "--team-id", "T", "--bundle-id", "b", "--listen", "127.0.0.1:0"]
        for weak in ["", "x", "change-me", String(repeating: "ab", count: 32)] {
            let fromEnvironment = await runRampart(base, environment: ["RAMPART_OPERATOR_TOKEN": weak])
            #expect(fromEnvironment.status == 2)
            #expect(fromEnvironment.stderr.contains("operator token is too weak"), "\(fromEnvironment.stderr)")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)")
            try Data((weak + "\n").utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = await runRampart(base + ["--operator-token-file", file.path])
            #expect(fromFile.status == 2)
            #expect(fromFile.stderr.contains("operator token is too weak"), "\(fromFile.stderr)")
        }
    }

    @Test("rampart serve --help names every listener flag and the token variable")
    func help() async {
        let result = await runRampart(["serve", "--help"])
        #expect(result.status == 0)
        for word in [
            "--admin-listen", "--operator-token-file", "RAMPART_OPERATOR_TOKEN", "adminListen", "--subject-header",
            "--demo", "/ext-authz", "/forward-auth", "/auth-request", "POST /v1/verify", "defaultPolicy",
        ] {
            #expect(result.stdout.contains(word), "\(word)")
        }
    }
}
