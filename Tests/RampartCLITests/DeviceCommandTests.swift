import Foundation
import RampartCLI
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `rampart device`: the saved simulated device, its file modes, its usage errors, and (against a `rampart serve
/// --demo` child process) registration and signed requests.
@Suite(.serialized)
struct DeviceCommandTests {
    static func folder() -> String { ScratchDirectory.uniquePath("device") }

    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return ((attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1) & 0o777
    }

    @Test("rampart device --help and each subcommand's --help: stdout, exit 0, its own usage")
    func help() async {
        let all = await runRampart(["device", "--help"])
        #expect(all.status == 0)
        #expect(all.stdout.contains("USAGE: rampart device <init|register|request>"))
        for name in ["init", "register", "request"] {
            let result = await runRampart(["device", name, "--help"])
            #expect(result.status == 0, "\(name)")
            #expect(result.stdout.hasPrefix("USAGE: rampart device \(name)"), "\(name)")
            #expect(result.stdout.contains("EXIT CODES:"), "\(name)")
            #expect(result.stderr.isEmpty)
        }
        #expect(await runRampart(["--help"]).stdout.contains("device"))
    }

    @Test("init writes the CA and device.json (0600) in a 0700 folder and prints the root for rampart serve --root")
    func initialize() async throws {
        let path = Self.folder()
        let result = await runRampart(["device", "init", path, "--team-id", "TEAM123456", "--bundle-id", "com.x.y"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("rampart serve --root \(path)/ca/root.pem --team-id TEAM123456"))
        #expect(result.stdout.contains("-----BEGIN CERTIFICATE-----"))
        #expect(try Self.mode(path) == 0o700)
        #expect(try Self.mode(path + "/device.json") == 0o600)
        #expect(try Self.mode(path + "/ca/intermediate-key.pem") == 0o600)
        let root = try String(contentsOfFile: path + "/ca/root.pem", encoding: .utf8)
        #expect(result.stdout.contains(root.trimmingCharacters(in: .newlines)))

        let json = await runRampart(["device", "init", Self.folder(), "--json"])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["teamId"] as? String == "DEMO123456")
        #expect((object?["root"] as? String)?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)

        let again = await runRampart(["device", "init", path])
        #expect(again.status == 2)
        #expect(again.stderr.contains("already holds a device"))
    }

    @Test(
        "a device file others can read is refused, exit 2, with the chmod to run",
        arguments: [
            "device.json", "ca/intermediate-key.pem", "key.json",
        ])
    func unsafeMode(file: String) async throws {
        let path = Self.folder()
        #expect(await runRampart(["device", "init", path]).status == 0)
        if file == "key.json" {
            // A key file as register writes it (the key id must match the key, but the mode is checked first).
            _ = FileManager.default.createFile(
                atPath: path + "/key.json", contents: Data(#"{"counter":0,"keyId":"x","privateKey":"y"}"#.utf8),
                attributes: [.posixPermissions: 0o600])
        }
        #expect(chmod(path + "/" + file, 0o644) == 0)
        let result = await runRampart([
            "device", "request", "--dir", path, "--server", "http://127.0.0.1:9", "GET", "/v1/demo/points/balance",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("chmod 600 \(path)/\(file)"), "\(result.stderr)")
        #expect(result.stderr.contains("mode is 644"))
    }

    @Test(
        "usage errors exit 2 with one line naming the problem",
        arguments: [
            (["device"], "name a subcommand"),
            (["device", "bogus"], "unknown device subcommand"),
            (["device", "init"], "rampart device init DIR"),
            (["device", "init", "/tmp/x", "--environment", "staging"], "--environment"),
            (["device", "register", "--server", "http://127.0.0.1:9"], "--dir DIR"),
            (["device", "register", "--dir", "/nonexistent/dev", "--server", "http://127.0.0.1:9"], "holds no device"),
            (["device", "register", "--dir", "DIR", "--server", "ftp://x"], "--server must be an http(s) URL"),
            (["device", "register", "--dir", "DIR"], "missing --server"),
            (["device", "register", "--dir", "DIR", "--server", "http://127.0.0.1:9", "-H", "NoColon"], "Name: value"),
            (
                ["device", "register", "--dir", "DIR", "--server", "http://127.0.0.1:9", "-H", "Bad Name: v"],
                "not a valid"
            ),
            (["device", "request", "--dir", "DIR", "--server", "http://127.0.0.1:9", "GET"], "METHOD and the TARGET"),
            (["device", "request", "--dir", "DIR", "--server", "http://127.0.0.1:9", "GET", "x"], "starting with '/'"),
            (
                [
                    "device", "request", "--dir", "DIR", "--server", "http://127.0.0.1:9", "--data", "@/nonexistent",
                    "GET", "/",
                ],
                "cannot read /nonexistent"
            ),
        ])
    func usage(arguments: [String], mention: String) async throws {
        let path = Self.folder()
        #expect(await runRampart(["device", "init", path]).status == 0)
        let result = await runRampart(arguments.map { $0 == "DIR" ? path : $0 })
        #expect(result.status == 2, "\(arguments)")
        #expect(result.stderr.contains(mention), "\(arguments): \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
    }

    @Test("a server that cannot be reached is exit 2 with what to check")
    func unreachable() async throws {
        let path = Self.folder()
        #expect(await runRampart(["device", "init", path]).status == 0)
        let port = try ReservedPort()
        let result = await runRampart([
            "device", "register", "--dir", path, "--server", "http://127.0.0.1:\(port.port)",
        ])
        #expect(result.status == 2)
        #expect(result.stderr.contains("could not reach"), "\(result.stderr)")
    }

    /// A server that answers every request 401 with `WWW-Authenticate: Basic`, as nginx does for a wrong password.
    static let basicAuthServer = """
        import http.server, sys
        class H(http.server.BaseHTTPRequestHandler):
            def answer(self):
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="points-api"')
                body = b"<html><head><title>401 Authorization Required</title></head></html>\\r\\n"
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            do_GET = do_POST = answer
            def log_message(self, *args): pass
        server = http.server.HTTPServer(("127.0.0.1", 0), H)
        print(server.server_address[1], flush=True)
        server.serve_forever()
        """

    /// Linux's URLSession waited forever on such an answer.
    @Test("a server asking for HTTP Basic authentication is exit 1 saying so, for register and request")
    func basicAuthentication() async throws {
        let path = Self.folder()
        #expect(await runRampart(["device", "init", path]).status == 0)
        let server = try SpawnedProcess(
            "/usr/bin/python3", arguments: ["-c", Self.basicAuthServer], standardOutput: .pipe)
        defer {
            server.signal(SIGKILL)
            _ = server.wait()
        }
        let line = String(decoding: server.standardOutput?.availableData ?? Data(), as: UTF8.self)
        let port = try #require(Int(line.trimmingCharacters(in: .whitespacesAndNewlines)), "\(line)")
        let url = "http://127.0.0.1:\(port)"
        for arguments in [
            ["device", "register", "--dir", path, "--server", url, "-H", "Authorization: Basic YTpi"],
            ["device", "request", "--dir", path, "--server", url, "GET", "/api/feed"],
        ] {
            let result = await runRampart(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            let asked = "\(url) answered 401 and asks for HTTP Basic (realm \"points-api\") authentication"
            #expect(result.stderr.contains(asked), "\(result.stderr)")
            #expect(result.stderr.contains("--header 'Authorization: …'"))
        }
    }
}

/// `rampart device` against a running `rampart serve --demo` (the built binary, its root from the device's folder).
@Suite(.serialized, .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
struct DeviceAgainstServeTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.rampart.device-tests"

    /// `rampart` on the real clock: the server verifies attestations at the time they are made.
    static func rampart(_ arguments: [String]) async -> (status: Int32, stdout: String, stderr: String) {
        await runRampart(arguments, now: { Date() })
    }

    static func keyFile(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path + "/key.json"))
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    @Test(
        "init, serve --root DIR/ca/root.pem, register, then signed requests: answers printed, counter and next challenge kept"
    )
    func registerAndRequest() async throws {
        let path = ScratchDirectory.uniquePath("device")
        let created = await Self.rampart([
            "device", "init", path, "--team-id", Self.teamID, "--bundle-id", Self.bundleID,
        ])
        try #require(created.status == 0, "\(created.stderr)")
        let server = try await ServeProcess.start([
            "--demo", "--root", path + "/ca/root.pem", "--team-id", Self.teamID, "--bundle-id", Self.bundleID,
            "--environment", "development", "--db", "sqlite:" + ScratchDirectory.uniquePath("device.db"),
        ])
        let url = "http://127.0.0.1:\(server.port)"
        let user = ["-H", "X-User-Id: alice"]

        let registered = await Self.rampart(["device", "register", "--dir", path, "--server", url] + user)
        #expect(registered.status == 0, "\(registered.stderr)")
        #expect(registered.stdout.contains("registered key "))
        #expect(try DeviceCommandTests.mode(path + "/key.json") == 0o600)
        let key = try Self.keyFile(path)
        #expect(key["counter"] as? Int == 0)
        let keyID = try #require(key["keyId"] as? String)

        let spent = await Self.rampart(
            ["device", "request", "--dir", path, "--server", url, "POST", "/v1/demo/points/use"] + user + [
                "--data", #"{"amount":1000}"#,
            ])
        #expect(spent.status == 0, "\(spent.stderr)")
        let answer = try JSONSerialization.jsonObject(with: Data(spent.stdout.utf8)) as? [String: Any]
        #expect(answer?["balance"] as? Int == 4000, "\(spent.stdout)")
        let afterFirst = try Self.keyFile(path)
        #expect(afterFirst["keyId"] as? String == keyID)
        #expect(afterFirst["counter"] as? Int == 1)
        let next = try #require(afterFirst["nextChallenge"] as? String, "the answer's Rampart-Next-Challenge is kept")

        // The next request uses the kept challenge; -i prints the status line and headers first.
        let body = ScratchDirectory.uniquePath("body.json")
        try Data(#"{"amount":500}"#.utf8).write(to: URL(fileURLWithPath: body))
        let included = await Self.rampart(
            ["device", "request", "--dir", path, "--server", url, "-i", "POST", "/v1/demo/points/use"] + user + [
                "--data", "@" + body,
            ])
        #expect(included.status == 0, "\(included.stderr)")
        #expect(included.stdout.hasPrefix("HTTP/1.1 200"))
        #expect(included.stdout.contains("\nrampart-next-challenge: "))
        #expect(included.stdout.contains(#""balance":3500"#))
        let afterSecond = try Self.keyFile(path)
        #expect(afterSecond["counter"] as? Int == 2)
        #expect(afterSecond["nextChallenge"] as? String != next, "a new next challenge replaces the used one")

        // A refusal: printed as received, one line on stderr, exit 1.
        let refused = await Self.rampart(
            ["device", "request", "--dir", path, "--server", url, "POST", "/v1/demo/points/use"] + user + [
                "--data", #"{"amount":4000}"#,
            ])
        #expect(refused.status == 1)
        #expect(refused.stdout.contains("insufficientPoints"))
        #expect(refused.stderr.contains("the server answered 409 insufficientPoints"), "\(refused.stderr)")

        // --json
        let json = await Self.rampart(
            ["device", "request", "--dir", path, "--server", url, "--json", "POST", "/v1/demo/points/balance"] + user)
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect(object?["status"] as? Int == 200)
        #expect(object?["keyId"] as? String == keyID)
        #expect(await server.stop() == 0)
    }

    @Test(
        "another user on the same device: the request is signed again, a key attested for them, and it passes; and back"
    )
    func switchUsers() async throws {
        let path = ScratchDirectory.uniquePath("device")
        try #require(
            await Self.rampart(["device", "init", path, "--team-id", Self.teamID, "--bundle-id", Self.bundleID]).status
                == 0)
        let server = try await ServeProcess.start([
            "--demo", "--root", path + "/ca/root.pem", "--team-id", Self.teamID, "--bundle-id", Self.bundleID,
            "--environment", "development", "--db", "sqlite:" + ScratchDirectory.uniquePath("users.db"),
        ])
        let url = "http://127.0.0.1:\(server.port)"
        func use(_ user: String, _ amount: Int) async -> (status: Int32, stdout: String, stderr: String) {
            await Self.rampart([
                "device", "request", "--dir", path, "--server", url, "-H", "X-User-Id: \(user)", "POST",
                "/v1/demo/points/use", "--data", #"{"amount":\#(amount)}"#,
            ])
        }
        let registered = await Self.rampart(
            ["device", "register", "--dir", path, "--server", url, "-H", "X-User-Id: alice"])
        try #require(registered.status == 0, "\(registered.stderr)")
        let aliceKey = try Self.keyFile(path)["keyId"] as? String
        let alice = await use("alice", 1000)
        #expect(alice.status == 0, "\(alice.stderr)")
        #expect(alice.stdout.contains(#""balance":4000"#), "\(alice.stdout)")

        // Before: 409 challengeMismatch (alice's next challenge), then 403 wrongSubject for every request.
        let bob = await use("bob", 500)
        #expect(bob.status == 0, "\(bob.stderr)")
        #expect(bob.stdout.contains(#""balance":4500"#), "bob's own balance: \(bob.stdout)")
        let bobKey = try Self.keyFile(path)["keyId"] as? String
        #expect(bobKey != aliceKey, "a key registered to bob")
        let bobAgain = await use("bob", 500)
        #expect(bobAgain.status == 0, "\(bobAgain.stderr)")
        #expect(try Self.keyFile(path)["keyId"] as? String == bobKey, "bob's key is kept while he is signed in")

        let aliceAgain = await use("alice", 1000)
        #expect(aliceAgain.status == 0, "\(aliceAgain.stderr)")
        #expect(aliceAgain.stdout.contains(#""balance":3000"#), "\(aliceAgain.stdout)")
        #expect(await server.stop() == 0)
    }

    @Test("a server that no longer knows the key: request attests a new one, retries, and saves it")
    func reattest() async throws {
        let path = ScratchDirectory.uniquePath("device")
        try #require(
            await Self.rampart(["device", "init", path, "--team-id", Self.teamID, "--bundle-id", Self.bundleID]).status
                == 0)
        let arguments = [
            "--demo", "--root", path + "/ca/root.pem", "--team-id", Self.teamID, "--bundle-id", Self.bundleID,
            "--environment", "development",
        ]
        let first = try await ServeProcess.start(arguments + ["--db", "sqlite:" + ScratchDirectory.uniquePath("a.db")])
        let user = ["-H", "X-User-Id: alice"]
        let registered = await Self.rampart(
            ["device", "register", "--dir", path, "--server", "http://127.0.0.1:\(first.port)"] + user)
        try #require(registered.status == 0, "\(registered.stderr)")
        let old = try Self.keyFile(path)["keyId"] as? String
        await first.stop()
        let second = try await ServeProcess.start(
            arguments + ["--db", "sqlite:" + ScratchDirectory.uniquePath("b.db")])
        let answer = await Self.rampart(
            [
                "device", "request", "--dir", path, "--server", "http://127.0.0.1:\(second.port)", "POST",
                "/v1/demo/points/use", "--data", #"{"amount":1}"#,
            ] + user)
        #expect(answer.status == 0, "\(answer.stderr)")
        let key = try Self.keyFile(path)
        #expect(key["keyId"] as? String != old)
        #expect(key["counter"] as? Int == 1)
        await second.stop()
    }
}

/// `rampart device --android` against a running `rampart serve` whose configuration trusts the device's simulated
/// Key Attestation CA: registration, then a protected request through Envoy's `/ext-authz`.
@Suite(.serialized, .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
struct AndroidDeviceAgainstServeTests {
    @Test("init --android, serve with its android configuration, register, then requests through /ext-authz")
    func registerAndRequest() async throws {
        let path = ScratchDirectory.uniquePath("android-device")
        let created = await DeviceAgainstServeTests.rampart([
            "device", "init", path, "--android", "--package", "com.example.points", "--json",
        ])
        try #require(created.status == 0, "\(created.stderr)")
        let output = try #require(
            try JSONSerialization.jsonObject(with: Data(created.stdout.utf8)) as? [String: Any])
        #expect(output["platform"] as? String == "android")
        let android = try #require(output["android"] as? [String: Any])
        #expect(android["extraRoots"] as? [String] == [path + "/ca/root.pem"])
        #expect(try DeviceCommandTests.mode(path + "/ca/android-ca.json") == 0o600)
        #expect(try DeviceCommandTests.mode(path + "/android.json") == 0o600)

        let configuration = ScratchDirectory.uniquePath("android-serve.json")
        try JSONSerialization.data(
            withJSONObject: [
                "android": android, "routes": [["method": "*", "path": "/api/*", "policy": "require-assertion"]],
            ]
        ).write(to: URL(fileURLWithPath: configuration))
        let server = try await ServeProcess.start([
            "--demo", "--config", configuration, "--team-id", DeviceAgainstServeTests.teamID, "--bundle-id",
            DeviceAgainstServeTests.bundleID, "--db", "sqlite:" + ScratchDirectory.uniquePath("android.db"),
        ])
        let url = "http://127.0.0.1:\(server.port)"
        let alice = ["-H", "X-User-Id: alice"]

        let registered = await DeviceAgainstServeTests.rampart(
            ["device", "register", "--dir", path, "--server", url, "--json"] + alice)
        #expect(registered.status == 0, "\(registered.stderr)")
        let registration = try JSONSerialization.jsonObject(with: Data(registered.stdout.utf8)) as? [String: Any]
        #expect(registration?["platform"] as? String == "android")
        let keyID = try #require(registration?["keyId"] as? String)
        #expect(try DeviceCommandTests.mode(path + "/key.json") == 0o600)

        let allowed = await DeviceAgainstServeTests.rampart(
            ["device", "request", "--dir", path, "--server", url, "--ext-authz", "-i", "POST", "/api/points/use"]
                + alice + ["--data", #"{"amount":1}"#])
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(allowed.stdout.hasPrefix("HTTP/1.1 200"), "\(allowed.stdout)")
        #expect(allowed.stdout.contains("\nrampart-platform: android"), "\(allowed.stdout)")
        #expect(allowed.stdout.contains("\nrampart-key-id: \(keyID)"))
        let kept = try DeviceAgainstServeTests.keyFile(path)
        #expect(kept["nextChallenge"] as? String != nil, "the answer's Rampart-Next-Challenge is kept")

        // The kept challenge signs the next request, then the demo route (which checks the same way) works too.
        let next = await DeviceAgainstServeTests.rampart(
            ["device", "request", "--dir", path, "--server", url, "--json", "POST", "/v1/demo/points/use"]
                + alice + ["--data", #"{"amount":1000}"#])
        #expect(next.status == 0, "\(next.stderr)")
        let answer = try JSONSerialization.jsonObject(with: Data(next.stdout.utf8)) as? [String: Any]
        #expect((answer?["body"] as? String)?.contains(#""balance":4000"#) == true, "\(next.stdout)")
        #expect(answer?["keyId"] as? String == keyID)

        // Another user presenting alice's key: refused, exit 1, the code on stderr.
        let bob = await DeviceAgainstServeTests.rampart(
            [
                "device", "request", "--dir", path, "--server", url, "--ext-authz", "POST", "/api/points/use",
                "-H", "X-User-Id: bob", "--data", #"{"amount":1}"#,
            ])
        #expect(bob.status == 1)
        #expect(bob.stderr.contains("the server answered 403 wrongSubject"), "\(bob.stderr)")
        #expect(await server.stop() == 0)
    }

    @Test("--ext-authz is refused for an App Attest device, and request before register names the fix")
    func usage() async throws {
        let ios = ScratchDirectory.uniquePath("device")
        #expect(await runRampart(["device", "init", ios]).status == 0)
        let refused = await runRampart([
            "device", "request", "--dir", ios, "--server", "http://127.0.0.1:9", "--ext-authz", "GET", "/api/x",
        ])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--ext-authz is for Android devices"), "\(refused.stderr)")

        let android = ScratchDirectory.uniquePath("android-device")
        #expect(await runRampart(["device", "init", android, "--android"]).status == 0)
        let early = await runRampart([
            "device", "request", "--dir", android, "--server", "http://127.0.0.1:9", "GET", "/api/x",
        ])
        #expect(early.status == 2)
        #expect(early.stderr.contains("holds no key yet"), "\(early.stderr)")
        #expect(await runRampart(["device", "init", android, "--android"]).stderr.contains("already holds a device"))
    }
}
