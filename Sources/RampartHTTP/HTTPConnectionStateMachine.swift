/// One HTTP/1.1 server connection as a pure state machine: events in (bytes received, an answer ready, bytes sent,
/// a tick, the peer closed, stop), actions out (dispatch a request, write bytes, close, close gracefully). It does no
/// I/O and reads no clock, so every framing, pipelining and deadline rule is tested without a socket; the server's
/// ``EventLoop`` performs the actions. It keeps pipelining in one state, as swift-nio's `HTTPServerPipelineHandler`
/// does: while a request is answered nothing more is read, and the bytes of the next request wait.
///
/// ## One parser
///
/// Every byte a client sends passes ``RequestHead/examine(_:maximumByteCount:progress:)`` once, however slowly its
/// head arrives, and ``RequestHead/decode(_:)`` before anything else sees it, on every request of a kept-alive
/// connection, and the same code finds where the body ends and the next request starts. No second parser reads the
/// bytes afterwards, so there is no second reading that a smuggled request could exploit: a body that hides a head,
/// `Transfer-Encoding` beside `Content-Length` or a bare-LF head after a good one is refused, never read differently.
///
/// ## Limits
///
/// - Each request must arrive whole within ``Limits/requestTimeout``, counted from the connection's start (the first
///   request) or the request's own first byte (later ones), however often a byte comes: a late head is answered 408,
///   a late body cuts the connection.
/// - A body announced larger than ``Limits/maximumBodyByteCount`` is 413, a Transfer-Encoding 411, both before any
///   of the body is read; a head over ``Limits/maximumHeadByteCount`` is 431.
/// - A connection idle for ``Limits/idleTimeout`` between requests, or whose client has not read its answers for as
///   long, is closed. Past ``Limits/unsentByteLimit`` bytes of unread answers, no further request is read.
/// - A refusal goes out last and the connection closes gracefully.
package struct HTTPConnectionStateMachine {
    /// The bounds a connection is held to.
    package struct Limits: Sendable {
        package var maximumHeadByteCount: Int
        package var maximumBodyByteCount: Int
        package var requestTimeout: Duration
        package var idleTimeout: Duration
        /// The most bytes of answers held for a client that does not read them (a DoS bound).
        package var unsentByteLimit: Int

        /// Creates limits.
        package init(
            maximumHeadByteCount: Int, maximumBodyByteCount: Int, requestTimeout: Duration, idleTimeout: Duration,
            unsentByteLimit: Int = 256 * 1024
        ) {
            self.maximumHeadByteCount = maximumHeadByteCount
            self.maximumBodyByteCount = maximumBodyByteCount
            self.requestTimeout = requestTimeout
            self.idleTimeout = idleTimeout
            self.unsentByteLimit = unsentByteLimit
        }
    }

    /// What the loop is to do.
    package enum Action: Equatable {
        /// Hand the request to the responder; its answer comes back as ``HTTPConnectionStateMachine/answerReady(_:at:)``.
        case dispatch(HTTPRequest)
        /// Write these bytes after those written before.
        case write([UInt8])
        /// Once everything written has gone out, close: half-close, drop what the client still sends for a moment,
        /// then close, so the last answer is not destroyed by a reset.
        case closeGracefully
        /// Close at once.
        case close
    }

    /// What the answer to a request depends on besides the response.
    package struct Exchange: Equatable {
        package var keepAlive: Bool
        package var minorVersion: Int
        package var isHEAD: Bool
    }

    /// Where the connection is in its current request.
    package enum Phase: Equatable {
        /// Reading a head (none of it may have arrived yet).
        case head
        /// Reading the body of `head`, `length` bytes.
        case body(RequestHead.Decoded, length: Int)
        /// The responder is answering; nothing is read meanwhile.
        case answering(Exchange)
        /// Nothing more is read or answered: what is written goes out, then the connection closes.
        case closing
        /// Closed.
        case closed
    }

    package let limits: Limits
    package let peerAddress: String
    private let writer: ResponseWriter
    private let refusalResponse: @Sendable (HTTPRefusal) -> HTTPResponse
    package private(set) var phase = Phase.head
    /// Bytes received and not yet consumed: a head not complete yet, a body, pipelined requests.
    private var input: [UInt8] = []
    /// How far the head at the start of `input` has been examined.
    private var headProgress = RequestHead.Progress()
    /// How many bytes of heads have been examined in all: each once, however slowly its head arrives.
    package private(set) var examinedHeadByteCount = 0
    /// When the request now arriving must be whole; nil between requests.
    private var deadline: ContinuousClock.Instant?
    /// Since when the connection has been idle between requests.
    private var idleSince: ContinuousClock.Instant
    /// Bytes of answers written and not yet taken by the client's socket.
    package private(set) var unsentByteCount = 0
    /// Since when the unsent bytes have not shrunk.
    private var stalledSince: ContinuousClock.Instant?
    private var stopping = false

    /// A new connection, accepted at `now`: its first request must arrive whole within the request timeout.
    ///
    /// - Parameters:
    ///   - limits: The bounds.
    ///   - peerAddress: The client's IP address, given to requests.
    ///   - writer: Serialises answers.
    ///   - refusalResponse: The answer to a request the connection refuses itself.
    ///   - now: The accept's instant.
    package init(
        limits: Limits, peerAddress: String, writer: ResponseWriter,
        refusalResponse: @escaping @Sendable (HTTPRefusal) -> HTTPResponse, at now: ContinuousClock.Instant
    ) {
        self.limits = limits
        self.peerAddress = peerAddress
        self.writer = writer
        self.refusalResponse = refusalResponse
        idleSince = now
        deadline = now + limits.requestTimeout
    }

    /// Whether the connection's next bytes are wanted: a request is being read and the client reads its answers.
    package var wantsBytes: Bool {
        switch phase {
        case .head, .body: unsentByteCount < limits.unsentByteLimit
        case .answering, .closing, .closed: false
        }
    }

    // MARK: Events

    /// Bytes arrived from the client.
    package mutating func bytesReceived(_ bytes: some Collection<UInt8>, at now: ContinuousClock.Instant) -> [Action] {
        switch phase {
        case .head, .body:
            input.append(contentsOf: bytes)
            return readRequests(at: now)
        case .answering, .closing, .closed:
            return []
        }
    }

    /// The client ended its side: a request cut short can never be answered; answers written still go out.
    package mutating func peerClosed(at now: ContinuousClock.Instant) -> [Action] {
        switch phase {
        case .head, .body:
            input = []
            deadline = nil
            phase = .closing
            return [.closeGracefully]
        case .answering, .closing, .closed:
            return []
        }
    }

    /// The responder's answer to the request dispatched last: written, then the connection closes (the client or
    /// the answer asked for it, or the server is stopping) or reads its next request, which may be waiting already.
    package mutating func answerReady(_ response: HTTPResponse, at now: ContinuousClock.Instant) -> [Action] {
        guard case .answering(let exchange) = phase else { return [] }
        let close = !exchange.keepAlive || stopping || Self.asksToClose(response)
        var actions = [write(writer.serialize(response, exchange: exchange, close: close), at: now)]
        if close {
            phase = .closing
            actions.append(.closeGracefully)
            return actions
        }
        phase = .head
        idleSince = now
        deadline = input.isEmpty ? nil : now + limits.requestTimeout
        actions += readRequests(at: now)
        return actions
    }

    /// The client's socket took `byteCount` more bytes of what was written.
    package mutating func bytesSent(_ byteCount: Int, at now: ContinuousClock.Instant) -> [Action] {
        let wasOverLimit = unsentByteCount >= limits.unsentByteLimit
        unsentByteCount = max(0, unsentByteCount - byteCount)
        stalledSince = unsentByteCount == 0 ? nil : now
        // Requests read already wait while the client leaves too much unread.
        guard wasOverLimit, unsentByteCount < limits.unsentByteLimit, case .head = phase else { return [] }
        return readRequests(at: now)
    }

    /// Time passed: a request not whole in time is refused 408 (or cut, when its body is late); a connection idle
    /// between requests, or whose client has not read its answers, for the idle timeout is closed.
    package mutating func tick(at now: ContinuousClock.Instant) -> [Action] {
        if unsentByteCount > 0, let since = stalledSince, now - since >= limits.idleTimeout {
            phase = .closed
            return [.close]
        }
        switch phase {
        case .head:
            if let deadline {
                guard now >= deadline else { return [] }
                return refuse(.timeout, at: now)
            }
            guard unsentByteCount == 0, now - idleSince >= limits.idleTimeout else { return [] }
            phase = .closed
            return [.close]
        case .body:
            guard let deadline, now >= deadline else { return [] }
            phase = .closed
            return [.close]
        case .answering, .closing, .closed:
            return []
        }
    }

    /// The server is stopping: a request being answered gets its answer and the connection closes after it; answers
    /// still to write go out, then the connection closes; the others close now.
    package mutating func stop(at now: ContinuousClock.Instant) -> [Action] {
        stopping = true
        switch phase {
        case .answering, .closed:
            return []
        case .head, .body, .closing:
            input = []
            deadline = nil
            guard unsentByteCount > 0 else {
                phase = .closed
                return [.close]
            }
            phase = .closing
            return [.closeGracefully]
        }
    }

    // MARK: Reading requests

    /// Reads requests out of `input`: a checked, decoded head, then exactly its body, then the dispatch.
    private mutating func readRequests(at now: ContinuousClock.Instant) -> [Action] {
        var actions: [Action] = []
        while true {
            switch phase {
            case .head:
                guard !input.isEmpty, unsentByteCount < limits.unsentByteLimit else { return actions }
                if deadline == nil { deadline = now + limits.requestTimeout }
                let examinedBefore = headProgress.examinedByteCount
                let examined = RequestHead.examine(
                    input, maximumByteCount: limits.maximumHeadByteCount, progress: &headProgress)
                examinedHeadByteCount += headProgress.examinedByteCount - examinedBefore
                switch examined.verdict {
                case .incomplete: return actions
                case .malformed(let problem): return actions + refuse(.malformed(problem), at: now)
                case .tooLarge: return actions + refuse(.headTooLarge, at: now)
                case .complete(let byteCount):
                    let framing = examined.framing ?? .init(contentLength: nil, hasTransferEncoding: false)
                    if let refusal = refusal(for: framing) { return actions + refuse(refusal, at: now) }
                    let head: RequestHead.Decoded
                    do {
                        head = try RequestHead.decode(input[0..<byteCount])
                    } catch {
                        switch error {
                        case .malformed(let problem): return actions + refuse(.malformed(problem), at: now)
                        case .versionNotSupported: return actions + refuse(.versionNotSupported, at: now)
                        }
                    }
                    input.removeFirst(byteCount)
                    headProgress = RequestHead.Progress()
                    let length = framing.contentLength ?? 0
                    if length > input.count && head.expectsContinue && head.minorVersion == 1 {
                        actions.append(write(Self.continueLine, at: now))
                    }
                    phase = .body(head, length: length)
                }
            case .body(let head, let length):
                guard input.count >= length else { return actions }
                let body = Array(input[0..<length])
                input.removeFirst(length)
                deadline = nil
                let exchange = Exchange(
                    keepAlive: head.keepAlive && !stopping, minorVersion: head.minorVersion,
                    isHEAD: head.method == "HEAD")
                phase = .answering(exchange)
                actions.append(
                    .dispatch(
                        HTTPRequest(
                            method: head.method, decodedPath: RequestPath.decoded(head.target), target: head.target,
                            lowercasedHeaders: head.fields, body: body, remoteAddress: peerAddress)))
                return actions
            case .answering, .closing, .closed:
                return actions
            }
        }
    }

    /// Why a well-framed head's body cannot be read, if it cannot.
    private func refusal(for framing: RequestHead.BodyFraming) -> HTTPRefusal? {
        if framing.hasTransferEncoding {
            // RFC 9112 6.1: Transfer-Encoding beside Content-Length "ought to be handled as an error" (it is how
            // requests are smuggled); alone, the body's length is unknown until it has all been read.
            return framing.contentLength != nil ? .malformed("both Transfer-Encoding and Content-Length") : .chunked
        }
        guard let length = framing.contentLength else { return nil }
        return length > limits.maximumBodyByteCount ? .bodyTooLarge : nil
    }

    /// Reads nothing more: the refusal goes out after any answer still being written, and the connection closes.
    private mutating func refuse(_ refusal: HTTPRefusal, at now: ContinuousClock.Instant) -> [Action] {
        input = []
        deadline = nil
        phase = .closing
        let bytes = writer.serialize(
            refusalResponse(refusal), exchange: Exchange(keepAlive: false, minorVersion: 1, isHEAD: false), close: true)
        return [write(bytes, at: now), .closeGracefully]
    }

    private mutating func write(_ bytes: [UInt8], at now: ContinuousClock.Instant) -> Action {
        if unsentByteCount == 0 { stalledSince = now }
        unsentByteCount += bytes.count
        return .write(bytes)
    }

    /// Whether the responder's answer carries `Connection: close`.
    private static func asksToClose(_ response: HTTPResponse) -> Bool {
        response.headers.contains { $0.key.lowercased() == "connection" && $0.value.lowercased().contains("close") }
    }

    private static let continueLine = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
}
