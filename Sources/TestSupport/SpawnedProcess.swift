// Process-spawning test support is Linux's: the tests that run on Apple platforms (RampartCryptoTests,
// RampartRequestSigningTests) start no child process, and SpawnedProcess uses glibc's posix_spawn extensions.
#if os(Linux)

public import Foundation
internal import Synchronization

#if canImport(Glibc)
internal import Glibc
#endif

/// A child process started with `posix_spawn`, for tests that run a tool, a helper or a built binary.
///
/// Tests never use `Foundation.Process` to start one. On Linux its `run()` lists `/proc/self/fd` and copies each
/// entry's whole 256-byte name field, past the record's end (swift-corelibs-foundation PR 5472). When the test process
/// holds more than about 1,350 descriptors (the slow-client tests alone hold 600 sockets), that copy can run off the
/// end of glibc's directory buffer and the whole test process dies of SIGSEGV.
///
/// The child starts with only the descriptors it is given (every other one is closed in it), an empty signal mask and
/// every signal at its default action, so a mask or an ignored SIGPIPE of the test's thread is not inherited. It is
/// killed and reaped when the value goes away while it still runs.
public final class SpawnedProcess: Sendable {
    /// Where the child's standard input comes from.
    public enum Input: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe; the parent writes to ``SpawnedProcess/standardInput``.
        case pipe
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// `/dev/null`.
        case null
        /// A pipe; the parent reads ``SpawnedProcess/standardOutput`` or ``SpawnedProcess/standardError``.
        case pipe
        /// A file at this path, created or truncated.
        case file(String)
        /// The test process's own stream, so a helper's diagnostics show in the test log.
        case inherit
    }

    /// How the child ended.
    public enum Termination: Sendable, Equatable, CustomStringConvertible {
        /// It exited with this status.
        case exited(Int32)
        /// A signal of this number ended it.
        case signalled(Int32)

        /// The status a shell reports: the exit status, or 128 plus the signal's number.
        public var status: Int32 {
            switch self {
            case .exited(let code): code
            case .signalled(let signal): 128 + signal
            }
        }

        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .signalled(let signal): "ended by signal \(signal)"
            }
        }
    }

    /// What ``run(_:_:environment:directory:input:)`` collected.
    public struct Completed: Sendable {
        /// How the child ended.
        public let termination: Termination
        /// Everything it wrote to standard output.
        public let stdout: [UInt8]
        /// Everything it wrote to standard error.
        public let stderr: [UInt8]

        /// Standard output as UTF-8 text.
        public var text: String { String(decoding: stdout, as: UTF8.self) }
        /// Standard error as UTF-8 text.
        public var errorText: String { String(decoding: stderr, as: UTF8.self) }
    }

    /// The child's process id. It names the child until it is reaped, which only ``isRunning``, ``wait()`` and
    /// ``exited()`` do.
    public let pid: pid_t
    /// The writing end of the child's standard input, for ``Input/pipe``.
    public let standardInput: FileHandle?
    /// The reading end of the child's standard output, for ``Output/pipe``.
    public let standardOutput: FileHandle?
    /// The reading end of the child's standard error, for ``Output/pipe``.
    public let standardError: FileHandle?
    /// How it ended, once reaped. Reaping happens only under this lock, so a signal sent under it cannot reach a
    /// process that reused the pid.
    private let ending = Mutex<Termination?>(nil)

    /// Starts `executable`.
    ///
    /// - Parameters:
    ///   - executable: An absolute path.
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The whole environment; nil for the test process's own.
    ///   - directory: The working directory; nil for the test process's own.
    ///   - standardInput: Where standard input comes from.
    ///   - standardOutput: Where standard output goes.
    ///   - standardError: Where standard error goes.
    ///   - newProcessGroup: Whether the child leads a new process group, so ``signalGroup(_:)`` reaches whatever it
    ///     starts.
    /// - Throws: ``SpawnError`` when a pipe or the spawn fails.
    public init(
        _ executable: String, arguments: [String] = [], environment: [String: String]? = nil,
        directory: String? = nil, standardInput: Input = .null, standardOutput: Output = .null,
        standardError: Output = .null, newProcessGroup: Bool = false
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var childEnds: [Int32] = []
        defer { for descriptor in childEnds { close(descriptor) } }
        var parentEnds: [FileHandle?] = [nil, nil, nil]
        switch standardInput {
        case .null: posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        case .pipe:
            let (read, write) = try Self.pipe()
            childEnds.append(read)
            parentEnds[0] = FileHandle(fileDescriptor: write, closeOnDealloc: true)
            posix_spawn_file_actions_adddup2(&actions, read, 0)
        }
        for (target, output) in [(Int32(1), standardOutput), (Int32(2), standardError)] {
            switch output {
            case .null: posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
            case .inherit: break
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            case .pipe:
                let (read, write) = try Self.pipe()
                childEnds.append(write)
                parentEnds[Int(target)] = FileHandle(fileDescriptor: read, closeOnDealloc: true)
                posix_spawn_file_actions_adddup2(&actions, write, target)
            }
        }
        if let directory {
            guard let addChdir = Self.addChdir else {
                throw SpawnError("this C library has no posix_spawn_file_actions_addchdir_np (glibc 2.29 or later)")
            }
            _ = directory.withCString { addChdir(&actions, $0) }
        }
        guard let addClosefrom = Self.addClosefrom else {
            throw SpawnError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        _ = addClosefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var flags = Int32(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&attributes, 0)
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        sigdelset(&signals, SIGKILL)
        sigdelset(&signals, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &signals)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?]? = environment.map {
            $0.map { strdup("\($0.key)=\($0.value)") } + [nil]
        }
        defer { for pointer in argv + (envp ?? []) { free(pointer) } }
        var pid: pid_t = 0
        let spawned: Int32
        if let envp {
            spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        } else {
            spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        }
        guard spawned == 0 else {
            throw SpawnError("could not start \(executable): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        self.standardInput = parentEnds[0]
        self.standardOutput = parentEnds[1]
        self.standardError = parentEnds[2]
    }

    /// Runs `executable` to its end, writing `input` to its standard input and collecting both outputs.
    ///
    /// - Parameters:
    ///   - executable: An absolute path.
    ///   - arguments: The arguments after the program's name.
    ///   - environment: The whole environment; nil for the test process's own.
    ///   - directory: The working directory; nil for the test process's own.
    ///   - input: What to write to standard input before closing it; nil for `/dev/null`.
    /// - Returns: How it ended and what it wrote.
    /// - Throws: ``SpawnError`` when it cannot be started.
    public static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: String? = nil, input: [UInt8]? = nil
    ) throws -> Completed {
        let child = try SpawnedProcess(
            executable, arguments: arguments, environment: environment, directory: directory,
            standardInput: input == nil ? .null : .pipe, standardOutput: .pipe, standardError: .pipe)
        // Standard input and standard error on their own threads, so that a child filling one pipe while the test
        // waits on another cannot deadlock.
        let writer = Collected {
            if let input, let handle = child.standardInput {
                try? handle.write(contentsOf: input)
                try? handle.close()
            }
            return []
        }
        let errors = Collected { child.standardError.map { Array($0.readDataToEndOfFile()) } ?? [] }
        let stdout = child.standardOutput.map { Array($0.readDataToEndOfFile()) } ?? []
        let stderr = errors.value()
        _ = writer.value()
        return Completed(termination: child.wait(), stdout: stdout, stderr: stderr)
    }

    /// Whether the child has not ended yet; reaps it when it has.
    public var isRunning: Bool {
        ending.withLock { ending in
            if ending == nil { ending = Self.reap(pid, blocking: false) }
            return ending == nil
        }
    }

    /// Sends `signal` to the child, unless it was already reaped.
    ///
    /// - Parameter signal: For example `SIGTERM`.
    public func signal(_ signal: Int32) {
        ending.withLock { ending in
            if ending == nil { _ = kill(pid, signal) }
        }
    }

    /// Sends `signal` to the child's process group (see `newProcessGroup`), even after the child was reaped: what it
    /// left running in the background is still in the group, and Linux does not hand out a pid that still names a
    /// process group.
    ///
    /// - Parameter signal: For example `SIGKILL`.
    public func signalGroup(_ signal: Int32) {
        _ = kill(-pid, signal)
    }

    /// Waits for the child to end, blocking the calling thread; call it from a thread of its own (or ``exited()``)
    /// rather than the cooperative pool.
    ///
    /// - Returns: How it ended.
    public func wait() -> Termination {
        while true {
            if let ended = ending.withLock({ ending -> Termination? in
                if ending == nil { ending = Self.reap(pid, blocking: false) }
                return ending
            }) {
                return ended
            }
            // Wait for the exit without reaping, so that reaping stays under the lock.
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
        }
    }

    /// Waits on a thread of its own for the child to end.
    ///
    /// - Returns: How it ended.
    public func exited() async -> Termination {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: self.wait()) }.start()
        }
    }

    /// Sends `signal`, waits up to `seconds` for the end, then sends SIGKILL and waits for it.
    ///
    /// - Parameters:
    ///   - signal: The first signal.
    ///   - seconds: How long the child has to end after it.
    /// - Returns: How it ended.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, within seconds: Double = 5) async -> Termination {
        await withCheckedContinuation { continuation in
            Thread {
                self.signal(signal)
                let deadline = Date().addingTimeInterval(seconds)
                while self.isRunning, Date() < deadline { usleep(10_000) }
                self.signal(SIGKILL)
                continuation.resume(returning: self.wait())
            }.start()
        }
    }

    deinit {
        signal(SIGKILL)
        _ = wait()
    }

    /// The child's ending, if it has ended: reaps it. A child reaped elsewhere (`ECHILD`) is reported as exiting
    /// with status -1.
    private static func reap(_ pid: pid_t, blocking: Bool) -> Termination? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, blocking ? 0 : WNOHANG)
            if result == pid { break }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            return .exited(-1)
        }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }

    private static func pipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [0, 0]
        // Swift's Glibc module has no pipe2; the window before FD_CLOEXEC is set matters to no child of a test,
        // since every spawn here closes all but the descriptors it is given.
        guard Glibc.pipe(&descriptors) == 0 else {
            throw SpawnError("could not create a pipe: \(String(cString: strerror(errno)))")
        }
        for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        return (descriptors[0], descriptors[1])
    }

    private typealias FileAction = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private typealias PathAction =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare (it needs
    /// `_GNU_SOURCE`).
    private static let addClosefrom: FileAction? = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np").map {
        unsafeBitCast($0, to: FileAction.self)
    }

    /// glibc's `posix_spawn_file_actions_addchdir_np`, likewise.
    private static let addChdir: PathAction? = dlsym(nil, "posix_spawn_file_actions_addchdir_np").map {
        unsafeBitCast($0, to: PathAction.self)
    }
}

/// A child process could not be started.
public struct SpawnError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    /// Creates the error.
    ///
    /// - Parameter description: What failed.
    public init(_ description: String) { self.description = description }
}

/// Bytes a thread collects for a caller that waits for them.
private final class Collected: Sendable {
    private let bytes = Mutex<[UInt8]>([])
    private let done = DispatchSemaphore(value: 0)

    /// Runs `body` on a thread of its own.
    init(_ body: @escaping @Sendable () -> [UInt8]) {
        Thread { [self] in
            let result = body()
            bytes.withLock { $0 = result }
            done.signal()
        }.start()
    }

    /// Waits for the thread's bytes.
    func value() -> [UInt8] {
        done.wait()
        return bytes.withLock { $0 }
    }
}

#endif
