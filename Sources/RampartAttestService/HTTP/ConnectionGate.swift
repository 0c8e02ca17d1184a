internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// What the gate and libmicrohttpd's callbacks share: how many connections are held (in all and per client
/// address), and for each connection handed to libmicrohttpd, how many of its requests libmicrohttpd has finished.
///
/// Connections are known to libmicrohttpd's callbacks by an id the gate gives them (never by socket number, which
/// the kernel reuses as soon as a socket is closed).
final class ConnectionTable: Sendable {
    private struct State {
        var count = 0
        var perAddress: [String: Int] = [:]
        /// By connection id: the requests libmicrohttpd has finished (answered or abandoned).
        var completed: [UInt64: Int] = [:]
        /// libmicrohttpd's socket of a connection it has not yet reported started, with the connection's id.
        var starting: [Int32: UInt64] = [:]
        /// Connections whose next finished request must wake the gate.
        var watched: Set<UInt64> = []
    }

    private let state = Mutex(State())

    /// The number of connections held.
    var count: Int { state.withLock { $0.count } }

    /// Counts a new connection from `address` unless a limit is reached; returns whether it was admitted.
    func admit(address: String, total: Int, perAddress: Int) -> Bool {
        state.withLock { state in
            let fromAddress = state.perAddress[address, default: 0]
            guard state.count < total, perAddress == 0 || fromAddress < perAddress else { return false }
            state.count += 1
            state.perAddress[address] = fromAddress + 1
            return true
        }
    }

    /// Forgets a connection admitted from `address`, and its libmicrohttpd side if it had one.
    func release(address: String, id: UInt64?) {
        state.withLock { state in
            state.count -= 1
            let left = state.perAddress[address, default: 1] - 1
            state.perAddress[address] = left > 0 ? left : nil
            if let id {
                state.completed[id] = nil
                state.watched.remove(id)
            }
        }
    }

    /// Records that libmicrohttpd is about to receive connection `id` on `socket`.
    func handingOff(id: UInt64, socket: Int32) {
        state.withLock { state in
            state.completed[id] = 0
            state.starting[socket] = id
        }
    }

    /// libmicrohttpd reported the connection on `socket` started (MHD_CONNECTION_NOTIFY_STARTED): its id, which
    /// the callback keeps as the connection's socket context.
    func started(socket: Int32) -> UInt64? { state.withLock { $0.starting.removeValue(forKey: socket) } }

    /// libmicrohttpd never took the connection on `socket` (MHD_add_connection failed).
    func handOffFailed(socket: Int32) { _ = state.withLock { $0.starting.removeValue(forKey: socket) } }

    /// libmicrohttpd finished a request of connection `id`; returns whether the gate asked to be woken for it.
    func requestCompleted(id: UInt64) -> Bool {
        state.withLock { state in
            guard state.completed[id] != nil else { return false }
            state.completed[id, default: 0] += 1
            return state.watched.remove(id) != nil
        }
    }

    /// Whether libmicrohttpd has finished `forwarded` requests of connection `id`; when not, the next finished one
    /// wakes the gate. (One lock, so a request finishing in between cannot be missed.)
    func hasCompleted(id: UInt64, forwarded: Int) -> Bool {
        state.withLock { state in
            if state.completed[id, default: 0] >= forwarded {
                state.watched.remove(id)
                return true
            }
            state.watched.insert(id)
            return false
        }
    }
}

/// The front of ``HTTPServer``: one thread that accepts every connection and stays in its byte path, so that EVERY
/// request on a kept-alive connection has its framing checked on the raw bytes before libmicrohttpd parses it.
///
/// ## Why the gate relays bytes
///
/// libmicrohttpd 0.9.75 (Debian 12) accepts bare LF line endings, obs-folds, whitespace before a colon and repeated
/// Content-Length values, and its callbacks only ever see the parsed, normalised fields: by then a bare LF, a fold
/// or a NUL can no longer be told from a well-framed head (its strict mode, `MHD_OPTION_STRICT_FOR_CLIENT`, only
/// checks `Host` and spaces; `MHD_OPTION_CLIENT_DISCIPLINE_LVL` arrived in 0.9.77). Peeking at the socket before
/// handing it over works for the first request only: libmicrohttpd reads as much as has arrived, so a second,
/// pipelined request would be read and parsed unchecked. The gate therefore keeps the client's socket, and gives
/// libmicrohttpd one end of a socket pair instead. It forwards a request only once its whole head has arrived and
/// passed ``RequestHead``, then exactly Content-Length body bytes, then looks for the next head; libmicrohttpd's
/// answers flow back unchanged. Nothing reaches libmicrohttpd that the gate has not framed, so a smuggled second
/// request (a body that hides a head, `Transfer-Encoding` beside `Content-Length`, a bare-LF head after a good one)
/// is refused, not parsed differently.
///
/// This costs one thread in all (the gate's), not one per connection: every socket is non-blocking in one epoll set.
///
/// ## Limits
///
/// - A client that trickles its head costs two sockets' worth of buffers and no thread. Each request must arrive
///   whole within ``HTTPServer/Configuration/requestTimeoutSeconds``, counted from its connection's accept (the
///   first request) or its own first byte (later ones), however often it sends a byte: a late head is answered 408,
///   a late body cuts the connection.
/// - ``HTTPServer/Configuration/connectionLimit`` in all and ``HTTPServer/Configuration/connectionsPerAddress``
///   per client address; a connection over either is closed at accept.
/// - A body announced larger than ``HTTPServer/Configuration/maximumBodyByteCount`` is 413, a Transfer-Encoding
///   (a body of unknown length) 411, both before any of the body is read.
/// - A refusal that follows requests still being answered waits for their answers, then goes out last, and the
///   connection closes: answers never interleave.
final class ConnectionGate: Sendable {
    private let listener: Int32
    private let epoll: Int32
    private let wakeFD: Int32
    private let configuration: HTTPServer.Configuration
    private let connectionLimit: Int
    private let table: ConnectionTable
    private let handOff: @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts the gate's thread on `listener`, a bound, listening, non-blocking socket it now owns. `handOff` gives
    /// libmicrohttpd its end of a connection's socket pair (and the client's address); it owns the socket after.
    init(
        listener: Int32, configuration: HTTPServer.Configuration, connectionLimit: Int, table: ConnectionTable,
        handOff: @escaping @Sendable (Int32, UnsafePointer<sockaddr>, socklen_t) -> Bool
    ) throws {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeFD = CMicroHTTPD_wake_fd()
        guard epoll >= 0, wakeFD >= 0,
            CMicroHTTPD_epoll_add(epoll, listener, Int32(CMicroHTTPD_EPOLL_IN)) == 0,
            CMicroHTTPD_epoll_add(epoll, wakeFD, Int32(CMicroHTTPD_EPOLL_IN)) == 0
        else {
            if epoll >= 0 { close(epoll) }
            if wakeFD >= 0 { close(wakeFD) }
            throw AttestServiceError.serverFailure("could not watch the listening socket (epoll failed)")
        }
        self.listener = listener
        self.epoll = epoll
        self.wakeFD = wakeFD
        self.configuration = configuration
        self.connectionLimit = connectionLimit
        self.table = table
        self.handOff = handOff
        let thread = Thread { [self] in
            Relay(gate: self).run()
            finished.signal()
        }
        thread.name = "rampart.http.gate"
        thread.start()
    }

    /// Wakes the gate's thread (a request it waits for has been answered).
    func wake() { CMicroHTTPD_wake(wakeFD) }

    /// Stops accepting and closes the listening socket; connections with requests in flight get their answers
    /// (for up to ``stopGraceSeconds``), the others are closed. Returns once the gate's thread has ended.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake()
        finished.wait()
    }

    // The wake eventfd outlives the thread: libmicrohttpd's callbacks may still hold the gate until the daemon
    // stops.
    deinit { close(wakeFD) }

    /// How long a stop waits for answers in flight.
    static let stopGraceSeconds = 10

    /// How often the gate wakes to enforce deadlines when nothing arrives.
    fileprivate static let tickMilliseconds: Int32 = 50

    /// The most bytes of libmicrohttpd's answers held for a client that does not read them; past it the gate stops
    /// reading libmicrohttpd's side (whose own timeout then closes a stuck connection).
    fileprivate static let clientBufferLimit = 256 * 1024

    /// What a refused client may still send after the answer, read and dropped so the close is a FIN (not a reset
    /// that would destroy the answer): at most this many bytes, for at most ``lingerMilliseconds``.
    fileprivate static let lingerByteLimit = 1024 * 1024
    fileprivate static let lingerMilliseconds = 250

    /// The state of one client connection; touched only by the gate's thread.
    fileprivate final class Link {
        let client: Int32
        let id: UInt64
        let address: String
        var peer: sockaddr_storage
        let peerLength: socklen_t
        /// The gate's end of the socket pair to libmicrohttpd, once the first request is handed over.
        var pair: Int32 = -1
        /// Bytes of a head not complete yet.
        var head: [UInt8] = []
        /// Checked bytes libmicrohttpd's socket did not take yet.
        var toServer: [UInt8] = []
        /// Answer bytes the client's socket did not take yet.
        var toClient: [UInt8] = []
        /// Body bytes of the current request still to forward.
        var bodyRemaining = 0
        /// When the request now arriving must be whole; nil between requests.
        var deadline: ContinuousClock.Instant?
        /// Requests handed to libmicrohttpd.
        var forwarded = 0
        /// No more requests are read: once libmicrohttpd has answered every forwarded one, `finalAnswer` (if any)
        /// is sent and the connection closes.
        var finishing = false
        var finalAnswer: [UInt8]?
        /// Everything is sent: close once `toClient` is empty.
        var closeWhenFlushed = false
        /// The client sent end-of-file (or failed); libmicrohttpd closed its end.
        var clientEOF = false
        var serverEOF = false
        /// Since when `toClient` has not shrunk (a client not reading its answers).
        var stalledSince: ContinuousClock.Instant?
        /// Shut down for writing after a refusal; reading and dropping what still comes until this instant.
        var lingerUntil: ContinuousClock.Instant?
        var lingered = 0
        var clientInterest: Int32 = -1
        var pairInterest: Int32 = -1

        init(client: Int32, id: UInt64, address: String, peer: sockaddr_storage, peerLength: socklen_t) {
            self.client = client
            self.id = id
            self.address = address
            self.peer = peer
            self.peerLength = peerLength
        }
    }

    /// The gate's event loop and its connections (the thread's own state).
    fileprivate final class Relay {
        let gate: ConnectionGate
        var links: [Int32: Link] = [:]
        var waiting: [UInt64: Link] = [:]
        var nextID: UInt64 = 1
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        let requestTimeout: Duration
        let idleTimeout: Duration

        init(gate: ConnectionGate) {
            self.gate = gate
            requestTimeout = .milliseconds(Int(gate.configuration.requestTimeoutSeconds * 1000))
            idleTimeout = .seconds(max(1, gate.configuration.connectionTimeoutSeconds))
        }

        func run() {
            var ready = [Int32](repeating: -1, count: 256)
            var readiness = [Int32](repeating: 0, count: 256)
            var stopDeadline: ContinuousClock.Instant?
            var nextTick = ContinuousClock.now
            while true {
                if stopDeadline == nil, gate.stopping.load(ordering: .acquiring) {
                    stopDeadline = .now + .seconds(ConnectionGate.stopGraceSeconds)
                    _ = CMicroHTTPD_epoll_remove(gate.epoll, gate.listener)
                    close(gate.listener)
                    for link in Set(links.values.map(\.client)).compactMap({ links[$0] }) { beginStop(link) }
                }
                if let stopDeadline, links.isEmpty || ContinuousClock.now >= stopDeadline { break }
                let count = ready.withUnsafeMutableBufferPointer { sockets in
                    readiness.withUnsafeMutableBufferPointer {
                        CMicroHTTPD_epoll_wait(
                            gate.epoll, sockets.baseAddress, $0.baseAddress, Int32(sockets.count),
                            ConnectionGate.tickMilliseconds)
                    }
                }
                for index in 0..<Int(max(count, 0)) {
                    let socket = ready[index]
                    if socket == gate.listener {
                        if stopDeadline == nil { acceptAll() }
                    } else if socket == gate.wakeFD {
                        CMicroHTTPD_drain_wake(gate.wakeFD)
                        for link in Array(waiting.values) { settle(link) }
                    } else if let link = links[socket] {
                        handle(link, socket: socket, readiness: readiness[index])
                    }
                }
                let now = ContinuousClock.now
                if now >= nextTick {
                    nextTick = now + .milliseconds(Int(ConnectionGate.tickMilliseconds))
                    expire(at: now)
                }
            }
            for client in Set(links.values.map(\.client)) { if let link = links[client] { abort(link) } }
            close(gate.epoll)
        }

        private func acceptAll() {
            while true {
                var peer = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let socket = withUnsafeMutablePointer(to: &peer) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        CMicroHTTPD_accept(gate.listener, $0, &length)
                    }
                }
                guard socket >= 0 else { return }  // EAGAIN: accepted all; anything else: try on the next event
                let address = ConnectionGate.text(of: peer)
                guard
                    gate.table.admit(
                        address: address, total: gate.connectionLimit,
                        perAddress: gate.configuration.connectionsPerAddress)
                else {
                    close(socket)
                    continue
                }
                let link = Link(client: socket, id: nextID, address: address, peer: peer, peerLength: length)
                nextID += 1
                link.deadline = .now + requestTimeout
                guard CMicroHTTPD_epoll_add(gate.epoll, socket, Int32(CMicroHTTPD_EPOLL_IN)) == 0 else {
                    gate.table.release(address: address, id: nil)
                    close(socket)
                    continue
                }
                link.clientInterest = Int32(CMicroHTTPD_EPOLL_IN)
                links[socket] = link
            }
        }

        private func handle(_ link: Link, socket: Int32, readiness: Int32) {
            let readable = readiness & Int32(CMicroHTTPD_EPOLL_IN) != 0
            let writable = readiness & Int32(CMicroHTTPD_EPOLL_OUT) != 0
            if socket == link.client {
                if writable { flushToClient(link) }
                if readable {
                    if link.lingerUntil != nil { linger(link) } else { readClient(link) }
                }
            } else {
                if writable { flushToServer(link) }
                if readable { readServer(link) }
            }
            if links[link.client] === link { settle(link) }
        }

        // MARK: Client to libmicrohttpd

        private func readClient(_ link: Link) {
            guard !link.finishing, !link.clientEOF else { return }
            let received = scratch.withUnsafeMutableBytes {
                recv(link.client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            guard received > 0 else {
                link.clientEOF = true
                if link.bodyRemaining > 0 || link.forwarded == 0 {
                    // A body cut short can never be completed; before any request there is nothing to answer.
                    abort(link)
                } else {
                    // Answer what was sent whole (the client may have half-closed to wait for it); a head cut
                    // short can never be answered.
                    link.head = []
                    link.finishing = true
                }
                return
            }
            process(link, scratch[0..<received])
        }

        /// Frames the client's bytes: whole, checked heads and exactly their bodies go to libmicrohttpd.
        private func process(_ link: Link, _ bytes: ArraySlice<UInt8>) {
            var rest = bytes
            while !rest.isEmpty, !link.finishing {
                if link.bodyRemaining > 0 {
                    let take = min(link.bodyRemaining, rest.count)
                    link.toServer.append(contentsOf: rest.prefix(take))
                    rest = rest.dropFirst(take)
                    link.bodyRemaining -= take
                    if link.bodyRemaining == 0 { link.deadline = nil }
                    continue
                }
                if link.deadline == nil { link.deadline = .now + requestTimeout }
                let limit = gate.configuration.maximumHeadByteCount
                let examined: (verdict: RequestHead.Verdict, framing: RequestHead.BodyFraming?)
                let buffered = !link.head.isEmpty
                if buffered {
                    link.head.append(contentsOf: rest)
                    rest = []
                    examined = RequestHead.examine(link.head, maximumByteCount: limit)
                } else {
                    examined = RequestHead.examine(rest, maximumByteCount: limit)
                }
                switch examined.verdict {
                case .incomplete:
                    if !buffered {
                        link.head.append(contentsOf: rest)
                        rest = []
                    }
                case .complete(let byteCount):
                    let head: ArraySlice<UInt8>
                    if buffered {
                        let all = link.head
                        link.head = []
                        head = all[0..<byteCount]
                        rest = all[byteCount...]
                    } else {
                        head = rest.prefix(byteCount)
                        rest = rest.dropFirst(byteCount)
                    }
                    let framing = examined.framing ?? .init(contentLength: nil, hasTransferEncoding: false)
                    if let refusal = refusal(for: framing) { return refuse(link, refusal) }
                    link.toServer.append(contentsOf: head)
                    link.forwarded += 1
                    link.bodyRemaining = framing.contentLength ?? 0
                    if link.bodyRemaining == 0 { link.deadline = nil }
                case .malformed(let problem):
                    return refuse(link, .malformed(problem))
                case .tooLarge:
                    return refuse(link, .headTooLarge)
                }
            }
        }

        /// Why a well-framed head's body cannot be read, if it cannot.
        private func refusal(for framing: RequestHead.BodyFraming) -> Refusal? {
            if framing.hasTransferEncoding {
                // RFC 9112 6.1: Transfer-Encoding beside Content-Length "ought to be handled as an error" (it is
                // how requests are smuggled); alone, the body's length is unknown until it has all been read.
                return framing.contentLength != nil ? .malformed("both Transfer-Encoding and Content-Length") : .chunked
            }
            guard let length = framing.contentLength else { return nil }
            return length > gate.configuration.maximumBodyByteCount ? .bodyTooLarge : nil
        }

        private func flushToServer(_ link: Link) {
            guard !link.toServer.isEmpty else { return }
            if link.pair < 0, !startServerSide(link) { return }
            let sent = link.toServer.withUnsafeBytes {
                send(link.pair, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                link.toServer.removeFirst(sent)
            } else if sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                abort(link)
            }
        }

        /// Hands libmicrohttpd its end of a new socket pair for `link`.
        private func startServerSide(_ link: Link) -> Bool {
            var sockets: [Int32] = [-1, -1]
            guard sockets.withUnsafeMutableBufferPointer({ CMicroHTTPD_socket_pair($0.baseAddress) }) == 0 else {
                abort(link)
                return false
            }
            let (mine, theirs) = (sockets[0], sockets[1])
            gate.table.handingOff(id: link.id, socket: theirs)
            // MHD_add_connection: "The given client socket will be managed (and closed!) by MHD after this call",
            // also when it fails.
            let added = withUnsafePointer(to: &link.peer) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    gate.handOff(theirs, $0, link.peerLength)
                }
            }
            guard added, CMicroHTTPD_epoll_add(gate.epoll, mine, Int32(CMicroHTTPD_EPOLL_IN)) == 0 else {
                if !added { gate.table.handOffFailed(socket: theirs) }
                close(mine)
                abort(link)
                return false
            }
            link.pair = mine
            link.pairInterest = Int32(CMicroHTTPD_EPOLL_IN)
            links[mine] = link
            return true
        }

        // MARK: libmicrohttpd to client

        private func readServer(_ link: Link) {
            while !link.serverEOF, link.toClient.count < ConnectionGate.clientBufferLimit {
                let received = scratch.withUnsafeMutableBytes {
                    recv(link.pair, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { break }
                guard received > 0 else {
                    link.serverEOF = true
                    break
                }
                if link.toClient.isEmpty { link.stalledSince = .now }
                link.toClient.append(contentsOf: scratch[0..<received])
            }
            flushToClient(link)
        }

        private func flushToClient(_ link: Link) {
            guard !link.toClient.isEmpty, link.lingerUntil == nil else { return }
            let sent = link.toClient.withUnsafeBytes {
                send(link.client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                link.toClient.removeFirst(sent)
                link.stalledSince = link.toClient.isEmpty ? nil : .now
            } else if sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                abort(link)
            }
        }

        // MARK: State

        /// Moves `link` on after any change: writes what can be written, finishes or closes it, and sets what the
        /// epoll set watches for it.
        private func settle(_ link: Link) {
            guard links[link.client] === link else { return }
            if !link.toServer.isEmpty { flushToServer(link) }
            guard links[link.client] === link else { return }
            if link.serverEOF && !link.closeWhenFlushed {
                // libmicrohttpd closed its side (an answer that closes, its idle timeout): nothing more can be
                // answered.
                link.finishing = true
                link.closeWhenFlushed = true
            }
            if link.finishing && !link.closeWhenFlushed {
                if link.pair < 0 || gate.table.hasCompleted(id: link.id, forwarded: link.forwarded) {
                    waiting[link.id] = nil
                    // Every answer libmicrohttpd sent is in the socket pair already: take it all, then the final
                    // answer after it.
                    if link.pair >= 0 {
                        readServer(link)
                        guard links[link.client] === link else { return }
                        if !link.serverEOF, link.toClient.count >= ConnectionGate.clientBufferLimit {
                            // A client far behind on its answers: it would not read a refusal either.
                            return abort(link)
                        }
                    }
                    if let answer = link.finalAnswer, !link.serverEOF { link.toClient += answer }
                    link.finalAnswer = nil
                    link.closeWhenFlushed = true
                    flushToClient(link)
                    guard links[link.client] === link else { return }
                } else {
                    waiting[link.id] = link
                }
            }
            if link.closeWhenFlushed && link.toClient.isEmpty && link.lingerUntil == nil {
                return beginLinger(link)
            }
            updateInterest(link)
        }

        private func updateInterest(_ link: Link) {
            let reading =
                !link.finishing && !link.clientEOF && link.toServer.isEmpty && link.lingerUntil == nil
            var client: Int32 = 0
            if reading || link.lingerUntil != nil { client |= Int32(CMicroHTTPD_EPOLL_IN) }
            if !link.toClient.isEmpty && link.lingerUntil == nil { client |= Int32(CMicroHTTPD_EPOLL_OUT) }
            if client != link.clientInterest {
                _ = CMicroHTTPD_epoll_modify(gate.epoll, link.client, client)
                link.clientInterest = client
            }
            guard link.pair >= 0 else { return }
            var pair: Int32 = 0
            if !link.serverEOF && link.toClient.count < ConnectionGate.clientBufferLimit {
                pair |= Int32(CMicroHTTPD_EPOLL_IN)
            }
            if !link.toServer.isEmpty { pair |= Int32(CMicroHTTPD_EPOLL_OUT) }
            if pair != link.pairInterest {
                _ = CMicroHTTPD_epoll_modify(gate.epoll, link.pair, pair)
                link.pairInterest = pair
            }
        }

        /// Why the gate answers instead of libmicrohttpd.
        enum Refusal {
            case malformed(String)
            case headTooLarge
            case bodyTooLarge
            case chunked
            case timeout
        }

        /// Reads no further request from `link`; once libmicrohttpd has answered the requests before, the refusal
        /// goes out and the connection closes.
        private func refuse(_ link: Link, _ refusal: Refusal) {
            link.head = []
            link.finishing = true
            link.finalAnswer = answer(for: refusal)
        }

        private func answer(for refusal: Refusal) -> [UInt8] {
            let configuration = gate.configuration
            let (status, reason, code, message): (Int, String, AttestServiceError.Code, String)
            switch refusal {
            case .malformed(let problem):
                (status, reason, code) = (400, "Bad Request", .malformedRequest)
                message = "the request is not well-framed HTTP/1.1: \(problem)"
            case .headTooLarge:
                (status, reason, code) = (431, "Request Header Fields Too Large", .headersTooLarge)
                message =
                    "the request head is larger than \(configuration.maximumHeadByteCount) bytes; send fewer or "
                    + "shorter headers"
            case .bodyTooLarge:
                (status, reason, code) = (413, "Content Too Large", .bodyTooLarge)
                message =
                    "the request body is larger than \(configuration.maximumBodyByteCount) bytes; send a smaller body"
            case .chunked:
                (status, reason, code) = (411, "Length Required", .lengthRequired)
                message = "send the body with Content-Length; chunked bodies are not accepted"
            case .timeout:
                (status, reason, code) = (408, "Request Timeout", .requestTimeout)
                message = "the request did not arrive within \(configuration.requestTimeoutSeconds) s; send it at once"
            }
            let body = HTTPResponseError.body(status: status, code: code.description, message: message).body
            let head =
                "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n"
                + "Connection: close\r\n\r\n"
            return Array(head.utf8) + body
        }

        /// Deadlines: a request not whole in time is refused 408 (or cut, when its body is late); a client that
        /// has not read its answers for the idle timeout is closed; a linger ends.
        private func expire(at now: ContinuousClock.Instant) {
            for client in Array(links.keys) {
                guard let link = links[client], link.client == client else { continue }
                if let until = link.lingerUntil {
                    if now >= until { drop(link) }
                    continue
                }
                if let since = link.stalledSince, now - since >= idleTimeout {
                    abort(link)
                    continue
                }
                guard !link.finishing, let deadline = link.deadline, now >= deadline else { continue }
                if link.bodyRemaining > 0 {
                    abort(link)
                } else {
                    refuse(link, .timeout)
                    settle(link)
                }
            }
        }

        /// At stop: connections with requests in flight get their answers, then close; the others close now.
        private func beginStop(_ link: Link) {
            let inFlight =
                link.pair >= 0 && link.bodyRemaining == 0
                && !gate.table.hasCompleted(id: link.id, forwarded: link.forwarded)
            guard inFlight || !link.toClient.isEmpty else { return abort(link) }
            link.head = []
            link.finishing = true
            settle(link)
        }

        // MARK: Closing

        /// Half-closes the client's socket after the last answer and reads what it still sends for a moment, so
        /// the close is a FIN rather than a reset that would discard the answer.
        private func beginLinger(_ link: Link) {
            _ = shutdown(link.client, Int32(SHUT_WR))
            closePair(link)
            guard !link.clientEOF else { return drop(link) }
            link.lingerUntil = .now + .milliseconds(ConnectionGate.lingerMilliseconds)
            updateInterest(link)
        }

        private func linger(_ link: Link) {
            let received = scratch.withUnsafeMutableBytes {
                recv(link.client, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            link.lingered += max(received, 0)
            if received <= 0 || link.lingered > ConnectionGate.lingerByteLimit { drop(link) }
        }

        private func closePair(_ link: Link) {
            guard link.pair >= 0 else { return }
            links[link.pair] = nil
            _ = CMicroHTTPD_epoll_remove(gate.epoll, link.pair)
            // libmicrohttpd sees its end hang up and closes it.
            close(link.pair)
            link.pair = -1
        }

        /// Closes everything of `link` at once (a reset if the client still sends).
        private func abort(_ link: Link) { drop(link) }

        private func drop(_ link: Link) {
            guard links[link.client] === link else { return }
            closePair(link)
            links[link.client] = nil
            waiting[link.id] = nil
            _ = CMicroHTTPD_epoll_remove(gate.epoll, link.client)
            close(link.client)
            gate.table.release(address: link.address, id: link.id)
        }
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
