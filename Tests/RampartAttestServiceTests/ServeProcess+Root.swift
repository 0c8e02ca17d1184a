import Foundation
import RampartAppAttest
import RampartX509
import TestSupport

/// A `rampart serve` child process for the crash and multi-process tests.
///
/// Starting (reading the startup line) and stopping (waiting for exit) block, so they run on their own threads,
/// never on the cooperative pool the in-process code needs.
final class ServeProcess: @unchecked Sendable {
    let process = Process()
    let port: UInt16
    let adminPort: UInt16

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

    /// Starts `rampart serve --listen 127.0.0.1:0 --json` with `arguments` and waits for its startup line.
    static func start(_ arguments: [String]) async throws -> ServeProcess {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try ServeProcess(arguments) }) }.start()
        }
    }

    private init(_ arguments: [String]) throws {
        guard let binary = Self.binary else { throw ServeProcessError("the rampart binary was not built") }
        process.executableURL = binary
        process.arguments =
            [
                "serve", "--listen", "127.0.0.1:0", "--admin-listen", "127.0.0.1:0", "--subject-header", "X-User-Id",
                "--json",
            ]
            + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The startup line is pretty-printed JSON; read until its closing brace.
        var text = ""
        while !text.contains("}") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { throw ServeProcessError("rampart serve exited before listening") }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let port = Self.port(named: "listening", in: text), let adminPort = Self.port(named: "admin", in: text)
        else { throw ServeProcessError("no port in the startup line: \(text)") }
        self.port = port
        self.adminPort = adminPort
    }

    /// The port of the `"key" : "http://127.0.0.1:PORT"` entry of the startup line.
    private static func port(named key: String, in text: String) -> UInt16? {
        guard let range = text.range(of: #""\#(key)" *: *"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression)
        else { return nil }
        return UInt16(text[range].split(separator: ":").last ?? "")
    }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM) async -> Int32 {
        let process = process
        return await withCheckedContinuation { continuation in
            Thread {
                if process.isRunning { kill(process.processIdentifier, signal) }
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }.start()
        }
    }

    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Writes the simulator's root to a temporary PEM file for `--root`.
    static func writeRoot(of simulator: AppAttestSimulator) throws -> String {
        let path = ScratchDirectory.uniquePath("root.pem")
        let pem = PEMDocument(label: "CERTIFICATE", derBytes: simulator.rootCertificate.derBytes).pemString
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

struct ServeProcessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
