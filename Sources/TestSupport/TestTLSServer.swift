// Process-spawning test support is Linux's: the tests that run on Apple platforms (RampartCryptoTests,
// RampartRequestSigningTests) start no child process, and SpawnedProcess uses glibc's posix_spawn extensions.
#if os(Linux)

internal import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// An `openssl s_server` on 127.0.0.1 and a free port, serving one certificate chain to a bounded number of
/// connections, for tests that need a live TLS server without the network.
///
/// It cannot hang a test run: it runs under `timeout -s KILL` (in its own process group, killed whole after
/// `lifetime` seconds), exits by itself after ``connections`` handshakes (`-naccept`), and ``stop()`` (also called from
/// `deinit`) sends SIGKILL to the group — a signal that a mask inherited from a Dispatch thread cannot block.
public final class TestTLSServer: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let process: SpawnedProcess

    /// Starts a server presenting `certificate` (and `chain`, the intermediates) with `key`.
    ///
    /// - Parameters:
    ///   - certificate: Path of the leaf PEM.
    ///   - key: Path of its private key.
    ///   - chain: Path of a PEM file of intermediates to send, if any.
    ///   - connections: How many connections to serve before exiting.
    ///   - lifetime: Seconds after which the server is killed whatever happens: a guard against a hung run, so far
    ///     beyond what a test takes on a loaded CI machine (a full parallel run kept one waiting more than 60 s).
    /// - Throws: ``PKIError`` when it does not start.
    public init(
        certificate: String, key: String, chain: String? = nil, connections: Int = 1, lifetime: Int = 600
    )
        throws
    {
        var arguments = [
            "-s", "KILL", "\(lifetime)", "/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", certificate,
            "-key", key,
            "-naccept", "\(connections)", "-www",
        ]
        if let chain { arguments += ["-cert_chain", chain] }
        let process = try SpawnedProcess("/usr/bin/timeout", arguments: arguments, standardOutput: .pipe)
        self.process = process
        // s_server prints "ACCEPT 127.0.0.1:PORT" once it listens; EOF means it exited.
        var text = ""
        var found: UInt16?
        while found == nil {
            guard let chunk = process.standardOutput?.availableData else { break }
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
                let colon = line.lastIndex(of: ":")
            {
                found = UInt16(line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }
        }
        guard let found else {
            Self.kill(process)
            throw PKIError(message: "openssl s_server did not start: \(text)")
        }
        port = found
    }

    /// Kills the server.
    public func stop() { Self.kill(process) }

    private static func kill(_ process: SpawnedProcess) {
        // `timeout` made itself the leader of a new process group, so its pid names the group with openssl in it.
        process.signalGroup(SIGKILL)
        process.signal(SIGKILL)
        _ = process.wait()
    }

    deinit { stop() }
}

#endif
