internal import CNetwork
import Foundation
import Synchronization

/// The HTTP/1.1 server under `rampart serve`: one thread with one epoll ``EventLoop`` that reads every connection,
/// an ``HTTPConnectionStateMachine`` per connection that checks and parses every request head once (on kept-alive and
/// pipelined connections too), bounds slow clients and caps bodies before they are read, and the responder's answers
/// computed on Swift tasks, which hand them back to the loop: only the loop writes to a socket.
///
/// The server reads a request (refusing a body larger than ``Configuration/maximumBodyByteCount`` with 413 before
/// reading it), hands it to its ``HTTPResponder``, and writes the answer. It never interprets a body itself.
/// Connections stay open between requests (HTTP/1.1 keep-alive; HTTP/1.0 with `Connection: keep-alive`); pipelined
/// requests are answered one after the other, in order. No connection costs a thread.
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
        /// No connection costs a thread: the event loop polls every socket with epoll, and a connection whose request
        /// is being answered waits as state in the epoll set.
        public var connectionLimit: Int
        /// The most simultaneous connections from one client address (IP), 0 for no limit. The addresses in
        /// ``proxyAddresses`` are exempt: every connection of a reverse proxy comes from its one address.
        public var connectionsPerAddress: Int
        /// The reverse proxies' addresses (as ``HTTPRequest/remoteAddress`` spells them), whose connections carry
        /// many clients' requests: ``connectionsPerAddress`` does not apply to them, ``connectionLimit`` does. A
        /// burst of 400 requests through nginx's `auth_request` opened 400 connections from 127.0.0.1, and each
        /// one over the per-address cap was closed at accept, which nginx answered 500.
        public var proxyAddresses: Set<String>
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
        /// The default head cap: 16 KiB.
        public static let defaultMaximumHeadByteCount = 16 * 1024

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - host: The address to bind.
        ///   - port: The port, or 0.
        ///   - maximumBodyByteCount: The body cap.
        ///   - connectionLimit: The connection cap.
        ///   - connectionsPerAddress: The per-address connection cap, 0 for none.
        ///   - proxyAddresses: The reverse proxies' addresses, exempt from the per-address cap.
        ///   - requestTimeoutSeconds: The time for a whole request to arrive.
        ///   - maximumHeadByteCount: The head cap.
        ///   - connectionTimeoutSeconds: The idle timeout between requests, and for a client not reading its answers.
        public init(
            host: String = "127.0.0.1", port: UInt16 = 8080,
            maximumBodyByteCount: Int = defaultMaximumBodyByteCount, connectionLimit: Int = defaultConnectionLimit,
            connectionsPerAddress: Int = defaultConnectionsPerAddress, proxyAddresses: Set<String> = [],
            requestTimeoutSeconds: Double = defaultRequestTimeoutSeconds,
            maximumHeadByteCount: Int = defaultMaximumHeadByteCount, connectionTimeoutSeconds: Int = 30
        ) {
            self.host = host
            self.port = port
            self.maximumBodyByteCount = maximumBodyByteCount
            self.connectionLimit = connectionLimit
            self.connectionsPerAddress = connectionsPerAddress
            self.proxyAddresses = proxyAddresses
            self.requestTimeoutSeconds = requestTimeoutSeconds
            self.maximumHeadByteCount = maximumHeadByteCount
            self.connectionTimeoutSeconds = connectionTimeoutSeconds
        }
    }

    let configuration: Configuration
    let responder: any HTTPResponder
    let running = Mutex<Running?>(nil)

    /// A started server's loop and what its connections share.
    struct Running: Sendable {
        let loop: EventLoop<HTTPChannelHandler>
        let shared: HTTPChannelHandler.Shared
    }

    /// Creates a stopped server.
    ///
    /// - Parameters:
    ///   - configuration: Address and limits.
    ///   - responder: What answers requests.
    public init(configuration: Configuration, responder: any HTTPResponder) {
        self.configuration = configuration
        self.responder = responder
    }

    /// Binds and starts serving on a background thread.
    ///
    /// - Throws: ``HTTPServerError`` with ``HTTPServerError/Code/serverFailure`` when the address is invalid
    ///   or in use, or the server is already running.
    public func start() throws {
        try running.withLock { running in
            guard running == nil else { throw HTTPServerError.serverFailure("the server is already running") }
            let (listener, port) = try Self.listen(host: configuration.host, port: configuration.port)
            let shared = HTTPChannelHandler.Shared(
                responder: responder,
                limits: HTTPConnectionStateMachine.Limits(
                    maximumHeadByteCount: configuration.maximumHeadByteCount,
                    maximumBodyByteCount: configuration.maximumBodyByteCount,
                    requestTimeout: .milliseconds(Int(configuration.requestTimeoutSeconds * 1000)),
                    idleTimeout: .seconds(max(1, configuration.connectionTimeoutSeconds))),
                refusalResponse: { [configuration] in $0.response(configuration) })
            do throws(EventLoopError) {
                // The port in the thread's name (15 characters at most on Linux: "http:65535" fits).
                let loop = try EventLoop<HTTPChannelHandler>(
                    listener: listener, port: port, name: "http:\(port)",
                    admission: .init(
                        connectionLimit: Self.connectionLimit(configured: configuration.connectionLimit),
                        connectionsPerAddress: configuration.connectionsPerAddress,
                        exemptAddresses: configuration.proxyAddresses)
                ) { channel in
                    HTTPChannelHandler(channel: channel, shared: shared)
                }
                shared.loop.withLock { $0 = loop }
                running = Running(loop: loop, shared: shared)
            } catch {
                close(listener)
                throw HTTPServerError.serverFailure(error.reason)
            }
        }
    }

    /// The bound port (the chosen one when ``Configuration/port`` was 0), or nil when stopped.
    public var port: UInt16? { running.withLock { $0?.loop.port } }

    /// Stops accepting connections, waits for requests in flight to be answered (up to ten seconds), and releases
    /// the socket.
    public func stop() {
        let stopped = running.withLock { running -> Running? in
            defer { running = nil }
            return running
        }
        stopped?.loop.stop()
        stopped?.shared.loop.withLock { $0 = nil }
    }
}

/// The bridge between the ``EventLoop`` and one connection's ``HTTPConnectionStateMachine``: feeds it the loop's
/// events, performs its actions on the ``Channel``, and runs each dispatched request on a task whose answer comes
/// back through the loop.
final class HTTPChannelHandler: ChannelHandler {
    /// What every connection of one server shares.
    final class Shared: Sendable {
        let responder: any HTTPResponder
        let limits: HTTPConnectionStateMachine.Limits
        let refusalResponse: @Sendable (HTTPRefusal) -> HTTPResponse
        let writer = ResponseWriter()
        /// The loop, for the tasks to hand answers back; nil once stopped.
        let loop = Mutex<EventLoop<HTTPChannelHandler>?>(nil)
        /// How many bytes of request heads have been examined: each byte once, however slowly its head arrives.
        let examinedHeadBytes = Atomic<Int>(0)

        init(
            responder: any HTTPResponder, limits: HTTPConnectionStateMachine.Limits,
            refusalResponse: @escaping @Sendable (HTTPRefusal) -> HTTPResponse
        ) {
            self.responder = responder
            self.limits = limits
            self.refusalResponse = refusalResponse
        }
    }

    typealias Message = HTTPResponse

    private let shared: Shared
    private var state: HTTPConnectionStateMachine

    init(channel: Channel, shared: Shared) {
        self.shared = shared
        state = HTTPConnectionStateMachine(
            limits: shared.limits, peerAddress: channel.peerAddress, writer: shared.writer,
            refusalResponse: shared.refusalResponse, at: .now)
    }

    var wantsBytes: Bool { state.wantsBytes }

    func received(_ bytes: ArraySlice<UInt8>, on channel: Channel, at now: ContinuousClock.Instant) {
        let examinedBefore = state.examinedHeadByteCount
        let actions = state.bytesReceived(bytes, at: now)
        shared.examinedHeadBytes.add(state.examinedHeadByteCount - examinedBefore, ordering: .relaxed)
        perform(actions, on: channel)
    }

    func peerClosed(on channel: Channel, at now: ContinuousClock.Instant) {
        perform(state.peerClosed(at: now), on: channel)
    }

    func sent(_ byteCount: Int, on channel: Channel, at now: ContinuousClock.Instant) {
        perform(state.bytesSent(byteCount, at: now), on: channel)
    }

    func received(message: HTTPResponse, on channel: Channel, at now: ContinuousClock.Instant) {
        perform(state.answerReady(message, at: now), on: channel)
    }

    func tick(on channel: Channel, at now: ContinuousClock.Instant) {
        perform(state.tick(at: now), on: channel)
    }

    func stop(on channel: Channel, at now: ContinuousClock.Instant) {
        perform(state.stop(at: now), on: channel)
    }

    private func perform(_ actions: [HTTPConnectionStateMachine.Action], on channel: Channel) {
        for action in actions {
            switch action {
            case .write(let bytes): channel.write(bytes)
            case .closeGracefully: channel.closeGracefully()
            case .close: channel.close()
            case .dispatch(let request): dispatch(request, for: channel.id)
            }
        }
    }

    private func dispatch(_ request: HTTPRequest, for id: UInt64) {
        let shared = self.shared
        Task(priority: .high) {
            let response = await shared.responder.respond(to: request)
            shared.loop.withLock { $0 }?.deliver(response, to: id)
        }
    }
}

extension HTTPServer {
    /// The most connections to admit: the configured number, within what the process may open.
    ///
    /// Each connection is one file descriptor, so the soft `RLIMIT_NOFILE` is first raised to the hard limit; 64
    /// descriptors stay free for the store, logs and the listening sockets.
    static func connectionLimit(configured: Int) -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return configured }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let available = Int(clamping: limits.rlim_cur) - 64
        return max(1, min(configured, available))
    }

    /// A bound, listening, non-blocking socket on `host`:`port`, and the port it got.
    static func listen(host: String, port: UInt16) throws -> (Int32, UInt16) {
        let isIPv6 = host.contains(":")
        let family = isIPv6 ? AF_INET6 : AF_INET
        let listener = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw HTTPServerError.serverFailure("could not create a socket") }
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isIPv6 {
            _ = setsockopt(listener, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                close(listener)
                throw HTTPServerError.serverFailure("'\(host)' is not an IPv6 address; use e.g. ::1 or 127.0.0.1")
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                close(listener)
                throw HTTPServerError.serverFailure(
                    "'\(host)' is not an IPv4 address; use e.g. 127.0.0.1 or 0.0.0.0")
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0, Foundation.listen(listener, 1024) == 0 else {
            close(listener)
            throw HTTPServerError.serverFailure(
                "could not listen on \(host):\(port); is the port in use or privileged?")
        }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let boundPort = withUnsafePointer(to: &local) { pointer in
            isIPv6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
        }
        return (listener, boundPort)
    }
}

extension HTTPServer: Sendable {}
