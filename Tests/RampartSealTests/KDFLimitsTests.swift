import Foundation
import RampartCrypto
import RampartSeal
import Testing

/// Issue 32 item 5: a sealed header's KDF costs are read before its MAC can be checked, so what they may cost is
/// bounded (KDFLimits) and anything above is refused with limitExceeded before deriving.
struct KDFLimitsTests {
    /// One forged header: a cheap file whose KDF stanza is rewritten to ask for more.
    struct Forgery: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let kdf: PasswordKDF
        /// Bytes written at offset 57 (just after the key source and KDF id).
        let costs: [UInt8]
        let named: String
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }

    static let forgeries: [Forgery] = [
        Forgery(
            testDescription: "Argon2id, 300 MiB",
            kdf: .unsafeArgon2id(.init(memoryKiB: 8, iterations: 1, parallelism: 1)),
            costs: bigEndian(300 * 1024) + bigEndian(1) + bigEndian(1), named: "Argon2id m=307200,t=1,p=1"),
        Forgery(
            testDescription: "Argon2id, 64 MiB × 20 passes",
            kdf: .unsafeArgon2id(.init(memoryKiB: 8, iterations: 1, parallelism: 1)),
            costs: bigEndian(64 * 1024) + bigEndian(20) + bigEndian(1), named: "Argon2id m=65536,t=20,p=1"),
        Forgery(
            testDescription: "Argon2id, the issue's 1 GiB, t = 64, p = 16",
            kdf: .unsafeArgon2id(.init(memoryKiB: 8, iterations: 1, parallelism: 1)),
            costs: bigEndian(1024 * 1024) + bigEndian(64) + bigEndian(16), named: "Argon2id m=1048576,t=64,p=16"),
        Forgery(
            testDescription: "scrypt N = 2^17, r = 8, p = 5 (128 MiB, 1.25 GiB of work)",
            kdf: .unsafeScrypt(.init(cost: 2, blockSize: 1, parallelism: 1)),
            costs: [17] + bigEndian(8) + bigEndian(5), named: "scrypt N=131072,r=8,p=5"),
        Forgery(
            testDescription: "PBKDF2, 3,000,000 iterations", kdf: .unsafePBKDF2SHA256(iterations: 1),
            costs: bigEndian(3_000_000), named: "PBKDF2-HMAC-SHA256 i=3000000"),
    ]

    @Test(
        "a forged header asking for more than KDFLimits.standard is limitExceeded before deriving", arguments: forgeries
    )
    func forgedHeader(_ forgery: Forgery) throws {
        var sealed = try SealedStream.seal([1, 2, 3], key: .passphrase("pw", kdf: forgery.kdf))
        sealed.replaceSubrange(57..<(57 + forgery.costs.count), with: forgery.costs)
        let error = #expect(throws: SealError.self) { try SealedStream.open(sealed, key: .passphrase("pw")) }
        #expect(error?.code == .limitExceeded)
        #expect(error?.reason.contains("the header asks for \(forgery.named)") == true, "\(error?.reason ?? "")")
        #expect(error?.reason.contains("higher KDFLimits") == true)
    }

    @Test("a caller's lower limits refuse a file sealed with the default Argon2id (19 MiB), and sealing with it")
    func lowerLimits() throws {
        let sealed = try SealedStream.seal([7], key: .passphrase("pw"))
        let lower = KDFLimits(
            maximumMemoryByteCount: 8 << 20, maximumWorkByteCount: 16 << 20, maximumPBKDF2Iterations: 100_000)
        let opening = #expect(throws: SealError.self) {
            try SealedStream.open(sealed, key: .passphrase("pw", limits: lower))
        }
        #expect(opening?.code == .limitExceeded)
        #expect(try SealedStream.open(sealed, key: .passphrase("pw")) == [7])
        let sealing = #expect(throws: SealError.self) {
            try SealedStream.seal([7], key: .passphrase("pw", limits: lower))
        }
        #expect(sealing?.code == .limitExceeded)
        #expect(sealing?.reason.contains("sealing asks for Argon2id m=19456,t=2,p=1") == true)
        let pbkdf2 = #expect(throws: SealError.self) {
            try SealedStream.seal([7], key: .passphrase("pw", kdf: .pbkdf2SHA256, limits: lower))
        }
        #expect(pbkdf2?.code == .limitExceeded)
    }

    @Test("every preset KDF fits the standard limits")
    func presetsFit() throws {
        // Sealing checks the limits before deriving; PBKDF2's preset is the cheapest to run through.
        for kdf in [PasswordKDF.argon2id, .scrypt, .pbkdf2SHA256] {
            let sealed = try SealedStream.seal([1], key: .passphrase("pw", kdf: kdf))
            #expect(try SealedStream.open(sealed, key: .passphrase("pw")) == [1], "\(kdf)")
        }
    }
}
