// Process-spawning test support is Linux's: the tests that run on Apple platforms (RampartCryptoTests,
// RampartRequestSigningTests) start no child process, and SpawnedProcess uses glibc's posix_spawn extensions.
#if os(Linux)

public import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// A `rampart serve` child process (the built binary), for tests that drive a running server from outside: the
/// command line, the crash and the multi-process tests.
///
/// Starting (reading the startup line) and stopping (waiting for exit) block, so they run on their own threads,
/// never on the cooperative pool the in-process code needs.
public final class ServeProcess: Sendable {
    /// The child process.
    public let process: SpawnedProcess
    /// The port of the public listener.
    public let port: UInt16
    /// The port of the admin listener.
    public let adminPort: UInt16

    /// The `rampart` binary next to the test bundle, or nil when it was not built.
    public static let binary: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("rampart")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    /// Whether the `rampart` binary was built, for `.enabled(if:)`.
    public static var available: Bool { binary != nil }

    /// Starts `rampart serve --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --json` with `arguments` and waits for
    /// its startup line.
    ///
    /// - Parameter arguments: The options after those.
    /// - Returns: The running process, with the ports from its startup line.
    /// - Throws: ``ServeProcessError`` when the binary was not built, or the process exits or prints no ports.
    public static func start(_ arguments: [String]) async throws -> ServeProcess {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try ServeProcess(arguments) }) }.start()
        }
    }

    private init(_ arguments: [String]) throws {
        guard let binary = Self.binary else { throw ServeProcessError("the rampart binary was not built") }
        process = try SpawnedProcess(
            binary.path,
            arguments: ["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--json"] + arguments,
            standardOutput: .pipe)
        guard let output = process.standardOutput else { throw ServeProcessError("no pipe from rampart serve") }
        // The startup line is pretty-printed JSON; read until its closing brace.
        var text = ""
        while !text.contains("}") {
            let chunk = output.availableData
            if chunk.isEmpty { throw ServeProcessError("rampart serve exited before listening") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = Self.port(named: "listening", in: text), let adminPort = Self.port(named: "admin", in: text)
        else { throw ServeProcessError("no port in the startup line: \(text)") }
        self.port = port
        self.adminPort = adminPort
    }

    /// The port of the `"key" : "http://127.0.0.1:PORT"` entry of a startup line.
    ///
    /// - Parameters:
    ///   - key: `listening` or `admin`.
    ///   - text: The startup line.
    /// - Returns: The port, or nil when the entry is not there.
    public static func port(named key: String, in text: String) -> UInt16? {
        guard let range = text.range(of: #""\#(key)" *: *"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression)
        else { return nil }
        return UInt16(text[range].split(separator: ":").last ?? "")
    }

    /// Sends SIGTERM and waits for the process to end.
    ///
    /// - Returns: The exit status.
    @discardableResult
    public func stop() async -> Int32 {
        await stop(signal: SIGTERM)
    }

    /// Sends `signal` and waits for the process to end.
    ///
    /// - Parameter signal: For example `SIGKILL`.
    /// - Returns: The exit status, or the number of the signal that ended it.
    @discardableResult
    public func stop(signal: Int32) async -> Int32 {
        process.signal(signal)
        return switch await process.exited() {
        case .exited(let code): code
        case .signalled(let number): number
        }
    }
}

/// A child process that did not start as a test needed.
public struct ServeProcessError: Error, CustomStringConvertible {
    /// What failed.
    public let description: String

    /// Creates the error.
    ///
    /// - Parameter description: What failed.
    public init(_ description: String) { self.description = description }
}

#endif
