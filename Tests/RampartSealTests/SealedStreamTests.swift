import Foundation
import RampartCrypto
import RampartSeal
import RampartVault
import Testing

/// A cheap passphrase KDF for tests (the real defaults are exercised once, in PasswordKDFTests).
let cheapKDF = PasswordKDF.unsafeArgon2id(Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1))

struct SealedStreamTests {
    static let kek = SymmetricKey(randomByteCount: 32)
    static let key = SealKey.key(kek, id: "tests/v1")
    static let segment = SealHeader.defaultSegmentSize

    @Test(
        "round trips for sizes 0, 1, segment−1, segment, segment+1, 2·segment and 2·segment+1",
        arguments: SealAlgorithm.allCases)
    func roundTrips(algorithm: SealAlgorithm) throws {
        let segment = Self.segment
        for size in [0, 1, segment - 1, segment, segment + 1, 2 * segment, 2 * segment + 1] {
            let plaintext = SecureRandom.bytes(count: size)
            let sealed = try SealedStream.seal(plaintext, key: Self.key, options: SealOptions(algorithm: algorithm))
            let segments = max(1, (size + segment - 1) / segment)
            let headerCount = try SealedStream.readHeaderCount(sealed)
            #expect(sealed.count == headerCount + size + 16 * segments, "size \(size)")
            #expect(try SealedStream.open(sealed, key: Self.key) == plaintext, "size \(size)")
        }
    }

    @Test("a 100 MB file round-trips through SealedFile")
    func hundredMegabytes() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appendingPathComponent("plain.bin")
        var bytes = [UInt8](repeating: 0, count: 100_000_000)
        for index in stride(from: 0, to: bytes.count, by: 4096) {
            bytes[index] = UInt8(truncatingIfNeeded: index >> 12)
        }
        bytes.replaceSubrange(0..<64, with: SecureRandom.bytes(count: 64))
        try Data(bytes).write(to: plain)
        let sealed = directory.appendingPathComponent("plain.sealed")
        let opened = directory.appendingPathComponent("opened.bin")
        var lastProgress: UInt64 = 0
        try SealedFile.seal(plain, to: sealed, key: Self.key) { lastProgress = $0 }
        #expect(lastProgress == 100_000_000)
        try SealedFile.open(sealed, to: opened, key: Self.key)
        #expect(SHA256.hash(try Data(contentsOf: opened)) == SHA256.hash(bytes))
    }

    @Test("a passphrase seals and opens; the header records the KDF and its costs")
    func passphrase() throws {
        let sealed = try SealedStream.seal(Array("hello".utf8), key: .passphrase("correct horse", kdf: cheapKDF))
        var source = MemorySource(sealed)
        let header = try SealedStream.readHeader(from: &source)
        #expect(header.passwordKDF == cheapKDF)
        #expect(header.keyID == nil)
        #expect(try SealedStream.open(sealed, key: .passphrase("correct horse")) == Array("hello".utf8))
        #expect(throws: SealError.wrongKey()) { try SealedStream.open(sealed, key: .passphrase("battery staple")) }
        #expect(throws: SealError.wrongKeyKind("")) { try SealedStream.open(sealed, key: Self.key) }
    }

    @Test("sealing refuses a KDF below OWASP's floor unless made with unsafeArgon2id, and an empty passphrase")
    func weakKDF() throws {
        let weak = PasswordKDF.argon2id(Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1))
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: .passphrase("pw", kdf: weak))
        }
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: .passphrase("", kdf: cheapKDF))
        }
    }

    @Test("a wrong key is wrongKey; another key id is unknownKeyID")
    func wrongKey() throws {
        let sealed = try SealedStream.seal([1, 2, 3], key: Self.key)
        #expect(throws: SealError.wrongKey()) {
            try SealedStream.open(sealed, key: .key(SymmetricKey(randomByteCount: 32), id: "tests/v1"))
        }
        #expect(throws: SealError.unknownKeyID()) { try SealedStream.open(sealed, key: .key(Self.kek, id: "other")) }
        // The wrong kind of key is not a verdict on the data, and says which key the file needs.
        let kind = try #require(throws: SealError.self) { try SealedStream.open(sealed, key: .passphrase("x")) }
        #expect(kind.code == .wrongKeyKind)
        #expect(!kind.isIntegrityFailure)
        #expect(kind.reason.contains("sealed with key 'tests/v1', not a passphrase"))
    }

    @Test("bad options are invalidParameter")
    func badOptions() throws {
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: Self.key, options: SealOptions(segmentSize: 255))
        }
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: Self.key, options: SealOptions(segmentSize: (4 << 20) + 1))
        }
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: .key(Self.kek, id: "bad id"))
        }
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: .key(SymmetricKey(randomByteCount: 16), id: "short"))
        }
        let big = try SealedStream.seal(
            SecureRandom.bytes(count: 10), key: Self.key, options: SealOptions(segmentSize: 4 << 20))
        #expect(try SealedStream.open(big, key: Self.key).count == 10)
    }
}

extension SealedStream {
    /// The header length of a sealed stream held in memory.
    static func readHeaderCount(_ sealed: [UInt8]) throws -> Int {
        var source = MemorySource(sealed)
        return try readHeader(from: &source).bytes.count
    }
}

/// A fresh empty directory under the system's temporary directory.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-seal-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

struct PasswordKDFTests {
    @Test("the real defaults: Argon2id at OWASP's 19 MiB, t=2, p=1 seals and opens")
    func argon2idDefaults() throws {
        #expect(PasswordKDF.argon2id.description == "Argon2id m=19456,t=2,p=1")
        let sealed = try SealedStream.seal(Array("secret".utf8), key: .passphrase("pass phrase"))
        #expect(try SealedStream.open(sealed, key: .passphrase("pass phrase")) == Array("secret".utf8))
    }

    @Test("scrypt and PBKDF2 passphrases round-trip and record their costs in the header")
    func otherKDFs() throws {
        for kdf in [
            PasswordKDF.unsafeScrypt(Scrypt.Parameters(cost: 1 << 4, blockSize: 8, parallelism: 1)),
            PasswordKDF.unsafePBKDF2SHA256(iterations: 1_000),
        ] {
            let sealed = try SealedStream.seal([1, 2, 3], key: .passphrase("pw", kdf: kdf))
            var source = MemorySource(sealed)
            #expect(try SealedStream.readHeader(from: &source).passwordKDF == kdf)
            #expect(try SealedStream.open(sealed, key: .passphrase("pw")) == [1, 2, 3])
            #expect(throws: SealError.wrongKey()) { try SealedStream.open(sealed, key: .passphrase("pW")) }
        }
    }

    @Test("OWASP floors: scrypt N=2^17 r=8 p=1 and PBKDF2 600,000 pass, weaker costs are refused when sealing")
    func floors() throws {
        #expect(PasswordKDF.scrypt.meetsOWASPMinimum)
        #expect(PasswordKDF.pbkdf2SHA256.meetsOWASPMinimum)
        #expect(PasswordKDF.argon2id.meetsOWASPMinimum)
        #expect(!PasswordKDF.pbkdf2SHA256(iterations: 10_000).meetsOWASPMinimum)
        #expect(!PasswordKDF.scrypt(Scrypt.Parameters(cost: 1 << 14, blockSize: 8, parallelism: 1)).meetsOWASPMinimum)
        #expect(PasswordKDF.scrypt(Scrypt.Parameters(cost: 1 << 16, blockSize: 8, parallelism: 2)).meetsOWASPMinimum)
        #expect(
            PasswordKDF.argon2id(Argon2Parameters(memoryKiB: 12_288, iterations: 3, parallelism: 1)).meetsOWASPMinimum)
        #expect(
            !PasswordKDF.argon2id(Argon2Parameters(memoryKiB: 19_456, iterations: 1, parallelism: 1)).meetsOWASPMinimum)
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal([1], key: .passphrase("pw", kdf: .pbkdf2SHA256(iterations: 10_000)))
        }
        #expect(throws: SealError.invalidParameter()) {
            try SealedStream.seal(
                [1],
                key: .passphrase("pw", kdf: .unsafeScrypt(Scrypt.Parameters(cost: 1000, blockSize: 8, parallelism: 1))))
        }
    }

    @Test("header KDF costs above the limits are limitExceeded before any derivation")
    func headerLimits() throws {
        let scrypt = try SealedStream.seal(
            [1],
            key: .passphrase("pw", kdf: .unsafeScrypt(Scrypt.Parameters(cost: 1 << 4, blockSize: 8, parallelism: 1))))
        var huge = scrypt
        huge[57] = 30  // log2 N = 30 with r = 8: 128 GiB
        #expect(throws: SealError.limitExceeded()) { try SealedStream.open(huge, key: .passphrase("pw")) }
        var zero = scrypt
        zero[57] = 0
        #expect(throws: SealError.malformedHeader()) { try SealedStream.open(zero, key: .passphrase("pw")) }
        let pbkdf2 = try SealedStream.seal([1], key: .passphrase("pw", kdf: .unsafePBKDF2SHA256(iterations: 1)))
        var many = pbkdf2
        many[57] = 0xFF
        #expect(throws: SealError.limitExceeded()) { try SealedStream.open(many, key: .passphrase("pw")) }
    }
}

struct WriteBehindTests {
    @Test(
        "a write failure on the writer thread (a full disk) is ioFailure for seal and open",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/full"), "/dev/full is missing"))
    func fullDisk() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let key = SealKey.key(SymmetricKey(randomByteCount: 32), id: "full/v1")
        var sink = FileDescriptorSink(descriptor: descriptor)
        var source = MemorySource(SecureRandom.bytes(count: 1_000_000))
        #expect(throws: SealError.ioFailure()) { try SealedStream.seal(from: &source, to: &sink, key: key) }
        var sealed = MemorySource(try SealedStream.seal(SecureRandom.bytes(count: 1_000_000), key: key))
        #expect(throws: SealError.ioFailure()) { try SealedStream.open(from: &sealed, to: &sink, key: key) }
    }

    @Test("file descriptors (write-behind thread) and memory sinks produce streams that open alike")
    func sameOutput() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let key = SealKey.key(SymmetricKey(randomByteCount: 32), id: "same/v1")
        for size in [0, 1, 300, 256 * 9, 256 * 9 + 1] {
            let plaintext = SecureRandom.bytes(count: size)
            let file = directory.appendingPathComponent("s\(size)")
            var source = MemorySource(plaintext)
            try SealedFile.seal(from: &source, to: file, key: key, options: SealOptions(segmentSize: 256))
            let opened = directory.appendingPathComponent("o\(size)")
            try SealedFile.open(file, to: opened, key: key)
            #expect(Array(try Data(contentsOf: opened)) == plaintext)
            #expect(try SealedStream.open(Array(Data(contentsOf: file)), key: key) == plaintext)
        }
    }
}
