internal import CNetwork
import Dispatch
import Foundation
import Synchronization

/// What an ``EventLoop`` tells the owner of each connection, always on the loop's thread.
///
/// The loop knows sockets, not protocols: it reads what arrives while ``wantsBytes`` is true, writes what the handler
/// queues on the ``Channel``, and closes when asked. A handler never touches a socket; work done elsewhere comes back
/// as a ``Message`` through ``EventLoop/deliver(_:to:)``.
protocol ChannelHandler: AnyObject, SendableMetatype {
    /// What other threads hand back to the connection (an HTTP answer, say).
    associatedtype Message: Sendable

    /// Whether the connection's next bytes are wanted now; while false, nothing is read and what arrives waits in the
    /// kernel.
    var wantsBytes: Bool { get }

    /// Bytes arrived.
    func received(_ bytes: ArraySlice<UInt8>, on channel: Channel, at now: ContinuousClock.Instant)
    /// The peer ended its side (a read found the end): nothing more will arrive.
    func peerClosed(on channel: Channel, at now: ContinuousClock.Instant)
    /// The socket took `byteCount` more of the queued bytes.
    func sent(_ byteCount: Int, on channel: Channel, at now: ContinuousClock.Instant)
    /// A message for this connection arrived from another thread.
    func received(message: Message, on channel: Channel, at now: ContinuousClock.Instant)
    /// The loop's periodic wake-up, for deadlines.
    func tick(on channel: Channel, at now: ContinuousClock.Instant)
    /// The loop is stopping: finish what is in hand, then close.
    func stop(on channel: Channel, at now: ContinuousClock.Instant)
}

/// One connection as its ``ChannelHandler`` sees it: where to queue bytes and how to ask for the close. Touched only
/// on its loop's thread.
final class Channel {
    /// How the connection is to end, once asked.
    enum Closing {
        /// Open.
        case none
        /// Once everything queued is written: shut down writing, read and drop what the peer still sends for a
        /// moment, then close, so that the close is a FIN the peer reads after the last bytes rather than a reset that
        /// destroys them.
        case gracefully
        /// At once, dropping anything unwritten.
        case now
    }

    /// The loop's number for the connection, never reused (unlike the socket's).
    let id: UInt64
    /// The peer's IP address as text, without a port.
    let peerAddress: String
    fileprivate let socket: Int32
    fileprivate var output: [UInt8] = []
    fileprivate var outputOffset = 0
    fileprivate(set) var closing = Closing.none
    /// The socket may have bytes to read (an input edge came and no read has found it empty since).
    fileprivate var readable = false
    /// The socket may take bytes (no write has been refused since the last output edge).
    fileprivate var writable = true
    /// The peer shut down its writing (EPOLLRDHUP): reading goes on until it finds the end.
    fileprivate var peerShutDown = false
    /// A read found the end.
    fileprivate var peerEnded = false
    /// Shut down for writing; reading and dropping what still comes until this instant.
    fileprivate var lingerUntil: ContinuousClock.Instant?
    fileprivate var lingered = 0

    fileprivate init(socket: Int32, id: UInt64, peerAddress: String) {
        self.socket = socket
        self.id = id
        self.peerAddress = peerAddress
    }

    /// Queues `bytes` after what is queued already; the loop writes them once the handler returns.
    func write(_ bytes: [UInt8]) {
        guard closing != .now, !bytes.isEmpty else { return }
        if unsentByteCount == 0 {
            output = bytes
            outputOffset = 0
        } else {
            output.append(contentsOf: bytes)
        }
    }

    /// Closes once everything queued is written (see ``Closing/gracefully``).
    func closeGracefully() {
        if closing == .none { closing = .gracefully }
    }

    /// Closes at once.
    func close() { closing = .now }

    /// Bytes queued that the socket has not taken yet.
    var unsentByteCount: Int { output.count - outputOffset }
}

/// One thread and one edge-triggered epoll set that accepts connections, reads what arrives, writes what handlers
/// queue and closes sockets. It knows nothing of HTTP: each connection's ``ChannelHandler`` decides what the bytes
/// mean, and every write to a socket happens here, on this thread.
///
/// Every socket is registered once, for input, output and hang-up together: the loop is told when a socket can be
/// read or written again and keeps track itself, so a request costs no `epoll_ctl`. Other threads reach a connection
/// only through ``deliver(_:to:)``: a queue and an eventfd that wakes the loop once for everything queued meanwhile.
final class EventLoop<Handler: ChannelHandler>: Sendable {
    /// Which connections are admitted at accept; the others are closed at once.
    struct Admission: Sendable {
        /// The most connections at once.
        var connectionLimit: Int
        /// The most connections from one peer address, 0 for no limit.
        var connectionsPerAddress: Int
        /// Peer addresses exempt from ``connectionsPerAddress`` (a reverse proxy carries many clients).
        var exemptAddresses: Set<String>
    }

    /// The port the listening socket is bound to.
    let port: UInt16
    private let listener: Int32
    private let epoll: Int32
    private let wakeFD: Int32
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let mailbox = Mutex(Mailbox())

    /// Messages for connections, and whether the loop's thread was woken for them.
    private struct Mailbox {
        var queue: [(id: UInt64, message: Handler.Message)] = []
        var woken = false
    }

    /// How often the loop wakes to tell handlers the time when nothing arrives.
    static var tickMilliseconds: Int32 { 50 }
    /// How long a stop waits for connections to finish.
    static var stopGraceSeconds: Int { 10 }
    /// What a gracefully closed peer may still send after the last bytes, read and dropped: at most this many bytes,
    /// for at most ``lingerMilliseconds``.
    static var lingerByteLimit: Int { 1024 * 1024 }
    static var lingerMilliseconds: Int { 250 }

    /// Starts the loop's thread, named `name`, on `listener` (a bound, listening, non-blocking socket it now owns);
    /// `makeHandler` makes each admitted connection's handler, on the loop's thread.
    ///
    /// - Throws: ``EventLoopError`` when epoll or the eventfd cannot be set up.
    init(
        listener: Int32, port: UInt16, name: String, admission: Admission,
        makeHandler: @escaping @Sendable (Channel) -> Handler
    ) throws(EventLoopError) {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeFD = CNetwork_wake_fd()
        guard epoll >= 0, wakeFD >= 0,
            CNetwork_epoll_add(epoll, listener, Int32(CNetwork_EPOLL_IN)) == 0,
            CNetwork_epoll_add(epoll, wakeFD, Int32(CNetwork_EPOLL_IN)) == 0
        else {
            if epoll >= 0 { Foundation.close(epoll) }
            if wakeFD >= 0 { Foundation.close(wakeFD) }
            throw EventLoopError(reason: "could not watch the listening socket (epoll failed)")
        }
        self.listener = listener
        self.port = port
        self.epoll = epoll
        self.wakeFD = wakeFD
        let named = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            // Named from inside (Linux keeps 15 characters): `top -H` tells the loops apart, and tests find theirs.
            _ = CNetwork_name_this_thread(name)
            named.signal()
            Reactor(loop: self, admission: admission, makeHandler: makeHandler).run()
            finished.signal()
        }
        thread.start()
        // Started means running: the thread has its name (and the listening socket queues connections already).
        named.wait()
    }

    // Deliveries after the thread ended still write to the eventfd.
    deinit { Foundation.close(wakeFD) }

    /// Hands `message` to connection `id`'s handler on the loop's thread; dropped if the connection has closed
    /// meanwhile. Callable from any thread.
    func deliver(_ message: Handler.Message, to id: UInt64) {
        let wake = mailbox.withLock { mailbox in
            mailbox.queue.append((id, message))
            defer { mailbox.woken = true }
            return !mailbox.woken
        }
        if wake { CNetwork_wake(wakeFD) }
    }

    /// Stops accepting and closes the listening socket; handlers are told to stop and get up to
    /// ``stopGraceSeconds`` to finish. Returns once the loop's thread has ended.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        CNetwork_wake(wakeFD)
        finished.wait()
    }

    /// The loop's own state, on its thread only.
    private final class Reactor {
        let loop: EventLoop
        let admission: Admission
        let makeHandler: @Sendable (Channel) -> Handler
        var entries: [Int32: (channel: Channel, handler: Handler)] = [:]
        var socketByID: [UInt64: Int32] = [:]
        var perAddress: [String: Int] = [:]
        var nextID: UInt64 = 1
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        var isStopping = false

        init(loop: EventLoop, admission: Admission, makeHandler: @escaping @Sendable (Channel) -> Handler) {
            self.loop = loop
            self.admission = admission
            self.makeHandler = makeHandler
        }

        func run() {
            var ready = [Int32](repeating: -1, count: 256)
            var readiness = [Int32](repeating: 0, count: 256)
            var stopDeadline: ContinuousClock.Instant?
            var nextTick = ContinuousClock.now
            while true {
                if stopDeadline == nil, loop.stopping.load(ordering: .acquiring) {
                    isStopping = true
                    stopDeadline = .now + .seconds(EventLoop.stopGraceSeconds)
                    _ = CNetwork_epoll_remove(loop.epoll, loop.listener)
                    Foundation.close(loop.listener)
                    let now = ContinuousClock.now
                    for (channel, handler) in Array(entries.values) {
                        handler.stop(on: channel, at: now)
                        settle(channel, handler)
                    }
                }
                if let stopDeadline, entries.isEmpty || ContinuousClock.now >= stopDeadline { break }
                let count = ready.withUnsafeMutableBufferPointer { sockets in
                    readiness.withUnsafeMutableBufferPointer {
                        CNetwork_epoll_wait(
                            loop.epoll, sockets.baseAddress, $0.baseAddress, Int32(sockets.count),
                            EventLoop.tickMilliseconds)
                    }
                }
                for index in 0..<Int(max(count, 0)) {
                    let socket = ready[index]
                    if socket == loop.listener {
                        if stopDeadline == nil { acceptAll() }
                    } else if socket == loop.wakeFD {
                        CNetwork_drain_wake(loop.wakeFD)
                        takeMessages()
                    } else if let (channel, handler) = entries[socket] {
                        handle(channel, handler, readiness: readiness[index])
                    }
                }
                let now = ContinuousClock.now
                if now >= nextTick {
                    nextTick = now + .milliseconds(Int(EventLoop.tickMilliseconds))
                    tick(at: now)
                }
            }
            for (channel, _) in Array(entries.values) { drop(channel) }
            Foundation.close(loop.epoll)
        }

        private func acceptAll() {
            while true {
                var peer = sockaddr_storage()
                var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
                let socket = withUnsafeMutablePointer(to: &peer) { pointer in
                    pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        CNetwork_accept(loop.listener, $0, &length)
                    }
                }
                guard socket >= 0 else { return }  // EAGAIN: accepted all; anything else: try on the next event
                let address = EventLoopAddress.text(of: peer)
                let fromAddress = perAddress[address, default: 0]
                let capped =
                    admission.connectionsPerAddress != 0 && !admission.exemptAddresses.contains(address)
                guard entries.count < admission.connectionLimit,
                    !capped || fromAddress < admission.connectionsPerAddress,
                    CNetwork_epoll_add_edge(loop.epoll, socket) == 0
                else {
                    Foundation.close(socket)
                    continue
                }
                perAddress[address] = fromAddress + 1
                let channel = Channel(socket: socket, id: nextID, peerAddress: address)
                nextID += 1
                entries[socket] = (channel, makeHandler(channel))
                socketByID[channel.id] = socket
            }
        }

        /// An edge of a socket: records what became possible, then moves the connection on.
        private func handle(_ channel: Channel, _ handler: Handler, readiness: Int32) {
            if readiness & Int32(CNetwork_EPOLL_IN) != 0 { channel.readable = true }
            if readiness & Int32(CNetwork_EPOLL_PEER_SHUTDOWN) != 0 { channel.peerShutDown = true }
            if readiness & Int32(CNetwork_EPOLL_OUT) != 0 { channel.writable = true }
            // A peer gone both ways, or a reset, can be sent nothing more.
            if readiness & Int32(CNetwork_EPOLL_HUP) != 0 { return drop(channel) }
            settle(channel, handler)
        }

        private func takeMessages() {
            let taken = loop.mailbox.withLock { mailbox in
                defer {
                    mailbox.queue.removeAll(keepingCapacity: true)
                    mailbox.woken = false
                }
                return mailbox.queue
            }
            let now = ContinuousClock.now
            for (id, message) in taken {
                guard let socket = socketByID[id], let (channel, handler) = entries[socket] else { continue }
                handler.received(message: message, on: channel, at: now)
                settle(channel, handler)
            }
        }

        private func tick(at now: ContinuousClock.Instant) {
            for (channel, handler) in Array(entries.values) {
                guard isOpen(channel) else { continue }
                if let until = channel.lingerUntil {
                    if now >= until { drop(channel) }
                    continue
                }
                handler.tick(on: channel, at: now)
                settle(channel, handler)
            }
        }

        private func isOpen(_ channel: Channel) -> Bool { entries[channel.socket]?.channel === channel }

        /// Moves a connection on after any change: writes what the socket takes, reads while the handler wants
        /// bytes (edge-triggered: until the socket is empty), and closes as the handler asked.
        private func settle(_ channel: Channel, _ handler: Handler) {
            while isOpen(channel) {
                if channel.closing == .now { return drop(channel) }
                flush(channel, handler)
                guard isOpen(channel), channel.closing != .now else { continue }
                if channel.lingerUntil != nil {
                    guard channel.readable else { return }
                    linger(channel)
                    continue
                }
                if channel.closing == .gracefully {
                    guard channel.unsentByteCount == 0 else { return }
                    beginLinger(channel)
                    continue
                }
                guard handler.wantsBytes, channel.readable else { return }
                read(channel, handler)
            }
        }

        private func flush(_ channel: Channel, _ handler: Handler) {
            guard channel.unsentByteCount > 0, channel.writable, channel.lingerUntil == nil else { return }
            let sent = channel.output[channel.outputOffset...].withUnsafeBytes {
                send(channel.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                channel.outputOffset += sent
                if channel.unsentByteCount == 0 {
                    channel.output = []
                    channel.outputOffset = 0
                } else {
                    // Partly taken: the socket's buffer is full, and the next output edge says when it has room.
                    channel.writable = false
                }
                handler.sent(sent, on: channel, at: .now)
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                channel.writable = false
            } else if sent < 0 && errno != EINTR {
                drop(channel)
            }
        }

        /// One recv into `scratch`: the count (0 at end of file, negative on a failure), or nil when nothing is
        /// there now (the socket is then not readable until its next edge) or the call was interrupted.
        private func receive(_ channel: Channel) -> Int? {
            let received = scratch.withUnsafeMutableBytes {
                recv(channel.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                channel.readable = false
                return nil
            }
            return received < 0 && errno == EINTR ? nil : received
        }

        private func read(_ channel: Channel, _ handler: Handler) {
            guard let received = receive(channel) else { return }
            // Less than asked for: the socket is empty now, and the next bytes bring a new edge; but an end of file
            // that came with the last bytes brings none, so once the peer has shut down, reads go on to it.
            if received >= 0 && received < scratch.count && !channel.peerShutDown { channel.readable = false }
            if received < 0 { return drop(channel) }
            if received == 0 {
                channel.peerEnded = true
                channel.readable = false
                return handler.peerClosed(on: channel, at: .now)
            }
            handler.received(scratch[0..<received], on: channel, at: .now)
        }

        /// Half-closes the socket after the last bytes and reads what the peer still sends for a moment.
        private func beginLinger(_ channel: Channel) {
            _ = shutdown(channel.socket, Int32(SHUT_WR))
            guard !channel.peerEnded else { return drop(channel) }
            channel.lingerUntil = .now + .milliseconds(EventLoop.lingerMilliseconds)
        }

        private func linger(_ channel: Channel) {
            guard let received = receive(channel) else { return }
            channel.lingered += max(received, 0)
            if received <= 0 || channel.lingered > EventLoop.lingerByteLimit { drop(channel) }
        }

        /// Closes the socket at once (a reset if the peer still sends); messages for it are dropped when they come.
        private func drop(_ channel: Channel) {
            guard isOpen(channel) else { return }
            channel.closing = .now
            entries[channel.socket] = nil
            socketByID[channel.id] = nil
            _ = CNetwork_epoll_remove(loop.epoll, channel.socket)
            Foundation.close(channel.socket)
            let left = perAddress[channel.peerAddress, default: 1] - 1
            perAddress[channel.peerAddress] = left > 0 ? left : nil
        }
    }
}

/// The event loop could not start.
struct EventLoopError: Error, Sendable {
    /// What failed.
    let reason: String
}

/// Peer addresses as text.
enum EventLoopAddress {
    /// The IP text of a peer address (the per-address limit's key, and a request's remote address).
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
