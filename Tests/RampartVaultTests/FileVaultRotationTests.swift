import Foundation
import RampartCrypto
import RampartSQLite
import TestSupport
import Testing

@testable import RampartVault

/// Issue 32 item 2: rotating the vault key cuts the old credential off from the vault's future. An attacker who saved
/// the header row before the rotation and knows the old passphrase puts it back (as in a copy of the file) and tries
/// to read an item added after the rotation.
struct FileVaultRotationTests {
    /// Adds `before`, saves the header row, rotates to "new" (by default, or keeping the vault key), adds `after`,
    /// puts the saved header back, and reads `after` with the old passphrase.
    static func replayOldHeader(keepingVaultKey: Bool) async throws -> [UInt8] {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let backend = try openVault(path, passphrase: "old")
        let vault = Vault(backend: backend)
        try await vault.setSecret(Array("before".utf8), service: "s", account: "before")
        let saved = try #require(
            try inspect(path).query(
                "SELECT kdf, salt, memory_kib, iterations, parallelism, wrapped_key, generation FROM rampart_vault"
            ).first?.values)
        try #require(saved.count == 7)
        if keepingVaultKey {
            try backend.rotateKey(to: .passphrase("new"), kdf: cheapKDF, reencryptItems: false)
        } else {
            try backend.rotateKey(to: .passphrase("new"), kdf: cheapKDF)
        }
        try await vault.setSecret(Array("after".utf8), service: "s", account: "after")
        try inspect(path).run(
            """
            UPDATE rampart_vault SET kdf = \(saved[0]), salt = \(saved[1]), memory_kib = \(saved[2]),
                iterations = \(saved[3]), parallelism = \(saved[4]), wrapped_key = \(saved[5]), generation = \(saved[6])
            WHERE id = 1
            """)
        let attacker = Vault(backend: try openVault(path, passphrase: "old", create: false))
        return try #require(await attacker.secret(service: "s", account: "after"))
    }

    @Test("after rotate-key (re-encrypting, the default) the old header and passphrase do not decrypt a later item")
    func oldHeaderIsUseless() async throws {
        await #expect(throws: VaultError.integrityFailure()) {
            try await Self.replayOldHeader(keepingVaultKey: false)
        }
    }

    @Test("rotateKey re-encrypts by default: every sealed value changes and the vault still reads")
    func reencryptsByDefault() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let backend = try openVault(path, passphrase: "old")
        let vault = Vault(backend: backend)
        for index in 0..<3 { try await vault.setSecret([UInt8(index)], service: "s", account: "a\(index)") }
        let before = try inspect(path).query("SELECT sealed FROM items ORDER BY id").map { $0.blob(0) }
        #expect(try backend.rotateKey(to: .passphrase("new"), kdf: cheapKDF) == 3)
        let after = try inspect(path).query("SELECT sealed FROM items ORDER BY id").map { $0.blob(0) }
        #expect(zip(before, after).allSatisfy { $0 != $1 })
        for index in 0..<3 { #expect(try await vault.secret(service: "s", account: "a\(index)") == [UInt8(index)]) }
    }

    @Test("the documented limit of reencryptItems: false: the old header and passphrase still decrypt a later item")
    func keepingTheKeyIsDocumentedWeaker() async throws {
        #expect(try await Self.replayOldHeader(keepingVaultKey: true) == Array("after".utf8))
    }
}
