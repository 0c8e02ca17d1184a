/// Where a sealed stream reads from: a file, a pipe, memory.
public protocol ByteSource {
    /// Reads up to `buffer.count` bytes.
    ///
    /// - Parameter buffer: Where to put them.
    /// - Returns: How many bytes were read; 0 only at the end of the input.
    /// - Throws: ``SealError/Code/ioFailure`` when reading fails.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// Where a sealed stream writes to.
public protocol ByteSink {
    /// Writes every byte of `bytes`.
    ///
    /// - Parameter bytes: The bytes.
    /// - Throws: ``SealError/Code/ioFailure`` when writing fails.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws
}

/// Reads an open file descriptor (a file, standard input, a pipe); it does not close it.
public struct FileDescriptorSource: ByteSource {
    /// The descriptor.
    public let descriptor: Int32

    /// Wraps a descriptor open for reading.
    ///
    /// - Parameter descriptor: For example `0` for standard input.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Reads with `read(2)`, retrying on `EINTR`.
    ///
    /// - Parameter buffer: Where to put the bytes.
    /// - Returns: The count read; 0 at end of file.
    /// - Throws: ``SealError/Code/ioFailure`` with the errno text.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        do {
            return try Platform.readSome(descriptor, into: buffer)
        } catch {
            throw SealError.ioFailure("reading failed: \(error)")
        }
    }
}

/// Writes to an open file descriptor (a file, standard output, a pipe); it does not close it.
public struct FileDescriptorSink: ByteSink {
    /// The descriptor.
    public let descriptor: Int32

    /// Wraps a descriptor open for writing.
    ///
    /// - Parameter descriptor: For example `1` for standard output.
    public init(descriptor: Int32) { self.descriptor = descriptor }

    /// Writes everything with `write(2)`, retrying on `EINTR` and short writes.
    ///
    /// - Parameter bytes: The bytes.
    /// - Throws: ``SealError/Code/ioFailure`` with the errno text (a full disk, a closed pipe).
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < bytes.count {
            let count: Int
            do {
                count = try Platform.writeSome(descriptor, UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            } catch {
                throw SealError.ioFailure("writing failed: \(error)")
            }
            guard count > 0 else { throw SealError.ioFailure("writing failed: the descriptor accepted no bytes") }
            offset += count
        }
    }
}

extension FileDescriptorSink {
    /// Writes several buffers in order with `writev(2)`, retrying on `EINTR` and short writes.
    ///
    /// - Parameter buffers: The buffers, written as if concatenated.
    /// - Throws: ``SealError/Code/ioFailure`` with the errno text.
    func write(vector buffers: [UnsafeRawBufferPointer]) throws {
        var pending = buffers.filter { !$0.isEmpty }
        while !pending.isEmpty {
            let written: Int
            do {
                written = try Platform.writeSome(descriptor, vector: pending)
            } catch {
                throw SealError.ioFailure("writing failed: \(error)")
            }
            guard written > 0 else { throw SealError.ioFailure("writing failed: the descriptor accepted no bytes") }
            var remaining = written
            while let first = pending.first, remaining >= first.count {
                remaining -= first.count
                pending.removeFirst()
            }
            if remaining > 0, let first = pending.first {
                pending[0] = UnsafeRawBufferPointer(rebasing: first[remaining...])
            }
        }
    }
}

/// Reads from bytes in memory.
public struct MemorySource: ByteSource {
    private let bytes: [UInt8]
    private var offset = 0

    /// Wraps bytes.
    ///
    /// - Parameter bytes: The input.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Copies the next bytes.
    ///
    /// - Parameter buffer: Where to put them.
    /// - Returns: How many were copied; 0 at the end.
    /// - Throws: Never; the signature is the protocol's.
    public mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let count = min(buffer.count, bytes.count - offset)
        guard count > 0 else { return 0 }
        let start = offset
        bytes.withUnsafeBytes { source in
            guard let from = source.baseAddress, let target = buffer.baseAddress else { return }
            target.copyMemory(from: from + start, byteCount: count)
        }
        offset += count
        return count
    }
}

/// Collects written bytes in memory.
public struct MemorySink: ByteSink {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []

    /// Creates an empty sink.
    public init() {}

    /// Appends `bytes`.
    ///
    /// - Parameter bytes: The bytes.
    /// - Throws: Never; the signature is the protocol's.
    public mutating func write(_ bytes: UnsafeRawBufferPointer) throws { self.bytes.append(contentsOf: bytes) }
}

extension FileDescriptorSource: Sendable {}
extension FileDescriptorSink: Sendable {}
extension MemorySource: Sendable {}
extension MemorySink: Sendable {}
