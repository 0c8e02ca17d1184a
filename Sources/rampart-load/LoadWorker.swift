/// One connection of a ``LoadEventLoop`` and the protected requests it makes, one at a time: the state that the
/// blocking ``LoadApp/protectedRequest(_:on:)`` keeps on its stack.
final class LoadWorker {
    /// What the worker is doing.
    enum Phase: Equatable {
        /// Its `POST /v1/challenges` is in flight.
        case challenge
        /// Its signed request is in flight.
        case signed
        /// A protected request failed; the next one starts at ``LoadWorker/retryAt``.
        case waiting
        /// The window is over.
        case done
    }

    let server: LoadServerAddress
    /// The keys this worker signs with, in turn, and their request bytes for ``server``.
    var keys: [LoadKey]
    let requests: [LoadRequestBytes]
    var phase = Phase.done
    /// How many protected requests were started (the next key is `turn % keys.count`).
    var turn = 0
    /// The key of the protected request in flight.
    var current = 0
    /// When the protected request in flight began (its latency runs from here).
    var began = ContinuousClock.now
    /// Whether it fetched its challenge.
    var fetchedChallenge = false
    /// When ``Phase/waiting`` ends.
    var retryAt = ContinuousClock.now

    /// The connection's socket, or -1.
    var socket: Int32 = -1
    /// How many TCP connections this worker opened.
    var connectionsOpened = 0
    /// Bytes received and not yet parsed.
    var received: [UInt8] = []
    /// The signed request being sent (reused from one request to the next).
    var signedRequest: [UInt8] = []
    /// How many bytes of the request in flight were sent.
    var sent = 0
    /// Whether `EPOLLOUT` is asked for (a send found the socket's buffer full).
    var wantsWritable = false
    /// Whether the request was sent whole and its answer is awaited.
    var awaitingAnswer = false
    /// Whether the exchange began on a kept-alive connection (a failure then earns one retry on a new one).
    var reused = false
    /// Whether the exchange was retried.
    var retried = false

    init(server: LoadServerAddress, keys: [LoadKey], app: LoadApp) {
        self.server = server
        self.keys = keys
        requests = keys.map { LoadRequestBytes(key: $0, server: server, app: app) }
        received.reserveCapacity(4096)
        signedRequest.reserveCapacity(2048)
    }

    /// The bytes of the request in flight.
    func withOutgoing<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T {
        phase == .challenge
            ? requests[current].challenge.withUnsafeBytes(body) : signedRequest.withUnsafeBytes(body)
    }
}
