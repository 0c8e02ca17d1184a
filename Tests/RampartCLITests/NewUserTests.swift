import Foundation
import RampartCrypto
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What a new user tripped over (issue 17): help pages, one meaning per exit code, errors that lead somewhere, sealed
/// files' refusals and the simulator meeting a server. The docs themselves run in ``DocExampleTests``.
struct NewUserHelpTests {
    @Test("vault --help lists every option; each action has its own page, wherever the action word is")
    func vaultHelp() async {
        let page = await runRampart(["vault", "--help"])
        #expect(page.status == 0)
        for option in ["--service", "--account", "--label", "--access-group", "--synchronizable", "-h, --help"] {
            #expect(page.stdout.contains(option), "\(option)")
        }
        #expect(page.stdout.contains("servers and tools; in an app, the Keychain is the store"))
        for arguments in [["vault", "get", "--help"], ["vault", "--path", "x.vault", "get", "-h"]] {
            let action = await runRampart(arguments)
            #expect(action.status == 0)
            #expect(
                action.stdout.hasPrefix("USAGE: rampart vault --path FILE [--passphrase-file F | --key-file F] get"))
            #expect(!action.stdout.contains("ACTIONS"))
        }
        let set = await runRampart(["vault", "set", "--help"])
        #expect(set.stdout.contains("set --service S --account A [--accessible A] [--label L]"))
    }

    @Test("appattest receipt and simulate have their own options and exit codes")
    func appAttestHelp() async {
        let receipt = await runRampart(["appattest", "receipt", "--help"])
        #expect(receipt.stdout.contains("--root     the anchor of the signer's chain"))
        #expect(receipt.stdout.contains("1  invalid: a check failed"))
        let simulate = await runRampart(["appattest", "simulate", "--help"])
        #expect(simulate.stdout.contains("0  the objects were made"))
        #expect(!simulate.stdout.contains("for simulate"))
        #expect(!simulate.stdout.contains("1  invalid"))
        #expect(simulate.stdout.contains("--ca-dir DIR"))
    }

    @Test("pinset's usage line names --timeout and --json")
    func pinsetHelp() async {
        let page = await runRampart(["pinset", "--help"])
        #expect(page.stdout.contains("[--timeout S] [--json]"))
    }
}

/// A scratch folder with the sample chain's root, passphrase files and a sealed file.
final class NewUserScratch: Sendable {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-new-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("correct horse\n".utf8).write(to: url("pass.txt"))
        try Data("wrong\n".utf8).write(to: url("wrong.txt"))
        try Data("vault pass\n".utf8).write(to: url("vault-pass.txt"))
        try Data(repeating: 7, count: 100_000).write(to: url("plain.bin"))
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }

    func path(_ name: String) -> String { url(name).path }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

struct ExitCodeConventionTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let status: Int32
        let mention: String
        var testDescription: String { arguments.prefix(2).joined(separator: " ") + " → \(status)" }
    }

    @Test("0 success, 1 negative verdict (wrong passphrase or key included), 2 bad usage or input, in every subcommand")
    func convention() async throws {
        let scratch = try NewUserScratch()
        let path = scratch.path
        let sample = PinsCommandTests.samplePath
        let root = path("root.pem")
        let pem = try String(contentsOfFile: sample, encoding: .utf8)
        let blocks = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        try Data(("-----BEGIN CERTIFICATE-----" + (blocks.last ?? "")).utf8).write(to: URL(fileURLWithPath: root))
        let vault = ["--path", path("app.vault"), "--passphrase-file", path("pass.txt")]
        let setUp: [[String]] = [
            ["seal", path("plain.bin"), path("p.sealed"), "--passphrase-file", path("pass.txt")],
            [
                "seal", path("plain.bin"), path("v.sealed"), "--vault", path("keys.vault"), "--vault-passphrase-file",
                path("vault-pass.txt"), "--key", "backups",
            ],
        ]
        for arguments in setUp {
            let result = await runRampart(arguments)
            try #require(result.status == 0, "\(arguments): \(result.stderr)")
        }
        #expect(await runVault(vault + ["set", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let wrongVault = ["--path", path("app.vault"), "--passphrase-file", path("wrong.txt")]
        let wrongKeys = [
            "--vault", path("keys.vault"), "--vault-passphrase-file", path("wrong.txt"), "--key", "backups",
        ]
        let cases: [Case] = [
            Case(arguments: ["pins", sample], status: 0, mention: ""),
            Case(
                arguments: [
                    "verify-chain", sample, "--host", "nope.example", "--ca", root, "--at", "2027-01-01T00:00:00Z",
                ],
                status: 1,
                mention: ""),
            Case(arguments: ["verify-chain", sample, "--ca", root], status: 2, mention: "missing --host NAME"),
            Case(arguments: ["vault"] + vault + ["get", "--service", "s", "--account", "a"], status: 0, mention: ""),
            Case(
                arguments: ["vault"] + wrongVault + ["get", "--service", "s", "--account", "a"], status: 1,
                mention: "wrong passphrase or not a Rampart vault"),
            Case(
                arguments: ["vault", "--path", path("none.vault"), "--passphrase-file", path("pass.txt"), "list"],
                status: 2, mention: "there is no vault"),
            Case(
                arguments: ["open", path("p.sealed"), path("o.bin"), "--passphrase-file", path("wrong.txt")],
                status: 1, mention: "wrongKey"),
            Case(arguments: ["open", path("v.sealed"), path("o.bin")] + wrongKeys, status: 1, mention: "wrongKey"),
            Case(arguments: ["rewrap", path("v.sealed")] + wrongKeys, status: 1, mention: "wrongKey"),
            Case(
                arguments: [
                    "seal", path("plain.bin"), path("x.sealed"), "--vault", path("keys.vault"),
                    "--vault-passphrase-file", path("wrong.txt"), "--key", "backups",
                ], status: 1, mention: "wrongKey"),
            Case(
                arguments: ["open", path("v.sealed"), path("o.bin"), "--passphrase-file", path("pass.txt")],
                status: 2, mention: "wrongKeyKind: the file was sealed with key 'backups/v1', not a passphrase"),
            Case(
                arguments: [
                    "open", path("p.sealed"), path("o.bin"), "--vault", path("keys.vault"), "--vault-passphrase-file",
                    path("vault-pass.txt"), "--key", "backups",
                ], status: 2, mention: "wrongKeyKind: the file was sealed with a passphrase"),
            Case(arguments: ["appattest", "simulate", "--team-id", "T"], status: 2, mention: "--bundle-id"),
            Case(arguments: [], status: 2, mention: "USAGE: rampart"),
            Case(arguments: ["--help"], status: 0, mention: ""),
        ]
        for item in cases {
            let result = await runRampart(item.arguments)
            #expect(result.status == item.status, "\(item.testDescription): \(result.stderr)")
            #expect(
                item.mention.isEmpty || result.stderr.contains(item.mention),
                "\(item.testDescription): \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: path("o.bin")))
    }
}

struct ErrorsThatLeadSomewhereTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [String]
        let message: String
        var testDescription: String { arguments.joined(separator: " ") }
    }

    @Test(
        "usage errors name what is missing first, and how to go on",
        arguments: [
            Case(arguments: ["rewrap"], message: "rampart rewrap: give at least one sealed FILE to re-wrap"),
            Case(arguments: ["verify-chain"], message: "rampart verify-chain: give exactly one CHAIN file"),
            Case(
                arguments: ["inspect", "http://example.com"],
                message: "http://… is a URL; give HOST[:PORT] (for example example.com or example.com:8443)"),
            Case(
                arguments: [
                    "serve", "--team-id", "T", "--bundle-id", "b", "--subject-header", "X-User-Id", "--db", "mysql://x",
                ],
                message: "the database scheme 'mysql' is not supported; use sqlite:PATH or postgres://"),
            Case(
                arguments: ["appattest", "verify-attestation", "--key-id", "AA"],
                message:
                    "rampart appattest verify-attestation: missing --attestation "
                    + "(see 'rampart appattest verify-attestation --help')"),
        ])
    func usage(item: Case) async {
        let result = await runRampart(item.arguments)
        #expect(result.status == 2)
        #expect(result.stderr.contains(item.message), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test("serve --config with an unknown key lists the keys and points at --help once")
    func unknownConfigurationKey() async throws {
        let scratch = try NewUserScratch()
        try Data(#"{"bogus": 1}"#.utf8).write(to: scratch.url("serve.json"))
        let result = await runRampart(["serve", "--config", scratch.path("serve.json")])
        #expect(result.status == 2)
        #expect(result.stderr.contains("unknown configuration key 'bogus'; the keys are listen, database, teamId"))
        #expect(result.stderr.components(separatedBy: "rampart serve --help").count == 2, "\(result.stderr)")
    }

    @Test("check --config refuses an unknown Rampart JSON key and suggests the known one")
    func misspeltPinKey() async throws {
        let scratch = try NewUserScratch()
        let json = #"{"version":1,"pinnedDomains":{"a.example":{"caPinz":[{"spki-sha256":"x"}]}}}"#
        try Data(json.utf8).write(to: scratch.url("pins.json"))
        let result = await runRampart([
            "check", "--config", scratch.path("pins.json"), PinsCommandTests.samplePath, "--host", "a.example",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("pinnedDomains → a.example: unknown key caPinz; did you mean caPins?"))
        #expect(!result.stderr.contains("NSPinned"))
    }

    @Test("vault add of an existing item points at set; rotate-key counts items in words that read right")
    func vaultTexts() async throws {
        let scratch = try NewUserScratch()
        let vault = ["--path", scratch.path("app.vault"), "--passphrase-file", scratch.path("pass.txt")]
        #expect(await runVault(vault + ["add", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let again = await runVault(vault + ["add", "--service", "s", "--account", "a"], stdin: "w")
        #expect(again.status == 1)
        #expect(
            again.stderr
                == "rampart vault: duplicateItem: the item exists; use 'rampart vault set' to replace its secret\n")
        try Data(repeating: 1, count: 32).write(to: scratch.url("vault.key"))
        let rotated = await runVault(vault + ["rotate-key", "--new-key-file", scratch.path("vault.key")])
        #expect(
            rotated.stdout == "rotated the vault key and resealed 1 item; it now opens only with the new key file\n")
    }

    @Test("seal names the whole path it could not write, directory included")
    func unwritableOutput() async throws {
        let scratch = try NewUserScratch()
        let result = await runRampart([
            "seal", scratch.path("plain.bin"), "/nonexistent/x.sealed", "--passphrase-file", scratch.path("pass.txt"),
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("next to /nonexistent/x.sealed (in /nonexistent)"), "\(result.stderr)")
    }

    @Test("pinset --format json ends with a newline")
    func pinsetNewline() async throws {
        let scratch = try NewUserScratch()
        let pem = try String(contentsOfFile: PinsCommandTests.samplePath, encoding: .utf8)
        let last = pem.components(separatedBy: "-----BEGIN CERTIFICATE-----").last ?? ""
        try Data(("-----BEGIN CERTIFICATE-----" + last).utf8).write(to: scratch.url("root.pem"))
        let result = await runRampart([
            "pinset", PinsCommandTests.samplePath, "--host", "sample.rampart.example", "--ca", scratch.path("root.pem"),
            "--format", "json", "--at", "2027-01-01T00:00:00Z",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.hasSuffix("}\n"))
    }

    @Test("inspect against a port that answers plain HTTP asks whether the port speaks TLS")
    func plainHTTPPort() async throws {
        let server = try PlainHTTPResponder()
        defer { server.stop() }
        let result = await runRampart(["inspect", "127.0.0.1:\(server.port)", "--timeout", "5"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("is this port speaking TLS?"), "\(result.stderr)")
    }
}

struct SealedFileRefusalTests {
    @Test("open names a cut inside a segment truncated and appended bytes extended; both exit 1 and leave no output")
    func causes() async throws {
        let scratch = try NewUserScratch()
        let path = scratch.path
        let sealed = await runRampart([
            "seal", path("plain.bin"), path("p.sealed"), "--passphrase-file", path("pass.txt"),
        ])
        #expect(sealed.status == 0)
        let bytes = try Data(contentsOf: scratch.url("p.sealed"))
        try bytes.prefix(bytes.count - 1000).write(to: scratch.url("cut.sealed"))
        try (bytes + Data("junk\n".utf8)).write(to: scratch.url("long.sealed"))
        for (file, code) in [("cut.sealed", "truncated"), ("long.sealed", "extended")] {
            let result = await runRampart(["open", path(file), path("out.bin"), "--passphrase-file", path("pass.txt")])
            #expect(result.status == 1, "\(file)")
            #expect(result.stderr.hasPrefix("rampart open: \(code): "), "\(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path("out.bin")))
        }
    }
}

struct SimulatorMeetsServerTests {
    @Test("simulate --challenge hashes the challenge's UTF-8 text, as the service does")
    func challengeText() async throws {
        let scratch = try NewUserScratch()
        let challenge = "QE3ZMDpQs-4-1v8Mn4s1FfrvkJcVl2FK7GFcX-jyMJA"
        let app = ["--team-id", "ABCDE12345", "--bundle-id", "com.example.app"]
        let simulated = await runRampart(
            ["appattest", "simulate", "--challenge", challenge, "--out-dir", scratch.path("sim")] + app)
        #expect(simulated.status == 0, "\(simulated.stderr)")
        let hash = Data(SHA256.hash(Array(challenge.utf8))).base64EncodedString()
        let verify = [
            "appattest", "verify-attestation", "--attestation", "@" + scratch.path("sim/attestation.b64"), "--key-id",
            "@" + scratch.path("sim/key-id.b64"), "--root", scratch.path("sim/root.pem"), "--environment",
            "development",
        ]
        #expect(await runRampart(verify + app + ["--client-data-hash", hash]).status == 0)
        #expect(await runRampart(verify + app + ["--challenge", challenge]).status == 0)
        let decoded = Data(base64Encoded: "b25lLXRpbWU=") ?? Data()  // what base64-decoding a challenge would give
        let otherHash = Data(SHA256.hash(Array(decoded))).base64EncodedString()
        #expect(await runRampart(verify + app + ["--client-data-hash", otherHash]).status == 1)
    }

    @Test("simulate --ca-dir keeps one CA: created once (keys 0600), reused after, so one root accepts every run")
    func keptCA() async throws {
        let scratch = try NewUserScratch()
        let ca = scratch.path("ca")
        let created = await runRampart(["appattest", "simulate", "--ca-dir", ca])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "simulated App Attest CA in \(ca)/ (trust it with --root \(ca)/root.pem)\n")
        let root = try Data(contentsOf: URL(fileURLWithPath: ca + "/root.pem"))
        for key in ["intermediate-key.pem", "receipt-signer-key.pem"] {
            let mode = try FileManager.default.attributesOfItem(atPath: ca + "/" + key)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(key)")
        }
        let app = ["--team-id", "ABCDE12345", "--bundle-id", "com.example.app"]
        for run in 1...2 {
            let out = scratch.path("sim\(run)")
            let simulated = await runRampart(
                ["appattest", "simulate", "--ca-dir", ca, "--challenge", "c\(run)", "--out-dir", out] + app)
            #expect(simulated.status == 0, "\(simulated.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/root.pem")) == root)
            let verified = await runRampart(
                [
                    "appattest", "verify-attestation", "--attestation", "@\(out)/attestation.b64", "--key-id",
                    "@\(out)/key-id.b64", "--challenge", "c\(run)", "--root", ca + "/root.pem", "--environment",
                    "development",
                ] + app)
            #expect(verified.status == 0, "run \(run): \(verified.stdout) \(verified.stderr)")
        }
        try FileManager.default.removeItem(atPath: ca + "/intermediate-key.pem")
        let partial = await runRampart(["appattest", "simulate", "--ca-dir", ca])
        #expect(partial.status == 2)
        #expect(partial.stderr.contains("lacks intermediate-key.pem"), "\(partial.stderr)")
    }
}

/// Answers every connection on a loopback port with a plain-HTTP error, as a web server's HTTP port does.
final class PlainHTTPResponder: @unchecked Sendable {
    // @unchecked: `socket` and `port` are set once in init; `stop()` only closes the socket.
    let port: UInt16
    private let socket: Int32

    init() throws {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(socket, 4) == 0 else { throw DocExampleError("cannot listen on loopback") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.socket = socket
        let listener = socket
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 1024)
                _ = read(client, &buffer, buffer.count)
                let reply = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
                _ = write(client, reply, reply.count)
                close(client)
            }
        }.start()
    }

    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
