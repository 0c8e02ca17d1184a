import Foundation
import RampartCrypto
import RampartSQLite
import TestSupport
import Testing

@testable import RampartVault

/// Issue 32 item 3: what is deleted, replaced or rotated away is gone from the vault's files, even while another
/// connection has the vault open, and `backup(to:)` copies only the current state.
struct FileVaultErasureTests {
    /// The sealed value stored for `account`, as the file holds it.
    static func sealedValue(_ path: String, account: String) throws -> [UInt8] {
        try #require(try inspect(path).query("SELECT sealed FROM items WHERE account = \(account)").first?.blob(0))
    }

    @Test("a deleted or replaced value is in neither the file nor its log afterwards, with another connection open")
    func deletedIsGone() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let vault = Vault(backend: try openVault(path, passphrase: "pw"))
        for index in 0..<20 { try await vault.setSecret([UInt8(index)], service: "s", account: "keep\(index)") }
        try await vault.setSecret(Array("old token".utf8), service: "s", account: "replaced")
        try await vault.setSecret(Array("deleted token".utf8), service: "s", account: "deleted")
        let replaced = try Self.sealedValue(path, account: "replaced")
        let deleted = try Self.sealedValue(path, account: "deleted")
        let other = Vault(backend: try openVault(path, passphrase: "pw", create: false))
        #expect(try await other.secret(service: "s", account: "keep0") == [0])

        try await vault.setSecret(Array("new token".utf8), service: "s", account: "replaced")
        #expect(try await vault.deleteSecret(service: "s", account: "deleted"))
        for file in [path, path + "-wal"] {
            let bytes = fileBytes(file)
            let holdsReplaced = bytes.contains(subsequence: replaced)
            let holdsDeleted = bytes.contains(subsequence: deleted)
            #expect(!holdsReplaced, "\(file) still holds the replaced value")
            #expect(!holdsDeleted, "\(file) still holds the deleted value")
        }
        #expect(try await other.secret(service: "s", account: "replaced") == Array("new token".utf8))
    }

    @Test("a copy of the main file taken after rotate-key, another connection open, does not open with the old one")
    func rotatedCopy() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let backend = try openVault(path, passphrase: "old")
        let vault = Vault(backend: backend)
        try await vault.setSecret(Array("kept".utf8), service: "s", account: "kept")
        try await vault.setSecret(Array("deleted".utf8), service: "s", account: "deleted")
        let other = Vault(backend: try openVault(path, passphrase: "old", create: false))
        #expect(try await other.secret(service: "s", account: "kept") == Array("kept".utf8))
        #expect(try await vault.deleteSecret(service: "s", account: "deleted"))
        try backend.rotateKey(to: .passphrase("new"), kdf: cheapKDF)

        let copy = directory.path("copy.db")
        try FileManager.default.copyItem(atPath: path, toPath: copy)
        #expect(throws: VaultError.authFailed()) { try openVault(copy, passphrase: "old", create: false) }
        let opened = Vault(backend: try openVault(copy, passphrase: "new", create: false))
        #expect(try await opened.secret(service: "s", account: "kept") == Array("kept".utf8))
        #expect(try await opened.secret(service: "s", account: "deleted") == nil)
    }

    @Test("backup writes a new 0600 file that opens with the same credential and holds nothing deleted")
    func backup() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("vault.db")
        let backend = try openVault(path, passphrase: "pw")
        let vault = Vault(backend: backend)
        try await vault.setSecret(Array("kept".utf8), service: "s", account: "kept")
        try await vault.setSecret(Array("deleted".utf8), service: "s", account: "deleted")
        let deleted = try Self.sealedValue(path, account: "deleted")
        #expect(try await vault.deleteSecret(service: "s", account: "deleted"))

        let copy = directory.path("backup.db")
        try backend.backup(to: copy)
        let attributes = try FileManager.default.attributesOfItem(atPath: copy)
        #expect(try #require(attributes[.posixPermissions] as? NSNumber).intValue == 0o600)
        let copyHoldsDeleted = fileBytes(copy).contains(subsequence: deleted)
        #expect(!copyHoldsDeleted)
        let restored = Vault(backend: try openVault(copy, passphrase: "pw", create: false))
        #expect(try await restored.secret(service: "s", account: "kept") == Array("kept".utf8))
        #expect(try await restored.secret(service: "s", account: "deleted") == nil)

        let exists = #expect(throws: VaultError.self) { try backend.backup(to: copy) }
        #expect(exists?.code == .duplicateItem)
        #expect(try await restored.secret(service: "s", account: "kept") == Array("kept".utf8))
        try openVault(path, passphrase: "pw", create: false).rotateKey(to: .passphrase("new"), kdf: cheapKDF)
        let stale = directory.path("stale.db")
        #expect(throws: VaultError.authFailed()) { try backend.backup(to: stale) }
        #expect(!FileManager.default.fileExists(atPath: stale))
    }
}
