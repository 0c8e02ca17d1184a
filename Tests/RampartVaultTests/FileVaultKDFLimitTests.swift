import Foundation
import RampartCrypto
import RampartSQLite
import TestSupport
import Testing

@testable import RampartVault

/// Issue 32 item 5: a vault header is read before anything in it can be verified, so the Argon2id work it may ask
/// for is bounded (FileVault.KDFLimits) and anything above is refused before deriving.
struct FileVaultKDFLimitTests {
    /// A vault made with cheap costs whose header row is then edited to ask for `memoryKiB` and `iterations`.
    static func forgedVault(memoryKiB: Int64, iterations: Int64) throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        _ = try openVault(path, passphrase: "pw")
        try inspect(path).run(
            "UPDATE rampart_vault SET memory_kib = \(memoryKiB), iterations = \(iterations) WHERE id = 1")
        return (directory, path)
    }

    @Test(
        "a header asking for more memory or work than the limits is invalidParameters, before any derivation",
        arguments: [(Int64(300 * 1024), Int64(1)), (Int64(64 * 1024), Int64(20)), (Int64(4 * 1024 * 1024), Int64(64))])
    func forgedHeader(memoryKiB: Int64, iterations: Int64) throws {
        let (directory, path) = try Self.forgedVault(memoryKiB: memoryKiB, iterations: iterations)
        defer { _ = directory }
        let error = #expect(throws: VaultError.self) { try openVault(path, passphrase: "pw", create: false) }
        #expect(error?.code == .invalidParameters)
        #expect(error?.reason.contains("asks Argon2id for m=\(memoryKiB) KiB, t=\(iterations)") == true)
        #expect(error?.reason.contains("FileVault.KDFLimits") == true)
    }

    @Test("a caller's lower limits refuse a vault made with the default OWASP costs (19 MiB, t = 2)")
    func lowerLimits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        _ = try FileVault.open(at: path, credential: .passphrase("pw"))
        let lower = FileVault.KDFLimits(maximumMemoryKiB: 8 * 1024, maximumWorkKiB: 16 * 1024)
        let error = #expect(throws: VaultError.self) {
            try FileVault.open(at: path, credential: .passphrase("pw"), create: false, kdfLimits: lower)
        }
        #expect(error?.code == .invalidParameters)
        #expect(try FileVault.open(at: path, credential: .passphrase("pw"), create: false).count() == 0)
    }

    @Test("creating a vault or rotating to a passphrase with costs above the limits is refused, changing nothing")
    func creationAboveLimits() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let heavy = Argon2Parameters(memoryKiB: 300 * 1024, iterations: 1, parallelism: 1)
        let created = #expect(throws: VaultError.self) {
            try FileVault.open(at: path, credential: .passphrase("pw"), kdf: heavy)
        }
        #expect(created?.code == .invalidParameters)
        #expect(!FileManager.default.fileExists(atPath: path))
        let vault = try openVault(path, passphrase: "pw")
        let rotated = #expect(throws: VaultError.self) { try vault.rotateKey(to: .passphrase("new"), kdf: heavy) }
        #expect(rotated?.code == .invalidParameters)
        _ = try openVault(path, passphrase: "pw", create: false)
    }
}
