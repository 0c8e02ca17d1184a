public import Foundation
import RampartCrypto

/// Sealing and opening files by path, all-or-nothing.
///
/// Output goes to a temporary file (mode 0600) in the destination's directory and is renamed over the destination
/// only when the whole input has been processed and, when opening, every segment has authenticated. On any failure
/// the temporary file is removed, so no partial plaintext is ever left at the destination.
///
/// Given a regular file of at least 2 MiB, ``seal(_:to:key:options:progress:)`` and ``open(_:to:key:progress:)``
/// process batches of segments on up to four threads with `pread(2)` and `pwrite(2)` at fixed offsets; the output and
/// the errors are those of the one-thread stream, and an input that changes size meanwhile is refused.
public enum SealedFile {
    /// Seals the file at `input` into `output`.
    ///
    /// - Parameters:
    ///   - input: The plaintext file.
    ///   - output: The sealed file to create or replace.
    ///   - key: Wraps the file's fresh data key.
    ///   - options: Cipher and segment size.
    ///   - progress: Called after each segment with the plaintext bytes consumed so far.
    /// - Returns: The header written.
    /// - Throws: As ``SealedStream/seal(from:to:key:options:progress:)``, and ``SealError/Code/ioFailure``.
    @discardableResult
    public static func seal(
        _ input: URL,
        to output: URL,
        key: SealKey,
        options: SealOptions = SealOptions(),
        progress: (UInt64) -> Void = { _ in }
    ) throws -> SealHeader {
        let staged = try stageSeal(input, to: output, key: key, options: options, progress: progress)
        try staged.commit()
        return staged.header
    }

    /// Seals the file at `input` beside `output` without replacing it yet: ``Staged/commit()`` does (for a keyset
    /// kept in a store, ``KeysetStore/commit(_:)`` checks the stored keyset first).
    ///
    /// - Parameters:
    ///   - input: The plaintext file.
    ///   - output: The sealed file to create or replace on commit.
    ///   - key: Wraps the file's fresh data key.
    ///   - options: Cipher and segment size.
    ///   - progress: Called after each segment with the plaintext bytes consumed so far.
    /// - Returns: The staged file.
    /// - Throws: As ``seal(_:to:key:options:progress:)``.
    public static func stageSeal(
        _ input: URL,
        to output: URL,
        key: SealKey,
        options: SealOptions = SealOptions(),
        progress: (UInt64) -> Void = { _ in }
    ) throws -> Staged {
        let reader = try OpenFile(reading: input)
        guard let plaintextSize = ParallelSegments.regularFileSize(reader.descriptor),
            plaintextSize >= ParallelSegments.minimumFileSize
        else {
            var source = FileDescriptorSource(descriptor: reader.descriptor)
            return try stageSeal(from: &source, to: output, key: key, options: options, progress: progress)
        }
        let writer = try AtomicFile(replacing: output)
        let header = try ParallelSegments.seal(
            input: reader.descriptor, plaintextSize: plaintextSize, output: writer.descriptor, key: key,
            options: options, progress: progress)
        return Staged(header: header, file: writer)
    }

    /// Seals everything `source` yields (standard input, for example) into the file `output`.
    ///
    /// - Parameters:
    ///   - source: The plaintext.
    ///   - output: The sealed file to create or replace.
    ///   - key: Wraps the file's fresh data key.
    ///   - options: Cipher and segment size.
    ///   - progress: Called after each segment with the plaintext bytes consumed so far.
    /// - Returns: The header written.
    /// - Throws: As ``SealedStream/seal(from:to:key:options:progress:)``, and ``SealError/Code/ioFailure``.
    @discardableResult
    public static func seal(
        from source: inout some ByteSource,
        to output: URL,
        key: SealKey,
        options: SealOptions = SealOptions(),
        progress: (UInt64) -> Void = { _ in }
    ) throws -> SealHeader {
        let staged = try stageSeal(from: &source, to: output, key: key, options: options, progress: progress)
        try staged.commit()
        return staged.header
    }

    /// Seals everything `source` yields beside `output` without replacing it yet: ``Staged/commit()`` does.
    ///
    /// - Parameters:
    ///   - source: The plaintext.
    ///   - output: The sealed file to create or replace on commit.
    ///   - key: Wraps the file's fresh data key.
    ///   - options: Cipher and segment size.
    ///   - progress: Called after each segment with the plaintext bytes consumed so far.
    /// - Returns: The staged file.
    /// - Throws: As ``seal(from:to:key:options:progress:)``.
    public static func stageSeal(
        from source: inout some ByteSource,
        to output: URL,
        key: SealKey,
        options: SealOptions = SealOptions(),
        progress: (UInt64) -> Void = { _ in }
    ) throws -> Staged {
        let writer = try AtomicFile(replacing: output)
        var sink = FileDescriptorSink(descriptor: writer.descriptor)
        let header = try SealedStream.seal(from: &source, to: &sink, key: key, options: options, progress: progress)
        return Staged(header: header, file: writer)
    }

    /// Opens the sealed file at `input` into `output`, which appears only if every segment authenticates.
    ///
    /// - Parameters:
    ///   - input: The sealed file.
    ///   - output: The plaintext file to create or replace.
    ///   - key: The passphrase, key or keyset.
    ///   - progress: Called after each segment with the sealed bytes consumed so far.
    /// - Returns: The authenticated header.
    /// - Throws: As ``SealedStream/open(from:to:key:progress:)``, and ``SealError/Code/ioFailure``.
    @discardableResult
    public static func open(
        _ input: URL,
        to output: URL,
        key: SealKey,
        progress: (UInt64) -> Void = { _ in }
    ) throws -> SealHeader {
        let reader = try OpenFile(reading: input)
        guard let sealedSize = ParallelSegments.regularFileSize(reader.descriptor),
            sealedSize >= ParallelSegments.minimumFileSize
        else {
            var source = FileDescriptorSource(descriptor: reader.descriptor)
            return try open(from: &source, to: output, key: key, progress: progress)
        }
        let writer = try AtomicFile(replacing: output)
        let header = try ParallelSegments.open(
            input: reader.descriptor, sealedSize: sealedSize, output: writer.descriptor, key: key, progress: progress)
        try writer.commit()
        return header
    }

    /// Opens a sealed stream (standard input, for example) into the file `output`, which appears only if every
    /// segment authenticates.
    ///
    /// - Parameters:
    ///   - source: The sealed stream.
    ///   - output: The plaintext file to create or replace.
    ///   - key: The passphrase, key or keyset.
    ///   - progress: Called after each segment with the sealed bytes consumed so far.
    /// - Returns: The authenticated header.
    /// - Throws: As ``SealedStream/open(from:to:key:progress:)``, and ``SealError/Code/ioFailure``.
    @discardableResult
    public static func open(
        from source: inout some ByteSource,
        to output: URL,
        key: SealKey,
        progress: (UInt64) -> Void = { _ in }
    ) throws -> SealHeader {
        let writer = try AtomicFile(replacing: output)
        var sink = FileDescriptorSink(descriptor: writer.descriptor)
        let header = try SealedStream.open(from: &source, to: &sink, key: key, progress: progress)
        try writer.commit()
        return header
    }

    /// Re-wraps a sealed file's data key under a keyset's primary key in place (temporary file and rename), without
    /// re-encrypting its body.
    ///
    /// A file already wrapped under the primary is left untouched.
    ///
    /// - Parameters:
    ///   - url: The sealed file.
    ///   - keyset: A keyset holding both the file's current key and the primary it moves to.
    /// - Returns: The file's header after the call.
    /// - Throws: As ``SealedStream/rewrap(from:to:oldKey:newKey:)``.
    @discardableResult
    public static func rewrap(at url: URL, using keyset: Keyset) throws -> SealHeader {
        let staged = try stageRewrap(at: url, using: keyset)
        try staged.commit()
        return staged.header
    }

    /// Re-wraps a sealed file's data key under a keyset's primary key beside the file, without replacing it yet:
    /// ``Staged/commit()`` does (``KeysetStore/commit(_:)`` checks the keyset as stored first).
    ///
    /// A file already wrapped under the primary gives a staged file whose commit changes nothing.
    ///
    /// - Parameters:
    ///   - url: The sealed file.
    ///   - keyset: A keyset holding both the file's current key and the primary it moves to.
    /// - Returns: The staged file.
    /// - Throws: As ``SealedStream/rewrap(from:to:oldKey:newKey:)``.
    public static func stageRewrap(at url: URL, using keyset: Keyset) throws -> Staged {
        try stageRewrap(at: url, oldKey: .keyset(keyset), newKey: .keyset(keyset)) { $0.keyID == keyset.primaryID }
    }

    /// Re-wraps a sealed file's data key with another key (a new passphrase, for example) in place.
    ///
    /// - Parameters:
    ///   - url: The sealed file.
    ///   - oldKey: Unwraps the current data key.
    ///   - newKey: Wraps it again.
    /// - Returns: The new header.
    /// - Throws: As ``SealedStream/rewrap(from:to:oldKey:newKey:)``.
    @discardableResult
    public static func rewrap(at url: URL, oldKey: SealKey, newKey: SealKey) throws -> SealHeader {
        let staged = try stageRewrap(at: url, oldKey: oldKey, newKey: newKey) { _ in false }
        try staged.commit()
        return staged.header
    }

    private static func stageRewrap(
        at url: URL,
        oldKey: SealKey,
        newKey: SealKey,
        isCurrent: (SealHeader) -> Bool
    ) throws -> Staged {
        let reader = try OpenFile(reading: url)
        var probe = FileDescriptorSource(descriptor: reader.descriptor)
        let header = try SealedStream.readHeader(from: &probe)
        if isCurrent(header) {
            _ = try oldKey.unwrapDataKey(of: header)
            return Staged(header: header, file: nil)
        }
        do {
            try Platform.rewind(reader.descriptor)
        } catch {
            throw SealError.ioFailure("cannot rewind \(url.path): \(error)")
        }
        var source = FileDescriptorSource(descriptor: reader.descriptor)
        let writer = try AtomicFile(replacing: url)
        var sink = FileDescriptorSink(descriptor: writer.descriptor)
        let newHeader = try SealedStream.rewrap(from: &source, to: &sink, oldKey: oldKey, newKey: newKey)
        return Staged(header: newHeader, file: writer)
    }

    /// A sealed or re-wrapped file written beside its destination, not yet in place.
    ///
    /// ``commit()`` moves it over the destination; a staged file released without a commit is deleted, leaving the
    /// destination as it was.
    public final class Staged {
        /// The header of the staged file (for a file already current, its unchanged header).
        public let header: SealHeader
        private let file: AtomicFile?

        init(header: SealHeader, file: AtomicFile?) {
            self.header = header
            self.file = file
        }

        /// Moves the staged file over its destination (nothing to do for a file that was already current).
        ///
        /// - Throws: ``SealError/Code/ioFailure`` when the file cannot be flushed or renamed.
        public func commit() throws {
            try file?.commit()
        }

        /// Deletes the staged file now, leaving the destination as it was (releasing it does the same later).
        public func discard() {
            file?.discard()
        }
    }

    /// The size of a file, for progress bars.
    ///
    /// - Parameter url: The file.
    /// - Returns: Its size in bytes, or nil for a pipe or when it cannot be read.
    public static func size(of url: URL) -> UInt64? { Platform.regularFileSize(atPath: url.path) }
}

/// A staged file holds an open temporary file and is committed or dropped by one owner.
@available(*, unavailable)
extension SealedFile.Staged: Sendable {}

/// A file descriptor open for reading, closed on release.
final class OpenFile {
    let descriptor: Int32

    init(reading url: URL) throws {
        do {
            descriptor = try Platform.openForReading(url.path)
        } catch {
            throw SealError.ioFailure("cannot read \(url.path): \(error)")
        }
    }

    deinit { try? Platform.closeDescriptor(descriptor) }
}

/// A temporary file beside `destination` that replaces it on ``commit()`` and is deleted otherwise.
///
/// On Linux the file is created without a name (`O_TMPFILE`): until the commit links it, no other process can open
/// it, and a crash or `kill -9` leaves nothing behind, not even the verified plaintext of a partly opened file. Only
/// at the commit, once everything verified and was flushed, is it linked under a hidden temporary name and renamed
/// over the destination. Where the file system cannot make unnamed files, a named one from `mkstemp` (mode 0600) is
/// used, removed on failure but left behind by `kill -9`.
final class AtomicFile {
    let descriptor: Int32
    /// The temporary name, for a named file; nil for an unnamed one until it is linked.
    private var temporaryPath: String?
    private let destination: URL
    private var finished = false

    init(replacing destination: URL) throws {
        self.destination = destination
        let directory = destination.deletingLastPathComponent().path
        // O_TMPFILE makes an unnamed regular file in the directory (Linux); elsewhere, or on a file system without
        // it, mkstemp makes a named one with mode 0600.
        if let unnamed = Platform.openUnnamed(inDirectory: directory) {
            self.descriptor = unnamed
            self.temporaryPath = nil
            return
        }
        let made: (descriptor: Int32, path: String)
        do {
            made = try Platform.makeTemporaryFile(template: Self.temporaryTemplate(for: destination))
        } catch {
            throw SealError.ioFailure(
                "cannot create a temporary file next to \(destination.path) (in \(directory)): \(error); check that "
                    + "the directory exists and is writable")
        }
        self.descriptor = made.descriptor
        self.temporaryPath = made.path
    }

    /// `DIR/.NAME.rampart-XXXXXX`: hidden, beside the destination, on its file system.
    private static func temporaryTemplate(for destination: URL) -> String {
        "\(destination.deletingLastPathComponent().path)/.\(destination.lastPathComponent).rampart-XXXXXX"
    }

    /// Gives an unnamed file a hidden temporary name beside the destination (`linkat` through `/proc/self/fd`, as
    /// open(2) describes for O_TMPFILE), retrying another name if one is taken.
    private func linkUnnamed() throws -> String {
        for _ in 0..<16 {
            let suffix = SecureRandom.bytes(count: 6).map { String(format: "%02x", $0) }.joined()
            let name = String(Self.temporaryTemplate(for: destination).dropLast(6)) + suffix
            do {
                try Platform.link(descriptor, to: name)
                return name
            } catch {
                guard error.nameExists else {
                    throw SealError.ioFailure("cannot give the output a name next to \(destination.path): \(error)")
                }
            }
        }
        throw SealError.ioFailure("cannot give the output a name next to \(destination.path): every name tried exists")
    }

    /// Flushes the temporary file to disk, renames it over the destination and flushes the directory, so that after
    /// a crash the destination holds either the old file or the whole new one.
    func commit() throws {
        guard !finished else { return }
        do {
            try Platform.synchronize(descriptor)
        } catch {
            throw SealError.ioFailure(
                "cannot flush the output to disk before moving it to \(destination.path): \(error)")
        }
        let temporaryPath = try self.temporaryPath ?? linkUnnamed()
        self.temporaryPath = temporaryPath
        finished = true
        do {
            try Platform.closeDescriptor(descriptor)
        } catch {
            Platform.remove(temporaryPath)
            throw SealError.ioFailure("closing the output failed: \(error)")
        }
        do {
            try Platform.move(temporaryPath, to: destination.path)
        } catch {
            Platform.remove(temporaryPath)
            throw SealError.ioFailure("cannot move the output into place at \(destination.path): \(error)")
        }
        try Self.flushDirectory(of: destination)
    }

    /// `fsync` of the directory holding `file`, which makes a rename in it durable.
    static func flushDirectory(of file: URL) throws {
        let directory = file.deletingLastPathComponent().path
        let descriptor: Int32
        do {
            descriptor = try Platform.openDirectory(directory)
        } catch {
            throw SealError.ioFailure(
                "the output is at \(file.path) but its directory could not be opened to flush the rename: \(error)")
        }
        defer { try? Platform.closeDescriptor(descriptor) }
        do {
            try Platform.synchronize(descriptor)
        } catch {
            throw SealError.ioFailure("the output is at \(file.path) but flushing its directory failed: \(error)")
        }
    }

    /// Closes and deletes the temporary file, unless it was committed.
    func discard() {
        guard !finished else { return }
        finished = true
        try? Platform.closeDescriptor(descriptor)
        if let temporaryPath { Platform.remove(temporaryPath) }
    }

    deinit { discard() }
}
