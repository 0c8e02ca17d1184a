internal import CNetwork
import Dispatch
import Foundation
import Synchronization

/// The HTTP/1.1 server's event loop: one thread that accepts every connection, reads each request's raw bytes,
/// checks and parses the head once (``RequestHead``), reads exactly its body, hands the request to the responder on a
/// Swift `Task`, and writes the answer.
///
/// ## One parser
///
/// Every byte a client sends passes ``RequestHead/examine(_:maximumByteCount:progress:)`` once, however slowly its head
/// arrives (RFC 9112 framing: CRLF only, no obs-fold, no whitespace before a colon, one Content-Length, no NUL) and ``RequestHead/decode(_:)`` (version,
/// `Host`, field values as UTF-8 text without control characters) before anything else sees it, on every request of a
/// kept-alive connection, and the same code finds where the body ends and the next request starts. No second parser
/// reads the bytes afterwards, so there is no second reading that a smuggled request could exploit: a body that hides
/// a head, `Transfer-Encoding` beside `Content-Length` or a bare-LF head after a good one is refused, never read
/// differently.
///
/// ## No thread per connection
///
/// Every socket is non-blocking in one edge-triggered epoll set, registered once: the loop is told when a socket can
/// be read or written again and keeps track itself, so a request costs no epoll_ctl. While a request is answered its
/// connection is only a state in the loop (nothing is read from it; what arrives waits in the kernel). The `Task` that
/// answers writes the answer itself when it is the connection's only pending work (the common case: one request, then
/// the next after its answer) and leaves a note for the loop in a queue, which the loop takes before it next waits
/// (it is woken for the note only when the connection had an edge meanwhile: see ``note(_:)``); otherwise (pipelined
/// bytes already read, a close) it hands the answer's bytes to the loop through the queue and an eventfd. The loop
/// never closes a socket whose request is being answered, so a task never writes to a socket number the kernel has
/// reused. Connections stay open between requests (HTTP/1.1 keep-alive; HTTP/1.0 with `Connection: keep-alive`);
/// pipelined requests are answered one after the other, in order.
///
/// ## Limits
///
/// - A client that trickles its head costs its buffers and no thread. Each request must arrive whole within
///   ``HTTPServer/Configuration/requestTimeoutSeconds``, counted from its connection's accept (the first request) or
///   its own first byte (later ones), however often it sends a byte: a late head is answered 408, a late body cuts
///   the connection.
/// - ``HTTPServer/Configuration/connectionLimit`` in all and ``HTTPServer/Configuration/connectionsPerAddress``
///   per client address (but the ``HTTPServer/Configuration/proxyAddresses``); a connection over either is closed at
///   accept.
/// - A body announced larger than ``HTTPServer/Configuration/maximumBodyByteCount`` is 413, a Transfer-Encoding
///   (a body of unknown length) 411, both before any of the body is read.
/// - A connection idle for ``HTTPServer/Configuration/connectionTimeoutSeconds`` between requests, or whose client
///   has not read its answers for as long, is closed. No more than ``clientBufferLimit`` bytes of answers are held for
///   a client; past it no further request of the connection is read.
/// - A refusal goes out last and the connection closes (after a short linger, so the close is a FIN that does not
///   destroy the answer).
final class ConnectionLoop: Sendable {
    private let listener: Int32
    /// The port the listening socket is bound to.
    let port: UInt16
    private let epoll: Int32
    private let wakeFD: Int32
    private let configuration: HTTPServer.Configuration
    private let connectionLimit: Int
    private let responder: any HTTPResponder
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// What the responder's tasks did with their answers, for the loop's thread.
    private let notes = Mutex(Notes())
    /// Serialises answers (shared by the tasks: it caches the `Date` text).
    private let writer = ResponseWriter()
    /// How often the loop wakes to enforce deadlines when nothing arrives (``defaultTickMilliseconds``).
    fileprivate let tickMilliseconds: Int32
    /// ``TestHooks/beforeSentNote``.
    private let beforeSentNote: (@Sendable (ConnectionLoop) -> Void)?
    /// How many `sent` notes woke the loop's thread because it had asked for them (``note(_:)``).
    let sentNoteWakes = Atomic<Int>(0)
    /// How many bytes of request heads the loop has examined (``RequestHead/Progress``): each byte once, however
    /// slowly its head arrives.
    let examinedHeadBytes = Atomic<Int>(0)

    /// What tests change to reach the loop's races deterministically; the server never sets them.
    struct TestHooks: Sendable {
        /// ``defaultTickMilliseconds`` unless a test needs a lost wake-up to show as a long wait.
        var tickMilliseconds = ConnectionLoop.defaultTickMilliseconds
        /// Called by a task after it wrote its whole answer and before it queues the `sent` note: a test holds the
        /// note back here until the loop has seen the connection's next request.
        var beforeSentNote: (@Sendable (ConnectionLoop) -> Void)?
    }

    /// Whether the loop has asked to be woken by `sent` notes (a connection being answered had an edge meanwhile).
    var asksToBeWokenBySentNotes: Bool { notes.withLock { $0.wakeOnSent } }

    /// The tasks' notes and whether the loop's thread must be woken for them.
    private struct Notes {
        var queue: [Answer] = []
        /// The eventfd was written since the loop last took the queue.
        var woken = false
        /// Some connection being answered has something for the loop to do once its answer is written (its next
        /// request arrived, or its client went away), so a `sent` note wakes the loop too.
        var wakeOnSent = false
    }

    /// What became of the answer to connection `id`'s request.
    fileprivate enum Answer: Sendable {
        /// The task wrote it whole.
        case sent(id: UInt64)
        /// The loop is to write `bytes` (all of the answer, or what the socket did not take), then close the
        /// connection when `close`.
        case write(id: UInt64, bytes: [UInt8], close: Bool)
        /// Writing failed: the client is gone.
        case failed(id: UInt64)

        var id: UInt64 {
            switch self {
            case .sent(let id), .write(let id, _, _), .failed(let id): id
            }
        }
    }

    /// Starts the loop's thread on `listener`, a bound, listening, non-blocking socket it now owns.
    init(
        listener: Int32, port: UInt16, configuration: HTTPServer.Configuration, connectionLimit: Int,
        responder: any HTTPResponder, hooks: TestHooks = TestHooks()
    ) throws {
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        let wakeFD = CNetwork_wake_fd()
        guard epoll >= 0, wakeFD >= 0,
            CNetwork_epoll_add(epoll, listener, Int32(CNetwork_EPOLL_IN)) == 0,
            CNetwork_epoll_add(epoll, wakeFD, Int32(CNetwork_EPOLL_IN)) == 0
        else {
            if epoll >= 0 { close(epoll) }
            if wakeFD >= 0 { close(wakeFD) }
            throw AttestServiceError.serverFailure("could not watch the listening socket (epoll failed)")
        }
        self.listener = listener
        self.port = port
        self.epoll = epoll
        self.wakeFD = wakeFD
        self.configuration = configuration
        self.connectionLimit = connectionLimit
        self.responder = responder
        tickMilliseconds = hooks.tickMilliseconds
        beforeSentNote = hooks.beforeSentNote
        let named = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            // Named from inside, after its port (Linux keeps 15 characters: "http:65535" fits): `top -H` tells the
            // public listener's loop from the internal one's, and the tests find theirs by this name.
            _ = CNetwork_name_this_thread("http:\(port)")
            named.signal()
            Relay(loop: self).run()
            finished.signal()
        }
        thread.start()
        // Started means running: the thread has its name (and the listening socket queues connections already).
        named.wait()
    }

    /// Stops accepting and closes the listening socket; connections with requests in flight get their answers
    /// (for up to ``stopGraceSeconds``), the others are closed. Returns once the loop's thread has ended.
    func stop() {
        guard !stopping.exchange(true, ordering: .acquiringAndReleasing) else { return }
        CNetwork_wake(wakeFD)
        finished.wait()
    }

    // Tasks still answering hold the loop (and write to the eventfd) after its thread has ended.
    deinit { close(wakeFD) }

    /// Queues what became of a task's answer, waking the loop's thread if it has to act on it now; the loop then
    /// takes every note queued.
    ///
    /// An answer the task wrote whole (`sent`) wakes nobody unless the loop asked for it: the loop takes the notes
    /// before it waits for events, so the connection's next request (an input edge, which wakes the loop anyway)
    /// finds its connection moved on. That saves a wake-up and an eventfd round trip per request. The loop asks for
    /// `sent` notes (``Notes/wakeOnSent``) when a connection being answered had an edge meanwhile: its next request
    /// or its close came before the note did. Both sides decide under the one lock, so either the loop takes the note
    /// before it waits or the note sees the request and wakes it.
    fileprivate func note(_ answer: Answer) {
        let wake = notes.withLock { notes in
            notes.queue.append(answer)
            if case .sent = answer, !notes.wakeOnSent { return false }
            defer { notes.woken = true }
            return !notes.woken
        }
        if wake {
            if case .sent = answer { sentNoteWakes.add(1, ordering: .relaxed) }
            CNetwork_wake(wakeFD)
        }
    }

    /// A task's answer to a request of the connection on `socket`: written by the task when `direct` (the
    /// connection has nothing else pending) and the connection stays open, else handed to the loop.
    fileprivate func finish(
        _ response: HTTPResponse, id: UInt64, socket: Int32, exchange: Exchange, direct: Bool
    ) {
        let close =
            !exchange.keepAlive || stopping.load(ordering: .acquiring)
            || response.headers.contains {
                $0.key.lowercased() == "connection" && $0.value.lowercased().contains("close")
            }
        let bytes = writer.serialize(response, exchange: exchange, close: close)
        guard direct, !close else { return note(.write(id: id, bytes: bytes, close: close)) }
        // The loop does not write to the socket of a connection being answered, and closes it only after this note.
        let sent = bytes.withUnsafeBytes {
            send(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
        }
        if sent == bytes.count {
            beforeSentNote?(self)
            note(.sent(id: id))
        } else if sent >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
            note(.write(id: id, bytes: Array(bytes[max(sent, 0)...]), close: false))
        } else {
            note(.failed(id: id))
        }
    }

    /// How long a stop waits for answers in flight.
    static let stopGraceSeconds = 10

    /// How often the loop wakes to enforce deadlines when nothing arrives.
    static let defaultTickMilliseconds: Int32 = 50

    /// The most bytes of answers held for a client that does not read them (a DoS bound): past it, no further
    /// request of the connection is read until the client has taken some.
    static let clientBufferLimit = 256 * 1024

    /// What a refused client may still send after the answer, read and dropped so the close is a FIN (not a reset
    /// that would destroy the answer): at most this many bytes, for at most ``lingerMilliseconds``.
    fileprivate static let lingerByteLimit = 1024 * 1024
    fileprivate static let lingerMilliseconds = 250

    /// Where a connection is in its current request.
    fileprivate enum Phase {
        /// Reading a head (none of it may have arrived yet).
        case head
        /// Reading the body of `head`, `length` bytes.
        case body(RequestHead.Decoded, length: Int)
        /// The responder is answering; nothing is read meanwhile.
        case answering(Exchange)
        /// Nothing more is read or answered: the last answer is being written.
        case closing
    }

    /// What the answer to a request depends on besides the response.
    struct Exchange {
        var keepAlive: Bool
        var minorVersion: Int
        var isHEAD: Bool
    }

    /// The state of one client connection; touched only by the loop's thread.
    fileprivate final class Link {
        let socket: Int32
        let id: UInt64
        let address: String
        var phase = Phase.head
        /// Bytes received and not yet consumed: a head not complete yet, a body, pipelined requests.
        var input: [UInt8] = []
        /// How far the head at the start of `input` has been examined.
        var headProgress = RequestHead.Progress()
        /// Answer bytes the client's socket has not taken yet, from `outputOffset` on.
        var output: [UInt8] = []
        var outputOffset = 0
        /// When the request now arriving must be whole; nil between requests.
        var deadline: ContinuousClock.Instant?
        /// Since when the connection has been idle between requests.
        var idleSince: ContinuousClock.Instant
        /// Since when `output` has not shrunk (a client not reading its answers).
        var stalledSince: ContinuousClock.Instant?
        /// The client sent end-of-file.
        var clientEOF = false
        /// The socket hung up while its request was being answered.
        var hungUp = false
        /// The socket may have bytes to read (an input edge came and no read has found it empty since).
        var readable = false
        /// The peer shut down its writing (EPOLLRDHUP): reading goes on until it finds the end.
        var peerShutDown = false
        /// The socket may take bytes (no write has been refused since the last output edge).
        var writable = true
        /// Shut down for writing after the last answer; reading and dropping what still comes until this instant.
        var lingerUntil: ContinuousClock.Instant?
        var lingered = 0

        init(socket: Int32, id: UInt64, address: String, now: ContinuousClock.Instant) {
            self.socket = socket
            self.id = id
            self.address = address
            idleSince = now
        }

        var pendingOutput: Int { output.count - outputOffset }

        /// Nothing more is read or answered: close once `output` is written.
        var closeWhenFlushed: Bool {
            if case .closing = phase { true } else { false }
        }

        var isReadingRequest: Bool {
            switch phase {
            case .head, .body: true
            case .answering, .closing: false
            }
        }
    }

    /// The loop and its connections (the thread's own state).
    fileprivate final class Relay {
        let loop: ConnectionLoop
        var links: [Int32: Link] = [:]
        var answering: [UInt64: Link] = [:]
        /// The connections being answered that had an edge meanwhile (their next request, or a close).
        var edgeWhileAnswering: Set<UInt64> = []
        var connections = 0
        var perAddress: [String: Int] = [:]
        var nextID: UInt64 = 1
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        let requestTimeout: Duration
        let idleTimeout: Duration
        var stoppingNow = false

        init(loop: ConnectionLoop) {
            self.loop = loop
            requestTimeout = .milliseconds(Int(loop.configuration.requestTimeoutSeconds * 1000))
            idleTimeout = .seconds(max(1, loop.configuration.connectionTimeoutSeconds))
        }

        func run() {
            var ready = [Int32](repeating: -1, count: 256)
            var readiness = [Int32](repeating: 0, count: 256)
            var stopDeadline: ContinuousClock.Instant?
            var nextTick = ContinuousClock.now
            while true {
                if stopDeadline == nil, loop.stopping.load(ordering: .acquiring) {
                    stoppingNow = true
                    stopDeadline = .now + .seconds(ConnectionLoop.stopGraceSeconds)
                    _ = CNetwork_epoll_remove(loop.epoll, loop.listener)
                    close(loop.listener)
                    for link in Array(links.values) { beginStop(link) }
                }
                if let stopDeadline, links.isEmpty || ContinuousClock.now >= stopDeadline { break }
                // The notes of answers written by their tasks (which wake nobody) before waiting for the next edge.
                takeAnswers()
                let count = ready.withUnsafeMutableBufferPointer { sockets in
                    readiness.withUnsafeMutableBufferPointer {
                        CNetwork_epoll_wait(
                            loop.epoll, sockets.baseAddress, $0.baseAddress, Int32(sockets.count),
                            loop.tickMilliseconds)
                    }
                }
                for index in 0..<Int(max(count, 0)) {
                    let socket = ready[index]
                    if socket == loop.listener {
                        if stopDeadline == nil { acceptAll() }
                    } else if socket == loop.wakeFD {
                        CNetwork_drain_wake(loop.wakeFD)
                        takeAnswers()
                    } else if let link = links[socket] {
                        handle(link, readiness: readiness[index])
                    }
                }
                let now = ContinuousClock.now
                if now >= nextTick {
                    nextTick = now + .milliseconds(Int(loop.tickMilliseconds))
                    expire(at: now)
                }
            }
            for link in Array(links.values) { drop(link) }
            close(loop.epoll)
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
                let address = ConnectionLoop.text(of: peer)
                let fromAddress = perAddress[address, default: 0]
                let perAddressLimit = loop.configuration.connectionsPerAddress
                let capped = perAddressLimit != 0 && !loop.configuration.proxyAddresses.contains(address)
                guard connections < loop.connectionLimit, !capped || fromAddress < perAddressLimit,
                    CNetwork_epoll_add_edge(loop.epoll, socket) == 0
                else {
                    close(socket)
                    continue
                }
                connections += 1
                perAddress[address] = fromAddress + 1
                let now = ContinuousClock.now
                let link = Link(socket: socket, id: nextID, address: address, now: now)
                nextID += 1
                link.deadline = now + requestTimeout
                links[socket] = link
            }
        }

        /// An edge of `link`'s socket: records what became possible, then moves the connection on.
        private func handle(_ link: Link, readiness: Int32) {
            guard links[link.socket] === link else { return }
            if readiness & Int32(CNetwork_EPOLL_IN) != 0 { link.readable = true }
            if readiness & Int32(CNetwork_EPOLL_PEER_SHUTDOWN) != 0 { link.peerShutDown = true }
            if readiness & Int32(CNetwork_EPOLL_OUT) != 0 { link.writable = true }
            if case .answering = link.phase { edgeWhileAnswering.insert(link.id) }
            if readiness & Int32(CNetwork_EPOLL_HUP) != 0 {
                // A client gone both ways, or a reset, can be sent nothing more. While its request is answered the
                // task may be writing to the socket: closing it then could let the kernel give its number to a new
                // connection the task would write to, so it closes on the task's note.
                if case .answering = link.phase {
                    link.hungUp = true
                    return
                }
                return drop(link)
            }
            settle(link)
        }

        // MARK: Requests

        /// One recv into `scratch`: the count (0 at end of file, negative on a failure), or nil when nothing is
        /// there now (the socket is then not readable until its next edge) or the call was interrupted.
        private func receive(_ link: Link) -> Int? {
            let received = scratch.withUnsafeMutableBytes {
                recv(link.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                link.readable = false
                return nil
            }
            return received < 0 && errno == EINTR ? nil : received
        }

        /// Reads what has arrived, while the connection is reading a request.
        private func read(_ link: Link) {
            guard let received = receive(link) else { return }
            // Less than asked for: the socket is empty now, and the next bytes bring a new edge; but an end of file
            // that came with the last bytes brings none, so once the peer has shut down, reads go on to it.
            if received >= 0 && received < scratch.count && !link.peerShutDown { link.readable = false }
            guard received > 0 else {
                link.clientEOF = true
                // A request cut short can never be answered; answers already made still go out.
                link.input = []
                link.phase = .closing
                return
            }
            link.input.append(contentsOf: scratch[0..<received])
            process(link)
        }

        /// Reads requests out of `link.input`: a checked, decoded head, then exactly its body, then hands the
        /// request to the responder.
        private func process(_ link: Link) {
            while links[link.socket] === link {
                switch link.phase {
                case .head:
                    guard !link.input.isEmpty, link.pendingOutput < ConnectionLoop.clientBufferLimit else { return }
                    if link.deadline == nil { link.deadline = .now + requestTimeout }
                    let examinedBefore = link.headProgress.examinedByteCount
                    let examined = RequestHead.examine(
                        link.input, maximumByteCount: loop.configuration.maximumHeadByteCount,
                        progress: &link.headProgress)
                    loop.examinedHeadBytes.add(
                        link.headProgress.examinedByteCount - examinedBefore, ordering: .relaxed)
                    switch examined.verdict {
                    case .incomplete: return
                    case .malformed(let problem): return refuse(link, .malformed(problem))
                    case .tooLarge: return refuse(link, .headTooLarge)
                    case .complete(let byteCount):
                        let framing = examined.framing ?? .init(contentLength: nil, hasTransferEncoding: false)
                        if let refusal = refusal(for: framing) { return refuse(link, refusal) }
                        let head: RequestHead.Decoded
                        do {
                            head = try RequestHead.decode(link.input[0..<byteCount])
                        } catch {
                            switch error {
                            case .malformed(let problem): return refuse(link, .malformed(problem))
                            case .versionNotSupported: return refuse(link, .versionNotSupported)
                            }
                        }
                        link.input.removeFirst(byteCount)
                        link.headProgress = RequestHead.Progress()
                        let length = framing.contentLength ?? 0
                        if length > link.input.count && head.expectsContinue && head.minorVersion == 1 {
                            queue(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), on: link)
                        }
                        link.phase = .body(head, length: length)
                    }
                case .body(let head, let length):
                    guard link.input.count >= length else { return }
                    let body = Array(link.input[0..<length])
                    link.input.removeFirst(length)
                    link.deadline = nil
                    return dispatch(link, head, body: body)
                case .answering, .closing:
                    return
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
            return length > loop.configuration.maximumBodyByteCount ? .bodyTooLarge : nil
        }

        private func dispatch(_ link: Link, _ head: RequestHead.Decoded, body: [UInt8]) {
            let exchange = Exchange(
                keepAlive: head.keepAlive && !stoppingNow, minorVersion: head.minorVersion,
                isHEAD: head.method == "HEAD")
            link.phase = .answering(exchange)
            answering[link.id] = link
            let request = HTTPRequest(
                method: head.method, decodedPath: RequestPath.decoded(head.target), target: head.target,
                lowercasedHeaders: head.fields, body: body, remoteAddress: link.address)
            let loop = self.loop
            let responder = loop.responder
            let (id, socket) = (link.id, link.socket)
            let direct = link.input.isEmpty && link.pendingOutput == 0
            // Answered at once (a challenge): the same path as a task's answer, its note taken next iteration.
            if let response = responder.respondWithoutWaiting(to: request) {
                return loop.finish(response, id: id, socket: socket, exchange: exchange, direct: direct)
            }
            Task(priority: .high) {
                let response = await responder.respond(to: request)
                loop.finish(response, id: id, socket: socket, exchange: exchange, direct: direct)
            }
        }

        /// Takes the tasks' notes about their answers, and tells the tasks whether a `sent` note must wake the loop
        /// (a connection being answered had an edge meanwhile).
        private func takeAnswers() {
            // Stopping: every answer moves the stop on.
            let wakeOnSent = stoppingNow || !edgeWhileAnswering.isEmpty
            let taken = loop.notes.withLock { notes in
                defer {
                    notes.queue.removeAll(keepingCapacity: true)
                    notes.woken = false
                    notes.wakeOnSent = wakeOnSent
                }
                return notes.queue
            }
            for answer in taken { answered(answer) }
        }

        /// Moves a connection on after its task's answer, then reads its next request (one may be waiting already).
        private func answered(_ answer: Answer) {
            edgeWhileAnswering.remove(answer.id)
            guard let link = answering.removeValue(forKey: answer.id), links[link.socket] === link,
                case .answering = link.phase
            else { return }
            if link.hungUp { return drop(link) }
            var close = false
            switch answer {
            case .sent:
                close = stoppingNow
            case .write(_, let bytes, let closing):
                queue(bytes, on: link)
                close = closing
            case .failed:
                return drop(link)
            }
            if close {
                link.phase = .closing
            } else {
                link.phase = .head
                let now = ContinuousClock.now
                link.idleSince = now
                link.deadline = link.input.isEmpty ? nil : now + requestTimeout
                process(link)
            }
            flush(link)
            settle(link)
        }

        // MARK: Answers

        private func queue(_ bytes: [UInt8], on link: Link) {
            if link.pendingOutput == 0 {
                link.output = bytes
                link.outputOffset = 0
                link.stalledSince = .now
            } else {
                link.output.append(contentsOf: bytes)
            }
        }

        private func flush(_ link: Link) {
            guard link.pendingOutput > 0, link.writable, link.lingerUntil == nil else { return }
            let sent = link.output[link.outputOffset...].withUnsafeBytes {
                send(link.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT) | Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                link.outputOffset += sent
                if link.pendingOutput == 0 {
                    link.output = []
                    link.outputOffset = 0
                    link.stalledSince = nil
                } else {
                    link.stalledSince = .now
                }
                // Partly taken: the socket's buffer is full, and the next output edge says when it has room.
                if link.pendingOutput > 0 { link.writable = false }
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                link.writable = false
            } else if sent < 0 && errno != EINTR {
                drop(link)
            }
        }

        // MARK: State

        /// Moves `link` on after any change: writes what the socket takes, reads what has arrived while a request
        /// is being read (edge-triggered: until the socket is empty), reads a request already buffered once answers
        /// have drained, and closes the connection once everything is written.
        private func settle(_ link: Link) {
            while links[link.socket] === link {
                if case .answering = link.phase { return }
                flush(link)
                guard links[link.socket] === link else { return }
                if link.lingerUntil != nil {
                    guard link.readable else { return }
                    linger(link)
                    continue
                }
                if case .head = link.phase, !link.input.isEmpty { process(link) }
                guard links[link.socket] === link else { return }
                if case .answering = link.phase { return }
                if link.closeWhenFlushed {
                    guard link.pendingOutput == 0 else { return }
                    beginLinger(link)
                    continue
                }
                let canRead =
                    link.isReadingRequest && link.pendingOutput < ConnectionLoop.clientBufferLimit
                guard canRead, link.readable else { return }
                read(link)
            }
        }

        /// Why the loop answers instead of the responder.
        enum Refusal {
            case malformed(String)
            case headTooLarge
            case bodyTooLarge
            case chunked
            case timeout
            case versionNotSupported
        }

        /// Reads nothing more from `link`: the refusal goes out (after any answer still being written) and the
        /// connection closes.
        private func refuse(_ link: Link, _ refusal: Refusal) {
            link.input = []
            link.phase = .closing
            link.deadline = nil
            queue(answer(for: refusal), on: link)
            flush(link)
        }

        private func answer(for refusal: Refusal) -> [UInt8] {
            let configuration = loop.configuration
            let (status, code, message): (Int, AttestServiceError.Code, String)
            switch refusal {
            case .malformed(let problem):
                (status, code) = (400, .malformedRequest)
                message = "the request is not well-framed HTTP/1.1: \(problem)"
            case .versionNotSupported:
                (status, code) = (505, .malformedRequest)
                message = "only HTTP/1.1 and HTTP/1.0 are served; send HTTP/1.1"
            case .headTooLarge:
                (status, code) = (431, .headersTooLarge)
                message =
                    "the request head is larger than \(configuration.maximumHeadByteCount) bytes; send fewer or "
                    + "shorter headers"
            case .bodyTooLarge:
                (status, code) = (413, .bodyTooLarge)
                message =
                    "the request body is larger than \(configuration.maximumBodyByteCount) bytes; send a smaller body"
            case .chunked:
                (status, code) = (411, .lengthRequired)
                message = "send the body with Content-Length; chunked bodies are not accepted"
            case .timeout:
                (status, code) = (408, .requestTimeout)
                message = "the request did not arrive within \(configuration.requestTimeoutSeconds) s; send it at once"
            }
            var response = HTTPResponseError.body(status: status, code: code.description, message: message)
            response.headers["Rampart-Error"] = code.description
            return loop.writer.serialize(
                response, exchange: Exchange(keepAlive: false, minorVersion: 1, isHEAD: false), close: true)
        }

        /// Deadlines: a request not whole in time is refused 408 (or cut, when its body is late); a connection idle
        /// between requests, or whose client has not read its answers, for the idle timeout is closed; a linger ends.
        private func expire(at now: ContinuousClock.Instant) {
            for link in Array(links.values) {
                if let until = link.lingerUntil {
                    if now >= until { drop(link) }
                    continue
                }
                if link.pendingOutput > 0, let since = link.stalledSince, now - since >= idleTimeout {
                    drop(link)
                    continue
                }
                switch link.phase {
                case .head:
                    if let deadline = link.deadline {
                        guard now >= deadline else { continue }
                        refuse(link, .timeout)
                        settle(link)
                    } else if link.pendingOutput == 0, now - link.idleSince >= idleTimeout {
                        drop(link)
                    }
                case .body:
                    if let deadline = link.deadline, now >= deadline { drop(link) }
                case .answering, .closing:
                    continue
                }
            }
        }

        /// At stop: connections being answered get their answers, then close (``answered(_:)`` closes every
        /// connection once stopping); those with answers still to write close once written; the others close now.
        private func beginStop(_ link: Link) {
            switch link.phase {
            case .answering: return
            case .head, .body, .closing:
                guard link.pendingOutput > 0 else { return drop(link) }
                link.input = []
                link.phase = .closing
                settle(link)
            }
        }

        // MARK: Closing

        /// Half-closes the client's socket after the last answer and reads what it still sends for a moment, so
        /// the close is a FIN rather than a reset that would discard the answer.
        private func beginLinger(_ link: Link) {
            _ = shutdown(link.socket, Int32(SHUT_WR))
            guard !link.clientEOF else { return drop(link) }
            link.lingerUntil = .now + .milliseconds(ConnectionLoop.lingerMilliseconds)
        }

        private func linger(_ link: Link) {
            guard let received = receive(link) else { return }
            link.lingered += max(received, 0)
            if received <= 0 || link.lingered > ConnectionLoop.lingerByteLimit { drop(link) }
        }

        /// Closes everything of `link` at once (a reset if the client still sends); an answer being computed for it
        /// is dropped when it arrives.
        private func drop(_ link: Link) {
            guard links[link.socket] === link else { return }
            links[link.socket] = nil
            answering[link.id] = nil
            edgeWhileAnswering.remove(link.id)
            _ = CNetwork_epoll_remove(loop.epoll, link.socket)
            close(link.socket)
            connections -= 1
            let left = perAddress[link.address, default: 1] - 1
            perAddress[link.address] = left > 0 ? left : nil
        }
    }

    /// The IP text of a peer address (the per-address limit's key, and the request's remote address).
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
