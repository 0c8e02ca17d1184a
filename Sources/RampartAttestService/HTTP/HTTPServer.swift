import Synchronization

/// The HTTP server under `rampart serve`: a connection gate that checks every request head's framing (on kept-alive
/// and pipelined connections too) and bounds slow clients, libmicrohttpd behind it on a thread pool with epoll,
/// bodies capped before they are read, and a graceful stop.
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
        /// The most simultaneous connections, however far each has got; more are closed at accept. Lowered at start
        /// to what the process may open (``HTTPServer/start()`` raises the soft `RLIMIT_NOFILE` to the hard one).
        ///
        /// No connection costs a thread: the gate polls every socket with epoll, libmicrohttpd's pool (one thread per
        /// core) polls the requests handed to it, and a request being answered leaves its connection suspended.
        public var connectionLimit: Int
        /// The most simultaneous connections from one client address (IP), 0 for no limit. Behind a reverse proxy
        /// every connection comes from the proxy: raise this, or set 0 and let the proxy limit clients.
        public var connectionsPerAddress: Int
        /// Seconds a request has to arrive whole (head and body), counted from its connection's accept for the first
        /// request and from its own first byte for later ones on a kept-alive connection. Bytes that trickle in do
        /// not extend it (a slow-loris bound); a late request is answered 408 while its head is incomplete, and its
        /// connection is shut down when its body is late.
        public var requestTimeoutSeconds: Double
        /// The largest request head (request line and headers); a larger one is answered 431.
        public var maximumHeadByteCount: Int
        /// Seconds a kept-alive connection may sit idle between requests, and a client may leave its answer unread,
        /// before the connection is closed.
        public var connectionTimeoutSeconds: Int

        /// The default body cap: 64 KiB, far above any App Attest request (attestations are about 5 KiB).
        public static let defaultMaximumBodyByteCount = 64 * 1024
        /// The default connection limit.
        public static let defaultConnectionLimit = 4096
        /// The default per-address connection limit.
        public static let defaultConnectionsPerAddress = 64
        /// The default time for a whole request to arrive: 10 seconds.
        public static let defaultRequestTimeoutSeconds = 10.0
        /// The default head cap: 16 KiB (libmicrohttpd holds a head in a 32 KiB buffer).
        public static let defaultMaximumHeadByteCount = 16 * 1024

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - host: The address to bind.
        ///   - port: The port, or 0.
        ///   - maximumBodyByteCount: The body cap.
        ///   - connectionLimit: The connection cap.
        ///   - connectionsPerAddress: The per-address connection cap, 0 for none.
        ///   - requestTimeoutSeconds: The time for a whole request to arrive.
        ///   - maximumHeadByteCount: The head cap.
        ///   - connectionTimeoutSeconds: The idle timeout once libmicrohttpd holds a connection.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080,
            maximumBodyByteCount: Int = defaultMaximumBodyByteCount, connectionLimit: Int = defaultConnectionLimit,
            connectionsPerAddress: Int = defaultConnectionsPerAddress,
            requestTimeoutSeconds: Double = defaultRequestTimeoutSeconds,
            maximumHeadByteCount: Int = defaultMaximumHeadByteCount, connectionTimeoutSeconds: Int = 30
        ) {
            self.host = host
            self.port = port
            self.maximumBodyByteCount = maximumBodyByteCount
            self.connectionLimit = connectionLimit
            self.connectionsPerAddress = connectionsPerAddress
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.maximumHeadByteCount = maximumHeadByteCount
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
