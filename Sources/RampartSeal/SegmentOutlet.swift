import Dispatch
import Foundation
import RampartCrypto

/// Where finished segments go. The segment loop asks for a buffer, fills it (sealed segment or verified plaintext),
/// and emits it; an outlet decides whether the bytes are written at once or by another thread.
protocol SegmentOutlet: AnyObject {
    /// A buffer of at least ``Segmenter/bufferByteCount(segmentSize:)`` bytes, owned by the caller until ``emit(count:)``.
    func nextBuffer() throws -> UnsafeMutableRawBufferPointer
    /// Hands over the first `count` bytes of the buffer last returned by ``nextBuffer()``.
    func emit(count: Int) throws
}

/// Writes each segment to the sink as it is emitted, from one reused buffer: for any ``ByteSink``.
final class DirectOutlet<Sink: ByteSink>: SegmentOutlet {
    private(set) var sink: Sink
    private let buffer: UnsafeMutableRawBufferPointer

    init(sink: Sink, segmentSize: Int) {
        self.sink = sink
        buffer = .allocate(byteCount: Segmenter.bufferByteCount(segmentSize: segmentSize), alignment: 64)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        SecureMemory.wipe(buffer)
        buffer.deallocate()
    }

    func nextBuffer() throws -> UnsafeMutableRawBufferPointer { buffer }

    func emit(count: Int) throws { try sink.write(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) }
}

/// Writes segments to a file descriptor on a second thread while the caller reads and encrypts the next ones, so
/// the cipher and the kernel's write path overlap. Memory stays constant: ``depth`` buffers of one segment each.
final class WriteBehindOutlet: SegmentOutlet {
    /// Segments in flight between the two threads.
    static let depth = 8
    /// The most segments the writer hands to one `writev(2)`.
    static let batch = 8

    private let ring: Ring
    private var current = 0
    private var closed = false

    init(sink: FileDescriptorSink, segmentSize: Int) {
        ring = Ring(sink: sink, bufferByteCount: Segmenter.bufferByteCount(segmentSize: segmentSize))
        let ring = ring
        Thread.detachNewThread { ring.drain() }
    }

    func nextBuffer() throws -> UnsafeMutableRawBufferPointer {
        ring.free.wait()
        if let error = ring.failure { throw error }
        let buffer = ring.buffers[current]
        return buffer
    }

    func emit(count: Int) throws {
        ring.state.withLock { $0.queue.append(Ring.Item(index: current, count: count)) }
        ring.filled.signal()
        current = (current + 1) % Self.depth
    }

    /// Waits until every emitted segment is written and reports the first write error.
    func finish() throws {
        close()
        if let error = ring.failure { throw error }
    }

    /// Stops the writer thread after what was emitted so far (idempotent); called on every exit path.
    func close() {
        guard !closed else { return }
        closed = true
        ring.state.withLock { $0.queue.append(Ring.Item(index: -1, count: 0)) }
        ring.filled.signal()
        ring.done.wait()
    }

    /// The state both threads share.
    ///
    /// `@unchecked Sendable`: `buffers` and `sink` never change after init; each buffer's bytes belong to one thread at
    /// a time, handed from the caller to the writer by `filled` and back by `free` (semaphores order the memory
    /// accesses on both sides); the queue and the first error live in a `Locked`.
    final class Ring: @unchecked Sendable {
        struct Item {
            let index: Int
            let count: Int
        }

        struct State {
            var queue: [Item] = []
            var error: SealError?
        }

        let buffers: [UnsafeMutableRawBufferPointer]
        let sink: FileDescriptorSink
        /// Starts at 0 and is signalled `depth` times in init: libdispatch traps when a semaphore is released below
        /// its initial value, which happens here when a stream stops early holding buffers.
        let free = DispatchSemaphore(value: 0)
        let filled = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let state = Locked(State())

        init(sink: FileDescriptorSink, bufferByteCount: Int) {
            self.sink = sink
            buffers = (0..<WriteBehindOutlet.depth).map { _ in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferByteCount, alignment: 64)
                buffer.initializeMemory(as: UInt8.self, repeating: 0)
                return buffer
            }
            for _ in 0..<WriteBehindOutlet.depth { free.signal() }
        }

        deinit {
            for buffer in buffers {
                SecureMemory.wipe(buffer)
                buffer.deallocate()
            }
        }

        var failure: SealError? { state.withLock { $0.error } }

        /// The writer thread: writes items in order until the stop item, skipping writes after the first error.
        /// Segments already waiting are gathered into one `writev(2)`, so 64 KiB segments reach the kernel in larger
        /// writes.
        func drain() {
            var stop = false
            while !stop {
                filled.wait()
                var items = [state.withLock { $0.queue.removeFirst() }]
                while items.count < WriteBehindOutlet.batch, items.last.map({ $0.index >= 0 }) == true,
                    filled.wait(timeout: .now()) == .success
                {
                    items.append(state.withLock { $0.queue.removeFirst() })
                }
                if let last = items.last, last.index < 0 {
                    items.removeLast()
                    stop = true
                }
                if failure == nil, !items.isEmpty {
                    do {
                        try sink.write(
                            vector: items.map { UnsafeRawBufferPointer(rebasing: buffers[$0.index][0..<$0.count]) })
                    } catch {
                        let sealError = error as? SealError ?? SealError.ioFailure("writing failed: \(error)")
                        state.withLock { $0.error = sealError }
                    }
                }
                for _ in items { free.signal() }
            }
            done.signal()
        }
    }
}
