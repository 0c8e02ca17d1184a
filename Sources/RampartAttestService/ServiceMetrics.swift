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
                "# HELP rampart_verdicts_total App Attest verdicts, by kind and reason.",
                "# TYPE rampart_verdicts_total counter",
            ]
            for (key, count) in state.verdicts.sorted(by: {
                ($0.key.kind, $0.key.reason) < ($1.key.kind, $1.key.reason)
            }) {
                lines.append("rampart_verdicts_total{kind=\"\(key.kind)\",reason=\"\(key.reason)\"} \(count)")
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
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

/// Structured JSON log lines, one per event, with no secrets: never challenges, assertions, attestation objects,
/// public keys or payloads. Key ids (public hashes) and stable codes are logged; subjects are not.
public struct ServiceLog {
    /// Receives each line (without its newline).
    public let sink: (@Sendable (String) -> Void)?

    /// A log that writes each line to `sink`.
    ///
    /// - Parameter sink: Where lines go, e.g. standard error.
    public init(sink: @escaping @Sendable (String) -> Void) { self.sink = sink }

    private init() { sink = nil }

    /// A log that drops everything.
    public static let disabled = ServiceLog()

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
    }

    /// Writes `event` when enabled.
    ///
    /// - Parameter event: The event.
    public func write(_ event: Event) {
        guard let sink else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(event) else { return }
        sink(String(decoding: data, as: UTF8.self))
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

    static func timestamp(_ date: Date = Date()) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}

extension ServiceMetrics: Sendable {}

extension ServiceLog: Sendable {}
