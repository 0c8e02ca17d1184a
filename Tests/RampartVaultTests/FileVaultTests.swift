import Foundation
import RampartCrypto
import RampartSQLite
import TestSupport
import Testing

@testable import RampartVault

/// A second connection to a vault file, for tests that read or alter it behind the vault's back; it leaves the
/// journal mode alone, as the vault does.
func inspect(_ path: String) throws -> SQLiteConnection {
    try SQLiteConnection(path: path, options: .init(mode: .readWriteExisting, journalMode: .unchanged))
}

/// Cheap Argon2id parameters so tests stay fast; one test uses the real defaults.
let cheapKDF = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

func openVault(_ path: String, passphrase: String, create: Bool = true) throws -> FileVault {
    try FileVault.open(at: path, credential: .passphrase(passphrase), create: create, kdf: cheapKDF)
}

func fileBytes(_ path: String) -> [UInt8] {
    (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
}

/// The `-wal`, `-shm` and `-journal` files SQLite left next to `path`.
func leftovers(_ path: String) -> [String] {
    ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
}

extension Array where Element == UInt8 {
    func contains(subsequence needle: [UInt8]) -> Bool { firstRange(of: needle) != nil }

    func firstRange(of needle: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= count else { return nil }
        for start in 0...(count - needle.count) where self[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}

struct FileVaultTests {
    @Test("no secret value appears in plaintext in the vault file or its WAL")
    func noPlaintext() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let secrets = (0..<20).map { "top-secret-value-\($0)-\(UUID().uuidString)" }
        do {
            let vault = Vault(backend: try openVault(path, passphrase: "correct horse"))
            for (index, secret) in secrets.enumerated() {
                try await vault.setSecret(Array(secret.utf8), service: "svc", account: "acct\(index)")
            }
            let all = fileBytes(path) + fileBytes(path + "-wal")
            #expect(all.contains(subsequence: Array("acct3".utf8)), "attributes are stored readable")
            for secret in secrets {
                #expect(!all.contains(subsequence: Array(secret.utf8)))
            }
        }
        let closed = fileBytes(path) + fileBytes(path + "-wal")
        for secret in secrets {
            #expect(!closed.contains(subsequence: Array(secret.utf8)))
        }
    }

    @Test("flipping any byte of a stored value in the file is integrityFailure on read")
    func flippedByte() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let key = try VaultCredential.key(SymmetricKey(randomByteCount: 32))
        do {
            let vault = Vault(backend: try FileVault.open(at: path, credential: key))
            try await vault.add(.genericPassword(service: "s", account: "a", value: Array("sixteen byte val".utf8)))
        }
        // The connection is closed and the WAL checkpointed into the file: find the sealed value in it.
        let original = fileBytes(path)
        let sealed = try #require(
            try inspect(path).query("SELECT sealed FROM items").first?.blob(0))
        let range = try #require(original.firstRange(of: sealed))
        for offset in range {
            var tampered = original
            tampered[offset] ^= 0x01
            try Data(tampered).write(to: URL(fileURLWithPath: path))
            let vault = Vault(backend: try FileVault.open(at: path, credential: key))
            await #expect(throws: VaultError.integrityFailure(), "byte \(offset - range.lowerBound)") {
                try await vault.read(.genericPassword(service: "s", account: "a"))
            }
        }
        try Data(original).write(to: URL(fileURLWithPath: path))
        let restored = Vault(backend: try FileVault.open(at: path, credential: key))
        #expect(try await restored.secret(service: "s", account: "a") == Array("sixteen byte val".utf8))
    }

    @Test("altering any attribute column, or swapping two rows' ciphertexts, is integrityFailure")
    func alteredColumns() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let backend = try openVault(path, passphrase: "pw")
        let vault = Vault(backend: backend)
        try await vault.add(.genericPassword(service: "s", account: "alice", value: Array("alice-secret".utf8)))
        try await vault.add(.genericPassword(service: "s", account: "bob", value: Array("bob-secret".utf8)))
        let database = try inspect(path)
        let rows = try database.query("SELECT id, sealed FROM items ORDER BY id")
        let first = try #require(rows.first?.values)
        let second = try #require(rows.last?.values)
        try #require(first.count == 2 && second.count == 2)
        try database.run("UPDATE items SET sealed = \(second[1]) WHERE id = \(first[0])")
        try database.run("UPDATE items SET sealed = \(first[1]) WHERE id = \(second[0])")
        await #expect(throws: VaultError.integrityFailure()) {
            try await vault.read(.genericPassword(service: "s", account: "alice"))
        }
        await #expect(throws: VaultError.integrityFailure()) {
            try await vault.read(.genericPassword(service: "s", account: "bob"))
        }
        try database.run("UPDATE items SET sealed = \(first[1]) WHERE id = \(first[0])")
        try database.run("UPDATE items SET sealed = \(second[1]) WHERE id = \(second[0])")
        #expect(try await vault.read(ItemQuery(itemClass: .genericPassword)).count == 2)

        let alterations: [SQLQuery] = [
            "UPDATE items SET label = 'changed' WHERE account = 'alice'",
            "UPDATE items SET accessibility = 'after-first-unlock' WHERE account = 'alice'",
            "UPDATE items SET access_group = 'other' WHERE account = 'alice'",
            "UPDATE items SET synchronizable = 1 WHERE account = 'alice'",
            "UPDATE items SET access_control = 0 + 1 WHERE account = 'alice'",
            "UPDATE items SET modified = modified + 1 WHERE account = 'alice'",
            "UPDATE items SET pk = x'00' WHERE account = 'alice'",
            "UPDATE items SET sealed = x'0011' WHERE account = 'alice'",
            "UPDATE items SET biometry_binding = x'00' WHERE account = 'alice'",
            "UPDATE items SET class = 'internet-password' WHERE account = 'alice'",
            // A REAL where an integer belongs (1e300 fits no Int64) is refused, not converted.
            "UPDATE items SET created = 1e300 WHERE account = 'alice'",
        ]
        try database.execute(unsafeScript: "CREATE TEMP TABLE pristine AS SELECT * FROM items")
        for alteration in alterations {
            #expect(try database.run(alteration) == 1)
            let text = alteration.text { _ in "?" }
            // A row moved to another class is read through that class.
            let itemClass: ItemClass = text.contains("class =") ? .internetPassword : .genericPassword
            await #expect(throws: VaultError.integrityFailure(), "\(text)") {
                try await vault.read(ItemQuery(itemClass: itemClass))
            }
            try database.run("DELETE FROM items")
            try database.run("INSERT INTO items SELECT * FROM pristine")
            #expect(try await vault.read(ItemQuery(itemClass: .genericPassword)).count == 2)
        }
    }

    @Test("a wrong passphrase is authFailed and leaves the file byte-for-byte unchanged")
    func wrongPassphrase() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        do {
            let vault = Vault(backend: try openVault(path, passphrase: "right"))
            try await vault.setSecret([1, 2, 3], service: "s", account: "a")
        }
        let before = fileBytes(path)
        let error = try #require(throws: VaultError.self) { try openVault(path, passphrase: "wrong") }
        #expect(error.code == .authFailed)
        #expect(error.description.contains("wrong passphrase or not a Rampart vault"))
        #expect(throws: VaultError.authFailed()) {
            try FileVault.open(at: path, credential: .key(SymmetricKey(randomByteCount: 32)))
        }
        #expect(fileBytes(path) == before)
        #expect(leftovers(path).isEmpty)
        #expect(
            try await Vault(backend: openVault(path, passphrase: "right")).secret(service: "s", account: "a") == [
                1, 2, 3,
            ])
    }

    @Test("a file that is not a vault is authFailed and is not modified")
    func notAVault() throws {
        let directory = try TemporaryDirectory()
        let junk = directory.path("junk")
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: junk))
        let junkBefore = fileBytes(junk)
        #expect(throws: VaultError.authFailed()) { try openVault(junk, passphrase: "pw") }
        #expect(fileBytes(junk) == junkBefore)
        #expect(leftovers(junk).isEmpty)

        let other = directory.path("other.sqlite")
        try SQLiteConnection(path: other, options: .init(journalMode: .unchanged))
            .execute(unsafeScript: "CREATE TABLE notes (body TEXT)")
        let otherBefore = fileBytes(other)
        #expect(throws: VaultError.authFailed()) { try openVault(other, passphrase: "pw") }
        #expect(fileBytes(other) == otherBefore)
        #expect(leftovers(other).isEmpty)
        let journal = try inspect(other).query("PRAGMA journal_mode").first?.text(0)
        #expect(journal == "delete", "the vault did not switch another database to WAL")
    }

    @Test("a missing vault is itemNotFound when creation is off, and nothing is created")
    func missing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("absent.db")
        #expect(throws: VaultError.itemNotFound()) { try openVault(path, passphrase: "pw", create: false) }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(leftovers(path).isEmpty)
    }

    @Test("the vault file and its WAL and shared-memory files have mode 0600")
    func fileMode() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let vault = Vault(backend: try openVault(path, passphrase: "pw"))
        try await vault.setSecret([1], service: "s", account: "a")
        for file in [path, path + "-wal", path + "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            let mode = try #require(attributes[.posixPermissions] as? NSNumber).intValue
            #expect(mode == 0o600, "\(file): \(String(mode, radix: 8))")
        }
    }

    @Test("key rotation re-wraps (and optionally re-encrypts) without losing items; the old passphrase stops working")
    func rotation() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let backend = try openVault(path, passphrase: "old")
        let vault = Vault(backend: backend)
        for index in 0..<10 {
            try await vault.setSecret([UInt8(index)], service: "s", account: "a\(index)")
        }
        let other = try openVault(path, passphrase: "old")
        #expect(try backend.rotateKey(to: .passphrase("new"), kdf: cheapKDF) == 10)
        await #expect(throws: VaultError.authFailed()) {
            try await Vault(backend: other).read(ItemQuery(itemClass: .genericPassword))
        }
        #expect(throws: VaultError.authFailed()) { try openVault(path, passphrase: "old") }
        #expect(try await vault.read(ItemQuery(itemClass: .genericPassword)).count == 10)

        let sealedBefore = try inspect(path).query("SELECT sealed FROM items ORDER BY id")
        let keyFile = directory.path("vault.key")
        try Data(SecureRandom.bytes(count: 32)).write(to: URL(fileURLWithPath: keyFile))
        #expect(try backend.rotateKey(to: .keyFile(at: keyFile), reencryptItems: true) == 10)
        let sealedAfter = try inspect(path).query("SELECT sealed FROM items ORDER BY id")
        #expect(sealedBefore != sealedAfter)
        let reopened = Vault(backend: try FileVault.open(at: path, credential: .keyFile(at: keyFile)))
        for index in 0..<10 {
            #expect(try await reopened.secret(service: "s", account: "a\(index)") == [UInt8(index)])
        }
        #expect(throws: VaultError.authFailed()) { try openVault(path, passphrase: "new") }
    }

    @Test("a vault created with the real OWASP Argon2id parameters opens again")
    func owaspDefaults() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        try await Vault(backend: FileVault.open(at: path, credential: .passphrase("pw")))
            .setSecret([42], service: "s", account: "a")
        let reopened = Vault(backend: try FileVault.open(at: path, credential: .passphrase("pw"), create: false))
        #expect(try await reopened.secret(service: "s", account: "a") == [42])
        let row = try inspect(path).query("SELECT kdf, memory_kib, iterations, parallelism FROM rampart_vault").first
        #expect(row?.values == [.text("argon2id"), .integer(19456), .integer(2), .integer(1)])
    }

    @Test("key files: 32 raw bytes or 64 hex digits; anything else is invalidParameters")
    func keyFiles() throws {
        let directory = try TemporaryDirectory()
        let raw = directory.path("raw.key")
        let hex = directory.path("hex.key")
        let bad = directory.path("bad.key")
        let key = SecureRandom.bytes(count: 32)
        try Data(key).write(to: URL(fileURLWithPath: raw))
        try Data((key.map { String(format: "%02x", $0) }.joined() + "\n").utf8).write(to: URL(fileURLWithPath: hex))
        try Data("too short".utf8).write(to: URL(fileURLWithPath: bad))
        let path = directory.path("vault.db")
        _ = try FileVault.open(at: path, credential: .keyFile(at: raw))
        _ = try FileVault.open(at: path, credential: .keyFile(at: hex))
        #expect(throws: VaultError.invalidParameters()) { try VaultCredential.keyFile(at: bad) }
        #expect(throws: VaultError.invalidParameters()) { try VaultCredential.keyFile(at: directory.path("none")) }
        #expect(throws: VaultError.invalidParameters()) { try VaultCredential.passphrase("") }
        #expect(throws: VaultError.invalidParameters()) {
            try VaultCredential.key(SymmetricKey(randomByteCount: 16))
        }
    }
}

struct Argon2idTests {
    @Test("libargon2's reference vectors (argon2id, v=19, password/somesalt)")
    func vectors() throws {
        let cheap = try Argon2id.deriveKey(
            password: Array("password".utf8), salt: Array("somesalt".utf8),
            parameters: Argon2Parameters(memoryKiB: 256, iterations: 2, parallelism: 1))
        #expect(
            cheap.withUnsafeBytes { Hex.encode(Array($0)) }
                == "9dfeb910e80bad0311fee20f9c0e2b12c17987b4cac90c2ef54d5b3021c68bfe")
        let reference = try Argon2id.deriveKey(
            password: Array("password".utf8), salt: Array("somesalt".utf8),
            parameters: Argon2Parameters(memoryKiB: 65536, iterations: 2, parallelism: 1))
        #expect(
            reference.withUnsafeBytes { Hex.encode(Array($0)) }
                == "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")
    }

    @Test("parameters outside the limits and short salts are CryptoError.invalidParameter")
    func limits() {
        let salt = [UInt8](repeating: 1, count: 16)
        for parameters in [
            Argon2Parameters(memoryKiB: 4, iterations: 1, parallelism: 1),
            Argon2Parameters(memoryKiB: 64, iterations: 0, parallelism: 1),
            Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 0),
            Argon2Parameters(memoryKiB: Argon2Parameters.maxMemoryKiB + 1, iterations: 1, parallelism: 1),
            Argon2Parameters(memoryKiB: 64, iterations: 65, parallelism: 1),
        ] {
            #expect(throws: CryptoError.invalidParameter("")) {
                try Argon2id.deriveKey(password: [1], salt: salt, parameters: parameters)
            }
        }
        #expect(throws: CryptoError.invalidParameter("")) {
            try Argon2id.deriveKey(password: [1], salt: [1, 2, 3], parameters: cheapKDF)
        }
    }
}
