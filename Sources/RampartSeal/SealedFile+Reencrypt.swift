public import Foundation

extension SealedFile {
    /// Re-encrypts a sealed file under a fresh data key beside the file, without replacing it yet: ``Staged/commit()``
    /// does (``KeysetStore/commit(_:)`` checks the keyset as stored first).
    ///
    /// Unlike ``stageRewrap(at:using:)``, which keeps the data key and so leaves the file readable by anyone who kept
    /// its old header and holds the old key, this opens the file with `oldKey` and seals the plaintext again with
    /// `newKey`, keeping its cipher and segment size: afterwards nothing of the new file opens with the old key. The
    /// plaintext passes from one thread to the other in memory (at most four segments at a time) and never reaches
    /// the disk; the new file is discarded if any segment of the old one fails to authenticate.
    ///
    /// - Parameters:
    ///   - url: The sealed file.
    ///   - oldKey: Opens it.
    ///   - newKey: Seals it again (the same keyset, for a keyset's primary key; a new or the same passphrase).
    /// - Returns: The staged file.
    /// - Throws: The verdicts of ``SealedStream/open(from:to:key:progress:)`` on the old file,
    ///   the errors of ``SealedStream/seal(from:to:key:options:progress:)`` for the new one, and
    ///   ``SealError/Code/ioFailure``.
    public static func stageReencrypt(at url: URL, oldKey: SealKey, newKey: SealKey) throws -> Staged {
        let reader = try OpenFile(reading: url)
        var probe = FileDescriptorSource(descriptor: reader.descriptor)
        let header = try SealedStream.readHeader(from: &probe)
        do {
            try Platform.rewind(reader.descriptor)
        } catch {
            throw SealError.ioFailure("cannot rewind \(url.path): \(error)")
        }
        let writer = try AtomicFile(replacing: url)
        let pipe = PlaintextPipe()
        let descriptor = reader.descriptor
        Thread.detachNewThread {
            var source = FileDescriptorSource(descriptor: descriptor)
            var sink = PlaintextPipe.Sink(pipe: pipe)
            pipe.finishWriting(Result { try SealedStream.open(from: &source, to: &sink, key: oldKey) })
        }
        var source = PlaintextPipe.Source(pipe: pipe)
        var sink = FileDescriptorSink(descriptor: writer.descriptor)
        let options = SealOptions(algorithm: header.algorithm, segmentSize: header.segmentSize)
        let sealed = Result { try SealedStream.seal(from: &source, to: &sink, key: newKey, options: options) }
        // Unblock the opening thread if sealing stopped early, and wait for it: it reads `reader`'s descriptor.
        let opened = pipe.stopReading()
        withExtendedLifetime(reader) {}
        switch (opened, sealed) {
        case (.success, .success(let newHeader)):
            return Staged(header: newHeader, file: writer)
        case (_, .failure(let error)), (.failure(let error), .success):
            // A new file made from a prefix of the old one that verified is never kept.
            writer.discard()
            throw error
        }
    }
}

/// A bounded in-memory queue of plaintext between the thread that opens a sealed file and the one that seals it
/// again: `Foundation.NSCondition` guards the chunks; a writer blocks while four are queued.
final class PlaintextPipe: @unchecked Sendable {
    // @unchecked Sendable: every stored property is read and written only while `condition` is locked.
    private let condition = NSCondition()
    private var chunks: [[UInt8]] = []
    private var offset = 0
    private var isWriterDone = false
    private var isReaderGone = false
    private var writerOutcome: Result<SealHeader, any Error>?
    private static let capacity = 4

    struct Sink: ByteSink {
        let pipe: PlaintextPipe
        mutating func write(_ bytes: UnsafeRawBufferPointer) throws { try pipe.write(bytes) }
    }

    struct Source: ByteSource {
        let pipe: PlaintextPipe
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int { pipe.read(into: buffer) }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard !bytes.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= Self.capacity, !isReaderGone { condition.wait() }
        guard !isReaderGone else { throw SealError.ioFailure("sealing the new file stopped") }
        chunks.append(Array(bytes))
        condition.broadcast()
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        condition.lock()
        defer { condition.unlock() }
        while chunks.isEmpty, !isWriterDone { condition.wait() }
        guard let first = chunks.first else { return 0 }
        let count = min(buffer.count, first.count - offset)
        first.withUnsafeBytes { bytes in
            buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)]))
        }
        offset += count
        if offset == first.count {
            chunks.removeFirst()
            offset = 0
            condition.broadcast()
        }
        return count
    }

    /// Called by the writer when it is done, with its outcome.
    func finishWriting(_ outcome: Result<SealHeader, any Error>) {
        condition.lock()
        writerOutcome = outcome
        isWriterDone = true
        condition.broadcast()
        condition.unlock()
    }

    /// Called by the reader when it is done: drops what is queued, unblocks the writer, waits for it to finish and
    /// returns its outcome.
    func stopReading() -> Result<SealHeader, any Error> {
        condition.lock()
        defer { condition.unlock() }
        isReaderGone = true
        chunks.removeAll()
        condition.broadcast()
        while !isWriterDone { condition.wait() }
        return writerOutcome ?? .failure(SealError.ioFailure("the opening thread ended without a verdict"))
    }
}
