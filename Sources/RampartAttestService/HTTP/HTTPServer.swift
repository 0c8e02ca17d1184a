import Synchronization

/// The HTTP server under `rampart serve`: libmicrohttpd with one thread per connection, bodies capped before they
/// are read, and a graceful stop.
///
/// The server reads a request (refusing a body larger than ``Configuration/maximumBodyByteCount`` with 413 before
/// reading it), hands it to its ``HTTPResponder``, and writes the answer. It never interprets a body itself.
public final class HTTPServer {
    /// Where and how the server listens.
    public struct Configuration: Sendable, Hashable {
        /// The IPv4 or IPv6 address to bind, e.g. `127.0.0.1` or `::1`.
        public var host: String
        /// The TCP port; 0 picks a free one (see ``HTTPServer/port``).
        public var port: UInt16
        /// The largest request body read; larger ones get 413 without being read (a DoS bound).
        public var maximumBodyByteCount: Int
        /// The most simultaneous connections (each holds a thread); more are refused at accept.
        public var connectionLimit: Int
        /// Idle seconds after which a connection is closed (slow-loris bound).
        public var connectionTimeoutSeconds: Int

        /// The default body cap: 64 KiB, far above any App Attest request (attestations are about 5 KiB).
        public static let defaultMaximumBodyByteCount = 64 * 1024

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - host: The address to bind.
        ///   - port: The port, or 0.
        ///   - maximumBodyByteCount: The body cap.
        ///   - connectionLimit: The connection cap.
        ///   - connectionTimeoutSeconds: The idle timeout.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080,
            maximumBodyByteCount: Int = defaultMaximumBodyByteCount, connectionLimit: Int = 256,
            connectionTimeoutSeconds: Int = 30
        ) {
            self.host = host
            self.port = port
            self.maximumBodyByteCount = maximumBodyByteCount
            self.connectionLimit = connectionLimit
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
        }
    }

    let configuration: Configuration
    let responder: any HTTPResponder
    let daemon = Mutex<MicroHTTPDaemon?>(nil)

    /// Creates a stopped server.
    ///
    /// - Parameters:
    ///   - configuration: Address and limits.
    ///   - responder: What answers requests.
    public init(configuration: Configuration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    /// Binds and starts serving on background threads.
    ///
    /// - Throws: ``AttestServiceError`` with ``AttestServiceError/Code/serverFailure`` when the address is invalid
    ///   or in use, or the server is already running.
    public func start() throws {
        try daemon.withLock { daemon in
            guard daemon == nil else { throw AttestServiceError.serverFailure("the server is already running") }
            daemon = try MicroHTTPDaemon(configuration: configuration, responder: responder)
        }
    }

    /// The bound port (the chosen one when ``Configuration/port`` was 0), or nil when stopped.
    public var port: UInt16? { daemon.withLock { $0?.port } }

    /// Stops accepting connections, waits for requests in flight to be answered, and releases the socket.
    public func stop() {
        let running = daemon.withLock { daemon -> MicroHTTPDaemon? in
            defer { daemon = nil }
            return daemon
        }
        running?.stop()
    }
}

extension HTTPServer: Sendable {}
