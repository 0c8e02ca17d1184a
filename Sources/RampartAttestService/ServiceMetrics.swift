internal import CNetwork
import Foundation
import Synchronization

/// The service's counters and latency histogram, rendered in Prometheus text format at `GET /metrics`.
///
/// Labels are bounded: routes are the service's own route patterns (an unknown path counts as `unmatched`), verdict
/// reasons are the stable codes. No label ever holds request data.
public final class ServiceMetrics {
    /// Upper bounds of the latency histogram buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1]

    private struct State {
        var requests: [RequestKey: Int] = [:]
        var verdicts: [VerdictKey: Int] = [:]
        var bucketCounts = [Int](repeating: 0, count: ServiceMetrics.latencyBuckets.count)
        var latencyCount = 0
        var latencySum = 0.0
        var sessionKeyEvents: [String: Int] = [:]
        var sessionKeysInUse: Int?
        var acceptedByPlatform: [PlatformKey: Int] = [:]
    }

    private struct PlatformKey: Hashable {
        let kind: String
        let platform: String
    }

    private struct RequestKey: Hashable {
        let route: String
        let status: Int
    }

    private struct VerdictKey: Hashable {
        let kind: String
        let reason: String
    }

    private let state = Mutex(State())

    /// Creates empty metrics.
    public init() {}

    /// Counts one answered request and its latency.
    ///
    /// - Parameters:
    ///   - route: The route pattern, e.g. `/v1/keys/{keyId}`.
    ///   - status: The HTTP status sent.
    ///   - seconds: How long it took.
    public func recordRequest(route: String, status: Int, seconds: Double) {
        state.withLock { state in
            state.requests[RequestKey(route: route, status: status), default: 0] += 1
            state.latencyCount += 1
            state.latencySum += seconds
            for (index, bound) in Self.latencyBuckets.enumerated() where seconds <= bound {
                state.bucketCounts[index] += 1
            }
        }
    }

    /// Counts one verdict.
    ///
    /// - Parameters:
    ///   - kind: `attestation`, `assertion` or `challenge`.
    ///   - reason: `accepted`, `issued` or a refusal code.
    public func recordVerdict(kind: String, reason: String) {
        state.withLock { $0.verdicts[VerdictKey(kind: kind, reason: reason), default: 0] += 1 }
    }

    /// Counts one accepted registration or signed request by the platform of its key, beside its verdict.
    ///
    /// - Parameters:
    ///   - kind: `attestation` or `assertion`.
    ///   - platform: The key's platform.
    func recordAccepted(kind: String, platform: KeyPlatform) {
        state.withLock { $0.acceptedByPlatform[PlatformKey(kind: kind, platform: platform.rawValue), default: 0] += 1 }
    }

    /// Counts one change of the session-token keys of the `jwt` subject source and sets how many are in use.
    ///
    /// - Parameters:
    ///   - event: `loaded`, `reloaded`, `kept` (the file failed; the keys in use stay), `emptied` (the file holds no
    ///     usable key) or `dropped` (the file stayed unreadable too long).
    ///   - keysInUse: The number of keys that verify session tokens now.
    func recordSessionKeys(event: String, keysInUse: Int) {
        state.withLock { state in
            state.sessionKeyEvents[event, default: 0] += 1
            state.sessionKeysInUse = keysInUse
        }
    }

    /// The Prometheus text exposition (version 0.0.4).
    public var prometheusText: String {
        state.withLock { state in
            var lines = [
                "# HELP rampart_http_requests_total HTTP requests answered, by route and status.",
                "# TYPE rampart_http_requests_total counter",
            ]
            for (key, count) in state.requests.sorted(by: {
                ($0.key.route, $0.key.status) < ($1.key.route, $1.key.status)
            }) {
                lines.append("rampart_http_requests_total{route=\"\(key.route)\",status=\"\(key.status)\"} \(count)")
            }
            lines += [
                "# HELP rampart_verdicts_total Attestation verdicts (App Attest and Android), by kind and reason.",
                "# TYPE rampart_verdicts_total counter",
            ]
            for (key, count) in state.verdicts.sorted(by: {
                ($0.key.kind, $0.key.reason) < ($1.key.kind, $1.key.reason)
            }) {
                lines.append("rampart_verdicts_total{kind=\"\(key.kind)\",reason=\"\(key.reason)\"} \(count)")
            }
            if !state.acceptedByPlatform.isEmpty {
                lines += [
                    "# HELP rampart_accepted_total Accepted registrations and signed requests, by kind and the "
                        + "platform of the key (ios: App Attest, android: Key Attestation).",
                    "# TYPE rampart_accepted_total counter",
                ]
                for (key, count) in state.acceptedByPlatform.sorted(by: {
                    ($0.key.kind, $0.key.platform) < ($1.key.kind, $1.key.platform)
                }) {
                    lines.append("rampart_accepted_total{kind=\"\(key.kind)\",platform=\"\(key.platform)\"} \(count)")
                }
            }
            lines += [
                "# HELP rampart_http_request_duration_seconds Time to answer a request.",
                "# TYPE rampart_http_request_duration_seconds histogram",
            ]
            for (index, bound) in Self.latencyBuckets.enumerated() {
                lines.append(
                    "rampart_http_request_duration_seconds_bucket{le=\"\(bound)\"} \(state.bucketCounts[index])")
            }
            lines.append("rampart_http_request_duration_seconds_bucket{le=\"+Inf\"} \(state.latencyCount)")
            lines.append("rampart_http_request_duration_seconds_sum \(state.latencySum)")
            lines.append("rampart_http_request_duration_seconds_count \(state.latencyCount)")
            if let inUse = state.sessionKeysInUse {
                lines += [
                    "# HELP rampart_session_keys_in_use Keys of the subject.jwt JWKS file that verify session tokens.",
                    "# TYPE rampart_session_keys_in_use gauge",
                    "rampart_session_keys_in_use \(inUse)",
                    "# HELP rampart_session_key_events_total Reads of the subject.jwt JWKS file, by outcome.",
                    "# TYPE rampart_session_key_events_total counter",
                ]
                for (event, count) in state.sessionKeyEvents.sorted(by: { $0.key < $1.key }) {
                    lines.append("rampart_session_key_events_total{event=\"\(event)\"} \(count)")
                }
            }
            lines += [
                "# HELP rampart_log_lines_dropped_total Log lines dropped because the log queue was full.",
                "# TYPE rampart_log_lines_dropped_total counter",
                "rampart_log_lines_dropped_total \(ServiceLog.droppedLineCount)",
            ]
            lines += StageClock.prometheusLines
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

/// Structured JSON log lines, one per event, with no secrets: never challenges, assertions, attestation objects,
/// public keys or payloads. Key ids (public hashes) and stable codes are logged; subjects are not.
///
/// ``buffered(sink:capacity:flushIntervalSeconds:)`` keeps the writing off the request path: a request only appends
/// its event to a bounded queue (one lock, no system call, no encoding), and one writer thread encodes and writes the
/// queue in a batch every ``LogBuffer/defaultFlushIntervalSeconds``, when it is half full, and at ``flush()``. When
/// the queue is full, lines are dropped rather than block a request or grow memory, and counted
/// (``droppedLineCount``, `rampart_log_lines_dropped_total` at `/metrics`).
public struct ServiceLog {
    /// Receives each line (without its newline), or with ``buffered(sink:capacity:flushIntervalSeconds:)`` each
    /// batch of lines joined by newlines (without the last one).
    public let sink: (@Sendable (String) -> Void)?
    private let buffer: LogBuffer?

    /// A log that writes each line to `sink`, synchronously.
    ///
    /// - Parameter sink: Where lines go, e.g. standard error.
    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
        buffer = nil
    }

    private init() {
        sink = nil
        buffer = nil
    }

    private init(buffer: LogBuffer) {
        sink = buffer.sink
        self.buffer = buffer
    }

    /// A log that drops everything.
    public static let disabled = ServiceLog()

    /// Whether writing never waits for the sink: the log is buffered (lines queue for its writer thread) or
    /// disabled. A synchronous sink (``init(sink:)``) may block, e.g. on a full pipe.
    var writesWithoutWaiting: Bool { buffer != nil || sink == nil }

    /// A log whose lines a writer thread sends to `sink` in batches, off the request path.
    ///
    /// - Parameters:
    ///   - sink: Where each batch goes (lines joined by newlines), e.g. standard error.
    ///   - capacity: The most events queued; more are dropped and counted (a memory bound).
    ///   - flushIntervalSeconds: The longest an event waits in the queue.
    /// - Returns: The log.
    public static func buffered(
        sink: @escaping @Sendable (String) -> Void, capacity: Int = LogBuffer.defaultCapacity,
        flushIntervalSeconds: Double = LogBuffer.defaultFlushIntervalSeconds
    ) -> ServiceLog {
        ServiceLog(buffer: LogBuffer(sink: sink, capacity: capacity, flushIntervalSeconds: flushIntervalSeconds))
    }

    /// Lines dropped in this process because a buffered log's queue was full.
    public static var droppedLineCount: Int { LogBuffer.dropped.load(ordering: .relaxed) }

    /// Writes every queued line now and returns when it is written (at shutdown); nothing for an unbuffered log.
    public func flush() { buffer?.flush() }

    /// One log event.
    public struct Event: Encodable, Sendable {
        /// RFC 3339 time.
        public var time: String
        /// `info`, `warning` or `error`.
        public var level: String
        /// What happened, e.g. `request`, `listening`, `stopped`.
        public var event: String
        /// The route pattern.
        public var route: String?
        /// The HTTP method.
        public var method: String?
        /// The HTTP status.
        public var status: Int?
        /// The verdict or error code.
        public var code: String?
        /// The route's policy.
        public var policy: String?
        /// The key involved, as ``ServiceRouter/fingerprint(keyID:)``: 8 hex digits of SHA-256 over the key id.
        public var keyFingerprint: String?
        /// Milliseconds taken.
        public var durationMs: Double?
        /// Free text for operators (never request data).
        public var message: String?

        /// Creates an event.
        ///
        /// - Parameters:
        ///   - time: RFC 3339 time.
        ///   - level: `info`, `warning` or `error`.
        ///   - event: What happened.
        ///   - route: The route pattern.
        ///   - method: The HTTP method.
        ///   - status: The HTTP status.
        ///   - code: The verdict or error code.
        ///   - policy: The route's policy.
        ///   - keyFingerprint: The key's fingerprint.
        ///   - durationMs: Milliseconds taken.
        ///   - message: Operator text.
        public init(
            time: String, level: String, event: String, route: String? = nil, method: String? = nil,
            status: Int? = nil, code: String? = nil, policy: String? = nil, keyFingerprint: String? = nil,
            durationMs: Double? = nil, message: String? = nil
        ) {
            self.time = time
            self.level = level
            self.event = event
            self.route = route
            self.method = method
            self.status = status
            self.code = code
            self.policy = policy
            self.keyFingerprint = keyFingerprint
            self.durationMs = durationMs
            self.message = message
        }

        /// The event as one JSON object, keys sorted, slashes unescaped (what `JSONEncoder` with `.sortedKeys` and
        /// `.withoutEscapingSlashes` writes, without its cost).
        var jsonLine: String {
            // Written as bytes by JSONObjectWriter (the same escaping): built by string concatenation, a line cost
            // about 29,000 instructions, two lines per protected request.
            var line = JSONObjectWriter(capacity: 256)
            line.string("code", code)
            if let durationMs, durationMs.isFinite { line.number("durationMs", durationMs) }
            line.string("event", event)
            line.string("keyFingerprint", keyFingerprint)
            line.string("level", level)
            line.string("message", message)
            line.string("method", method)
            line.string("policy", policy)
            line.string("route", route)
            line.integer("status", status)
            line.string("time", time)
            return String(decoding: line.finish(), as: UTF8.self)
        }
    }

    /// Writes `event` when enabled: queued when buffered, at once otherwise.
    ///
    /// - Parameter event: The event.
    public func write(_ event: Event) {
        if let buffer { return buffer.append(event) }
        guard let sink else { return }
        sink(event.jsonLine)
    }

    /// Writes an event built from its parts.
    ///
    /// - Parameters:
    ///   - level: `info`, `warning` or `error`.
    ///   - event: The event name.
    ///   - message: Operator text.
    public func write(level: String = "info", event: String, message: String? = nil) {
        write(Event(time: Self.timestamp(), level: level, event: event, message: message))
    }

    /// RFC 3339 UTC time with milliseconds, e.g. `2026-12-01T11:53:09.743Z`, from `gmtime_r` (Foundation's
    /// formatter costs microseconds, on every request); the digits are written into one buffer, with no string
    /// per field.
    static func timestamp(_ date: Date = Date()) -> String {
        let since1970 = date.timeIntervalSince1970
        guard since1970.isFinite, abs(since1970) < 1e15 else { return "1970-01-01T00:00:00.000Z" }
        var seconds = time_t(since1970.rounded(.down))
        // The fraction to the nearest microsecond first, so that .999 stored as .99899… is still 999 ms.
        let microseconds = ((since1970 - Double(seconds)) * 1_000_000).rounded()
        let milliseconds = min(999, max(0, Int(microseconds) / 1000))
        var parts = tm()
        guard gmtime_r(&seconds, &parts) != nil else { return "1970-01-01T00:00:00.000Z" }
        // The year with at least four digits (more past 9999), then the fixed-width fields after it.
        let year = String(parts.tm_year + 1900)
        var text = Array(String(repeating: "0", count: max(0, 4 - year.utf8.count)).utf8) + Array(year.utf8)
        let start = text.count
        text += "-00-00T00:00:00.000Z".utf8
        func put(_ value: Int, at offset: Int, width: Int) {
            var rest = value
            for index in stride(from: start + offset + width - 1, through: start + offset, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        put(Int(parts.tm_mon) + 1, at: 1, width: 2)
        put(Int(parts.tm_mday), at: 4, width: 2)
        put(Int(parts.tm_hour), at: 7, width: 2)
        put(Int(parts.tm_min), at: 10, width: 2)
        put(Int(parts.tm_sec), at: 13, width: 2)
        put(milliseconds, at: 16, width: 3)
        return String(decoding: text, as: UTF8.self)
    }
}

/// The queue behind a buffered ``ServiceLog``: requests append under a lock, one writer thread drains it.
public final class LogBuffer: Sendable {
    /// The default queue bound: 16,384 events (a few MB at most).
    public static let defaultCapacity = 16_384
    /// The default longest wait before a queued event is written: 0.2 s.
    public static let defaultFlushIntervalSeconds = 0.2

    /// Lines dropped by every buffered log of the process.
    static let dropped = Atomic<Int>(0)

    private struct State {
        var events: [ServiceLog.Event] = []
        /// Flush requests not yet served, each with the semaphore its caller waits on.
        var flushes: [DispatchSemaphore] = []
    }

    let sink: @Sendable (String) -> Void
    private let capacity: Int
    private let state: Mutex<State>
    private let wake = DispatchSemaphore(value: 0)

    init(sink: @escaping @Sendable (String) -> Void, capacity: Int, flushIntervalSeconds: Double) {
        self.sink = sink
        self.capacity = max(1, capacity)
        var initial = State()
        initial.events.reserveCapacity(min(self.capacity, 1024))
        state = Mutex(initial)
        let interval = max(0.001, flushIntervalSeconds)
        // The writer lives as long as the process: a log is made once, at start (`rampart serve`).
        let thread = Thread { [self] in
            _ = CNetwork_name_this_thread("rampart-log")
            while true {
                _ = wake.wait(timeout: .now() + interval)
                drain()
            }
        }
        thread.start()
    }

    /// Queues `event`, or counts it dropped when the queue is full; wakes the writer early at half full.
    func append(_ event: ServiceLog.Event) {
        let (accepted, count) = state.withLock { state -> (Bool, Int) in
            guard state.events.count < capacity else { return (false, state.events.count) }
            state.events.append(event)
            return (true, state.events.count)
        }
        if !accepted {
            Self.dropped.add(1, ordering: .relaxed)
        } else if count == capacity / 2 {
            wake.signal()
        }
    }

    /// Writes everything queued, and returns once it is written.
    func flush() {
        let done = DispatchSemaphore(value: 0)
        state.withLock { $0.flushes.append(done) }
        wake.signal()
        done.wait()
    }

    private func drain() {
        let (events, flushes) = state.withLock { state -> ([ServiceLog.Event], [DispatchSemaphore]) in
            var taken: [ServiceLog.Event] = []
            taken.reserveCapacity(min(capacity, 1024))
            swap(&taken, &state.events)
            let flushes = state.flushes
            state.flushes = []
            return (taken, flushes)
        }
        if !events.isEmpty { sink(events.map(\.jsonLine).joined(separator: "\n")) }
        for done in flushes { done.signal() }
    }
}

extension ServiceMetrics: Sendable {}

extension ServiceLog: Sendable {}
