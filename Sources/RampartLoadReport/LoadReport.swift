import Foundation

/// What `rampart-load` prints, one JSON object per run, and what `rampart-bench service` reads back.
///
/// The JSON keys are the property names (`JSONEncoder`'s synthesized coding, no key strategy); an optional that is
/// nil is left out. `rampart-load` writes it with `.sortedKeys` and `.withoutEscapingSlashes`:
///
/// ```json
/// {"allowed":4180,"challengeRequests":4180,"clientCPUMicrosecondsPerRequest":81.2,"concurrency":64,
///  "connectionsOpened":64,"errors":0,"flow":"two-round-trips","gateway":"envoy","keys":64,
///  "latencyMs":{"max":31.9,"p50":15.1,"p90":19.8,"p99":27.4},"protectedRequests":4180,"refused":0,
///  "refusedByCode":{},"requestsPerSecond":4180,"seconds":1,"serverCPUMicrosecondsPerRequest":371.5,"servers":1,
///  "stageCPUMicrosecondsPerRequest":{"cbor":6.1,"ecdsa":92.4}}
/// ```
package struct LoadReport: Codable, Equatable, Sendable {
    /// The concurrencies a run may have: what `rampart-load --concurrency` and `rampart-bench service
    /// --concurrency` accept.
    package static let concurrencyRange = 1...4096

    /// Latencies of a whole protected request, in milliseconds.
    package struct Latency: Codable, Equatable, Sendable {
        package var p50: Double
        package var p90: Double
        package var p99: Double
        package var max: Double

        /// Creates latencies.
        ///
        /// - Parameters:
        ///   - p50: The median.
        ///   - p90: The 90th percentile.
        ///   - p99: The 99th percentile.
        ///   - max: The slowest.
        package init(p50: Double, p90: Double, p99: Double, max: Double) {
            self.p50 = p50
            self.p90 = p90
            self.p99 = p99
            self.max = max
        }
    }

    /// The flow, a ``LoadFlow`` raw value.
    package var flow: String
    /// `envoy` or `direct`.
    package var gateway: String
    /// How many servers the load was split across.
    package var servers: Int
    /// Workers, each with its own keys and connection.
    package var concurrency: Int
    /// Keys registered.
    package var keys: Int
    /// The measured window, in seconds.
    package var seconds: Double
    /// Protected requests completed in the window (allowed and refused).
    package var protectedRequests: Int
    package var allowed: Int
    package var refused: Int
    /// Refused requests by `Rampart-Error` code (or `status-N` without one).
    package var refusedByCode: [String: Int]
    /// Requests that failed at the HTTP level (connection refused or closed, malformed answer).
    package var errors: Int
    package var firstError: String?
    /// `POST /v1/challenges` made for protected requests in the window.
    package var challengeRequests: Int
    /// Allowed protected requests per second.
    package var requestsPerSecond: Double
    /// Latency of a whole protected request (its challenge round trip included), in milliseconds.
    package var latencyMs: Latency
    /// TCP connections opened over the run (registration included): about the concurrency when kept alive.
    package var connectionsOpened: Int
    /// CPU of the `--server-pid` processes in the window, per protected request.
    package var serverCPUMicrosecondsPerRequest: Double?
    /// The servers' stage counters (`/metrics` of `--admin`) in the window, per protected request.
    package var stageCPUMicrosecondsPerRequest: [String: Double]?
    /// CPU of the `--database-process` processes in the window, per protected request.
    package var databaseCPUMicrosecondsPerRequest: Double?
    /// The load generator's CPU (signing included) in the window, per protected request.
    package var clientCPUMicrosecondsPerRequest: Double

    /// Creates a report.
    ///
    /// - Parameters:
    ///   - flow: The flow's raw value.
    ///   - gateway: `envoy` or `direct`.
    ///   - servers: Servers the load was split across.
    ///   - concurrency: Workers.
    ///   - keys: Keys registered.
    ///   - seconds: The measured window.
    ///   - protectedRequests: Protected requests completed in the window.
    ///   - allowed: Those allowed.
    ///   - refused: Those refused.
    ///   - refusedByCode: Refusals by code.
    ///   - errors: HTTP-level failures.
    ///   - firstError: The first failure's text.
    ///   - challengeRequests: Challenges fetched in the window.
    ///   - requestsPerSecond: Allowed requests per second.
    ///   - latencyMs: Latencies in milliseconds.
    ///   - connectionsOpened: TCP connections opened.
    ///   - serverCPUMicrosecondsPerRequest: The servers' CPU per request.
    ///   - stageCPUMicrosecondsPerRequest: The servers' stage CPU per request.
    ///   - databaseCPUMicrosecondsPerRequest: The database's CPU per request.
    ///   - clientCPUMicrosecondsPerRequest: The load generator's CPU per request.
    package init(
        flow: String, gateway: String, servers: Int, concurrency: Int, keys: Int, seconds: Double,
        protectedRequests: Int, allowed: Int, refused: Int, refusedByCode: [String: Int], errors: Int,
        firstError: String?, challengeRequests: Int, requestsPerSecond: Double, latencyMs: Latency,
        connectionsOpened: Int, serverCPUMicrosecondsPerRequest: Double?,
        stageCPUMicrosecondsPerRequest: [String: Double]?, databaseCPUMicrosecondsPerRequest: Double?,
        clientCPUMicrosecondsPerRequest: Double
    ) {
        self.flow = flow
        self.gateway = gateway
        self.servers = servers
        self.concurrency = concurrency
        self.keys = keys
        self.seconds = seconds
        self.protectedRequests = protectedRequests
        self.allowed = allowed
        self.refused = refused
        self.refusedByCode = refusedByCode
        self.errors = errors
        self.firstError = firstError
        self.challengeRequests = challengeRequests
        self.requestsPerSecond = requestsPerSecond
        self.latencyMs = latencyMs
        self.connectionsOpened = connectionsOpened
        self.serverCPUMicrosecondsPerRequest = serverCPUMicrosecondsPerRequest
        self.stageCPUMicrosecondsPerRequest = stageCPUMicrosecondsPerRequest
        self.databaseCPUMicrosecondsPerRequest = databaseCPUMicrosecondsPerRequest
        self.clientCPUMicrosecondsPerRequest = clientCPUMicrosecondsPerRequest
    }

    /// The report as `rampart-load` prints it: one line of JSON, keys sorted, slashes unescaped.
    ///
    /// - Returns: The JSON text, without a line break.
    /// - Throws: An `EncodingError` (for a non-finite number).
    package func jsonText() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
