import Foundation
import Testing

/// `rampart routes`: which policy `rampart serve` gives a request, asked before deploying a configuration.
struct RoutesCommandTests {
    /// `docs/examples/rampart.json`, as the backend guide prints it.
    static let example = DocExampleTests.packageRoot.appendingPathComponent("docs/examples/rampart.json").path

    @Test("each request of the example gets its most specific rule's policy, or the strictest reading's")
    func policies() async {
        for (method, target, expected) in [
            ("GET", "/api/health", "open (rule GET /api/health)"),
            ("GET", "/api/feed/today", "token (rule GET /api/feed/*)"),
            ("POST", "/api/points/use", "require-assertion (rule * /api/points/*)"),
            ("GET", "/API/Points/balance", "require-assertion (rule * /api/points/*)"),
            ("GET", "/api/other", "require-assertion (defaultPolicy)"),
        ] {
            let result = await runRampart(["routes", "--config", Self.example, method, target])
            #expect(result.status == 0, "\(target): \(result.stderr)")
            #expect(result.stdout == expected + "\n", "\(target)")
        }
        let json = await runRampart(["routes", "--config", Self.example, "--json", "GET", "/api/feed/today"])
        let object = try? JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["policy"] as? String == "token")
        #expect((object?["rule"] as? [String: Any])?["path"] as? String == "/api/feed/*")
    }

    @Test("a target backends read differently and a malformed override are refused, exit 1, with the reason")
    func refusals() async {
        let dots = await runRampart(["routes", "--config", Self.example, "GET", "/api/feed/..;/points/balance"])
        #expect(dots.status == 1)
        #expect(dots.stdout.isEmpty)
        #expect(dots.stderr.contains("refused (invalidTarget)"))
        #expect(dots.stderr.contains("dot segment"))
        let override = await runRampart([
            "routes", "--config", Self.example, "--header", "X-HTTP-Method-Override:GET;DELETE", "GET", "/api/health",
        ])
        #expect(override.status == 1)
        #expect(override.stderr.contains("refused (invalidField)"))
        let listed = await runRampart([
            "routes", "--config", Self.example, "--header", "X-HTTP-Method-Override: GET, POST", "GET", "/api/health",
        ])
        #expect(listed.stdout == "require-assertion (defaultPolicy)\n")
    }

    @Test("usage errors exit 2: no --config, a missing method or target, an unreadable configuration")
    func usage() async {
        #expect(await runRampart(["routes", "GET", "/x"]).status == 2)
        #expect(await runRampart(["routes", "--config", Self.example, "GET"]).status == 2)
        #expect(await runRampart(["routes", "--config", "/nonexistent.json", "GET", "/x"]).status == 2)
        #expect(await runRampart(["routes", "--config", Self.example, "--header", "novalue", "GET", "/x"]).status == 2)
        let help = await runRampart(["routes", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: rampart routes --config FILE METHOD TARGET"))
    }
}

/// `rampart --version`: the version CHANGELOG.md describes.
struct VersionTests {
    @Test("rampart --version prints the version, which CHANGELOG.md has an entry for")
    func version() async throws {
        let result = await runRampart(["--version"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("rampart "))
        let version = result.stdout.dropFirst("rampart ".count).trimmingCharacters(in: .newlines)
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil })
        let changelog = try String(
            contentsOf: DocExampleTests.packageRoot.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        #expect(changelog.contains("## \(version) "), "CHANGELOG.md has no entry for \(version)")
    }
}
