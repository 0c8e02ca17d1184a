import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's content so that a crash or power loss leaves the old file or the whole new one, never a mix or
/// an empty file: the bytes go to a temporary file in the same directory (so the rename stays on one file system),
/// which is flushed, given the old file's permissions, renamed over the destination, and the directory flushed.
enum FileReplacement {
    /// A failed step, with the path and the system's reason.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Writes `data` to `path` atomically and durably, with `mode` as its permissions.
    ///
    /// - Parameters:
    ///   - path: The file to create or replace.
    ///   - data: Its new content.
    ///   - mode: Its permission bits.
    /// - Throws: ``Failure`` naming the step that failed; the destination is then untouched and no temporary file
    ///   is left behind.
    static func replace(_ path: String, with data: Data, mode: mode_t) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var template = Array("\(directory)/.\(url.lastPathComponent).rampart-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard descriptor >= 0 else { throw failure("create a temporary file in \(directory)") }
        let temporary = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var isOpen = true
        var isPlaced = false
        defer {
            if isOpen { _ = close(descriptor) }
            if !isPlaced { _ = unlink(temporary) }
        }
        try data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { throw failure("write \(temporary)") }
                offset += written
            }
        }
        guard fchmod(descriptor, mode) == 0 else { throw failure("set the permissions of \(temporary)") }
        guard fsync(descriptor) == 0 else { throw failure("flush \(temporary) to disk") }
        isOpen = false
        guard close(descriptor) == 0 else { throw failure("close \(temporary)") }
        guard rename(temporary, path) == 0 else { throw failure("rename \(temporary) to \(path)") }
        isPlaced = true
        // The rename is durable only once the directory entry is.
        let directoryDescriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directoryDescriptor >= 0 else { throw failure("open \(directory) to flush it") }
        defer { _ = close(directoryDescriptor) }
        guard fsync(directoryDescriptor) == 0 else { throw failure("flush \(directory) to disk") }
    }

    /// The permission bits of the file at `path`, or nil when it cannot be examined.
    static func mode(of path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return status.st_mode & 0o7777
    }

    private static func failure(_ step: String) -> Failure {
        Failure(description: "cannot \(step): \(String(cString: strerror(errno)))")
    }
}
