extension ServiceConfiguration {
    /// A key of the configuration file that is accepted but changes nothing, with what to do about it.
    ///
    /// Reading the file collects them in ``ServiceConfiguration/warnings``; ``AttestationServer`` logs each when it
    /// starts, as a `warning` line with the event `ignoredConfigurationKey` and ``message`` (what `rampart serve`
    /// writes to standard error). The service starts as usual.
    public struct Warning: Hashable, Sendable, CustomStringConvertible {
        /// The key, with its section: `limits.outstandingChallengesPerSubject`.
        public let key: String
        /// Why the key has no effect and what to do, in one line.
        public let message: String

        /// `limits.outstandingChallengesPerSubject`: challenges became sealed tokens, and there is nothing left for
        /// the limit to trim.
        public static let outstandingChallengesPerSubject = Warning(
            key: "limits.outstandingChallengesPerSubject",
            message: "limits.outstandingChallengesPerSubject has no effect since challenges are sealed tokens "
                + "(they take no storage until used: challengeLifetimeSeconds bounds them and the spent set makes "
                + "each one-time); remove it")

        /// The event name of the log line.
        public static let logEvent = "ignoredConfigurationKey"

        /// ``message``.
        public var description: String { message }
    }
}
