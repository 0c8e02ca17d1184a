import Foundation
import RampartCrypto
import RampartSeal
import Testing

/// Issue 32 item 2: re-wrapping keeps a file's data key, so an old header and the old key still open the re-wrapped
/// body; re-encrypting (SealedFile.stageReencrypt) draws a fresh data key, after which they open nothing.
struct ReencryptTests {
    /// The old file's header put in front of the new file's body: what an attacker who kept the old header holds.
    static func splice(header old: [UInt8], onto new: [UInt8]) throws -> [UInt8] {
        let oldCount = try SealedStream.readHeaderCount(old)
        let newCount = try SealedStream.readHeaderCount(new)
        return Array(old.prefix(oldCount)) + Array(new.dropFirst(newCount))
    }

    @Test("after re-encrypting, the old header and the old key open nothing of the new file; after a re-wrap they do")
    func oldHeaderAfterReencrypt() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var keyset = try Keyset(name: "files")
        let oldKeyset = keyset
        let plaintext = SecureRandom.bytes(count: 3 << 20)
        let file = directory.appendingPathComponent("data.sealed")
        let original = try SealedStream.seal(
            plaintext, key: .keyset(keyset), options: SealOptions(segmentSize: 64 << 10))
        try Data(original).write(to: file)
        try keyset.rotate()

        let staged = try SealedFile.stageReencrypt(at: file, oldKey: .keyset(keyset), newKey: .keyset(keyset))
        #expect(staged.header.keyID == "files/v2")
        #expect(staged.header.segmentSize == 64 << 10)
        try staged.commit()
        let reencrypted = Array(try Data(contentsOf: file))
        #expect(try SealedStream.open(reencrypted, key: .keyset(keyset)) == plaintext)
        let attempt = try Self.splice(header: original, onto: reencrypted)
        let error = #expect(throws: SealError.self) { try SealedStream.open(attempt, key: .keyset(oldKeyset)) }
        #expect(error?.code == .segmentTampered)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["data.sealed"])

        // The documented limit of a re-wrap: the body is unchanged, so the old header opens it with the old key.
        try Data(original).write(to: file)
        try SealedFile.rewrap(at: file, using: keyset)
        let rewrapped = Array(try Data(contentsOf: file))
        #expect(
            try SealedStream.open(Self.splice(header: original, onto: rewrapped), key: .keyset(oldKeyset)) == plaintext)
    }

    @Test("re-encrypting with a passphrase keeps the cipher and draws a new salt and data key")
    func passphrase() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("p.sealed")
        let key = SealKey.passphrase("pw", kdf: cheapKDF)
        let options = SealOptions(algorithm: .chaCha20Poly1305, segmentSize: 256)
        let original = try SealedStream.seal(Array("hello".utf8), key: key, options: options)
        try Data(original).write(to: file)
        try SealedFile.stageReencrypt(at: file, oldKey: key, newKey: key).commit()
        let reencrypted = Array(try Data(contentsOf: file))
        #expect(try SealedStream.open(reencrypted, key: key) == Array("hello".utf8))
        var source = MemorySource(reencrypted)
        let newHeader = try SealedStream.readHeader(from: &source)
        #expect(newHeader.algorithm == .chaCha20Poly1305)
        #expect(newHeader.segmentSize == 256)
        var originalSource = MemorySource(original)
        #expect(newHeader.salt != (try SealedStream.readHeader(from: &originalSource)).salt)
    }

    @Test("a tampered segment, a wrong key or a weak new KDF leave the file as it was and no temporary file")
    func refusals() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyset = try Keyset(name: "t")
        let file = directory.appendingPathComponent("t.sealed")
        var sealed = try SealedStream.seal(
            SecureRandom.bytes(count: 40_000), key: .keyset(keyset), options: SealOptions(segmentSize: 1024))
        sealed[sealed.count - 10_000] ^= 1
        try Data(sealed).write(to: file)
        let tampered = #expect(throws: SealError.self) {
            try SealedFile.stageReencrypt(at: file, oldKey: .keyset(keyset), newKey: .keyset(keyset))
        }
        #expect(tampered?.code == .segmentTampered)
        let other = try Keyset(name: "t")
        let wrong = #expect(throws: SealError.self) {
            try SealedFile.stageReencrypt(at: file, oldKey: .keyset(other), newKey: .keyset(other))
        }
        #expect(wrong?.code == .wrongKey)
        let weak = #expect(throws: SealError.self) {
            try SealedFile.stageReencrypt(
                at: file, oldKey: .keyset(keyset), newKey: .passphrase("pw", kdf: .pbkdf2SHA256(iterations: 1)))
        }
        #expect(weak?.code == .invalidParameter)
        #expect(try Data(contentsOf: file) == Data(sealed))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["t.sealed"])
    }
}
