/// How much an unauthenticated client can make the service do: challenge issuance and failed checks, per client
/// address and per subject. Each limit is a rate per minute (a token bucket: a minute's allowance may be used at
/// once, then it refills steadily); 0 switches a limit off.
///
/// Failures are charged to the client address, never to the key or the subject a request names: key ids are not
/// secret and the subject is a field the client fills in, so charging either would let anyone lock a stranger out.
/// Address limits apply when the HTTP layer knows the address (``AttestationSubmission/clientAddress``); library
/// callers that pass none are not limited by address.
public struct RequestLimits: Sendable, Hashable {
    /// Challenges one client address may be issued per minute (default 120).
    public var challengesPerAddressPerMinute: Int
    /// Challenges one subject may be issued per minute, from all addresses together (default 60).
    public var challengesPerSubjectPerMinute: Int
    /// Formerly the most challenges a subject could hold at once. Challenges are now sealed tokens that take no
    /// storage until used, so nothing is trimmed: their expiry bounds them and the spent set makes each one-time.
    /// It is always 16 and setting it does nothing; a configuration file that sets
    /// `limits.outstandingChallengesPerSubject` gets ``ServiceConfiguration/Warning/outstandingChallengesPerSubject``
    /// at start.
    @available(*, deprecated, message: "has no effect since challenges are sealed tokens; remove it")
    public var outstandingChallengesPerSubject: Int {
        get { 16 }
        set {}  // Ignored: nothing reads it.
    }
    /// Unauthenticated failures (bad or used challenges, unknown keys, wrong subjects, signatures that do not verify,
    /// malformed objects) one client address may cause per minute before its requests get 429 (default 30).
    public var failuresPerAddressPerMinute: Int

    /// The defaults.
    public static let `default` = RequestLimits()

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - challengesPerAddressPerMinute: Issuance per address.
    ///   - challengesPerSubjectPerMinute: Issuance per subject.
    ///   - failuresPerAddressPerMinute: Unauthenticated failures per address.
    public init(
        challengesPerAddressPerMinute: Int = 120, challengesPerSubjectPerMinute: Int = 60,
        failuresPerAddressPerMinute: Int = 30
    ) {
        self.challengesPerAddressPerMinute = challengesPerAddressPerMinute
        self.challengesPerSubjectPerMinute = challengesPerSubjectPerMinute
        self.failuresPerAddressPerMinute = failuresPerAddressPerMinute
    }

    /// Creates limits; `outstandingChallengesPerSubject` is ignored (see the property).
    @available(
        *, deprecated, message: "outstandingChallengesPerSubject has no effect since challenges are sealed tokens"
    )
    public init(
        challengesPerAddressPerMinute: Int = 120, challengesPerSubjectPerMinute: Int = 60,
        outstandingChallengesPerSubject: Int, failuresPerAddressPerMinute: Int = 30
    ) {
        self.init(
            challengesPerAddressPerMinute: challengesPerAddressPerMinute,
            challengesPerSubjectPerMinute: challengesPerSubjectPerMinute,
            failuresPerAddressPerMinute: failuresPerAddressPerMinute)
    }
}
