// The C library calls of RampartSeal, in one place (the shape of swift-nio's Sources/NIOPosix/System.swift): each
// arm names the C library of one platform, calls that can be interrupted are retried on EINTR, and a failure becomes
// a SystemCallError carrying errno. Nothing else in the module imports a C library; scripts/check-apple-build.py
// refuses one named anywhere else in an app-side module.
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#else
#error("RampartSeal needs Glibc, Musl or Darwin for its file calls (Platform.swift)")
#endif

/// A failed system call: its `errno`, described by `strerror`.
struct SystemCallError: Error, CustomStringConvertible {
    /// The `errno` value.
    let code: Int32

    /// `strerror`'s text for the code.
    var description: String { String(cString: strerror(code)) }

    /// Whether the call failed because the name exists (`EEXIST`).
    var nameExists: Bool { code == EEXIST }

    /// The error of the call that just failed.
    static var last: SystemCallError { SystemCallError(code: errno) }
}

/// The system calls RampartSeal makes. Their names differ from the C library's so that the C functions stay
/// reachable inside this type.
enum Platform {
    /// Runs `call` again while it fails with `EINTR`; any other negative result throws.
    private static func retrying<Result: BinaryInteger>(_ call: () -> Result) throws(SystemCallError) -> Result {
        while true {
            let result = call()
            if result >= 0 { return result }
            guard errno == EINTR else { throw SystemCallError.last }
        }
    }

    /// Throws the current `errno` unless `result` is 0.
    private static func check(_ result: Int32) throws(SystemCallError) {
        guard result == 0 else { throw SystemCallError.last }
    }

    // MARK: Reading and writing

    /// `read(2)`: up to `buffer.count` bytes; 0 at the end of the input.
    static func readSome(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError)
        -> Int
    {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        return try retrying { read(descriptor, base, buffer.count) }
    }

    /// `write(2)`: some of `bytes` (how many it took).
    static func writeSome(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(SystemCallError) -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        return try retrying { write(descriptor, base, bytes.count) }
    }

    /// `writev(2)`: some of the buffers, as if concatenated (how many bytes it took).
    static func writeSome(
        _ descriptor: Int32, vector buffers: [UnsafeRawBufferPointer]
    ) throws(SystemCallError)
        -> Int
    {
        var vectors = buffers.map {
            iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
        }
        return try retrying {
            vectors.withUnsafeMutableBufferPointer { list in writev(descriptor, list.baseAddress, Int32(list.count)) }
        }
    }

    /// `pread(2)`: up to `buffer.count` bytes at `offset`; 0 at the end of the file.
    static func readSome(
        _ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64
    )
        throws(SystemCallError) -> Int
    {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return 0 }
        guard let position = off_t(exactly: offset) else { throw SystemCallError(code: EOVERFLOW) }
        return try retrying { pread(descriptor, base, buffer.count, position) }
    }

    /// `pwrite(2)`: some of `bytes` at `offset` (how many it took).
    static func writeSome(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64
    )
        throws(SystemCallError) -> Int
    {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        guard let position = off_t(exactly: offset) else { throw SystemCallError(code: EOVERFLOW) }
        return try retrying { pwrite(descriptor, base, bytes.count, position) }
    }

    /// `lseek(2)` to the start.
    static func rewind(_ descriptor: Int32) throws(SystemCallError) {
        guard lseek(descriptor, 0, SEEK_SET) == 0 else { throw SystemCallError.last }
    }

    // MARK: Files

    /// `open(2)` for reading, close-on-exec.
    static func openForReading(_ path: String) throws(SystemCallError) -> Int32 {
        try retrying { open(path, O_RDONLY | O_CLOEXEC) }
    }

    /// `open(2)` of a directory, to `fsync` it.
    static func openDirectory(_ path: String) throws(SystemCallError) -> Int32 {
        try retrying { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
    }

    /// An unnamed regular file in `directory`, readable and writable, mode 0600 once linked (`O_TMPFILE`, open(2));
    /// nil where the platform or the file system has none (then use ``makeTemporaryFile(template:)``).
    static func openUnnamed(inDirectory directory: String) -> Int32? {
        #if canImport(Glibc)
        // glibc's __O_TMPFILE includes O_DIRECTORY, as O_TMPFILE must; EOPNOTSUPP or EISDIR mean the file system has
        // no unnamed files.
        let descriptor = open(directory, __O_TMPFILE | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        fchmod(descriptor, 0o600)
        return descriptor
        #else
        return nil
        #endif
    }

    /// Names an unnamed file (`linkat(2)` through `/proc/self/fd`, as open(2) describes for `O_TMPFILE`).
    static func link(_ descriptor: Int32, to path: String) throws(SystemCallError) {
        #if canImport(Glibc)
        try check(linkat(AT_FDCWD, "/proc/self/fd/\(descriptor)", AT_FDCWD, path, AT_SYMLINK_FOLLOW))
        #else
        throw SystemCallError(code: ENOTSUP)
        #endif
    }

    /// `mkstemp(3)`: a new file, mode 0600, named after `template` with its trailing `XXXXXX` replaced.
    static func makeTemporaryFile(template: String) throws(SystemCallError) -> (descriptor: Int32, path: String) {
        var name = Array(template.utf8CString)
        let descriptor = name.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard descriptor >= 0 else { throw SystemCallError.last }
        return (descriptor, String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// `fsync(2)`.
    static func synchronize(_ descriptor: Int32) throws(SystemCallError) { try check(fsync(descriptor)) }

    /// `close(2)`; not retried on `EINTR`, which leaves the descriptor closed on Linux and Darwin.
    static func closeDescriptor(_ descriptor: Int32) throws(SystemCallError) { try check(close(descriptor)) }

    /// `rename(2)`.
    static func move(_ path: String, to destination: String) throws(SystemCallError) {
        try check(rename(path, destination))
    }

    /// `unlink(2)`, for cleaning up: a failure is ignored.
    static func remove(_ path: String) { _ = unlink(path) }

    /// The size of the regular file at `path` (`stat(2)`), or nil for anything else or when it cannot be read.
    static func regularFileSize(atPath path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(exactly: info.st_size)
    }

    /// The size of the regular file behind `descriptor` (`fstat(2)`), or nil for anything else.
    static func regularFileSize(_ descriptor: Int32) -> UInt64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(exactly: info.st_size)
    }
}
