import Foundation
import RampartCrypto

/// Seals or opens a regular file into another on several threads.
///
/// Every segment's nonce is fixed by its index and whether it is last, and every segment's position in both files is
/// fixed by the segment size, so once the input's size is known the segments are independent: each thread claims the
/// next batch of segments, reads it with `pread(2)`, runs the cipher and writes the result with `pwrite(2)` at its
/// final offset. The output is byte for byte what ``SealedStream`` writes; only the order in which the kernel sees
/// the writes differs, which is why this path is used only for a temporary file that is renamed into place after
/// the last segment (``SealedFile``).
///
/// Memory stays constant: each thread holds one batch of plaintext and one of sealed bytes (2 × 256 KiB with the
/// default batch size). When a segment fails to open, the threads finish the batches they hold and stop; the
/// error reported is the one of the lowest-numbered failing segment, as the sequential loop would report it.
package enum ParallelSegments {
    /// Plaintext bytes one thread reads per batch (at least one segment).
    package static let batchByteCount = 1 << 18

    /// Files smaller than this are sealed and opened by the one-thread streaming loop: threads do not pay for
    /// themselves below a few batches, and pseudo-files (`/proc`, `/sys`) report sizes of 0 or 4096 that are not
    /// their length.
    package static let minimumFileSize: UInt64 = 2 << 20

    /// The most threads used, whatever the machine has.
    static let maximumThreadCount = 4

    /// How many threads to use for `batchCount` batches.
    static func threadCount(batchCount: Int) -> Int {
        max(1, min(ProcessInfo.processInfo.activeProcessorCount, maximumThreadCount, batchCount))
    }

    /// Seals `plaintextSize` bytes of `input` (a regular file, read from offset 0) into `output`: the header, then
    /// the segments.
    ///
    /// - Parameters:
    ///   - input: A descriptor of a regular file open for reading.
    ///   - plaintextSize: Its size, from `fstat(2)`; the input must not change while it is sealed.
    ///   - output: A descriptor of an empty regular file open for writing.
    ///   - key: Wraps the file's fresh data key.
    ///   - options: Cipher and segment size.
    ///   - batchByteCount: Plaintext bytes per batch (rounded down to whole segments, at least one).
    ///   - progress: Called on the calling thread with the plaintext bytes sealed so far.
    /// - Returns: The header written.
    /// - Throws: The errors of ``SealedStream/seal(from:to:key:options:progress:)``; ``SealError/Code/ioFailure``
    ///   when reading or writing fails or the input changes size; ``SealError/Code/limitExceeded`` for more than
    ///   2³² segments.
    package static func seal(
        input: Int32,
        plaintextSize: UInt64,
        output: Int32,
        key: SealKey,
        options: SealOptions,
        batchByteCount: Int = batchByteCount,
        progress: (UInt64) -> Void
    ) throws -> SealHeader {
        let (header, payloadKey) = try SealedStream.begin(key: key, options: options)
        let segmentSize = UInt64(header.segmentSize)
        let segmentCount = plaintextSize == 0 ? 1 : (plaintextSize + segmentSize - 1) / segmentSize
        guard segmentCount <= Segmenter.maximumSegmentCount else {
            throw SealError.limitExceeded(
                "a sealed stream holds at most 2³² segments; use a larger segment size for a file this large")
        }
        var sink = FileDescriptorSink(descriptor: output)
        try header.bytes.withUnsafeBytes { try sink.write($0) }
        let job = Job(
            header: header, payloadKey: payloadKey, input: input, output: output, segmentCount: segmentCount,
            streamByteCount: plaintextSize, encrypting: true, batchByteCount: batchByteCount)
        try checkingSize(of: input, is: plaintextSize, "the input changed size while it was being sealed") {
            try job.run(progress: progress)
        }
        return header
    }

    /// Opens `input` (a regular file holding a sealed stream, read from offset 0) into `output` from offset 0.
    ///
    /// - Parameters:
    ///   - input: A descriptor of a regular file open for reading, positioned at its start.
    ///   - sealedSize: Its size, from `fstat(2)`.
    ///   - output: A descriptor of a regular (temporary) file open for writing.
    ///   - key: Unwraps the data key.
    ///   - batchByteCount: Plaintext bytes per batch (rounded down to whole segments, at least one).
    ///   - progress: Called on the calling thread with the sealed bytes opened so far (header included).
    /// - Returns: The authenticated header.
    /// - Throws: The verdicts of ``SealedStream/open(from:to:key:progress:)`` for the lowest failing segment;
    ///   ``SealError/Code/ioFailure`` when reading or writing fails or the input changes size.
    package static func open(
        input: Int32,
        sealedSize: UInt64,
        output: Int32,
        key: SealKey,
        batchByteCount: Int = batchByteCount,
        progress: (UInt64) -> Void
    ) throws -> SealHeader {
        var source = FileDescriptorSource(descriptor: input)
        let header = try SealedStream.readHeader(from: &source)
        let payloadKey = try SealedStream.payloadKey(of: header, key: key)
        let headerByteCount = UInt64(header.bytes.count)
        let body = sealedSize - min(sealedSize, headerByteCount)
        guard body > 0 else {
            throw SealError.truncated(index: 0, "the sealed stream has a header but no segments: it was cut short")
        }
        let sealedSegment = UInt64(header.segmentSize + AEADAlgorithm.tagByteCount)
        let segmentCount = (body + sealedSegment - 1) / sealedSegment
        guard segmentCount <= Segmenter.maximumSegmentCount else {
            throw SealError.limitExceeded("a sealed stream holds at most 2³² segments")
        }
        let job = Job(
            header: header, payloadKey: payloadKey, input: input, output: output, segmentCount: segmentCount,
            streamByteCount: body, encrypting: false, batchByteCount: batchByteCount)
        try checkingSize(of: input, is: sealedSize, "the sealed file changed size while it was being opened") {
            try job.run { progress(headerByteCount + $0) }
        }
        return header
    }

    /// The size of the file behind `descriptor`, or nil when it is not a regular file.
    package static func regularFileSize(_ descriptor: Int32) -> UInt64? { Platform.regularFileSize(descriptor) }

    /// Runs `body`, then checks that the input still has the size the segment count was computed from. A changed
    /// size is reported instead of whatever `body` threw, since a file that grew or shrank midway makes the
    /// segment verdicts meaningless.
    private static func checkingSize(
        of descriptor: Int32,
        is expected: UInt64,
        _ problem: String,
        _ body: () throws -> Void
    ) throws {
        let changed = {
            SealError.ioFailure(
                "\(problem) (\(expected) bytes at the start); use a copy that no other program is writing")
        }
        do {
            try body()
        } catch {
            if regularFileSize(descriptor) != expected { throw changed() }
            throw error
        }
        guard regularFileSize(descriptor) == expected else { throw changed() }
    }

    /// One sealing or opening run shared by its threads.
    ///
    /// Every stored property is immutable or synchronised (atomics and a mutex), so the class is `Sendable`; the
    /// cipher contexts and buffers belong to one thread each, inside ``work(reportingTo:)``.
    final class Job: Sendable {
        let header: SealHeader
        let payloadKey: SymmetricKey
        let input: Int32
        let output: Int32
        let segmentCount: UInt64
        /// Plaintext bytes when sealing; segment bytes (after the header) when opening.
        let streamByteCount: UInt64
        let encrypting: Bool
        let segmentsPerBatch: UInt64
        let batchCount: Int

        private let nextBatch = Locked<Int>(0)
        private let completedBytes = Locked<UInt64>(0)
        private let stopping = Locked<Bool>(false)
        /// The failure of the lowest-numbered segment seen so far.
        private let failure = Locked<(index: UInt64, error: SealError)?>(nil)

        init(
            header: SealHeader,
            payloadKey: SymmetricKey,
            input: Int32,
            output: Int32,
            segmentCount: UInt64,
            streamByteCount: UInt64,
            encrypting: Bool,
            batchByteCount: Int
        ) {
            self.header = header
            self.payloadKey = payloadKey
            self.input = input
            self.output = output
            self.segmentCount = segmentCount
            self.streamByteCount = streamByteCount
            self.encrypting = encrypting
            segmentsPerBatch = UInt64(max(1, batchByteCount / header.segmentSize))
            batchCount = Int((segmentCount + segmentsPerBatch - 1) / segmentsPerBatch)
        }

        /// Runs the job on the calling thread and as many helper threads as useful, and throws the first failure.
        func run(progress: (UInt64) -> Void) throws {
            let helpers = ParallelSegments.threadCount(batchCount: batchCount) - 1
            let finished = DispatchSemaphore(value: 0)
            for _ in 0..<helpers {
                Thread.detachNewThread { [self] in
                    work { _ in }
                    finished.signal()
                }
            }
            work(reportingTo: progress)
            for _ in 0..<helpers { finished.wait() }
            if let failed = failure.withLock({ $0 }) { throw failed.error }
            progress(completedBytes.withLock { $0 })
        }

        private func record(_ error: SealError, at index: UInt64) {
            failure.withLock { current in
                if index < current?.index ?? .max { current = (index, error) }
            }
            stopping.withLock { $0 = true }
        }

        /// Claims batches in increasing order until none is left or a failure is recorded. A batch once claimed is
        /// finished (or fails), so every segment before a recorded failure is checked, and the lowest failure wins.
        private func work(reportingTo progress: (UInt64) -> Void) {
            let layout = Layout(header: header, encrypting: encrypting)
            let batchSegments = Int(segmentsPerBatch)
            let input = UnsafeMutableRawBufferPointer.allocate(
                byteCount: batchSegments * layout.inputStride, alignment: 64)
            let output = UnsafeMutableRawBufferPointer.allocate(
                byteCount: batchSegments * layout.outputStride, alignment: 64)
            input.initializeMemory(as: UInt8.self, repeating: 0)
            output.initializeMemory(as: UInt8.self, repeating: 0)
            defer {
                // One of the two holds plaintext.
                SecureMemory.wipe(input)
                SecureMemory.wipe(output)
                input.deallocate()
                output.deallocate()
            }
            var segmenter: Segmenter
            do {
                segmenter = try Segmenter(
                    header: header, payloadKey: payloadKey, encrypting: encrypting, streaming: false)
            } catch {
                record(error as? SealError ?? SealError.invalidParameter("\(error)"), at: 0)
                return
            }
            while !stopping.withLock({ $0 }) {
                let batch = nextBatch.withLock { next in
                    defer { next += 1 }
                    return next
                }
                guard batch < batchCount else { return }
                let first = UInt64(batch) * segmentsPerBatch
                let count = Int(min(segmentsPerBatch, segmentCount - first))
                do {
                    let bytes = try run(
                        first: first, count: count, layout: layout, segmenter: &segmenter, input: input,
                        output: output)
                    let total = completedBytes.withLock { done in
                        done &+= bytes
                        return done
                    }
                    progress(total)
                } catch {
                    record(error.error, at: error.index)
                    return
                }
            }
        }

        /// Where segments sit in the file read and in the file written: sealing reads plaintext segments from
        /// offset 0 and writes sealed ones (16 bytes longer) after the header; opening does the reverse.
        struct Layout {
            let inputStride: Int
            let outputStride: Int
            let inputBase: UInt64
            let outputBase: UInt64

            init(header: SealHeader, encrypting: Bool) {
                let plaintext = header.segmentSize
                let sealed = plaintext + AEADAlgorithm.tagByteCount
                let headerByteCount = UInt64(header.bytes.count)
                inputStride = encrypting ? plaintext : sealed
                outputStride = encrypting ? sealed : plaintext
                inputBase = encrypting ? 0 : headerByteCount
                outputBase = encrypting ? headerByteCount : 0
            }
        }

        /// Reads segments `first ..< first + count`, seals or opens each, and writes them at their final offset.
        ///
        /// - Returns: The bytes of the input consumed.
        private func run(
            first: UInt64,
            count: Int,
            layout: Layout,
            segmenter: inout Segmenter,
            input: UnsafeMutableRawBufferPointer,
            output: UnsafeMutableRawBufferPointer
        ) throws(BatchFailure) -> UInt64 {
            let start = first * UInt64(layout.inputStride)
            let length = Int(min(UInt64(count * layout.inputStride), streamByteCount - start))
            try readFully(
                UnsafeMutableRawBufferPointer(rebasing: input[0..<length]), at: layout.inputBase + start, index: first)
            var produced = 0
            for offset in 0..<count {
                let index = first + UInt64(offset)
                let isLast = index == segmentCount - 1
                let from = offset * layout.inputStride
                let piece = UnsafeRawBufferPointer(
                    rebasing: input[from..<(from + min(layout.inputStride, length - from))])
                let target = UnsafeMutableRawBufferPointer(rebasing: output[(offset * layout.outputStride)...])
                do {
                    if encrypting {
                        try segmenter.sealSegment(index: index, isLast: isLast, piece, into: target)
                        produced = offset * layout.outputStride + piece.count + AEADAlgorithm.tagByteCount
                    } else {
                        let opened = try segmenter.openSegment(index: index, isLast: isLast, piece, into: target)
                        produced = offset * layout.outputStride + opened
                    }
                } catch {
                    throw BatchFailure(index: index, error: error)
                }
            }
            let at = layout.outputBase + first * UInt64(layout.outputStride)
            try writeFully(UnsafeRawBufferPointer(rebasing: output[0..<produced]), at: at, index: first)
            return UInt64(length)
        }

        /// `pread(2)` until `buffer` is full, retrying on `EINTR`.
        private func readFully(
            _ buffer: UnsafeMutableRawBufferPointer,
            at offset: UInt64,
            index: UInt64
        ) throws(BatchFailure) {
            var done = 0
            while done < buffer.count {
                let count: Int
                do {
                    count = try Platform.readSome(
                        input, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]),
                        at: offset + UInt64(done))
                } catch {
                    throw BatchFailure(index: index, error: SealError.ioFailure("reading failed: \(error)"))
                }
                guard count > 0 else {
                    // The caller's size check turns this into "changed size" when the file shrank.
                    throw BatchFailure(
                        index: index,
                        error: SealError.ioFailure("the input ended early, at byte \(offset + UInt64(done))"))
                }
                done += count
            }
        }

        /// `pwrite(2)` every byte, retrying on `EINTR` and short writes.
        private func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, index: UInt64) throws(BatchFailure)
        {
            var done = 0
            while done < bytes.count {
                let count: Int
                do {
                    count = try Platform.writeSome(
                        output, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + UInt64(done))
                } catch {
                    throw BatchFailure(index: index, error: SealError.ioFailure("writing failed: \(error)"))
                }
                guard count > 0 else {
                    throw BatchFailure(
                        index: index, error: SealError.ioFailure("writing failed: the file accepted no bytes"))
                }
                done += count
            }
        }
    }

    /// A batch's failure and the segment it happened in.
    struct BatchFailure: Error {
        let index: UInt64
        let error: SealError

        init(index: UInt64, error: any Error) {
            self.index = index
            self.error = error as? SealError ?? SealError.ioFailure("\(error)")
        }
    }
}
