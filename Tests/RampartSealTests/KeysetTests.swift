import Foundation
import RampartCrypto
import RampartSeal
import RampartVault
import Testing

struct KeysetTests {
    @Test("rotation adds and promotes a key; files sealed before still open")
    func rotation() throws {
        var keyset = try Keyset(name: "backups")
        #expect(keyset.primaryID == "backups/v1")
        let before = try SealedStream.seal([1, 2, 3], key: .keyset(keyset))
        #expect(try keyset.rotate() == "backups/v2")
        #expect(keyset.keyIDs == ["backups/v1", "backups/v2"])
        let after = try SealedStream.seal([4, 5], key: .keyset(keyset))
        #expect(try SealedStream.readHeaderCount(after) > 0)
        var source = MemorySource(after)
        #expect(try SealedStream.readHeader(from: &source).keyID == "backups/v2")
        #expect(try SealedStream.open(before, key: .keyset(keyset)) == [1, 2, 3])
        #expect(try SealedStream.open(after, key: .keyset(keyset)) == [4, 5])
        let staged = try keyset.addKey()
        #expect(keyset.primaryID == "backups/v2")
        try keyset.promote(id: staged)
        #expect(keyset.primaryID == "backups/v3")
        try keyset.removeKey(id: "backups/v1")
        let error = try #require(throws: SealError.self) { try SealedStream.open(before, key: .keyset(keyset)) }
        #expect(error.code == .unknownKeyID)
        #expect(throws: SealError.invalidParameter()) { try keyset.removeKey(id: "backups/v3") }
        #expect(throws: SealError.unknownKeyID()) { try keyset.removeKey(id: "backups/v9") }
        #expect(throws: SealError.unknownKeyID()) { try keyset.promote(id: "other/v1") }
    }

    @Test("re-wrapping moves a file to the new primary without changing a body byte")
    func rewrap() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var keyset = try Keyset(name: "archive")
        let file = directory.appendingPathComponent("data.sealed")
        let plaintext = SecureRandom.bytes(count: 200_000)
        try Data(SealedStream.seal(plaintext, key: .keyset(keyset))).write(to: file)
        let original = Array(try Data(contentsOf: file))
        let originalHeaderCount = try SealedStream.readHeaderCount(original)
        try keyset.rotate()
        let header = try SealedFile.rewrap(at: file, using: keyset)
        #expect(header.keyID == "archive/v2")
        let rewrapped = Array(try Data(contentsOf: file))
        #expect(rewrapped.dropFirst(header.bytes.count) == original.dropFirst(originalHeaderCount))
        try keyset.removeKey(id: "archive/v1")
        #expect(try SealedStream.open(rewrapped, key: .keyset(keyset)) == plaintext)
        // Already on the primary: untouched.
        #expect(try SealedFile.rewrap(at: file, using: keyset).bytes == header.bytes)
        // A passphrase change is a re-wrap too.
        try SealedFile.rewrap(at: file, oldKey: .keyset(keyset), newKey: .passphrase("new pass", kdf: cheapKDF))
        #expect(try SealedStream.open(Array(Data(contentsOf: file)), key: .passphrase("new pass")) == plaintext)
        #expect(throws: SealError.wrongKey()) {
            try SealedFile.rewrap(at: file, oldKey: .passphrase("old"), newKey: .keyset(keyset))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["data.sealed"])
    }

    @Test("serialization round-trips; malformed keysets are rejected with their code")
    func serialization() throws {
        var keyset = try Keyset(name: "k")
        try keyset.rotate()
        let bytes = keyset.serialized()
        let parsed = try Keyset(serialized: bytes)
        #expect(parsed.keyIDs == keyset.keyIDs)
        #expect(parsed.primaryID == keyset.primaryID)
        #expect(parsed.serialized() == bytes)
        #expect(throws: SealError.malformedKeyset()) { try Keyset(serialized: bytes + [0]) }
        #expect(throws: SealError.malformedKeyset()) { try Keyset(serialized: Array(bytes.dropLast())) }
        #expect(throws: SealError.malformedKeyset()) { try Keyset(serialized: []) }
        var wrongPrimary = bytes
        wrongPrimary[8 + 1 + 1 + 3] = 9  // primary version's low byte (magic 7, version 1, name length 1, name 1)
        #expect(throws: SealError.malformedKeyset()) { try Keyset(serialized: wrongPrimary) }
        var duplicate = bytes
        duplicate.replaceSubrange((duplicate.count - 36)..<(duplicate.count - 32), with: [0, 0, 0, 1])
        #expect(throws: SealError.malformedKeyset()) { try Keyset(serialized: duplicate) }
        var many = Array(bytes.prefix(14))
        many += [0xFF, 0xFF]
        #expect(throws: SealError.limitExceeded()) { try Keyset(serialized: many) }
        #expect(throws: SealError.invalidParameter()) { try Keyset(name: "a/b") }
        #expect(throws: SealError.invalidParameter()) { try Keyset(name: "") }
        #expect(throws: SealError.invalidParameter()) { try Keyset(name: "spaces are not allowed") }
    }

    @Test("a KeysetStore keeps keysets in a vault: create, load, rotate, and refuse a missing name")
    func store() async throws {
        let store = KeysetStore(Vault(backend: InMemoryBackend()))
        await #expect(throws: SealError.keyStoreFailure()) { try await store.keyset(named: "files") }
        let created = try await store.keyset(named: "files", createIfMissing: true)
        let sealed = try SealedStream.seal([9], key: .keyset(created))
        let rotated = try await store.rotate("files")
        #expect(rotated.primaryID == "files/v2")
        let loaded = try await store.keyset(named: "files")
        #expect(loaded.keyIDs == ["files/v1", "files/v2"])
        #expect(try SealedStream.open(sealed, key: .keyset(loaded)) == [9])
        try await store.store.setSecret([1, 2, 3], service: KeysetStore.service, account: "junk")
        await #expect(throws: SealError.malformedKeyset()) { try await store.keyset(named: "junk") }
    }
}

struct KeysetLimitTests {
    @Test("a keyset whose newest version is 2³²−1 refuses to add a key instead of overflowing")
    func versionOverflow() throws {
        var bytes =
            Array("RKEYSET".utf8) + [1, 1, UInt8(ascii: "k"), 0xFF, 0xFF, 0xFF, 0xFF, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]
        bytes += [UInt8](repeating: 3, count: 32)
        var keyset = try Keyset(serialized: bytes)
        #expect(keyset.primaryID == "k/v4294967295")
        #expect(throws: SealError.limitExceeded()) { try keyset.addKey() }
    }
}
