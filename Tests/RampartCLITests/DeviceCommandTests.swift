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
}
