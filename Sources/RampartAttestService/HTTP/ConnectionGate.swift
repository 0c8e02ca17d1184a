internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// Every connection the server holds, by socket: its client address and the instant by which its request must have
/// arrived. Shared by the gate (which accepts) and libmicrohttpd's callbacks (which see requests end).
final class ConnectionTable: Sendable {
    struct Entry {
        let address: String
        /// Headers and body must have arrived by then; nil once the request is in (or the socket was shut down).
        var deadline: ContinuousClock.Instant?
        /// Whether libmicrohttpd owns the socket now.
        var handedOff = false
    }

    private struct State {
        var entries: [Int32: Entry] = [:]
        var perAddress: [String: Int] = [:]
    }

    private let state = Mutex(State())

    /// The number of connections held (waiting for their head, or with libmicrohttpd).
    var count: Int { state.withLock { $0.entries.count } }

    /// Records a new connection unless a limit is reached; returns whether it was admitted.
    func admit(
        _ socket: Int32, address: String, deadline: ContinuousClock.Instant, total: Int, perAddress: Int
    )
        -> Bool
    {
        state.withLock { state in
            let fromAddress = state.perAddress[address, default: 0]
            guard state.entries.count < total, perAddress == 0 || fromAddress < perAddress else { return false }
            state.entries[socket] = Entry(address: address, deadline: deadline)
            state.perAddress[address] = fromAddress + 1
            return true
        }
    }

    /// Forgets a connection (closed by the gate, or by libmicrohttpd); safe to call twice.
    func remove(_ socket: Int32) {
        state.withLock { state in
            guard let entry = state.entries.removeValue(forKey: socket) else { return }
            let left = state.perAddress[entry.address, default: 1] - 1
            state.perAddress[entry.address] = left > 0 ? left : nil
        }
    }

    /// Marks a connection as owned by libmicrohttpd; its deadline still runs until the body is in.
    func handOff(_ socket: Int32) { state.withLock { $0.entries[socket]?.handedOff = true } }

    /// The whole request (head and body) has arrived: no deadline from now on.
    func requestReceived(_ socket: Int32) { state.withLock { $0.entries[socket]?.deadline = nil } }

    /// Past their deadline at `now`: returns the sockets the gate still holds (removed from the table, for the gate
    /// to answer and close), and shuts down, with shutdown(2), those libmicrohttpd holds.
    ///
    /// The shutdown happens under the table's lock, and libmicrohttpd reports a connection closed (which removes it
    /// here) before it closes the socket, so a socket number is never shut down after it was reused.
    func expire(at now: ContinuousClock.Instant) -> [Int32] {
        state.withLock { state in
            var gateHeld: [Int32] = []
            for (socket, entry) in state.entries {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                if entry.handedOff {
                    // libmicrohttpd's thread sees end-of-file, fails the request and closes the socket.
                    _ = shutdown(socket, Int32(SHUT_RDWR))
                    state.entries[socket]?.deadline = nil
                } else {
                    gateHeld.append(socket)
                }
            }
            for socket in gateHeld {
                if let entry = state.entries.removeValue(forKey: socket) {
                    let left = state.perAddress[entry.address, default: 1] - 1
                    state.perAddress[entry.address] = left > 0 ? left : nil
                }
            }
            return gateHeld
        }
    }

    /// The sockets the gate still holds (for closing them at shutdown), removed from the table.
    func removeGateHeld() -> [Int32] {
        state.withLock { state in
            let held = state.entries.filter { !$0.value.handedOff }.map(\.key)
            for socket in held { state.entries[socket] = nil }
            state.perAddress = [:]
            for entry in state.entries.values { state.perAddress[entry.address, default: 0] += 1 }
            return held
        }
    }
}

/// The front of ``HTTPServer``: one thread that accepts every connection, holds it until its request head has
/// arrived, checks the head's framing (``RequestHead``), and only then hands the socket to libmicrohttpd.
///
/// A client that trickles its head therefore costs one socket and no thread, and is closed when
/// ``HTTPServer/Configuration/requestTimeoutSeconds`` runs out however often it sends a byte (libmicrohttpd's own
/// timeout restarts with every byte). The same deadline covers the body once libmicrohttpd has the connection. The
/// gate also enforces the connection limits: ``HTTPServer/Configuration/connectionLimit`` in all and
/// ``HTTPServer/Configuration/connectionsPerAddress`` per client address; a connection over either is closed at once.
///
/// The gate only peeks at the bytes (`MSG_PEEK`), so libmicrohttpd reads the request from the start. Every answer
/// carries `Connection: close`, so each request on the wire passes the gate.
final class ConnectionGate: Sendable {
    private let listener: Int32
    private let epoll: Int32
    private let configuration: HTTPServer.Configuration
    private let connectionLimit: Int
    private let table: ConnectionTable
    private let handOff: @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the gate's thread on `listener`, a bound, listening, non-blocking socket it now owns.
    init(
        listener: Int32, configuration: HTTPServer.Configuration, connectionLimit: Int, table: ConnectionTable,
        handOff: @escaping @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
    ) throws {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0, CMicroHTTPD_epoll_add(epoll, listener) == 0 else {
            if epoll >= 0 { close(epoll) }
            throw AttestServiceError.serverFailure("could not watch the listening socket (epoll failed)")
        }
        self.listener = listener
        self.epoll = epoll
        self.configuration = configuration
        self.connectionLimit = connectionLimit
        self.table = table
        self.handOff = handOff
        let thread = Thread { [self] in run() }
        thread.name = "rampart.http.gate"
        thread.start()
    }

    /// Stops accepting, closes the listening socket and every connection still waiting for its head, and returns
    /// once the gate's thread has ended. Connections libmicrohttpd holds are left to it.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }

    /// How often the gate wakes to enforce deadlines when nothing arrives.
    private static let tickMilliseconds: Int32 = 50

    private func run() {
        var ready = [Int32](repeating: -1, count: 256)
        var hungUp = [Int32](repeating: 0, count: 256)
        var buffer = [UInt8](repeating: 0, count: configuration.maximumHeadByteCount + 1)
        while !stopping.load(ordering: .acquiring) {
            let count = ready.withUnsafeMutableBufferPointer { sockets in
                hungUp.withUnsafeMutableBufferPointer {
                    CMicroHTTPD_epoll_wait(
                        epoll, sockets.baseAddress, $0.baseAddress, Int32(sockets.count), Self.tickMilliseconds)
                }
            }
            for index in 0..<Int(max(count, 0)) {
                let socket = ready[index]
                if socket == listener { acceptAll() } else { examine(socket, &buffer, hungUp: hungUp[index] != 0) }
            }
            for socket in table.expire(at: .now) {
                _ = CMicroHTTPD_epoll_remove(epoll, socket)
                answer(
                    socket, status: 408, reason: "Request Timeout", code: .requestTimeout,
                    message: "the request did not arrive within \(configuration.requestTimeoutSeconds) s; send it "
                        + "at once")
            }
        }
        close(listener)
        for socket in table.removeGateHeld() { close(socket) }
        close(epoll)
        finished.signal()
    }

    private func acceptAll() {
        while true {
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let socket = withUnsafeMutablePointer(to: &peer) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    CMicroHTTPD_accept(listener, $0, &length)
                }
            }
            guard socket >= 0 else { return }  // EAGAIN: accepted all; anything else: try again on the next event
            let deadline = ContinuousClock.now + .milliseconds(Int(configuration.requestTimeoutSeconds * 1000))
            guard
                table.admit(
                    socket, address: Self.text(of: peer), deadline: deadline, total: connectionLimit,
                    perAddress: configuration.connectionsPerAddress),
                CMicroHTTPD_epoll_add(epoll, socket) == 0
            else {
                table.remove(socket)
                close(socket)
                continue
            }
            peers.withLock { $0[socket] = (peer, length) }
        }
    }

    /// The peer address of each socket the gate holds, for MHD_add_connection. Only the gate's thread uses it.
    private let peers = Mutex<[Int32: (sockaddr_storage, socklen_t)]>([:])

    private func examine(_ socket: Int32, _ buffer: inout [UInt8], hungUp: Bool) {
        let received = buffer.withUnsafeMutableBytes {
            recv(socket, $0.baseAddress, $0.count, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        }
        if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
        guard received > 0 else {
            // End of file or an error before a whole head: nothing to answer.
            drop(socket)
            close(socket)
            return
        }
        switch RequestHead.check(buffer.prefix(received), maximumByteCount: configuration.maximumHeadByteCount) {
        case .incomplete:
            // The client closed (or half-closed) before its head was whole: it can never be answered.
            if hungUp {
                drop(socket)
                close(socket)
            }
        case .complete:
            _ = CMicroHTTPD_epoll_remove(epoll, socket)
            guard let (found, length) = peers.withLock({ $0.removeValue(forKey: socket) }) else { return }
            var peer = found
            table.handOff(socket)
            let added = withUnsafePointer(to: &peer) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { handOff(socket, $0, length) }
            }
            // MHD_add_connection closes the socket itself when it fails.
            if !added { table.remove(socket) }
        case .malformed(let problem):
            drop(socket)
            answer(
                socket, status: 400, reason: "Bad Request", code: .malformedRequest,
                message: "the request is not well-framed HTTP/1.1: \(problem)")
        case .tooLarge:
            drop(socket)
            answer(
                socket, status: 431, reason: "Request Header Fields Too Large", code: .headersTooLarge,
                message: "the request head is larger than \(configuration.maximumHeadByteCount) bytes; send fewer "
                    + "or shorter headers")
        }
    }

    private func drop(_ socket: Int32) {
        _ = CMicroHTTPD_epoll_remove(epoll, socket)
        table.remove(socket)
        _ = peers.withLock { $0.removeValue(forKey: socket) }
    }

    /// Writes a one-shot JSON error answer and closes the socket, reading what the client sent first so that the
    /// close is a FIN rather than a reset that would discard the answer.
    private func answer(
        _ socket: Int32, status: Int, reason: String, code: AttestServiceError.Code, message: String
    ) {
        _ = peers.withLock { $0.removeValue(forKey: socket) }
        let body = HTTPResponseError.body(status: status, code: code.description, message: message).body
        let head =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
            + "Connection: close\r\n\r\n"
        let bytes = Array(head.utf8) + body
        _ = bytes.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL)) }
        _ = shutdown(socket, Int32(SHUT_WR))
        var sink = [UInt8](repeating: 0, count: 16_384)
        for _ in 0..<8 {
            let read = sink.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if read <= 0 { break }
        }
        close(socket)
    }

    /// The IP text of a peer address (the per-address limit's key).
    static func text(of peer: sockaddr_storage) -> String {
        var peer = peer
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written: UnsafePointer<CChar>? = withUnsafePointer(to: &peer) { pointer in
            buffer.withUnsafeMutableBufferPointer { text in
                switch Int32(pointer.pointee.ss_family) {
                case AF_INET:
                    pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                        withUnsafePointer(to: address.pointee.sin_addr) {
                            inet_ntop(AF_INET, $0, text.baseAddress, socklen_t(text.count))
                        }
                    }
                case AF_INET6:
                    pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                        withUnsafePointer(to: address.pointee.sin6_addr) {
                            inet_ntop(AF_INET6, $0, text.baseAddress, socklen_t(text.count))
                        }
                    }
                default: nil
                }
            }
        }
        guard written != nil else { return "unknown" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
