public import Foundation

extension AttestedClient {
    /// How the client waits out `429 Too Many Requests`: how many times, and how long at most.
    ///
    /// Each wait is the answer's `Retry-After` (seconds or an HTTP date), or without one 1, 2, 4, … seconds. When
    /// the server asks for longer than ``longestWait``, or it still answers 429 after ``maximumRetries`` waits, the
    /// client stops with ``AttestedClientError/Code/rateLimited`` instead of hanging the app.
    public struct RetryPolicy: Sendable {
        /// How many times a rate-limited request is retried.
        public var maximumRetries: Int
        /// The longest single wait, in seconds.
        public var longestWait: TimeInterval
        /// Waits the given number of seconds (`Task.sleep` by default; tests record instead).
        public var sleep: @Sendable (TimeInterval) async throws -> Void

        /// Creates a policy.
        ///
        /// - Parameters:
        ///   - maximumRetries: Retries after a 429 (default 3).
        ///   - longestWait: The longest wait honoured, in seconds (default 30).
        ///   - sleep: How to wait.
        public init(
            maximumRetries: Int = 3, longestWait: TimeInterval = 30,
            sleep: @escaping @Sendable (TimeInterval) async throws -> Void = { seconds in
                try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1_000_000_000))
            }
        ) {
            self.maximumRetries = maximumRetries
            self.longestWait = longestWait
            self.sleep = sleep
        }

        /// How long to wait before retry number `tries` (1 for the first), or nil when the budget is spent or the
        /// server asks for longer than ``longestWait``.
        ///
        /// - Parameters:
        ///   - answer: The 429 answer.
        ///   - tries: The retry about to be made, from 1.
        ///   - now: The current time, for an HTTP-date `Retry-After`.
        /// - Returns: Seconds to wait.
        public func wait(after answer: ServerAnswer, tries: Int, now: Date = Date()) -> TimeInterval? {
            guard tries <= maximumRetries else { return nil }
            let asked = answer.header("Retry-After").flatMap { Self.seconds(retryAfter: $0, now: now) }
            let seconds = asked ?? min(longestWait, pow(2, Double(tries - 1)))
            return seconds <= longestWait ? seconds : nil
        }

        /// Waits before retry `tries`, or throws ``AttestedClientError/Code/rateLimited``.
        func waitOut(_ answer: ServerAnswer, tries: Int, for request: String) async throws {
            guard let seconds = wait(after: answer, tries: tries) else {
                let asked = answer.header("Retry-After").map { " (Retry-After: \($0))" } ?? ""
                let why =
                    tries > maximumRetries
                    ? "still answered 429 Too Many Requests after \(maximumRetries) retries"
                    : "answered 429 Too Many Requests and asks to wait longer than \(Int(longestWait)) s"
                throw AttestedClientError.rateLimited(
                    "the server \(why) to \(request)\(asked); try again later", detail: answer.errorCode ?? "")
            }
            try await sleep(seconds)
        }

        /// The seconds a `Retry-After` value asks for: delay-seconds, or an HTTP date (RFC 9110 §10.2.3).
        static func seconds(retryAfter value: String, now: Date) -> TimeInterval? {
            let text = value.trimmingCharacters(in: .whitespaces)
            if let seconds = Int(text), seconds >= 0 { return TimeInterval(seconds) }
            guard let date = date(http: text) else { return nil }
            return max(0, date.timeIntervalSince(now))
        }

        /// An HTTP date (IMF-fixdate, RFC 9110 §5.6.7), as in `Retry-After` and `Date`.
        static func date(http value: String) -> Date? {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return formatter.date(from: value.trimmingCharacters(in: .whitespaces))
        }
    }
}
