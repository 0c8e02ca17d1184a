import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A `rampart serve` child process (the built binary), for tests that drive a running server from the command line.
///
/// Starting (reading the startup line) and stopping (waiting for exit) block, so they run on their own threads,
/// never on the cooperative pool.
final class ServeChild: @unchecked Sendable {
    let process = Process()
    let port: UInt16

    /// The `rampart` binary next to the test bundle, or nil when it was not built.
    static let binary: URL? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? "").deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("rampart")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    static var available: Bool { binary != nil }

    /// Starts `rampart serve --listen 127.0.0.1:0 --admin-listen 127.0.0.1:0 --json` with `arguments`.
    static func start(_ arguments: [String]) async throws -> ServeChild {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try ServeChild(arguments) }) }.start()
        }
    }

    private init(_ arguments: [String]) throws {
        guard let binary = Self.binary else { throw ServeChildError("the rampart binary was not built") }
        process.executableURL = binary
        process.arguments = ["serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--json"] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while !text.contains("}") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw ServeChildError("rampart serve exited before listening") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard
            let range = text.range(
                of: #""listening" *: *"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression),
            let port = UInt16(text[range].split(separator: ":").last ?? "")
        else { throw ServeChildError("no port in the startup line: \(text)") }
        self.port = port
    }

    /// Sends SIGTERM and waits for the process to end; returns its exit status.
    @discardableResult
    func stop() async -> Int32 {
        let process = process
        return await withCheckedContinuation { continuation in
            Thread {
                if process.isRunning { kill(process.processIdentifier, SIGTERM) }
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }.start()
        }
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
}

struct ServeChildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
