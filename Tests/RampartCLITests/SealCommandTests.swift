import Foundation
import Testing

struct SealCommandTests {
    /// A scratch directory with a passphrase file and a plaintext of `size` bytes.
    static func workspace(size: Int) throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rampart-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data("correct horse battery staple\n".utf8).write(to: directory.appendingPathComponent("pass.txt"))
        try Data("wrong\n".utf8).write(to: directory.appendingPathComponent("wrong.txt"))
        var bytes = [UInt8](repeating: 0, count: size)
        for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
        try Data(bytes).write(to: directory.appendingPathComponent("plain.bin"))
        return directory
    }

    @Test("seal then open round-trips a file and prints --json summaries")
    func roundTrip() async throws {
        let directory = try Self.workspace(size: 200_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let sealed = await runRampart([
            "seal", path("plain.bin"), path("plain.sealed"), "--passphrase-file", path("pass.txt"), "--json",
            "--segment-size", "16K", "--algorithm", "chacha20-poly1305",
        ])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(sealed.stdout.contains("\"plaintextBytes\" : 200000"))
        #expect(sealed.stdout.contains("ChaCha20-Poly1305"))
        let opened = await runRampart([
            "open", path("plain.sealed"), path("opened.bin"), "--passphrase-file", path("pass.txt"), "--json",
        ])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout.contains("\"segmentSize\" : 16384"))
        #expect(
            FileManager.default.contents(atPath: path("opened.bin"))
                == FileManager.default.contents(atPath: path("plain.bin")))
    }

    @Test("a tampered file exits 1 naming the segment and leaves no output; a wrong passphrase exits 1")
    func tampered() async throws {
        let directory = try Self.workspace(size: 300_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let sealed = await runRampart([
            "seal", path("plain.bin"), path("plain.sealed"), "--passphrase-file", path("pass.txt"),
        ])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        var bytes = try #require(FileManager.default.contents(atPath: path("plain.sealed")))
        bytes[bytes.count - 40_000] ^= 0x01  // in segment 3 of 5 (64 KiB each, the last one short)
        try bytes.write(to: directory.appendingPathComponent("bad.sealed"))
        let bad = await runRampart(["open", path("bad.sealed"), path("out.bin"), "--passphrase-file", path("pass.txt")])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("segmentTampered: segment 3"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("out.bin")))
        let wrong = await runRampart([
            "open", path("plain.sealed"), path("out.bin"), "--passphrase-file", path("wrong.txt"),
        ])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("wrongKey"))
        #expect(!FileManager.default.fileExists(atPath: path("out.bin")))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(!names.contains { $0.contains(".rampart-") })
    }

    @Test("'-' reads standard input and writes standard output")
    func standardStreams() async throws {
        let directory = try Self.workspace(size: 10)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let sealed = await runRampart(
            ["seal", "-", path("note.sealed"), "--passphrase-file", path("pass.txt")], stdin: Data("a note\n".utf8))
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let opened = await runRampart(["open", path("note.sealed"), "-", "--passphrase-file", path("pass.txt")])
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(opened.stdout == "a note\n")
    }

    @Test("open refuses a forged header asking Argon2id for 1 GiB and 64 passes: exit 2, limitExceeded, no output")
    func forgedKDFCosts() async throws {
        let directory = try Self.workspace(size: 1_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let sealed = await runRampart([
            "seal", path("plain.bin"), path("plain.sealed"), "--passphrase-file", path("pass.txt"),
        ])
        #expect(sealed.status == 0, "\(sealed.stderr)")
        var bytes = try #require(FileManager.default.contents(atPath: path("plain.sealed")))
        // The Argon2id stanza's m, t and p (docs/seal-format.md): 1 GiB, 64 passes, 16 lanes.
        bytes.replaceSubrange(57..<69, with: [0, 0x10, 0, 0, 0, 0, 0, 64, 0, 0, 0, 16])
        try bytes.write(to: directory.appendingPathComponent("forged.sealed"))
        let opened = await runRampart([
            "open", path("forged.sealed"), path("out.bin"), "--passphrase-file", path("pass.txt"),
        ])
        #expect(opened.status == 2)
        #expect(
            opened.stderr.contains("limitExceeded: the header asks for Argon2id m=1048576,t=64,p=16"),
            "\(opened.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path("out.bin")))
    }

    @Test("bad usage and non-sealed input exit 2")
    func usage() async throws {
        let directory = try Self.workspace(size: 10)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let cases: [[String]] = [
            ["seal", path("plain.bin"), path("x")],
            ["seal", path("plain.bin"), "--passphrase-file", path("pass.txt")],
            ["seal", path("plain.bin"), path("x"), "--passphrase-file", path("missing.txt")],
            ["seal", path("plain.bin"), path("x"), "--passphrase-file", path("pass.txt"), "--segment-size", "1"],
            ["seal", path("plain.bin"), path("x"), "--passphrase-file", path("pass.txt"), "--kdf", "md5"],
            ["seal", path("plain.bin"), path("x"), "--passphrase-file", path("pass.txt"), "--algorithm", "des"],
            ["open", path("plain.bin"), path("x"), "--passphrase-file", path("pass.txt")],
            ["open", path("missing"), path("x"), "--passphrase-file", path("pass.txt")],
        ]
        for arguments in cases {
            let result = await runRampart(arguments)
            #expect(result.status == 2, "\(arguments.joined(separator: " ")): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: path("x")))
    }
}

struct SealVaultCommandTests {
    @Test("--vault seals with a keyset kept in the vault, creating both; open finds the key by id")
    func vault() async throws {
        let directory = try SealCommandTests.workspace(size: 70_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let vaultOptions = [
            "--vault", path("keys.vault"), "--vault-passphrase-file", path("pass.txt"), "--key", "backups",
        ]
        let sealed = await runRampart(["seal", path("plain.bin"), path("plain.sealed"), "--json"] + vaultOptions)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(sealed.stdout.contains("key backups/v1"))
        #expect(FileManager.default.fileExists(atPath: path("keys.vault")))
        let opened = await runRampart(["open", path("plain.sealed"), path("opened.bin")] + vaultOptions)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(
            FileManager.default.contents(atPath: path("opened.bin"))
                == FileManager.default.contents(atPath: path("plain.bin")))
        let wrongVault = await runRampart([
            "open", path("plain.sealed"), path("x.bin"), "--vault", path("keys.vault"), "--vault-passphrase-file",
            path("wrong.txt"), "--key", "backups",
        ])
        #expect(wrongVault.status == 1, "\(wrongVault.stderr)")
        let missingKeyset = await runRampart([
            "open", path("plain.sealed"), path("x.bin"), "--vault", path("keys.vault"), "--vault-passphrase-file",
            path("pass.txt"), "--key", "other",
        ])
        #expect(missingKeyset.status == 2, "\(missingKeyset.stderr)")
        let passphrase = await runRampart([
            "open", path("plain.sealed"), path("x.bin"), "--passphrase-file", path("pass.txt"),
        ])
        #expect(passphrase.status == 2, "\(passphrase.stderr)")
        #expect(passphrase.stderr.contains("wrongKeyKind: the file was sealed with key 'backups/v1', not a passphrase"))
        let mixed = await runRampart(
            ["open", path("plain.sealed"), path("x.bin"), "--passphrase-file", path("pass.txt")] + vaultOptions)
        #expect(mixed.status == 2)
        #expect(!FileManager.default.fileExists(atPath: path("x.bin")))
    }
}

extension SealVaultCommandTests {
    @Test("--vault-key-file opens the vault with a key file; mixed or missing vault options are usage")
    func vaultKeyFile() async throws {
        let directory = try SealCommandTests.workspace(size: 70_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        try Data(repeating: 0x5a, count: 32).write(to: URL(fileURLWithPath: path("vault.key")))
        try Data(repeating: 0xa5, count: 32).write(to: URL(fileURLWithPath: path("other.key")))
        let vaultOptions = ["--vault", path("keys.vault"), "--vault-key-file", path("vault.key"), "--key", "backups"]
        let sealed = await runRampart(["seal", path("plain.bin"), path("plain.sealed"), "--json"] + vaultOptions)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        #expect(sealed.stdout.contains("key backups/v1"))
        let opened = await runRampart(["open", path("plain.sealed"), path("opened.bin")] + vaultOptions)
        #expect(opened.status == 0, "\(opened.stderr)")
        #expect(
            FileManager.default.contents(atPath: path("opened.bin"))
                == FileManager.default.contents(atPath: path("plain.bin")))
        let rotated = await runRampart(["rewrap", path("plain.sealed"), "--rotate"] + vaultOptions)
        #expect(rotated.status == 0, "\(rotated.stderr)")

        let wrongKey = await runRampart([
            "open", path("plain.sealed"), path("x.bin"), "--vault", path("keys.vault"), "--vault-key-file",
            path("other.key"), "--key", "backups",
        ])
        #expect(wrongKey.status == 1, "\(wrongKey.stderr)")
        #expect(wrongKey.stderr.contains("wrongKey: the vault \(path("keys.vault")) did not open: "))
        let both = await runRampart(
            ["open", path("plain.sealed"), path("x.bin"), "--vault-passphrase-file", path("pass.txt")] + vaultOptions)
        #expect(both.status == 2)
        #expect(both.stderr.contains("exactly one of --vault-passphrase-file F or --vault-key-file F"))
        let noKeyName = await runRampart([
            "open", path("plain.sealed"), path("x.bin"), "--vault", path("keys.vault"), "--vault-key-file",
            path("vault.key"),
        ])
        #expect(noKeyName.status == 2)
        #expect(noKeyName.stderr.contains("--vault needs --key NAME"))
        let noVault = await runRampart([
            "open", path("plain.sealed"), path("x.bin"), "--vault-key-file", path("vault.key"), "--key", "backups",
        ])
        #expect(noVault.status == 2)
        #expect(noVault.stderr.contains("go with --vault FILE"))
        #expect(!FileManager.default.fileExists(atPath: path("x.bin")))
    }
}

struct RewrapCommandTests {
    @Test("rewrap --rotate moves files to a new keyset key; --new-passphrase-file changes a passphrase")
    func rewrap() async throws {
        let directory = try SealCommandTests.workspace(size: 5_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let vault = ["--vault", path("keys.vault"), "--vault-passphrase-file", path("pass.txt"), "--key", "docs"]
        #expect(await runRampart(["seal", path("plain.bin"), path("a.sealed")] + vault).status == 0)
        let body = try #require(FileManager.default.contents(atPath: path("a.sealed"))).suffix(5_016)
        let rotated = await runRampart(["rewrap", path("a.sealed"), "--rotate", "--json"] + vault)
        #expect(rotated.status == 0, "\(rotated.stderr)")
        #expect(rotated.stdout.contains("\"from\" : \"docs/v1\""))
        #expect(rotated.stdout.contains("\"to\" : \"docs/v2\""))
        #expect(try #require(FileManager.default.contents(atPath: path("a.sealed"))).suffix(5_016) == body)
        let opened = await runRampart(["open", path("a.sealed"), path("a.out")] + vault)
        #expect(opened.status == 0, "\(opened.stderr)")

        #expect(
            await runRampart(["seal", path("plain.bin"), path("b.sealed"), "--passphrase-file", path("pass.txt")])
                .status == 0)
        let changed = await runRampart([
            "rewrap", path("b.sealed"), "--passphrase-file", path("pass.txt"), "--new-passphrase-file",
            path("wrong.txt"),
        ])
        #expect(changed.status == 0, "\(changed.stderr)")
        #expect(
            await runRampart(["open", path("b.sealed"), path("b.out"), "--passphrase-file", path("wrong.txt")]).status
                == 0)
        let stale = await runRampart([
            "rewrap", path("b.sealed"), "--passphrase-file", path("pass.txt"), "--new-passphrase-file",
            path("wrong.txt"),
        ])
        #expect(stale.status == 1)
        #expect(await runRampart(["rewrap", path("b.sealed")]).status == 2)
    }

    @Test("rewrap --reencrypt seals each file again under a fresh data key: every body byte changes, the file opens")
    func reencrypt() async throws {
        let directory = try SealCommandTests.workspace(size: 5_000)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = { (name: String) in directory.appendingPathComponent(name).path }
        let vault = ["--vault", path("keys.vault"), "--vault-passphrase-file", path("pass.txt"), "--key", "docs"]
        #expect(await runRampart(["seal", path("plain.bin"), path("a.sealed")] + vault).status == 0)
        let before = try #require(FileManager.default.contents(atPath: path("a.sealed")))
        let moved = await runRampart(["rewrap", path("a.sealed"), "--rotate", "--reencrypt"] + vault)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "\(path("a.sealed")): docs/v1 -> docs/v2\n")
        let after = try #require(FileManager.default.contents(atPath: path("a.sealed")))
        #expect(zip(before.suffix(5_016), after.suffix(5_016)).filter { $0 == $1 }.count < 100)
        #expect(await runRampart(["open", path("a.sealed"), path("a.out")] + vault).status == 0)
        #expect(
            FileManager.default.contents(atPath: path("a.out"))
                == FileManager.default.contents(atPath: path("plain.bin")))

        #expect(
            await runRampart(["seal", path("plain.bin"), path("b.sealed"), "--passphrase-file", path("pass.txt")])
                .status == 0)
        let same = await runRampart(["rewrap", path("b.sealed"), "--passphrase-file", path("pass.txt"), "--reencrypt"])
        #expect(same.status == 0, "\(same.stderr)")
        #expect(
            await runRampart(["open", path("b.sealed"), path("b.out"), "--passphrase-file", path("pass.txt")]).status
                == 0)
        let help = await runRampart(["rewrap", "--help"])
        #expect(help.stdout.contains("Re-wrapping keeps each file's data key"))
    }
}
