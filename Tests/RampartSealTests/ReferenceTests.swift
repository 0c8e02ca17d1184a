import Foundation
import RampartCrypto
import RampartSeal
import TestSupport
import Testing

/// Checks the Swift implementation against scripts/seal_reference.py, a second implementation written from
/// docs/seal-format.md with pyca/cryptography. Skipped, saying so, when python3 or cryptography is missing.
struct ReferenceTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../scripts/seal_reference.py").standardizedFileURL.path

    static let available: Bool = {
        (try? python(["-c", "import cryptography"], input: []).status) == 0
    }()

    static func python(_ arguments: [String], input: [UInt8]) throws -> (status: Int32, output: [UInt8]) {
        let result = try SpawnedProcess.run("/usr/bin/env", ["python3"] + arguments, input: input)
        return (result.termination.status, result.stdout)
    }

    @Test(
        "streams sealed here open in the reference implementation and the reverse",
        .enabled(if: available, "python3 with pyca/cryptography is not installed"),
        arguments: SealAlgorithm.allCases)
    func interoperates(algorithm: SealAlgorithm) throws {
        let kekBytes = SecureRandom.bytes(count: 32)
        let key = SealKey.key(SymmetricKey(bytes: kekBytes), id: "ref/v1")
        let id = algorithm == .aes256GCM ? "1" : "2"
        for size in [0, 256, 1000] {
            let plaintext = SecureRandom.bytes(count: size)
            let sealed = try SealedStream.seal(
                plaintext, key: key, options: SealOptions(algorithm: algorithm, segmentSize: 256))
            let opened = try Self.python([Self.script, "open", Hex.encode(kekBytes), "ref/v1"], input: sealed)
            #expect(opened.status == 0, "size \(size)")
            #expect(opened.output == plaintext, "size \(size)")
            let theirs = try Self.python(
                [Self.script, "seal", Hex.encode(kekBytes), "ref/v1", "256", id], input: plaintext)
            #expect(theirs.status == 0, "size \(size)")
            #expect(try SealedStream.open(theirs.output, key: key) == plaintext, "size \(size)")
            if size > 0 {
                var altered = theirs.output
                altered[altered.count - 1] ^= 1
                #expect(throws: SealError.self) { try SealedStream.open(altered, key: key) }
            }
        }
    }
}
