import Foundation
import RampartCrypto
import RampartSeal
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The multi-threaded file path (``ParallelSegments``) writes what the streaming loop writes and reaches the same
/// verdicts. Small segments and batches of two segments put many batches on several threads even for small files.
struct ParallelSegmentsTests {
    static let key = SealKey.key(SymmetricKey(randomByteCount: 32), id: "parallel/v1")
    static let segment = 256
    static let batch = 2 * segment

    /// Seals `plaintext` through ``ParallelSegments`` with two-segment batches and returns the sealed bytes.
    static func seal(_ plaintext: [UInt8], progress: (UInt64) -> Void = { _ in }) throws -> [UInt8] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        let output = directory.appendingPathComponent("out")
        try Data(plaintext).write(to: input)
        try withDescriptors(input, output) { reader, writer in
            _ = try ParallelSegments.seal(
                input: reader, plaintextSize: UInt64(plaintext.count), output: writer, key: key,
                options: SealOptions(segmentSize: segment), batchByteCount: batch, progress: progress)
        }
        return Array(try Data(contentsOf: output))
    }

    /// Opens `sealed` through ``ParallelSegments`` with two-segment batches.
    static func open(_ sealed: [UInt8], batchByteCount: Int = batch, key: SealKey = key) throws -> [UInt8] {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        let output = directory.appendingPathComponent("out")
        try Data(sealed).write(to: input)
        try withDescriptors(input, output) { reader, writer in
            _ = try ParallelSegments.open(
                input: reader, sealedSize: UInt64(sealed.count), output: writer, key: key,
                batchByteCount: batchByteCount
            ) { _ in }
        }
        return Array(try Data(contentsOf: output))
    }

    static func withDescriptors(
        _ input: URL,
        _ output: URL,
        inputFlags: Int32 = O_RDONLY,
        outputFlags: Int32 = O_WRONLY | O_CREAT | O_TRUNC,
        _ body: (Int32, Int32) throws -> Void
    ) throws {
        let reader = Glibc.open(input.path, inputFlags)
        let writer = Glibc.open(output.path, outputFlags, 0o600)
        defer {
            close(reader)
            close(writer)
        }
        try #require(reader >= 0 && writer >= 0)
        try body(reader, writer)
    }

    @Test("sizes around segment and batch boundaries round-trip and match the streaming layout")
    func roundTrips() throws {
        let segment = Self.segment
        for size in [0, 1, segment - 1, segment, segment + 1, 2 * segment, 2 * segment + 1, 9 * segment + 1, 5_000] {
            let plaintext = SecureRandom.bytes(count: size)
            var lastProgress: UInt64 = 0
            let sealed = try Self.seal(plaintext) { lastProgress = $0 }
            #expect(lastProgress == UInt64(size))
            let segments = max(1, (size + segment - 1) / segment)
            let headerCount = try SealedStream.readHeaderCount(sealed)
            #expect(sealed.count == headerCount + size + 16 * segments, "size \(size)")
            #expect(try SealedStream.open(sealed, key: Self.key) == plaintext, "size \(size)")
            #expect(try Self.open(sealed) == plaintext, "size \(size)")
            let streamed = try SealedStream.seal(plaintext, key: Self.key, options: SealOptions(segmentSize: segment))
            #expect(try Self.open(streamed) == plaintext, "size \(size)")
        }
    }

    @Test("SealedFile takes the threaded path for large files; its output opens through the stream")
    func largeFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let size = Int(ParallelSegments.minimumFileSize) * 2 + 12_345
        let plaintext = SecureRandom.bytes(count: size)
        let plain = directory.appendingPathComponent("plain")
        let sealed = directory.appendingPathComponent("sealed")
        let opened = directory.appendingPathComponent("opened")
        try Data(plaintext).write(to: plain)
        for algorithm in SealAlgorithm.allCases {
            let options = SealOptions(algorithm: algorithm, segmentSize: 4096)
            var lastProgress: UInt64 = 0
            try SealedFile.seal(plain, to: sealed, key: Self.key, options: options) { lastProgress = $0 }
            #expect(lastProgress == UInt64(size))
            let bytes = Array(try Data(contentsOf: sealed))
            #expect(try SealedStream.open(bytes, key: Self.key) == plaintext)
            var openedProgress: UInt64 = 0
            try SealedFile.open(sealed, to: opened, key: Self.key) { openedProgress = $0 }
            #expect(openedProgress == UInt64(bytes.count))
            #expect(Array(try Data(contentsOf: opened)) == plaintext)
        }
    }

    @Test("when several batches fail, the lowest-numbered segment is reported, as the stream reports it")
    func lowestFailureWins() throws {
        let plaintext = SecureRandom.bytes(count: 64 * Self.segment)
        let sealed = try Self.seal(plaintext)
        let headerCount = try SealedStream.readHeaderCount(sealed)
        var altered = sealed
        for index in [41, 7, 60] { altered[headerCount + index * (Self.segment + 16) + 3] ^= 1 }
        for _ in 0..<20 {
            let error = try #require(throws: SealError.self) { try Self.open(altered) }
            #expect(error.code == .segmentTampered)
            #expect(error.segmentIndex == 7)
        }
        let streamed = try #require(throws: SealError.self) { try SealedStream.open(altered, key: Self.key) }
        #expect(streamed.segmentIndex == 7)
    }

    @Test("a wrong key is refused before any segment is written")
    func wrongKey() throws {
        let sealed = try Self.seal(SecureRandom.bytes(count: 3_000))
        let other = SealKey.key(SymmetricKey(randomByteCount: 32), id: "parallel/v1")
        #expect(throws: SealError.wrongKey()) { try Self.open(sealed, key: other) }
    }

    /// The error of sealing `input`, claimed to hold `claimed` bytes, into `output`, both opened with the flags.
    static func sealingError(
        _ input: URL,
        _ output: URL,
        claimed: UInt64,
        inputFlags: Int32 = O_RDONLY,
        outputFlags: Int32 = O_WRONLY | O_CREAT | O_TRUNC
    ) throws -> SealError {
        try #require(throws: SealError.self) {
            try withDescriptors(input, output, inputFlags: inputFlags, outputFlags: outputFlags) { reader, writer in
                _ = try ParallelSegments.seal(
                    input: reader, plaintextSize: claimed, output: writer, key: key,
                    options: SealOptions(segmentSize: segment), batchByteCount: batch
                ) { _ in }
            }
        }
    }

    @Test("an input whose size is not the one given is ioFailure: shorter, longer, and when opening")
    func changedInput() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        let output = directory.appendingPathComponent("out")
        try Data(SecureRandom.bytes(count: 4_000)).write(to: input)
        for claimed: UInt64 in [4_001, 8_000, 3_999, 100] {
            let error = try Self.sealingError(input, output, claimed: claimed)
            #expect(error.code == .ioFailure)
            #expect(error.description.contains("changed size while it was being sealed"))
        }
        let sealed = try Self.seal(SecureRandom.bytes(count: 4_000))
        try Data(sealed).write(to: input)
        for claimed in [sealed.count + 1, sealed.count - 1, sealed.count - Self.segment - 16] {
            let error = try #require(throws: SealError.self) {
                try Self.withDescriptors(input, output) { reader, writer in
                    _ = try ParallelSegments.open(
                        input: reader, sealedSize: UInt64(claimed), output: writer, key: Self.key,
                        batchByteCount: Self.batch
                    ) { _ in }
                }
            }
            #expect(error.code == .ioFailure)
            #expect(error.description.contains("changed size while it was being opened"))
        }
    }

    @Test("read and write failures are ioFailure naming the operation and the system's reason")
    func ioFailures() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in")
        let output = directory.appendingPathComponent("out")
        try Data(SecureRandom.bytes(count: 4_000)).write(to: input)
        try Data().write(to: output)
        // The header goes through write(2) and fails first on a descriptor open for reading only.
        let unwritable = try Self.sealingError(input, output, claimed: 4_000, outputFlags: O_RDONLY)
        #expect(unwritable.code == .ioFailure)
        #expect(unwritable.description.contains("writing failed"))
        let unreadable = try Self.sealingError(input, output, claimed: 4_000, inputFlags: O_WRONLY)
        #expect(unreadable.code == .ioFailure)
        #expect(unreadable.description.contains("reading failed: Bad file descriptor"))
        // A pipe takes the header's write(2) but refuses the segments' pwrite(2).
        let reader = Glibc.open(input.path, O_RDONLY)
        var ends: [Int32] = [0, 0]
        try #require(reader >= 0 && pipe(&ends) == 0)
        defer { [reader, ends[0], ends[1]].forEach { _ = close($0) } }
        let unseekable = try #require(throws: SealError.self) {
            _ = try ParallelSegments.seal(
                input: reader, plaintextSize: 4_000, output: ends[1], key: Self.key,
                options: SealOptions(segmentSize: Self.segment), batchByteCount: Self.batch
            ) { _ in }
        }
        #expect(unseekable.code == .ioFailure)
        #expect(unseekable.description.contains("writing failed: Illegal seek"))
    }

    @Test("a header with no segments, or a segment shorter than a tag, is truncated")
    func truncatedBodies() throws {
        let sealed = try Self.seal(SecureRandom.bytes(count: 3 * Self.segment))
        let headerCount = try SealedStream.readHeaderCount(sealed)
        let empty = try #require(throws: SealError.self) { try Self.open(Array(sealed.prefix(headerCount))) }
        #expect(empty.code == .truncated)
        #expect(empty.segmentIndex == 0)
        #expect(empty.description.contains("no segments"))
        let cut = Array(sealed.prefix(headerCount + 2 * (Self.segment + 16) + 15))
        let error = try #require(throws: SealError.self) { try Self.open(cut) }
        #expect(error.code == .truncated)
        #expect(error.segmentIndex == 2)
    }
}
