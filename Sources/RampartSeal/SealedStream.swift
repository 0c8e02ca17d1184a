import Foundation
import RampartCrypto

/// How a new stream is sealed.
public struct SealOptions: Sendable, Hashable {
    /// The segment cipher; AES-256-GCM by default.
    public var algorithm: SealAlgorithm
    /// Plaintext bytes per segment: ``SealHeader/minimumSegmentSize`` … ``SealHeader/maximumSegmentSize``,
    /// 64 KiB by default. Memory use is about two segments.
    public var segmentSize: Int

    /// Creates options.
    ///
    /// - Parameters:
    ///   - algorithm: The segment cipher.
    ///   - segmentSize: Plaintext bytes per segment.
    public init(algorithm: SealAlgorithm = .aes256GCM, segmentSize: Int = SealHeader.defaultSegmentSize) {
        self.algorithm = algorithm
        self.segmentSize = segmentSize
    }
}

/// Streaming authenticated encryption of data of any size in constant memory (docs/seal-format.md).
///
/// A sealed stream is a ``SealHeader`` followed by segments. Segment *i* is the AEAD encryption of the next
/// ``SealOptions/segmentSize`` plaintext bytes under the file's payload key (HKDF of its random data key and salt),
/// with the nonce `noncePrefix ‖ i (u32, big-endian) ‖ last`, where `last` is 1 for the final segment and 0 before.
/// The construction is Tink's and age's STREAM (Hoang, Reyhanitabar, Rogaway, Vizár 2015), so:
///
/// - a modified, reordered or duplicated segment fails (the index is in the nonce): ``SealError/Code/segmentTampered``;
/// - a stream cut at a segment boundary fails (its new last segment was not sealed as last):
///   ``SealError/Code/truncated``;
/// - bytes appended after the final segment fail: ``SealError/Code/extended``;
/// - a segment taken from another file fails (another data key, salt and prefix);
/// - an edited header fails its MAC: ``SealError/Code/headerTampered``.
///
/// Opening writes each segment only after it authenticates, so what reaches the sink is always a verified prefix of
/// the plaintext; ``SealedFile`` adds a temporary file and a rename so that nothing is left at the destination unless
/// the whole stream verified.
public enum SealedStream {
    /// Seals everything `source` yields into `sink`.
    ///
    /// - Parameters:
    ///   - source: The plaintext.
    ///   - sink: Receives the header and the segments.
    ///   - key: Wraps the stream's fresh data key.
    ///   - options: Cipher and segment size.
    ///   - progress: Called after each segment with the plaintext bytes consumed so far.
    /// - Returns: The header written.
    /// - Throws: ``SealError/Code/invalidParameter`` for bad options or a weak KDF, ``SealError/Code/ioFailure``.
    @discardableResult
    public static func seal(
        from source: inout some ByteSource,
        to sink: inout some ByteSink,
        key: SealKey,
        options: SealOptions = SealOptions(),
        progress: (UInt64) -> Void = { _ in }
    ) throws -> SealHeader {
        let (header, payloadKey) = try begin(key: key, options: options)
        try header.bytes.withUnsafeBytes { try sink.write($0) }
        var segmenter = try Segmenter(header: header, payloadKey: payloadKey, encrypting: true)
        if let descriptor = sink as? FileDescriptorSink {
            let outlet = WriteBehindOutlet(sink: descriptor, segmentSize: header.segmentSize)
            defer { outlet.close() }
            try segmenter.seal(from: &source, to: outlet, progress: progress)
            try outlet.finish()
        } else {
            let outlet = DirectOutlet(sink: sink, segmentSize: header.segmentSize)
            defer { sink = outlet.sink }
            try segmenter.seal(from: &source, to: outlet, progress: progress)
        }
        return header
    }

    /// A new stream's header around a fresh random data key, and the payload key its segments are sealed with.
    static func begin(key: SealKey, options: SealOptions) throws -> (header: SealHeader, payloadKey: SymmetricKey) {
        let dataKey = SymmetricKey(randomByteCount: 32)
        let header = try key.makeHeader(
            algorithm: options.algorithm, segmentSize: options.segmentSize, dataKey: dataKey)
        return (header, try FileKeys.payloadKey(dataKey: dataKey, salt: header.salt, algorithm: header.algorithm))
    }

    /// Unwraps a header's data key (checking the header MAC) and derives the payload key of its segments.
    static func payloadKey(of header: SealHeader, key: SealKey) throws -> SymmetricKey {
        let dataKey = try key.unwrapDataKey(of: header)
        return try FileKeys.payloadKey(dataKey: dataKey, salt: header.salt, algorithm: header.algorithm)
    }

    /// Reads and parses a stream's header, consuming exactly its bytes.
    ///
    /// - Parameter source: The sealed stream, positioned at its start.
    /// - Returns: The parsed (not yet authenticated) header.
    /// - Throws: ``SealError/Code/malformedHeader``, ``SealError/Code/unsupportedVersion``,
    ///   ``SealError/Code/unsupportedAlgorithm``, ``SealError/Code/limitExceeded``, or ``SealError/Code/truncated``
    ///   when the stream ends inside the header.
    public static func readHeader(from source: inout some ByteSource) throws -> SealHeader {
        var prefix = [UInt8](repeating: 0, count: SealHeader.prefixByteCount)
        let got = try prefix.withUnsafeMutableBytes { try fill(&source, $0) }
        guard got == prefix.count else {
            if got == 0 { throw SealError.malformedHeader("the input is empty: it is not a Rampart sealed file") }
            guard prefix.prefix(min(got, SealHeader.magic.count)).elementsEqual(SealHeader.magic.prefix(got)) else {
                throw SealError.malformedHeader(
                    "this is not a Rampart sealed file: it does not start with the \\x89RSEAL magic")
            }
            throw SealError.truncated(index: nil, "the input ends inside the sealed header")
        }
        let length = try SealHeader.declaredByteCount(prefix: prefix)
        var rest = [UInt8](repeating: 0, count: length - prefix.count)
        let restGot = try rest.withUnsafeMutableBytes { try fill(&source, $0) }
        guard restGot == rest.count else {
            throw SealError.truncated(index: nil, "the input ends inside the sealed header")
        }
        return try SealHeader(bytes: prefix + rest)
    }

    /// Opens a sealed stream, writing the plaintext of each segment once it authenticates.
    ///
    /// - Parameters:
    ///   - source: The sealed stream.
    ///   - sink: Receives the plaintext.
    ///   - key: The passphrase, key or keyset that unwraps the data key.
    ///   - progress: Called after each segment with the sealed bytes consumed so far (header included).
    /// - Returns: The authenticated header.
    /// - Throws: The header errors of ``readHeader(from:)``; ``SealError/Code/wrongKey``,
    ///   ``SealError/Code/unknownKeyID``, ``SealError/Code/headerTampered``, ``SealError/Code/segmentTampered``
    ///   (naming the segment), ``SealError/Code/truncated``, ``SealError/Code/extended``,
    ///   ``SealError/Code/ioFailure``.
    @discardableResult
    public static func open(
        from source: inout some ByteSource,
        to sink: inout some ByteSink,
        key: SealKey,
        progress: (UInt64) -> Void = { _ in }
    ) throws -> SealHeader {
        let header = try readHeader(from: &source)
        let payloadKey = try payloadKey(of: header, key: key)
        var segmenter = try Segmenter(header: header, payloadKey: payloadKey, encrypting: false)
        let headerByteCount = UInt64(header.bytes.count)
        let reportSealedBytes = { (segmentBytes: UInt64) in progress(headerByteCount + segmentBytes) }
        if let descriptor = sink as? FileDescriptorSink {
            let outlet = WriteBehindOutlet(sink: descriptor, segmentSize: header.segmentSize)
            defer { outlet.close() }
            try segmenter.open(from: &source, to: outlet, progress: reportSealedBytes)
            try outlet.finish()
        } else {
            let outlet = DirectOutlet(sink: sink, segmentSize: header.segmentSize)
            defer { sink = outlet.sink }
            try segmenter.open(from: &source, to: outlet, progress: reportSealedBytes)
        }
        return header
    }

    /// Re-wraps a stream's data key under another key, copying the segments unchanged.
    ///
    /// Only the header changes: the data key is unwrapped with `oldKey` (checking the header MAC) and wrapped with
    /// `newKey` in a new header that keeps the cipher, segment size, salt and nonce prefix, so the body, whose keys
    /// and nonces derive from those, stays valid byte for byte. Use it after a keyset rotation (`oldKey` and
    /// `newKey` both `.keyset(rotated)`) or to change a passphrase. The segments are copied, not authenticated; they
    /// are checked when the stream is next opened.
    ///
    /// - Parameters:
    ///   - source: The sealed stream.
    ///   - sink: Receives the new header and the unchanged segments.
    ///   - oldKey: Unwraps the current data key.
    ///   - newKey: Wraps it again (a keyset's primary key, a new passphrase).
    /// - Returns: The new header.
    /// - Throws: The errors of ``readHeader(from:)``; ``SealError/Code/wrongKey``, ``SealError/Code/unknownKeyID``,
    ///   ``SealError/Code/headerTampered``; ``SealError/Code/invalidParameter`` for a weak new KDF;
    ///   ``SealError/Code/ioFailure``.
    @discardableResult
    public static func rewrap(
        from source: inout some ByteSource,
        to sink: inout some ByteSink,
        oldKey: SealKey,
        newKey: SealKey
    ) throws -> SealHeader {
        let header = try readHeader(from: &source)
        let dataKey = try oldKey.unwrapDataKey(of: header)
        let newHeader = try newKey.makeHeader(
            algorithm: header.algorithm, segmentSize: header.segmentSize, dataKey: dataKey, salt: header.salt,
            noncePrefix: header.noncePrefix)
        try newHeader.bytes.withUnsafeBytes { try sink.write($0) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = try source.read(into: buffer)
            if count == 0 { break }
            try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return newHeader
    }

    /// Seals bytes in memory.
    ///
    /// - Parameters:
    ///   - plaintext: The data.
    ///   - key: Wraps the data key.
    ///   - options: Cipher and segment size.
    /// - Returns: The sealed stream.
    /// - Throws: As ``seal(from:to:key:options:progress:)``.
    public static func seal(
        _ plaintext: [UInt8], key: SealKey, options: SealOptions = SealOptions()
    ) throws
        -> [UInt8]
    {
        var source = MemorySource(plaintext)
        var sink = MemorySink()
        try seal(from: &source, to: &sink, key: key, options: options)
        return sink.bytes
    }

    /// Opens a sealed stream held in memory.
    ///
    /// - Parameters:
    ///   - sealed: The sealed stream.
    ///   - key: Unwraps the data key.
    /// - Returns: The plaintext.
    /// - Throws: As ``open(from:to:key:progress:)``.
    public static func open(_ sealed: [UInt8], key: SealKey) throws -> [UInt8] {
        var source = MemorySource(sealed)
        var sink = MemorySink()
        try open(from: &source, to: &sink, key: key)
        return sink.bytes
    }
}

/// Reads until `buffer` is full or the source ends; returns the count read.
func fill(_ source: inout some ByteSource, _ buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var filled = 0
    while filled < buffer.count {
        let count = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
        if count == 0 { break }
        filled += count
    }
    return filled
}

/// The segment loop shared by sealing and opening: one keyed cipher context, one look-ahead input buffer for
/// opening a stream, and output buffers from a ``SegmentOutlet``. ``ParallelSegments`` uses one per thread for its
/// per-segment operations only.
struct Segmenter: ~Copyable {
    private let context: AEADContext
    private let segmentSize: Int
    /// Holds up to one sealed segment plus one byte of look-ahead (opening a stream only).
    private let input: UnsafeMutableRawBufferPointer
    private var nonce = [UInt8](repeating: 0, count: 12)

    /// DoS and nonce-space limit: a stream has at most 2³² segments (the counter is 32 bits).
    static let maximumSegmentCount: UInt64 = 1 << 32

    /// The bytes every outlet buffer must hold: a sealed segment plus one byte of look-ahead.
    static func bufferByteCount(segmentSize: Int) -> Int { segmentSize + AEADAlgorithm.tagByteCount + 1 }

    /// Keys the cipher.
    ///
    /// - Parameters:
    ///   - header: Supplies the cipher, segment size and nonce prefix.
    ///   - payloadKey: The file's payload key.
    ///   - encrypting: `true` to seal, `false` to open.
    ///   - streaming: Whether ``open(from:to:progress:)`` will run (it needs a look-ahead buffer).
    /// - Throws: ``SealError/Code/invalidParameter`` when the cipher cannot be keyed.
    init(header: SealHeader, payloadKey: SymmetricKey, encrypting: Bool, streaming: Bool = true) throws {
        do {
            context = try AEADContext(algorithm: header.algorithm.aead, key: payloadKey, encrypting: encrypting)
        } catch {
            throw SealError.invalidParameter("could not key \(header.algorithm.rawValue): \(error)")
        }
        segmentSize = header.segmentSize
        let inputByteCount = encrypting || !streaming ? 0 : Self.bufferByteCount(segmentSize: segmentSize)
        input = .allocate(byteCount: inputByteCount, alignment: 64)
        input.initializeMemory(as: UInt8.self, repeating: 0)
        for (index, byte) in header.noncePrefix.enumerated() { nonce[index] = byte }
    }

    deinit {
        SecureMemory.wipe(input)
        input.deallocate()
    }

    private mutating func setNonce(index: UInt64, isLast: Bool) {
        let counter = UInt32(truncatingIfNeeded: index)
        nonce[7] = UInt8(truncatingIfNeeded: counter >> 24)
        nonce[8] = UInt8(truncatingIfNeeded: counter >> 16)
        nonce[9] = UInt8(truncatingIfNeeded: counter >> 8)
        nonce[10] = UInt8(truncatingIfNeeded: counter)
        nonce[11] = isLast ? 1 : 0
    }

    /// Seals one segment: encrypts `plaintext` into the start of `sealed` (which may be the same memory) and writes
    /// the tag right after the ciphertext.
    ///
    /// - Parameters:
    ///   - index: The segment's position in the stream.
    ///   - isLast: Whether it is the final segment.
    ///   - plaintext: At most one segment of plaintext.
    ///   - sealed: At least `plaintext.count + 16` bytes.
    /// - Throws: ``SealError/Code/limitExceeded`` past 2³² segments, ``SealError/Code/invalidParameter`` when the
    ///   cipher fails.
    mutating func sealSegment(
        index: UInt64,
        isLast: Bool,
        _ plaintext: UnsafeRawBufferPointer,
        into sealed: UnsafeMutableRawBufferPointer
    ) throws {
        let count = plaintext.count
        guard index < Self.maximumSegmentCount else {
            throw SealError.limitExceeded("a sealed stream holds at most 2³² segments; use a larger segment size")
        }
        setNonce(index: index, isLast: isLast)
        do {
            try nonce.withUnsafeBytes { nonceBytes in
                try context.seal(
                    plaintext, into: UnsafeMutableRawBufferPointer(rebasing: sealed[0..<count]), nonce: nonceBytes,
                    associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                    tag: UnsafeMutableRawBufferPointer(rebasing: sealed[count..<(count + AEADAlgorithm.tagByteCount)]))
            }
        } catch {
            throw SealError.invalidParameter("segment \(index) could not be sealed: \(error)")
        }
    }

    /// Reads plaintext straight into each outlet buffer, encrypts it in place and appends the tag.
    mutating func seal(
        from source: inout some ByteSource,
        to outlet: some SegmentOutlet,
        progress: (UInt64) -> Void
    ) throws {
        let tag = AEADAlgorithm.tagByteCount
        var buffer = try outlet.nextBuffer()
        var filled = 0
        var index: UInt64 = 0
        var consumed: UInt64 = 0
        while true {
            filled += try fill(&source, UnsafeMutableRawBufferPointer(rebasing: buffer[filled..<(segmentSize + 1)]))
            let isLast = filled <= segmentSize
            let count = min(filled, segmentSize)
            let lookAhead = isLast ? 0 : buffer[segmentSize]
            try sealSegment(
                index: index, isLast: isLast, UnsafeRawBufferPointer(rebasing: buffer[0..<count]), into: buffer)
            try outlet.emit(count: count + tag)
            consumed += UInt64(count)
            progress(consumed)
            if isLast { return }
            buffer = try outlet.nextBuffer()
            buffer[0] = lookAhead
            filled = 1
            index += 1
        }
    }

    /// Reads each sealed segment (with one byte of look-ahead) and decrypts it into an outlet buffer, which is
    /// emitted only once the tag verified.
    mutating func open(
        from source: inout some ByteSource,
        to outlet: some SegmentOutlet,
        progress: (UInt64) -> Void
    ) throws {
        let tag = AEADAlgorithm.tagByteCount
        let sealedSegment = segmentSize + tag
        var filled = 0
        var index: UInt64 = 0
        var consumed: UInt64 = 0
        while true {
            filled += try fill(&source, UnsafeMutableRawBufferPointer(rebasing: input[filled..<(sealedSegment + 1)]))
            let isLast = filled <= sealedSegment
            let count = min(filled, sealedSegment)
            guard index < Self.maximumSegmentCount else {
                throw SealError.limitExceeded("a sealed stream holds at most 2³² segments")
            }
            let output = try outlet.nextBuffer()
            let plaintextCount = try openSegment(
                index: index, isLast: isLast, UnsafeRawBufferPointer(rebasing: input[0..<count]), into: output)
            try outlet.emit(count: plaintextCount)
            consumed += UInt64(count)
            progress(consumed)
            if isLast { return }
            input[0] = input[sealedSegment]
            filled = 1
            index += 1
        }
    }

    /// Opens one sealed segment into `output`, or says precisely why it does not open.
    ///
    /// - Parameters:
    ///   - index: The segment's position in the stream.
    ///   - isLast: Whether the stream ends after it.
    ///   - sealed: The segment: ciphertext and tag (at most one sealed segment).
    ///   - output: At least `sealed.count - 16` bytes, not overlapping `sealed`.
    /// - Returns: The plaintext byte count.
    /// - Throws: ``SealError/Code/truncated`` for a segment shorter than a tag or a stream cut at a segment
    ///   boundary, ``SealError/Code/extended`` for bytes after the final segment, otherwise
    ///   ``SealError/Code/segmentTampered``.
    mutating func openSegment(
        index: UInt64,
        isLast: Bool,
        _ sealed: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws -> Int {
        let tag = AEADAlgorithm.tagByteCount
        guard sealed.count >= tag else {
            throw SealError.truncated(
                index: index,
                index == 0 && sealed.isEmpty
                    ? "the sealed stream has a header but no segments: it was cut short"
                    : "the sealed stream ends inside segment \(index): it was cut short")
        }
        guard index < Self.maximumSegmentCount else {
            throw SealError.limitExceeded("a sealed stream holds at most 2³² segments")
        }
        let count = sealed.count - tag
        if try !tryOpen(index: index, isLast: isLast, sealed, into: output) {
            throw try diagnose(index: index, isLast: isLast, sealed, scratch: output)
        }
        return count
    }

    private mutating func tryOpen(
        index: UInt64,
        isLast: Bool,
        _ sealed: UnsafeRawBufferPointer,
        into output: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        setNonce(index: index, isLast: isLast)
        let count = sealed.count - AEADAlgorithm.tagByteCount
        do {
            return try nonce.withUnsafeBytes { nonceBytes in
                try context.open(
                    UnsafeRawBufferPointer(rebasing: sealed[0..<count]),
                    into: UnsafeMutableRawBufferPointer(rebasing: output[0..<count]), nonce: nonceBytes,
                    associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                    tag: UnsafeRawBufferPointer(rebasing: sealed[count...]))
            }
        } catch {
            throw SealError.invalidParameter("segment \(index) could not be opened: \(error)")
        }
    }

    /// Says why a segment failed, checking each explanation that can be proven before falling back to the one that
    /// fits the lengths:
    ///
    /// - a full last segment that opens as non-final: the stream was cut after it (``SealError/Code/truncated``);
    /// - a non-final segment that opens as final, or a prefix of the segment that opens as final: the stream really
    ///   ended there and bytes were appended (``SealError/Code/extended``);
    /// - a last segment shorter than a full one that opens neither way: the data ends inside it, which is what a
    ///   file cut mid-segment looks like (``SealError/Code/truncated``; a modified short final segment reads the
    ///   same, and both are refused);
    /// - anything else: the segment was modified, reordered or taken from another stream
    ///   (``SealError/Code/segmentTampered``).
    private mutating func diagnose(
        index: UInt64,
        isLast: Bool,
        _ sealed: UnsafeRawBufferPointer,
        scratch: UnsafeMutableRawBufferPointer
    ) throws -> SealError {
        defer { SecureMemory.wipe(scratch) }
        let tag = AEADAlgorithm.tagByteCount
        let count = sealed.count - tag
        if isLast, count == segmentSize, try tryOpen(index: index, isLast: false, sealed, into: scratch) {
            return SealError.truncated(
                index: index + 1,
                "the sealed stream ends after segment \(index), which was not its final segment: it was cut short")
        }
        if !isLast, try tryOpen(index: index, isLast: true, sealed, into: scratch) {
            return SealError.extended(
                index: index + 1, "bytes follow the final segment \(index): data was appended to the sealed stream")
        }
        if let end = try finalPrefix(index: index, sealed, scratch: scratch) {
            return SealError.extended(
                index: index + 1,
                "bytes follow the final segment \(index) (its first \(end) bytes authenticate as the end of the "
                    + "stream): data was appended to the sealed stream; discard the output")
        }
        if isLast, count < segmentSize {
            return SealError.truncated(
                index: index,
                "the sealed stream ends inside segment \(index), which does not authenticate: it was cut short "
                    + "(or its last segment was modified); discard the output")
        }
        return SealError.segmentTampered(index: index)
    }

    /// DoS limit on diagnosing a failed segment: at most this many bytes are run through the cipher looking for the
    /// real end of an extended stream (a few hundred trial lengths at the default 64 KiB segment size).
    static let diagnosisByteBudget = 32 << 20

    /// The length of a proper prefix of `sealed` that opens as the final segment `index`, or nil.
    ///
    /// Appended bytes after a final segment shorter than the segment size merge with it into one piece, so the real
    /// final segment is a prefix. Lengths are tried from both ends (a few appended bytes, or a short real final
    /// segment), within ``diagnosisByteBudget``.
    private mutating func finalPrefix(
        index: UInt64,
        _ sealed: UnsafeRawBufferPointer,
        scratch: UnsafeMutableRawBufferPointer
    ) throws -> Int? {
        let tag = AEADAlgorithm.tagByteCount
        var low = tag
        var high = sealed.count - 1
        var budget = Self.diagnosisByteBudget
        while low <= high, budget > 0 {
            for length in low == high ? [high] : [high, low] {
                budget -= length
                let prefix = UnsafeRawBufferPointer(rebasing: sealed[0..<length])
                if try tryOpen(index: index, isLast: true, prefix, into: scratch) { return length }
            }
            low += 1
            high -= 1
        }
        return nil
    }
}
