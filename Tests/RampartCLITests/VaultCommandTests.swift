import Foundation
import RampartCLI
import Testing

/// Runs `rampart` in-process with an environment and standard input.
func runVault(
    _ arguments: [String],
    stdin: String = "",
    environment: [String: String] = [:]
) async -> (status: Int32, stdout: String, stderr: String) {
    let output = Captured()
    let error = Captured()
    let context = CommandContext(
        standardOutput: { output.append($0) },
        standardError: { error.append($0) },
        readStandardInput: { Data(stdin.utf8) },
        environment: environment,
        now: { Date(timeIntervalSince1970: 1_790_000_000) }
    )
    let status = await Rampart.main(["vault"] + arguments, context: context)
    return (status, output.text, error.text)
}

/// A scratch directory with a passphrase file, removed afterwards.
final class VaultScratch: Sendable {
    let directory: URL
    let vault: String
    let passphraseFile: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        vault = directory.appendingPathComponent("app.vault").path
        passphraseFile = directory.appendingPathComponent("pass").path
        try Data("correct horse\n".utf8).write(to: URL(fileURLWithPath: passphraseFile))
    }

    func file(_ name: String, _ contents: Data) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try contents.write(to: URL(fileURLWithPath: path))
        return path
    }

    var base: [String] { ["--path", vault, "--passphrase-file", passphraseFile] }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

struct VaultCommandTests {
    @Test("set creates the vault; get prints the secret; list prints attributes only")
    func roundTrip() async throws {
        let scratch = try VaultScratch()
        let set = await runVault(
            scratch.base + ["set", "--service", "api.example.com", "--account", "refresh_token"], stdin: "r1.tok\n")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "added api.example.com / refresh_token\n")
        let get = await runVault(scratch.base + ["get", "--service", "api.example.com", "--account", "refresh_token"])
        #expect(get.status == 0)
        #expect(get.stdout == "r1.tok\n")
        let update = await runVault(
            scratch.base + ["set", "--service", "api.example.com", "--account", "refresh_token", "--json"],
            stdin: "r2.tok")
        #expect(update.stdout.contains("\"status\" : \"updated\""))
        let list = await runVault(scratch.base + ["list"])
        #expect(list.status == 0)
        #expect(list.stdout == "api.example.com\trefresh_token\tafter-first-unlock\tdefault\t\n")
        let listJSON = await runVault(scratch.base + ["list", "--json"])
        #expect(listJSON.stdout.contains("\"accessible\" : \"after-first-unlock\""))
        #expect(!listJSON.stdout.contains("r2.tok"))
        let getJSON = await runVault(
            scratch.base + ["get", "--service", "api.example.com", "--account", "refresh_token", "--json"])
        #expect(getJSON.stdout.contains("\"value\" : \"r2.tok\""))
        let mode = try FileManager.default.attributesOfItem(atPath: scratch.vault)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
    }

    @Test("add of an existing item is exit 1 with duplicateItem")
    func duplicate() async throws {
        let scratch = try VaultScratch()
        let args = scratch.base + ["add", "--service", "s", "--account", "a"]
        #expect(await runVault(args, stdin: "one").status == 0)
        let second = await runVault(args, stdin: "two")
        #expect(second.status == 1)
        #expect(second.stderr.contains("duplicateItem"))
        let get = await runVault(scratch.base + ["get", "--service", "s", "--account", "a"])
        #expect(get.stdout == "one\n")
    }

    @Test("a wrong passphrase is exit 1 'wrong passphrase or not a Rampart vault' and changes nothing")
    func wrongPassphrase() async throws {
        let scratch = try VaultScratch()
        #expect(await runVault(scratch.base + ["set", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let before = try Data(contentsOf: URL(fileURLWithPath: scratch.vault))
        let wrong = try scratch.file("wrong", Data("incorrect".utf8))
        for action in [["set", "--service", "s", "--account", "b"], ["get", "--service", "s", "--account", "a"]] {
            let result = await runVault(
                ["--path", scratch.vault, "--passphrase-file", wrong] + action, stdin: "x")
            #expect(result.status == 1)
            #expect(result.stderr == "rampart vault: wrong passphrase or not a Rampart vault\n")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.vault)) == before)
    }

    @Test("the passphrase comes from RAMPART_VAULT_PASSPHRASE, never from an argument")
    func passphraseSources() async throws {
        let scratch = try VaultScratch()
        let environment = ["RAMPART_VAULT_PASSPHRASE": "from env"]
        let set = await runVault(
            ["--path", scratch.vault, "set", "--service", "s", "--account", "a"], stdin: "v", environment: environment)
        #expect(set.status == 0)
        let get = await runVault(
            ["--path", scratch.vault, "get", "--service", "s", "--account", "a"], environment: environment)
        #expect(get.stdout == "v\n")
        let argument = await runVault(["--path", scratch.vault, "--passphrase", "x", "list"])
        #expect(argument.status == 2)
        #expect(argument.stderr.contains("never taken as an argument"))
        let none = await runVault(["--path", scratch.vault, "list"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("RAMPART_VAULT_PASSPHRASE"))
    }

    @Test("get and delete of a missing item are exit 1; a missing vault is exit 2 and is not created")
    func missing() async throws {
        let scratch = try VaultScratch()
        let absent = await runVault(scratch.base + ["get", "--service", "s", "--account", "a"])
        #expect(absent.status == 2)
        #expect(absent.stderr.contains("there is no vault"))
        #expect(!FileManager.default.fileExists(atPath: scratch.vault))
        #expect(await runVault(scratch.base + ["set", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let get = await runVault(scratch.base + ["get", "--service", "s", "--account", "other"])
        #expect(get.status == 1)
        #expect(get.stderr.contains("itemNotFound"))
        #expect(await runVault(scratch.base + ["delete", "--service", "s", "--account", "a"]).status == 0)
        #expect(await runVault(scratch.base + ["delete", "--service", "s", "--account", "a"]).status == 1)
        let empty = await runVault(scratch.base + ["list"])
        #expect(empty.status == 0)
        #expect(empty.stdout.isEmpty)
    }

    @Test("rotate-key moves the vault to a key file; the old passphrase stops working")
    func rotate() async throws {
        let scratch = try VaultScratch()
        #expect(await runVault(scratch.base + ["set", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let keyFile = try scratch.file("vault.key", Data((0..<32).map { UInt8($0) }))
        let rotate = await runVault(scratch.base + ["rotate-key", "--new-key-file", keyFile, "--reencrypt", "--json"])
        #expect(rotate.status == 0, "\(rotate.stderr)")
        #expect(rotate.stdout.contains("\"items\" : 1"))
        let old = await runVault(scratch.base + ["list"])
        #expect(old.status == 1)
        #expect(
            old.stderr
                == "rampart vault: this vault opens with a key file, not a passphrase "
                + "(rotate-key --new-key-file moved it to one); give --key-file\n")
        let get = await runVault([
            "--path", scratch.vault, "--key-file", keyFile, "get", "--service", "s", "--account", "a",
        ])
        #expect(get.stdout == "v\n")
    }

    @Test("rotate-key reseals by default; --keep-vault-key says what it leaves open; both flags at once are usage")
    func rotateModes() async throws {
        let scratch = try VaultScratch()
        #expect(await runVault(scratch.base + ["set", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let first = try scratch.file("first.key", Data((0..<32).map { UInt8($0) }))
        let resealed = await runVault(scratch.base + ["rotate-key", "--new-key-file", first, "--json"])
        #expect(resealed.status == 0, "\(resealed.stderr)")
        #expect(resealed.stdout.contains("\"reencrypted\" : true"))
        let second = try scratch.file("second.key", Data((0..<32).map { UInt8(255 - $0) }))
        let byKey = ["--path", scratch.vault, "--key-file", first]
        let both = await runVault(byKey + ["rotate-key", "--new-key-file", second, "--reencrypt", "--keep-vault-key"])
        #expect(both.status == 2)
        #expect(both.stderr.contains("give --reencrypt (the default) or --keep-vault-key, not both"))
        let kept = await runVault(byKey + ["rotate-key", "--new-key-file", second, "--keep-vault-key"])
        #expect(kept.status == 0, "\(kept.stderr)")
        #expect(
            kept.stdout
                == "re-wrapped the vault key for the new key file; 1 item kept under the same vault key, which the "
                + "old credential still unwraps from any copy of the old header\n")
        let help = await runVault(["rotate-key", "--help"])
        #expect(help.stdout.contains("--keep-vault-key only re-wraps the vault key"))
    }

    @Test("backup DEST writes a copy that opens with the same passphrase; an existing DEST is exit 2")
    func backup() async throws {
        let scratch = try VaultScratch()
        #expect(await runVault(scratch.base + ["set", "--service", "s", "--account", "a"], stdin: "v").status == 0)
        let destination = scratch.directory.appendingPathComponent("copy.vault").path
        let backup = await runVault(scratch.base + ["backup", destination])
        #expect(backup.status == 0, "\(backup.stderr)")
        #expect(backup.stdout == "backed up 1 item to \(destination)\n")
        let copy = ["--path", destination, "--passphrase-file", scratch.passphraseFile]
        #expect(await runVault(copy + ["get", "--service", "s", "--account", "a"]).stdout == "v\n")
        let again = await runVault(scratch.base + ["backup", destination])
        #expect(again.status == 2)
        #expect(again.stderr.contains("exists; give the backup a new file name"), "\(again.stderr)")
        let missing = await runVault(scratch.base + ["backup"])
        #expect(missing.status == 2)
    }

    @Test("bad usage is exit 2: unknown action, unknown accessibility, empty secret, both credentials")
    func usage() async throws {
        let scratch = try VaultScratch()
        let keyFile = try scratch.file("vault.key", Data((0..<32).map { UInt8($0) }))
        let cases: [([String], String)] = [
            (scratch.base + ["frobnicate"], "unknown action"),
            (
                scratch.base + ["set", "--service", "s", "--account", "a", "--accessible", "always"],
                "unknown --accessible"
            ),
            (scratch.base + ["set", "--service", "s", "--account", "a"], "no secret"),
            (scratch.base + ["--key-file", keyFile, "list"], "not both"),
            (scratch.base + ["get", "--service", "s"], "missing --account"),
            (["--passphrase-file", scratch.passphraseFile, "list"], "missing --path"),
        ]
        for (arguments, message) in cases {
            let result = await runVault(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains(message), "\(result.stderr)")
        }
        let synced = await runVault(
            scratch.base + [
                "add", "--service", "s", "--account", "a", "--synchronizable", "--accessible",
                "when-unlocked-this-device-only",
            ], stdin: "v")
        #expect(synced.status == 2)
        #expect(synced.stderr.contains("invalidParameters"))
    }
}
