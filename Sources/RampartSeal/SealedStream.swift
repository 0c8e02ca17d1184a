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
        let dataKey = SymmetricKey(randomByteCount: 32)
        let header = try key.makeHeader(
            algorithm: options.algorithm, segmentSize: options.segmentSize, dataKey: dataKey)
        try header.bytes.withUnsafeBytes { try sink.write($0) }
        let payloadKey = try FileKeys.payloadKey(dataKey: dataKey, salt: header.salt, algorithm: header.algorithm)
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
        let dataKey = try key.unwrapDataKey(of: header)
        let payloadKey = try FileKeys.payloadKey(dataKey: dataKey, salt: header.salt, algorithm: header.algorithm)
        var segmenter = try Segmenter(header: header, payloadKey: payloadKey, encrypting: false)
        if let descriptor = sink as? FileDescriptorSink {
            let outlet = WriteBehindOutlet(sink: descriptor, segmentSize: header.segmentSize)
            defer { outlet.close() }
            try segmenter.open(from: &source, to: outlet, progress: progress)
            try outlet.finish()
        } else {
            let outlet = DirectOutlet(sink: sink, segmentSize: header.segmentSize)
            defer { sink = outlet.sink }
            try segmenter.open(from: &source, to: outlet, progress: progress)
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
/// opening, and output buffers from a ``SegmentOutlet``.
struct Segmenter: ~Copyable {
    private let context: AEADContext
    private let segmentSize: Int
    /// Holds up to one sealed segment plus one byte of look-ahead (opening only).
    private let input: UnsafeMutableRawBufferPointer
    private var nonce = [UInt8](repeating: 0, count: 12)

    /// DoS and nonce-space limit: a stream has at most 2³² segments (the counter is 32 bits).
    static let maximumSegmentCount: UInt64 = 1 << 32

    /// The bytes every outlet buffer must hold: a sealed segment plus one byte of look-ahead.
    static func bufferByteCount(segmentSize: Int) -> Int { segmentSize + AEADAlgorithm.tagByteCount + 1 }

    init(header: SealHeader, payloadKey: SymmetricKey, encrypting: Bool) throws {
        do {
            context = try AEADContext(algorithm: header.algorithm.aead, key: payloadKey, encrypting: encrypting)
        } catch {
            throw SealError.invalidParameter("could not key \(header.algorithm.rawValue): \(error)")
        }
        segmentSize = header.segmentSize
        input = .allocate(byteCount: encrypting ? 0 : Self.bufferByteCount(segmentSize: segmentSize), alignment: 64)
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
            guard index < Self.maximumSegmentCount else {
                throw SealError.limitExceeded("a sealed stream holds at most 2³² segments; use a larger segment size")
            }
            setNonce(index: index, isLast: isLast)
            let plaintext = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count])
            do {
                try nonce.withUnsafeBytes { nonceBytes in
                    try context.seal(
                        UnsafeRawBufferPointer(plaintext), into: plaintext, nonce: nonceBytes,
                        associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                        tag: UnsafeMutableRawBufferPointer(rebasing: buffer[count..<(count + tag)]))
                }
            } catch {
                throw SealError.invalidParameter("segment \(index) could not be sealed: \(error)")
            }
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
            guard count >= tag else {
                throw SealError.truncated(
                    index: index,
                    index == 0 && count == 0
                        ? "the sealed stream has a header but no segments: it was cut short"
                        : "the sealed stream ends inside segment \(index): it was cut short")
            }
            guard index < Self.maximumSegmentCount else {
                throw SealError.limitExceeded("a sealed stream holds at most 2³² segments")
            }
            let plaintextCount = count - tag
            let output = try outlet.nextBuffer()
            if try !openSegment(index: index, count: plaintextCount, isLast: isLast, into: output) {
                throw try diagnose(index: index, count: plaintextCount, isLast: isLast, scratch: output)
            }
            try outlet.emit(count: plaintextCount)
            consumed += UInt64(count)
            progress(consumed)
            if isLast { return }
            input[0] = input[sealedSegment]
            filled = 1
            index += 1
        }
    }

    private mutating func openSegment(
        index: UInt64,
        count: Int,
        isLast: Bool,
        into output: UnsafeMutableRawBufferPointer
    ) throws -> Bool {
        setNonce(index: index, isLast: isLast)
        let tag = AEADAlgorithm.tagByteCount
        do {
            return try nonce.withUnsafeBytes { nonceBytes in
                try context.open(
                    UnsafeRawBufferPointer(rebasing: input[0..<count]),
                    into: UnsafeMutableRawBufferPointer(rebasing: output[0..<count]), nonce: nonceBytes,
                    associatedData: UnsafeRawBufferPointer(start: nil, count: 0),
                    tag: UnsafeRawBufferPointer(rebasing: input[count..<(count + tag)]))
            }
        } catch {
            throw SealError.invalidParameter("segment \(index) could not be opened: \(error)")
        }
    }

    /// Says why a segment failed: a full last segment that opens as non-final means the stream was cut after it; a
    /// non-final segment that opens as final means bytes were appended; anything else is tampering.
    private mutating func diagnose(
        index: UInt64,
        count: Int,
        isLast: Bool,
        scratch: UnsafeMutableRawBufferPointer
    ) throws -> SealError {
        defer { SecureMemory.wipe(scratch) }
        if isLast, count == segmentSize, try openSegment(index: index, count: count, isLast: false, into: scratch) {
            return SealError.truncated(
                index: index + 1,
                "the sealed stream ends after segment \(index), which was not its final segment: it was cut short")
        }
        if !isLast, try openSegment(index: index, count: count, isLast: true, into: scratch) {
            return SealError.extended(
                index: index + 1, "bytes follow the final segment \(index): data was appended to the sealed stream")
        }
        return SealError.segmentTampered(index: index)
    }
}
