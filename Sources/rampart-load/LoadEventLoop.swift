import CNetwork
import RampartAppAttest

#if canImport(Glibc)
import Glibc
#endif

/// Drives many workers' connections from one thread: non-blocking sockets under `epoll` (level-triggered, through
/// the CNetwork shim the service's event loop uses too), each connection a ``LoadWorker`` state machine making the steps of ``LoadApp/protectedRequest(_:on:)`` — take or
/// fetch the challenge, sign, send, check the answer — so the concurrency costs no thread and no context switch per
/// connection.
///
/// A protected request counts when its answer arrives inside the window `start...end`; its latency runs from its
/// start (before its challenge round trip) to that answer. A failed exchange on a kept-alive connection is retried
/// once on a new connection, as ``LoadConnection/send(_:headRequest:)`` does; a protected request that fails
/// anyway counts as an error (in the window) and its worker waits 10 ms before the next.
final class LoadEventLoop {
    let app: LoadApp
    let start: ContinuousClock.Instant
    let end: ContinuousClock.Instant
    private(set) var workers: [LoadWorker] = []
    private(set) var tally = LoadTally()
    private let clock = ContinuousClock()
    private let epoll: Int32
    /// The worker whose connection each watched socket is: `epoll_wait` reports sockets by descriptor.
    private var workerBySocket: [Int32: LoadWorker] = [:]
    /// Where `recv` reads into; the bytes are then appended to the worker's buffer.
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// How many workers are in ``LoadWorker/Phase/waiting``.
    private var waiting = 0
    static let retryDelay = Duration.milliseconds(10)

    /// A loop for the window `start...end`.
    ///
    /// - Throws: ``LoadError`` when `epoll_create1` fails.
    init(app: LoadApp, start: ContinuousClock.Instant, end: ContinuousClock.Instant) throws {
        self.app = app
        self.start = start
        self.end = end
        // epoll_create1(2): the descriptor is the caller's, closed with close(2) (in deinit).
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epoll >= 0 else { throw LoadError("epoll_create1 failed: \(String(cString: strerror(errno)))") }
    }

    deinit {
        for worker in workers where worker.socket >= 0 { _ = Glibc.close(worker.socket) }
        _ = Glibc.close(epoll)
    }

    /// Adds a worker signing with `keys` against `server`.
    func addWorker(server: LoadServerAddress, keys: [LoadKey]) {
        workers.append(LoadWorker(server: server, keys: keys, app: app))
    }

    /// Runs every worker until the window ends; ``tally`` then holds what was counted.
    ///
    /// - Throws: ``LoadError`` when `epoll_wait` fails.
    func run() throws {
        for worker in workers { begin(worker) }
        var sockets = [Int32](repeating: 0, count: 64)
        var ready = [Int32](repeating: 0, count: 64)
        while true {
            let now = clock.now
            guard now < end else { break }
            var deadline = end
            if waiting > 0 {
                for worker in workers where worker.phase == .waiting {
                    if worker.retryAt <= now {
                        waiting -= 1
                        begin(worker)
                    } else if worker.retryAt < deadline {
                        deadline = worker.retryAt
                    }
                }
            }
            let left = deadline - now
            let timeout = Int32(
                clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let count = sockets.withUnsafeMutableBufferPointer { sockets in
                ready.withUnsafeMutableBufferPointer { ready in
                    CNetwork_epoll_wait(epoll, sockets.baseAddress, ready.baseAddress, Int32(sockets.count), timeout)
                }
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw LoadError("epoll_wait failed: \(String(cString: strerror(errno)))")
            }
            for slot in 0..<Int(count) {
                // A socket closed by an earlier event of this batch has no worker, or (its descriptor reused) the
                // worker of the new connection, whose non-blocking read then finds nothing yet.
                guard let worker = workerBySocket[sockets[slot]] else { continue }
                if ready[slot] & Int32(CNetwork_EPOLL_OUT) != 0 && worker.wantsWritable { write(worker) }
                if ready[slot] & Int32(CNetwork_EPOLL_IN) != 0 { read(worker) }
            }
        }
        for worker in workers {
            worker.phase = .done
            tally.connectionsOpened += worker.connectionsOpened
        }
    }

    // MARK: Protected requests

    /// Starts the worker's next protected request, with its next key.
    private func begin(_ worker: LoadWorker) {
        let now = clock.now
        guard now < end else {
            worker.phase = .done
            return
        }
        worker.current = worker.turn % worker.keys.count
        worker.turn += 1
        worker.began = now
        worker.fetchedChallenge = false
        if let next = app.takeNextChallenge(&worker.keys[worker.current]) {
            sign(worker, challenge: next)
        } else {
            worker.fetchedChallenge = true
            worker.phase = .challenge
            startExchange(worker)
        }
    }

    private func sign(_ worker: LoadWorker, challenge: String) {
        let current = worker.current
        do {
            try app.writeSignedRequest(
                &worker.keys[current], challenge: challenge, requests: worker.requests[current],
                into: &worker.signedRequest)
        } catch {
            fail(worker, error)
            return
        }
        worker.phase = .signed
        startExchange(worker)
    }

    /// An answer to the request in flight.
    private func answered(_ worker: LoadWorker, _ answer: LoadResponse) {
        switch worker.phase {
        case .challenge:
            let challenge: String
            do {
                challenge = try LoadApp.challenge(from: answer)
            } catch {
                fail(worker, error)
                return
            }
            sign(worker, challenge: challenge)
        case .signed:
            let outcome = LoadApp.outcome(
                of: answer, key: &worker.keys[worker.current], fetchedChallenge: worker.fetchedChallenge)
            let finished = clock.now
            // Counted when it completes in the window (the servers' CPU is sampled over it).
            if finished >= start && finished <= end {
                let elapsed = finished - worker.began
                tally.record(
                    outcome,
                    seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            begin(worker)
        case .waiting, .done:
            break
        }
    }

    /// The protected request failed: counted (in the window), its connection closed, the next one in 10 ms.
    private func fail(_ worker: LoadWorker, _ error: any Error) {
        let now = clock.now
        if now >= start { tally.errors += 1 }
        tally.firstError = tally.firstError ?? "\(error)"
        closeSocket(worker)
        worker.phase = .waiting
        worker.retryAt = now + Self.retryDelay
        waiting += 1
    }

    // MARK: Exchanges

    private func startExchange(_ worker: LoadWorker) {
        worker.reused = worker.socket >= 0
        worker.retried = false
        transmit(worker)
    }

    /// Sends the request in flight from its first byte, on a new connection when there is none.
    private func transmit(_ worker: LoadWorker) {
        if worker.socket < 0 {
            do {
                try open(worker)
            } catch {
                fail(worker, error)
                return
            }
        }
        worker.sent = 0
        worker.awaitingAnswer = false
        write(worker)
    }

    /// An exchange failed: one retry on a new connection when it began on a kept-alive one, else the protected
    /// request fails.
    private func exchangeFailed(_ worker: LoadWorker, _ error: any Error) {
        closeSocket(worker)
        if worker.reused && !worker.retried {
            // The server may close an idle kept-alive connection at any time.
            worker.retried = true
            worker.reused = false
            transmit(worker)
            return
        }
        fail(worker, error)
    }

    /// Sends what is left of the request; then awaits the answer (or `EPOLLOUT` when the socket's buffer is full).
    private func write(_ worker: LoadWorker) {
        while true {
            let (count, total) = worker.withOutgoing { bytes -> (Int, Int) in
                guard let base = bytes.baseAddress, worker.sent < bytes.count else { return (0, bytes.count) }
                return (
                    Glibc.send(worker.socket, base + worker.sent, bytes.count - worker.sent, Int32(MSG_NOSIGNAL)),
                    bytes.count
                )
            }
            if count > 0 {
                worker.sent += count
                if worker.sent >= total { break }
                continue
            }
            if count == 0 && worker.sent >= total { break }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                _ = setWritableInterest(worker, true)
                return
            }
            exchangeFailed(worker, LoadError("sending to \(worker.server) failed: \(String(cString: strerror(errno)))"))
            return
        }
        if worker.wantsWritable {
            guard setWritableInterest(worker, false) else { return }
        }
        worker.awaitingAnswer = true
        // Bytes that arrived before the request went out whole (the blocking client parses them first too).
        if !worker.received.isEmpty { parseAnswer(worker, closed: false) }
    }

    /// Reads what the socket holds; parses it when an answer is awaited.
    private func read(_ worker: LoadWorker) {
        guard worker.socket >= 0 else { return }
        let count = scratch.withUnsafeMutableBytes { Glibc.recv(worker.socket, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { return }
            exchangeFailed(
                worker, LoadError("reading from \(worker.server) failed: \(String(cString: strerror(errno)))"))
            return
        }
        if count == 0 {
            guard !worker.received.isEmpty else {
                exchangeFailed(worker, LoadError("the server closed the connection without answering"))
                return
            }
            parseAnswer(worker, closed: true)
            return
        }
        scratch.withUnsafeBytes { worker.received.append(contentsOf: $0.prefix(count)) }
        if worker.awaitingAnswer { parseAnswer(worker, closed: false) }
    }

    private func parseAnswer(_ worker: LoadWorker, closed: Bool) {
        let outcome: LoadResponseParser.Outcome
        do {
            outcome = try worker.received.withUnsafeBufferPointer {
                try LoadResponseParser.parse(bytes: $0, closed: closed, headRequest: false)
            }
        } catch {
            exchangeFailed(worker, error)
            return
        }
        switch outcome {
        case .incomplete:
            if closed { exchangeFailed(worker, LoadError("the server closed the connection before a whole answer")) }
        case .response(let answer, let consumed):
            if consumed >= worker.received.count {
                worker.received.removeAll(keepingCapacity: true)
            } else {
                worker.received.removeFirst(consumed)
            }
            worker.awaitingAnswer = false
            if !answer.keepAlive || closed { closeSocket(worker) }
            answered(worker, answer)
        }
    }

    // MARK: Sockets

    private func open(_ worker: LoadWorker) throws {
        let socket = try LoadConnection.connect(to: worker.server)
        let flags = fcntl(socket, F_GETFL)
        // epoll(7): the registration ends when the socket is closed (closeSocket, deinit).
        guard flags >= 0, fcntl(socket, F_SETFL, flags | O_NONBLOCK) == 0,
            CNetwork_epoll_add(epoll, socket, Int32(CNetwork_EPOLL_IN)) == 0
        else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(socket)
            throw LoadError("cannot watch the connection to \(worker.server): \(reason)")
        }
        worker.socket = socket
        workerBySocket[socket] = worker
        worker.connectionsOpened += 1
    }

    /// Asks for `EPOLLOUT` too (`wanted`) or no more; false when epoll refused, the exchange then failed.
    private func setWritableInterest(_ worker: LoadWorker, _ wanted: Bool) -> Bool {
        let interest = Int32(CNetwork_EPOLL_IN) | (wanted ? Int32(CNetwork_EPOLL_OUT) : 0)
        guard CNetwork_epoll_modify(epoll, worker.socket, interest) == 0 else {
            exchangeFailed(worker, LoadError("epoll_ctl failed: \(String(cString: strerror(errno)))"))
            return false
        }
        worker.wantsWritable = wanted
        return true
    }

    private func closeSocket(_ worker: LoadWorker) {
        if worker.socket >= 0 {
            workerBySocket[worker.socket] = nil
            _ = Glibc.close(worker.socket)
        }
        worker.socket = -1
        worker.received.removeAll(keepingCapacity: true)
        worker.wantsWritable = false
        worker.awaitingAnswer = false
    }
}
