import Foundation
import RampartCrypto
import RampartSeal
import Testing

/// Every way of altering a sealed stream is detected, with the code that names it.
struct TamperingTests {
    static let kek = SymmetricKey(randomByteCount: 32)
    static let key = SealKey.key(kek, id: "tamper/v1")
    static let segment = 256
    static let options = SealOptions(segmentSize: segment)

    /// A stream of `segments` full segments (plus a short one when `tail` > 0), and its header length.
    static func sealed(segments: Int, tail: Int = 0) throws -> (bytes: [UInt8], headerCount: Int) {
        let plaintext = SecureRandom.bytes(count: segments * segment + tail)
        let bytes = try SealedStream.seal(plaintext, key: key, options: options)
        return (bytes, try SealedStream.readHeaderCount(bytes))
    }

    /// Opens through the streaming loop and through the threaded file path (two-segment batches), which must
    /// agree: the same plaintext, or errors with the same code and segment.
    static func open(_ bytes: [UInt8]) throws -> [UInt8] {
        let streamed = Result { try SealedStream.open(bytes, key: key) }
        let threaded = Result { try ParallelSegmentsTests.open(bytes, key: key) }
        switch (streamed, threaded) {
        case (.success(let plaintext), .success(let other)):
            #expect(plaintext == other)
        case (.failure(let error), .failure(let other)):
            let (first, second) = (error as? SealError, other as? SealError)
            #expect(first?.code == second?.code, "stream: \(error); threaded: \(other)")
            #expect(first?.segmentIndex == second?.segmentIndex, "stream: \(error); threaded: \(other)")
        default:
            Issue.record("the stream and the threaded path disagree: \(streamed) vs \(threaded)")
        }
        return try streamed.get()
    }

    static func sealedSegmentRange(_ index: Int, headerCount: Int) -> Range<Int> {
        let start = headerCount + index * (segment + 16)
        return start..<(start + segment + 16)
    }

    @Test(
        "a flipped byte in a full segment is segmentTampered naming it; in a short final segment it reads as a cut there"
    )
    func flippedSegmentByte() throws {
        let (bytes, headerCount) = try Self.sealed(segments: 3, tail: 10)
        for index in 0..<4 {
            for offset in [0, 100, 255, 256 + 15] where index < 3 || offset < 26 {
                var altered = bytes
                altered[headerCount + index * (Self.segment + 16) + offset] ^= 0x80
                let error = try #require(throws: SealError.self) { try Self.open(altered) }
                // A short final segment that does not authenticate cannot be told from a file cut inside it (the
                // format holds no length); the cut is the likelier cause and the message names both.
                #expect(error.code == (index < 3 ? .segmentTampered : .truncated))
                #expect(error.segmentIndex == UInt64(index))
                #expect(error.description.contains("segment \(index)"))
                if index == 3 { #expect(error.description.contains("or its last segment was modified")) }
            }
        }
    }

    @Test("reordered segments are segmentTampered at the first moved one")
    func reordered() throws {
        let (bytes, headerCount) = try Self.sealed(segments: 3, tail: 10)
        var altered = bytes
        let first = Self.sealedSegmentRange(0, headerCount: headerCount)
        let second = Self.sealedSegmentRange(1, headerCount: headerCount)
        altered.replaceSubrange(first, with: bytes[second])
        altered.replaceSubrange(second, with: bytes[first])
        let error = try #require(throws: SealError.self) { try Self.open(altered) }
        #expect(error.code == .segmentTampered)
        #expect(error.segmentIndex == 0)
        var duplicated = bytes
        duplicated.replaceSubrange(second, with: bytes[first])
        #expect(throws: SealError.segmentTampered(index: 1)) { try Self.open(duplicated) }
    }

    @Test("cutting the stream at a segment boundary or inside a segment is truncated")
    func truncation() throws {
        let (bytes, headerCount) = try Self.sealed(segments: 3, tail: 10)
        let cut = Array(bytes[..<Self.sealedSegmentRange(2, headerCount: headerCount).upperBound])
        let error = try #require(throws: SealError.self) { try Self.open(cut) }
        #expect(error.code == .truncated)
        #expect(error.segmentIndex == 3)
        let aligned = try Self.sealed(segments: 3)
        let dropLast = Array(aligned.bytes.dropLast(Self.segment + 16))
        #expect(throws: SealError.truncated()) { try Self.open(dropLast) }
        let inside = try #require(throws: SealError.self) { try Self.open(Array(bytes.dropLast(1))) }
        #expect(inside.code == .truncated)
        #expect(inside.segmentIndex == 3)
        #expect(inside.reason.contains("ends inside segment 3"))
        // Cut inside a full, non-final segment: the piece left is shorter than a segment.
        let midSegment = Array(bytes[..<(Self.sealedSegmentRange(1, headerCount: headerCount).lowerBound + 40)])
        let cutInside = try #require(throws: SealError.self) { try Self.open(midSegment) }
        #expect(cutInside.code == .truncated)
        #expect(cutInside.segmentIndex == 1)
        #expect(throws: SealError.truncated()) { try Self.open(Array(bytes.dropLast(bytes.count - headerCount - 15))) }
        #expect(throws: SealError.truncated()) { try Self.open(Array(bytes.prefix(headerCount))) }
        #expect(throws: SealError.truncated()) { try Self.open(Array(bytes.prefix(headerCount - 1))) }
        #expect(throws: SealError.truncated()) { try Self.open(Array(bytes.prefix(5))) }
        #expect(throws: SealError.malformedHeader()) { try Self.open([1, 2, 3]) }
        #expect(throws: SealError.malformedHeader()) { try Self.open([]) }
    }

    @Test("bytes after the final segment are extended, whether it is full or short")
    func appended() throws {
        let aligned = try Self.sealed(segments: 2)
        for extra in [[UInt8](repeating: 0, count: 1), [UInt8](repeating: 7, count: Self.segment + 16)] {
            let error = try #require(throws: SealError.self) { try Self.open(aligned.bytes + extra) }
            #expect(error.code == .extended)
            #expect(error.segmentIndex == 2)
        }
        let short = try Self.sealed(segments: 2, tail: 5)
        for extra in [[UInt8](repeating: 0, count: 1), Array("junk\n".utf8), [UInt8](repeating: 9, count: 300)] {
            let error = try #require(throws: SealError.self) { try Self.open(short.bytes + extra) }
            #expect(error.code == .extended, "\(extra.count) bytes")
            #expect(error.segmentIndex == 3)
        }
    }

    @Test("a segment swapped in from another file sealed with the same key is segmentTampered")
    func swappedBetweenFiles() throws {
        let (first, headerCount) = try Self.sealed(segments: 3, tail: 1)
        let (second, secondHeaderCount) = try Self.sealed(segments: 3, tail: 1)
        #expect(headerCount == secondHeaderCount)
        var altered = first
        let range = Self.sealedSegmentRange(1, headerCount: headerCount)
        altered.replaceSubrange(range, with: second[range])
        #expect(throws: SealError.segmentTampered(index: 1)) { try Self.open(altered) }
        // The whole body of another file under this file's header fails at its first segment.
        let transplanted = Array(first.prefix(headerCount)) + Array(second.dropFirst(headerCount))
        #expect(throws: SealError.segmentTampered(index: 0)) { try Self.open(transplanted) }
    }

    @Test("edits to each header field are detected with the field's code")
    func headerFields() throws {
        let (bytes, _) = try Self.sealed(segments: 1, tail: 1)
        let cases: [(offset: Int, code: SealError.Code, field: String)] = [
            (0, .malformedHeader, "magic"),
            (8, .unsupportedVersion, "version"),
            (11, .malformedHeader, "header length"),
            (13, .headerTampered, "segment size"),
            (20, .headerTampered, "salt"),
            (50, .headerTampered, "nonce prefix"),
            (57, .unknownKeyID, "key id"),
            (70, .wrongKey, "wrapped key"),
            (bytes.count - 300, .headerTampered, "MAC"),
        ]
        let headerCount = try SealedStream.readHeaderCount(bytes)
        for entry in cases {
            var altered = bytes
            let offset = entry.field == "MAC" ? headerCount - 1 : entry.offset
            altered[offset] ^= 0x01
            let error = try #require(throws: SealError.self, "\(entry.field)") { try Self.open(altered) }
            #expect(error.code == entry.code, "\(entry.field): \(error)")
        }
        var algorithm = bytes
        algorithm[9] = 2
        #expect(throws: SealError.headerTampered()) { try Self.open(algorithm) }
        algorithm[9] = 3
        #expect(throws: SealError.unsupportedAlgorithm()) { try Self.open(algorithm) }
    }

    @Test("no single-bit flip anywhere in the header opens")
    func everyHeaderBit() throws {
        let (bytes, headerCount) = try Self.sealed(segments: 1, tail: 1)
        let allowed: Set<SealError.Code> = [
            .malformedHeader, .unsupportedVersion, .unsupportedAlgorithm, .headerTampered, .wrongKey, .unknownKeyID,
            .truncated, .limitExceeded,
        ]
        for offset in 0..<headerCount {
            for bit in 0..<8 {
                var altered = bytes
                altered[offset] ^= UInt8(1 << bit)
                let error = try #require(throws: SealError.self) { try Self.open(altered) }
                #expect(allowed.contains(error.code), "offset \(offset) bit \(bit): \(error)")
            }
        }
    }

    @Test("passphrase headers: edited KDF costs are wrongKey or limitExceeded, edited salt is wrongKey")
    func passphraseHeader() throws {
        let key = SealKey.passphrase("pw", kdf: cheapKDF)
        let bytes = try SealedStream.seal([1, 2, 3], key: key)
        // Stanza starts at 55: source(1) kdf(1) m(4) t(4) p(4) salt(16).
        var memory = bytes
        memory[60] ^= 0x01
        #expect(throws: SealError.wrongKey()) { try SealedStream.open(memory, key: key) }
        var huge = bytes
        huge[57] = 0xFF
        #expect(throws: SealError.limitExceeded()) { try SealedStream.open(huge, key: key) }
        var salt = bytes
        salt[70] ^= 0x01
        #expect(throws: SealError.wrongKey()) { try SealedStream.open(salt, key: key) }
        var lanes = bytes  // Found by FuzzSealHeader: p = 2³²−1 overflowed 8·p.
        lanes.replaceSubrange(65..<69, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: SealError.malformedHeader()) { try SealedStream.open(lanes, key: key) }
        var kdf = bytes
        kdf[56] = 9
        #expect(throws: SealError.unsupportedAlgorithm()) { try SealedStream.open(kdf, key: key) }
    }

    @Test("a failed open through SealedFile leaves nothing at the destination and no temporary file")
    func noPartialPlaintext() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (bytes, headerCount) = try Self.sealed(segments: 5, tail: 3)
        var altered = bytes
        altered[Self.sealedSegmentRange(4, headerCount: headerCount).lowerBound] ^= 1
        let input = directory.appendingPathComponent("in.sealed")
        try Data(altered).write(to: input)
        let output = directory.appendingPathComponent("out.bin")
        let error = try #require(throws: SealError.self) { try SealedFile.open(input, to: output, key: Self.key) }
        #expect(error.code == .segmentTampered)
        #expect(error.segmentIndex == 4)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["in.sealed"])
        // An existing destination is left as it was.
        try Data("keep".utf8).write(to: output)
        #expect(throws: SealError.segmentTampered(index: 4)) { try SealedFile.open(input, to: output, key: Self.key) }
        #expect(try Data(contentsOf: output) == Data("keep".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2)
    }
}
