import Foundation
import RampartCrypto
import RampartX509
import TestSupport
import Testing

/// The validation time as `--at` takes it.
let atTime = "2026-06-01T00:00:00Z"

func json(_ text: String) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// One row of the badssl.com table for the commands.
struct BadSSLRow: CustomTestStringConvertible, Sendable {
    let leaf: String
    let host: String
    let reason: String?
    let certificate: Int?
    var testDescription: String { "\(leaf) → \(reason ?? "trusted")" }
}

let badSSLTable = [
    BadSSLRow(leaf: "good", host: "good.rampart.test", reason: nil, certificate: nil),
    BadSSLRow(leaf: "expired", host: "expired.rampart.test", reason: "expired", certificate: 0),
    BadSSLRow(leaf: "wronghost", host: "wrong.host.badssl.rampart.test", reason: "hostnameMismatch", certificate: 0),
    BadSSLRow(leaf: "selfsigned", host: "selfsigned.rampart.test", reason: "selfSigned", certificate: 0),
    BadSSLRow(leaf: "untrusted", host: "untrusted.rampart.test", reason: "untrustedRoot", certificate: 1),
]

struct VerifyChainCommandTests {
    @Test("verify-chain reproduces the badssl.com table with exit codes and JSON reasons", arguments: badSSLTable)
    func table(_ row: BadSSLRow) async throws {
        let pki = try TestPKI.shared.get()
        let result = await runRampart([
            "verify-chain", pki.path("\(row.leaf)-chain.pem"), "--host", row.host, "--ca", pki.path("root.pem"),
            "--at", atTime, "--json",
        ])
        let object = try json(result.stdout)
        #expect(result.status == (row.reason == nil ? 0 : 1))
        #expect(object["trusted"] as? Bool == (row.reason == nil))
        #expect(object["reason"] as? String == row.reason)
        #expect(object["certificate"] as? Int == row.certificate)
        if row.reason == nil {
            #expect((object["path"] as? [[String: Any]])?.count == 3)
        } else {
            #expect((object["message"] as? String)?.isEmpty == false)
        }
    }

    @Test("verify-chain prints the path or the reason in text")
    func text() async throws {
        let pki = try TestPKI.shared.get()
        let good = await runRampart([
            "verify-chain", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", pki.path("root.pem"),
            "--at", atTime,
        ])
        #expect(good.status == 0)
        #expect(good.stdout.contains("trusted for good.rampart.test"))
        #expect(good.stdout.contains(" 2 s:O=Rampart Tests, CN=Rampart Test Root"))
        let wrong = await runRampart([
            "verify-chain", pki.path("wronghost-chain.pem"), "--host", "wrong.host.badssl.rampart.test", "--ca",
            pki.path("root.pem"), "--at", atTime,
        ])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("untrusted: hostnameMismatch (certificate 0)"))
        #expect(wrong.stdout.contains("*.badssl.rampart.test"))
    }

    @Test("verify-chain without --ca uses the system trust store, which does not know the test root")
    func systemStore() async throws {
        let pki = try TestPKI.shared.get()
        let result = await runRampart([
            "verify-chain", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--at", atTime, "--json",
        ])
        #expect(result.status == 1)
        #expect(try json(result.stdout)["reason"] as? String == "untrustedRoot")
    }

    @Test(
        "verify-chain usage errors exit 2 with one line",
        arguments: [
            ["verify-chain", "good-chain.pem"],
            ["verify-chain", "--host", "x"],
            ["verify-chain", "missing.pem", "--host", "x"],
            ["verify-chain", "good.key", "--host", "x"],
            ["verify-chain", "good-chain.pem", "--host", "x", "--at", "yesterday"],
            ["verify-chain", "good-chain.pem", "--host", "x", "--ca", "good.key"],
        ])
    func usage(_ arguments: [String]) async throws {
        let pki = try TestPKI.shared.get()
        let resolved = arguments.map { $0.hasSuffix(".pem") || $0.hasSuffix(".key") ? pki.path($0) : $0 }
        let result = await runRampart(resolved)
        #expect(result.status == 2)
        #expect(result.stderr.split(separator: "\n").count == 1)
    }
}

struct InspectCommandTests {
    @Test("inspect against a local openssl s_server reproduces the badssl.com table", arguments: badSSLTable)
    func table(_ row: BadSSLRow) async throws {
        let pki = try TestPKI.shared.get()
        let server = try TestTLSServer(
            certificate: pki.path("\(row.leaf).pem"), key: pki.path("\(row.leaf).key"),
            chain: pki.path("\(row.leaf)-chain.pem"))
        defer { server.stop() }
        let result = await runRampart([
            "inspect", "127.0.0.1:\(server.port)", "--servername", row.host, "--ca", pki.path("root.pem"), "--at",
            atTime, "--timeout", "10", "--json",
        ])
        #expect(result.status == (row.reason == nil ? 0 : 1), "\(result.stderr)")
        let object = try json(result.stdout)
        let verdict = try #require(object["verdict"] as? [String: Any])
        #expect(verdict["reason"] as? String == row.reason)
        #expect(verdict["certificate"] as? Int == row.certificate)
        let chain = try #require(object["chain"] as? [[String: Any]])
        #expect(chain.first?["spkiSHA256"] as? String != nil)
        #expect(object["host"] as? String == row.host)
    }

    @Test("inspect prints the chain as `rampart pins` does, then the verdict")
    func text() async throws {
        let pki = try TestPKI.shared.get()
        let server = try TestTLSServer(
            certificate: pki.path("good.pem"), key: pki.path("good.key"), chain: pki.path("intermediate.pem"))
        defer { server.stop() }
        let result = await runRampart([
            "inspect", "127.0.0.1:\(server.port)", "--servername", "good.rampart.test", "--ca", pki.path("root.pem"),
            "--at", atTime,
        ])
        #expect(result.status == 0)
        #expect(result.stdout.contains(" 0 s:CN=good.rampart.test"))
        #expect(result.stdout.contains("   i:O=Rampart Tests, CN=Rampart Test Intermediate"))
        #expect(result.stdout.contains("   pin-sha256: "))
        #expect(result.stdout.contains("trusted for good.rampart.test"))
    }

    @Test("inspect of a port nobody listens on exits 2 with one line")
    func unreachable() async throws {
        let reserved = try ReservedPort()
        let result = await runRampart(["inspect", "127.0.0.1:\(reserved.port)", "--timeout", "5"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("connectionFailed"))
    }
}

struct PinsetCheckCommandTests {
    func write(_ text: String, as name: String) throws -> String {
        let pki = try TestPKI.shared.get()
        let path = pki.path("\(UUID().uuidString)-\(name)")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "pinset output fed to check passes for the good chain and fails for another CA's", arguments: ["plist", "json"])
    func roundTrip(format: String) async throws {
        let pki = try TestPKI.shared.get()
        let pinset = await runRampart([
            "pinset", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", pki.path("root.pem"),
            "--format", format, "--at", atTime,
        ])
        #expect(pinset.status == 0, "\(pinset.stderr)")
        #expect(pinset.stderr.isEmpty)
        let config = try write(pinset.stdout, as: "pins.\(format)")
        let good = await runRampart([
            "check", "--config", config, pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca",
            pki.path("root.pem"), "--at", atTime, "--json",
        ])
        #expect(good.status == 0)
        let allowed = try json(good.stdout)
        #expect(allowed["outcome"] as? String == "pinned")
        #expect((allowed["policy"] as? [String: Any])?["domain"] as? String == "good.rampart.test")
        let other = await runRampart([
            "check", "--config", config, pki.path("other-chain.pem"), "--host", "good.rampart.test", "--ca",
            pki.path("root.pem"), "--ca", pki.path("otherroot.pem"), "--at", atTime, "--json",
        ])
        #expect(other.status == 1)
        let refused = try json(other.stdout)
        #expect(refused["outcome"] as? String == "pinMismatch")
        #expect((refused["report"] as? [String: Any])?["validation-result"] as? Int == 1)
        #expect((refused["message"] as? String)?.contains("Pinned certificates for good.rampart.test") == true)
    }

    @Test("pinset --leaf --include-subdomains from a live server; check covers one more label")
    func liveLeaf() async throws {
        let pki = try TestPKI.shared.get()
        let server = try TestTLSServer(
            certificate: pki.path("good.pem"), key: pki.path("good.key"), chain: pki.path("intermediate.pem"),
            connections: 2)
        defer { server.stop() }
        let pinset = await runRampart([
            "pinset", "127.0.0.1:\(server.port)", "--servername", "good.rampart.test", "--ca", pki.path("root.pem"),
            "--format", "plist", "--leaf", "--include-subdomains", "--at", atTime,
        ])
        #expect(pinset.status == 0)
        #expect(pinset.stdout.contains("<key>NSPinnedLeafIdentities</key>"))
        #expect(pinset.stdout.contains("<key>NSIncludesSubdomains</key>"))
        #expect(pinset.stderr.contains("only one pin"))
        let config = try write(pinset.stdout, as: "leaf.plist")
        let check = await runRampart([
            "check", "--config", config, "127.0.0.1:\(server.port)", "--servername", "api.good.rampart.test", "--ca",
            pki.path("root.pem"), "--at", atTime,
        ])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("allowed: api.good.rampart.test [pinned]"))
        #expect(check.stdout.contains("policy: good.rampart.test (includes subdomains)"))
    }

    @Test("pinset refuses to pin an untrusted chain (exit 1)")
    func untrusted() async throws {
        let pki = try TestPKI.shared.get()
        let result = await runRampart([
            "pinset", pki.path("untrusted-chain.pem"), "--host", "untrusted.rampart.test", "--ca", pki.path("root.pem"),
            "--format", "json", "--at", atTime,
        ])
        #expect(result.status == 1)
        #expect(result.stderr.contains("untrustedRoot"))
    }

    @Test("check refuses a chain the default evaluation rejects, whatever the pins")
    func defaultFailure() async throws {
        let pki = try TestPKI.shared.get()
        let config = try write(
            """
            {"version": 1, "pinnedDomains": {"expired.rampart.test": {
                "caPins": [{"spki-sha256": "\(try await spki(pki, "root"))"}], "reportOnly": true}}}
            """, as: "expired.json")
        let result = await runRampart([
            "check", "--config", config, pki.path("expired-chain.pem"), "--host", "expired.rampart.test", "--ca",
            pki.path("root.pem"), "--at", atTime, "--json",
        ])
        #expect(result.status == 1)
        let object = try json(result.stdout)
        #expect(object["outcome"] as? String == "defaultEvaluationFailed")
        #expect((object["chain"] as? [String: Any])?["reason"] as? String == "expired")
    }

    @Test("check: notPinned is allowed, and refused with --require-pinned")
    func notPinned() async throws {
        let pki = try TestPKI.shared.get()
        let config = try write(
            "{\"pinnedDomains\": {\"elsewhere.test\": {\"caPins\": [{\"spki-sha256\": \"\(try await spki(pki, "root"))\"}]}}}",
            as: "elsewhere.json")
        let arguments = [
            "check", "--config", config, pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca",
            pki.path("root.pem"), "--at", atTime,
        ]
        let allowed = await runRampart(arguments)
        #expect(allowed.status == 0)
        #expect(allowed.stdout.contains("[notPinned]"))
        let required = await runRampart(arguments + ["--require-pinned"])
        #expect(required.status == 1)
    }

    @Test(
        "check and pinset usage errors exit 2",
        arguments: [
            ["check", "good-chain.pem", "--host", "x"],
            ["check", "--config", "missing.json", "good-chain.pem", "--host", "x"],
            ["check", "--config", "good.key", "good-chain.pem", "--host", "x"],
            ["check", "--config", "good-chain.pem", "good-chain.pem"],
            ["pinset", "good-chain.pem", "--host", "x"],
            ["pinset", "good-chain.pem", "--host", "x", "--format", "yaml"],
            ["pinset", "not a host!", "--format", "json"],
        ])
    func usage(_ arguments: [String]) async throws {
        let pki = try TestPKI.shared.get()
        let resolved = arguments.map { $0.hasSuffix(".pem") || $0.hasSuffix(".key") ? pki.path($0) : $0 }
        let result = await runRampart(resolved)
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    /// The SPKI pin of `<name>.pem`, from `rampart pins --json`.
    func spki(_ pki: TestPKI, _ name: String) async throws -> String {
        let result = await runRampart(["pins", "--json", pki.path("\(name).pem")])
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]])
        return try #require(entries.first?["spkiSHA256"] as? String)
    }
}

struct LintCommandTests {
    func write(_ text: String, _ name: String) throws -> String {
        let path = ScratchDirectory.uniquePath(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("lint exits 0 on a clean configuration, 1 with JSON warnings, 2 on bad usage; a malformed pin is a warning")
    func exitCodes() async throws {
        let pki = try TestPKI.shared.get()
        let chain = pki.path("good-chain.pem")
        let pinset = await runRampart([
            "pinset", chain, "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at", atTime,
            "--format", "json",
        ])
        #expect(pinset.status == 0)
        let good = try write(pinset.stdout, "good.json")
        let clean = await runRampart(["lint", good, "--chain", chain, "--at", atTime])
        #expect(clean.status == 0)
        #expect(clean.stdout.hasPrefix("clean:"))
        let leaf = await runRampart([
            "pinset", chain, "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at", atTime,
            "--format", "plist", "--leaf",
        ])
        let leafPath = try write(leaf.stdout, "leaf.plist")
        let flagged = await runRampart(["lint", leafPath, "--chain", chain, "--at", atTime, "--json"])
        #expect(flagged.status == 1)
        let warnings = try #require(try json(flagged.stdout)["warnings"] as? [[String: Any]])
        #expect(warnings.compactMap { $0["code"] as? String } == ["singlePin", "leafWithoutBackup"])
        #expect(warnings.allSatisfy { $0["domain"] as? String == "good.rampart.test" && $0["message"] is String })
        let malformed = try write(
            #"{"version":1,"pinnedDomains":{"a.example":{"caPins":[{"spki-sha256":"AAAA"}]}}}"#, "bad.json")
        let bad = await runRampart(["lint", malformed, "--json"])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("\"malformedPin\""))
        // An empty pin list loads, and check refuses every connection for the domain: lint flags it.
        let emptyList = try write(#"{"version":1,"pinnedDomains":{"good.rampart.test":{"caPins":[]}}}"#, "empty.json")
        let empty = await runRampart(["lint", emptyList, "--json"])
        #expect(empty.status == 1, "\(empty.stdout)")
        #expect(empty.stdout.contains("\"emptyPinList\""))
        let refused = await runRampart([
            "check", "--config", emptyList, chain, "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at",
            atTime,
        ])
        #expect(refused.status == 1, "\(refused.stdout)\(refused.stderr)")
        #expect(await runRampart(["lint"]).status == 2)
        #expect(await runRampart(["lint", good, "--host", "x"]).status == 2)
        #expect(await runRampart(["lint", "/nonexistent.json"]).status == 2)
    }
}

struct PinsetSignCommandTests {
    @Test(
        "pinset sign writes an envelope; verify adopts it (0) and refuses old, foreign-key, expired and tampered sets (1)"
    )
    func signAndVerify() async throws {
        let pki = try TestPKI.shared.get()
        let directory = ScratchDirectory.uniquePath("pinset-sign")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func openssl(_ arguments: [String]) throws {
            let result = try SpawnedProcess.run("/usr/bin/openssl", arguments)
            #expect(result.termination == .exited(0), "\(result.errorText)")
        }
        try openssl(["genpkey", "-algorithm", "ed25519", "-out", "\(directory)/key.pem"])
        try openssl(["pkey", "-in", "\(directory)/key.pem", "-pubout", "-out", "\(directory)/pub.pem"])
        try openssl(["genpkey", "-algorithm", "ed25519", "-out", "\(directory)/other.pem"])
        try openssl(["pkey", "-in", "\(directory)/other.pem", "-pubout", "-out", "\(directory)/otherpub.pem"])
        let pins = await runRampart([
            "pinset", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at",
            atTime, "--format", "json",
        ])
        try Data(pins.stdout.utf8).write(to: URL(fileURLWithPath: "\(directory)/in.json"))
        let signed = await runRampart([
            "pinset", "sign", "\(directory)/in.json", "\(directory)/set", "--key", "\(directory)/key.pem",
            "--version", "4", "--expires", "2026-09-01T00:00:00Z", "--bundle-id", "com.example.app", "--at", atTime,
        ])
        #expect(signed.status == 0)
        func verify(_ extra: [String], file: String = "set") async -> (status: Int32, stdout: String) {
            let result = await runRampart(
                ["pinset", "verify", "\(directory)/\(file)", "--public-key", "\(directory)/pub.pem", "--json"] + extra)
            return (result.status, result.stdout)
        }
        let adopted = await verify(["--at", atTime, "--bundle-id", "com.example.app", "--current-version", "3"])
        #expect(adopted.status == 0)
        #expect(try json(adopted.stdout)["version"] as? Int == 4)
        for (extra, reason) in [
            (["--at", atTime, "--current-version", "4"], "notNewer"),
            (["--at", "2026-10-01T00:00:00Z"], "expired"),
            (["--at", atTime, "--bundle-id", "com.other.app"], "wrongApp"),
        ] {
            let refused = await verify(extra)
            #expect(refused.status == 1)
            #expect(try json(refused.stdout)["reason"] as? String == reason)
        }
        let otherKey = await runRampart([
            "pinset", "verify", "\(directory)/set", "--public-key", "\(directory)/otherpub.pem", "--at", atTime,
        ])
        #expect(otherKey.status == 1)
        #expect(otherKey.stdout.hasPrefix("refuse: unknownSigner"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/set"))
        bytes[bytes.count - 5] ^= 1
        try bytes.write(to: URL(fileURLWithPath: "\(directory)/tampered"))
        let tampered = await verify(["--at", atTime], file: "tampered")
        #expect(try json(tampered.stdout)["reason"] as? String == "badSignature")
        #expect(await runRampart(["pinset", "sign", "\(directory)/in.json"]).status == 2)
        #expect(await runRampart(["pinset", "verify", "\(directory)/set"]).status == 2)
    }
}

/// The x509-limbo leaves that are well-formed DER but break RFC 5280 (read in place, STYLE 10).
struct VerifyChainMalformedTests {
    static let testcases = [
        "pathological::nc-dos-1", "pathological::nc-dos-2", "pathological::nc-dos-3", "rfc5280::eku::ee-eku-empty",
        "rfc5280::nc::nc-permits-invalid-ip-san", "rfc5280::san::malformed", "rfc5280::duplicate-extensions",
        "rfc5280::mismatching-signature-algorithm", "webpki::san::unicode-emoji-san", "webpki::malformed-aia",
    ]

    @Test(
        "verify-chain refuses a well-formed but invalid certificate with malformedCertificate, exit 1 (not 2)",
        .enabled(if: Vectors.available, "../shared/vectors not found; set RAMPART_VECTORS"), arguments: testcases)
    func malformed(_ id: String) async throws {
        let object = try JSONSerialization.jsonObject(with: Vectors.data("x509-limbo/limbo.json"))
        let testcases = try #require((object as? [String: Any])?["testcases"] as? [[String: Any]])
        let testcase = try #require(testcases.first { $0["id"] as? String == id })
        let chain = ScratchDirectory.uniquePath("limbo-chain.pem")
        try #require(testcase["peer_certificate"] as? String).write(toFile: chain, atomically: true, encoding: .utf8)
        let host = (testcase["expected_peer_name"] as? [String: Any])?["value"] as? String ?? "example.com"
        // No --ca: the leaf is refused before any anchor is consulted (some of these testcases' anchors are
        // themselves refused by the strict reader, which makes --ca a usage error).
        let result = await runRampart(["verify-chain", chain, "--host", host, "--json"])
        #expect(result.status == 1, "\(result.stderr)")
        let verdict = try json(result.stdout)
        #expect(verdict["reason"] as? String == "malformedCertificate")
        #expect(verdict["certificate"] as? Int == 0)
        #expect((verdict["message"] as? String)?.contains("the leaf is not a valid X.509 certificate") == true)
    }
}

/// A private CA as `openssl req` makes it: leaf `CN=good` with subjectAltName `api.rampart.test, *.cdn.rampart.test`,
/// valid for a year from when the tests run (the openssl tool here cannot set other dates for `x509 -req`), so the
/// tests inject ``time``, an hour later (issue 27).
struct PrivateCA: Sendable {
    let directory: String
    let time = Date().addingTimeInterval(3_600).formatted(.iso8601)
    var root: String { "\(directory)/ca.pem" }
    var leaf: String { "\(directory)/good.pem" }

    static let shared: Result<PrivateCA, any Error> = Result { try PrivateCA() }

    private init() throws {
        directory = ScratchDirectory.uniquePath("private-ca")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        func openssl(_ arguments: [String]) throws {
            let result = try SpawnedProcess.run("/usr/bin/openssl", arguments, directory: directory)
            guard result.termination == .exited(0) else {
                throw PKIError(message: "openssl \(arguments.first ?? "") failed: \(result.errorText)")
            }
        }
        try openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "ca.key",
            "-subj", "/CN=Private CA", "-addext", "keyUsage=critical,keyCertSign,cRLSign", "-days", "3650",
            "-set_serial", "1", "-out", "ca.pem",
        ])
        try openssl([
            "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", "good.key",
            "-subj", "/CN=good", "-out", "good.csr",
        ])
        try Data("extendedKeyUsage=serverAuth\nsubjectAltName=DNS:api.rampart.test,DNS:*.cdn.rampart.test\n".utf8)
            .write(to: URL(fileURLWithPath: "\(directory)/good.ext"))
        try openssl([
            "x509", "-req", "-in", "good.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", "2",
            "-days", "365", "-extfile", "good.ext", "-out", "good.pem",
        ])
    }
}

struct ChainPolicyCommandTests {
    @Test(
        "a private-CA leaf CN=good outside its SAN verifies, pins and checks under apple (the default) and is refused under webpki citing BR 7.1.4.3"
    )
    func privateCA() async throws {
        let ca = try PrivateCA.shared.get()
        let common = ["--host", "api.rampart.test", "--ca", ca.root, "--at", ca.time]
        let apple = await runRampart(["verify-chain", ca.leaf] + common + ["--json"])
        #expect(apple.status == 0, "\(apple.stdout)\(apple.stderr)")
        let trusted = try json(apple.stdout)
        #expect(trusted["trusted"] as? Bool == true)
        #expect(trusted["policy"] as? String == "apple")

        let webPKI = await runRampart(["verify-chain", ca.leaf] + common + ["--policy", "webpki", "--json"])
        #expect(webPKI.status == 1)
        let refused = try json(webPKI.stdout)
        #expect(refused["policy"] as? String == "webpki")
        #expect(refused["reason"] as? String == "hostnameMismatch")
        #expect(refused["certificate"] as? Int == 0)
        #expect(
            (refused["message"] as? String)?.contains("subject CN \"good\" is not one of its subjectAltName") == true)
        #expect((refused["message"] as? String)?.contains("policy webpki: BR 7.1.4.3") == true)

        let pinset = await runRampart(["pinset", ca.leaf] + common + ["--format", "json"])
        #expect(pinset.status == 0, "\(pinset.stderr)")
        let config = ScratchDirectory.uniquePath("private-ca-pins.json")
        try Data(pinset.stdout.utf8).write(to: URL(fileURLWithPath: config))
        let check = await runRampart(["check", "--config", config, ca.leaf] + common + ["--json"])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let allowed = try json(check.stdout)
        #expect(allowed["outcome"] as? String == "pinned")
        #expect(allowed["chainPolicy"] as? String == "apple")

        let strictPinset = await runRampart(["pinset", ca.leaf] + common + ["--format", "json", "--policy", "webpki"])
        #expect(strictPinset.status == 1)
        #expect(strictPinset.stderr.contains("policy webpki"))
        #expect(strictPinset.stderr.contains("BR 7.1.4.3"))
        let strictCheck = await runRampart(
            ["check", "--config", config, ca.leaf] + common + ["--json", "--policy", "webpki"])
        #expect(strictCheck.status == 1)
        let strict = try json(strictCheck.stdout)
        #expect(strict["outcome"] as? String == "defaultEvaluationFailed")
        #expect(strict["chainPolicy"] as? String == "webpki")
        #expect((strict["chain"] as? [String: Any])?["reason"] as? String == "hostnameMismatch")
    }

    @Test(
        "--policy takes apple or webpki; anything else is bad usage, exit 2",
        arguments: ["verify-chain", "pinset", "check", "inspect"])
    func unknownPolicy(_ command: String) async throws {
        let pki = try TestPKI.shared.get()
        var arguments = [command]
        switch command {
        case "inspect": arguments += ["127.0.0.1:1"]
        case "check": arguments += ["--config", pki.path("root.pem"), pki.path("good-chain.pem"), "--host", "x"]
        default: arguments += [pki.path("good-chain.pem"), "--host", "x", "--format", "json"]
        }
        if command == "verify-chain" { arguments.removeLast(2) }
        let result = await runRampart(arguments + ["--policy", "ios"])
        #expect(result.status == 2, "\(result.stdout)")
        #expect(result.stderr.contains("--policy must be apple or webpki; got 'ios'"), "\(result.stderr)")
    }
}

/// Certificates that are well-formed DER but break RFC 5280 (an empty extendedKeyUsage, RFC 5280 4.2.1.12
/// `SIZE (1..MAX)`): a verdict, exit 1 `malformedCertificate` naming the file and the certificate, never exit 2.
struct MalformedCertificateVerdictTests {
    /// `builder`'s certificate with an extra extension holding an empty `SEQUENCE OF KeyPurposeId`, signed by `key`
    /// with ecdsa-with-SHA256 and written as PEM. Assembled here because ``CertificateBuilder/sign(with:digest:)``
    /// parses what it signed, and Rampart's reader refuses this certificate.
    static func emptyEKU(_ builder: CertificateBuilder, key: ECPrivateKey) throws -> String {
        var builder = builder
        builder.extendedKeyUsage = nil
        builder.extraExtensions.append(
            Certificate.Extension(oid: .X509Extension.extendedKeyUsage, critical: false, value: [0x30, 0x00]))
        let algorithm = Certificate.SignatureAlgorithm(oid: .SignatureAlgorithm.ecdsaWithSHA256)
        let tbs = try builder.tbsCertificateBytes(signatureAlgorithm: algorithm)
        let signature = try key.signature(for: tbs, digest: .sha256)
        var writer = DERWriter()
        try writer.appendSequence { certificate in
            try certificate.appendRawTLV(tbs)
            // AlgorithmIdentifier { ecdsa-with-SHA256 } (RFC 5758 3.2: parameters absent).
            try certificate.appendRawTLV([0x30, 0x0A, 0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x04, 0x03, 0x02])
            certificate.appendBitString(signature)
        }
        return PEMDocument(label: "CERTIFICATE", derBytes: writer.bytes).pemString
    }

    static func write(_ text: String, _ name: String) throws -> String {
        let path = ScratchDirectory.uniquePath(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(
        "a --ca file holding a certificate that breaks RFC 5280 is malformedCertificate, exit 1, naming file and certificate"
    )
    func malformedAnchor() async throws {
        let pki = try TestPKI.shared.get()
        let key = ECPrivateKey(curve: .p256)
        let name = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Broken Root")])
        var builder = CertificateBuilder(
            subject: name, issuer: name, publicKey: key.publicKey, notBefore: TestPKI.validationTime - 86_400,
            notAfter: TestPKI.validationTime + 86_400)
        builder.basicConstraints = BasicConstraints(isCA: true)
        let broken = try Self.write(try pki.text("root.pem") + Self.emptyEKU(builder, key: key), "broken-ca.pem")
        let verify = await runRampart([
            "verify-chain", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", broken, "--at", atTime,
            "--json",
        ])
        #expect(verify.status == 1, "\(verify.stderr)")
        let verdict = try json(verify.stdout)
        #expect(verdict["reason"] as? String == "malformedCertificate")
        let message = try #require(verdict["message"] as? String)
        #expect(message.contains("\(broken): certificate 1 (a trust anchor given with --ca) is not a valid X.509"))
        #expect(message.contains("extKeyUsage lists no purpose"))

        let pinset = await runRampart([
            "pinset", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", broken, "--at", atTime,
            "--format", "json",
        ])
        #expect(pinset.status == 1)
        #expect(pinset.stderr.contains("malformedCertificate"))
        let config = try Self.write(
            "{\"pinnedDomains\": {\"elsewhere.test\": {\"caPins\": [{\"spki-sha256\": \"\(String(repeating: "A", count: 43))=\"}]}}}",
            "elsewhere.json")
        let check = await runRampart([
            "check", "--config", config, pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", broken,
            "--at", atTime, "--json",
        ])
        #expect(check.status == 1, "\(check.stderr)")
        let decision = try json(check.stdout)
        #expect(decision["outcome"] as? String == "defaultEvaluationFailed")
        #expect((decision["chain"] as? [String: Any])?["reason"] as? String == "malformedCertificate")
        // A file that holds no certificate stays bad input.
        let none = await runRampart([
            "verify-chain", pki.path("good-chain.pem"), "--host", "good.rampart.test", "--ca", pki.path("good.key"),
        ])
        #expect(none.status == 2)
    }

    @Test("a chain file whose intermediate breaks RFC 5280 is malformedCertificate (exit 1) for pinset and check too")
    func malformedIntermediate() async throws {
        let pki = try TestPKI.shared.get()
        let key = ECPrivateKey(curve: .p256)
        let name = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Broken Intermediate")])
        var builder = CertificateBuilder(
            subject: name, issuer: name, publicKey: key.publicKey, notBefore: TestPKI.validationTime - 86_400,
            notAfter: TestPKI.validationTime + 86_400)
        builder.basicConstraints = BasicConstraints(isCA: true)
        let chain = try Self.write(
            try pki.text("good-chain.pem") + Self.emptyEKU(builder, key: key), "broken-chain.pem")
        let pinset = await runRampart([
            "pinset", chain, "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at", atTime, "--format",
            "json",
        ])
        #expect(pinset.status == 1, "\(pinset.stderr)")
        #expect(pinset.stderr.contains("\(chain): presented certificate 2 is not a valid X.509 certificate"))
        let config = try Self.write(
            "{\"pinnedDomains\": {\"elsewhere.test\": {\"caPins\": [{\"spki-sha256\": \"\(String(repeating: "A", count: 43))=\"}]}}}",
            "elsewhere.json")
        let check = await runRampart([
            "check", "--config", config, chain, "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at",
            atTime, "--json",
        ])
        #expect(check.status == 1, "\(check.stderr)")
        #expect((try json(check.stdout)["chain"] as? [String: Any])?["reason"] as? String == "malformedCertificate")
        let verify = await runRampart([
            "verify-chain", chain, "--host", "good.rampart.test", "--ca", pki.path("root.pem"), "--at", atTime,
            "--json",
        ])
        #expect(verify.status == 1)
        #expect(try json(verify.stdout)["reason"] as? String == "malformedCertificate")
    }
}
