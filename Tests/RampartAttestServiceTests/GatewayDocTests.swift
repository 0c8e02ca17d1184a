import Foundation
import RampartAppAttest
import TestSupport
import Testing

/// `docs/protecting-your-backend.md` prints the configuration files of `docs/examples/` that the gateway tests run:
/// each block marked `<!-- file: examples/NAME -->` must be that file, byte for byte, so the docs cannot drift from
/// what was tested.
struct GatewayDocTests {
    static let docs = Gateway.packageRoot.appendingPathComponent("docs")

    @Test("every configuration printed in protecting-your-backend.md is the example file the tests use")
    func printedFilesAreTheExamples() throws {
        let text = try String(
            contentsOf: Self.docs.appendingPathComponent("protecting-your-backend.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        var checked: [String] = []
        for (index, line) in lines.enumerated() where line.hasPrefix("<!-- file: ") && line.hasSuffix(" -->") {
            let name = String(line.dropFirst("<!-- file: ".count).dropLast(" -->".count))
            let open = index + 1
            try #require(
                open < lines.count && lines[open].hasPrefix("```"), "\(name): no fenced block after the marker")
            var close = open + 1
            while close < lines.count, lines[close] != "```" { close += 1 }
            let printed = lines[(open + 1)..<close].joined(separator: "\n")
            let file = try String(contentsOf: Self.docs.appendingPathComponent(name), encoding: .utf8)
            #expect(printed == file.trimmingCharacters(in: .newlines), "\(name) as printed differs from the file")
            checked.append(name)
        }
        #expect(
            Set(checked)
                == [
                    "examples/rampart.json", "examples/nginx.conf", "examples/Caddyfile", "examples/traefik.yml",
                    "examples/envoy.yaml",
                ])
    }

    @Test("the README's backend path links the guide and the wire format")
    func readmeLinks() throws {
        let readme = try String(
            contentsOf: Gateway.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "## In front of your backend"), "no README section")
        let rest = readme[section.upperBound...]
        let body = rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)]
        #expect(body.contains("docs/protecting-your-backend.md"))
        #expect(body.contains("docs/request-signature.md"))
    }

    @Test("the example rampart.json is a configuration rampart serve accepts", .enabled(if: ServeProcess.available))
    func exampleConfigurationLoads() async throws {
        let simulator = try AppAttestSimulator()
        let serve = try await GatewayService.start(simulator: simulator)
        await serve.stop()
    }
}
