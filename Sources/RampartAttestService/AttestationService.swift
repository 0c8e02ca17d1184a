public import Foundation
import RampartCrypto

/// The App Attest server of the guide: one-time challenges, key registration, and checks of protected requests.
///
/// Everything that touches state runs in one store transaction whose commit precedes the answer. The service never
/// maps anything to HTTP; ``ServiceRouter`` does.
///
/// - Important: A challenge is consumed when it is presented, whatever the outcome: a request that fails any check,
///   or carries a malformed object, burns its challenge, so an attacker gets one try per challenge.
public final class AttestationService {
    /// The service's tunables.
    public struct Configuration: Sendable, Hashable {
        /// How long an issued challenge stays valid (default 5 minutes).
        public var challengeLifetime: TimeInterval
        /// The risk score at which a key is blocked and must be re-attested or unblocked (default 5).
        public var riskBlockThreshold: Int
        /// Seconds for a key's risk score to lose one point (default one day); nil: risk never decays.
        public var riskDecayInterval: TimeInterval?
        /// How far below the stored counter a correctly signed assertion may be and still count as the genuine app's
        /// requests arriving out of order (refused as `counterReplay`, but without raising risk). Default 16.
        public var counterReorderWindow: UInt32
        /// Issuance and failure limits per client address and subject.
        public var limits: RequestLimits
        /// The longest accepted subject (user or session id).
        public static let maximumSubjectLength = 256

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - challengeLifetime: Seconds a challenge lives.
        ///   - riskBlockThreshold: Risk points at which a key is blocked.
        ///   - riskDecayInterval: Seconds per point of decay, or nil.
        ///   - counterReorderWindow: Tolerated reordering of the genuine app's assertions.
        ///   - limits: Request limits.
        public init(
            challengeLifetime: TimeInterval = 300, riskBlockThreshold: Int = 5,
            riskDecayInterval: TimeInterval? = 86400,
            counterReorderWindow: UInt32 = 16, limits: RequestLimits = .default
        ) {
            self.challengeLifetime = challengeLifetime
            self.riskBlockThreshold = riskBlockThreshold
            self.riskDecayInterval = riskDecayInterval
            self.counterReorderWindow = counterReorderWindow
            self.limits = limits
        }
    }

    /// How many random bytes each challenge holds (the issue asks for at least 16).
    public static let challengeByteCount = 32

    let store: any AttestationStore
    let verifier: any AppAttestVerifying
    let configuration: Configuration
    let clock: @Sendable () -> Date
    /// The service's metrics, also rendered at `GET /metrics`.
    public let metrics: ServiceMetrics
    private let issuanceByAddress: RateLimiter
    private let issuanceBySubject: RateLimiter
    private let failuresByAddress: RateLimiter

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - store: Where challenges and keys live.
    ///   - verifier: The App Attest checks.
    ///   - configuration: Lifetimes, thresholds and limits.
    ///   - metrics: Where verdicts are counted.
    ///   - clock: The current time; tests fix it.
    public init(
        store: any AttestationStore, verifier: any AppAttestVerifying, configuration: Configuration = Configuration(),
        metrics: ServiceMetrics = ServiceMetrics(), clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.verifier = verifier
        self.configuration = configuration
        self.metrics = metrics
        self.clock = clock
        issuanceByAddress = RateLimiter(perMinute: configuration.limits.challengesPerAddressPerMinute)
        issuanceBySubject = RateLimiter(perMinute: configuration.limits.challengesPerSubjectPerMinute)
        failuresByAddress = RateLimiter(perMinute: configuration.limits.failuresPerAddressPerMinute)
    }

    /// Issues a one-time challenge bound to `purpose` and `subject`.
    ///
    /// Issuance is limited per client address and per subject (``RequestLimits``), and a subject holds at most
    /// ``RequestLimits/outstandingChallengesPerSubject`` challenges: issuing another drops its oldest.
    ///
    /// - Parameters:
    ///   - purpose: What it may be used for.
    ///   - subject: The user or session it is for.
    ///   - clientAddress: The requester's IP address, when known (for the per-address limits).
    ///   - chargingLimits: False for the follow-up challenge of an accepted assertion (`Rampart-Next-Challenge`):
    ///     it is issued to the key's own subject after a verified request, so it is not counted against the
    ///     per-minute issuance limits (the outstanding-challenge cap still applies).
    /// - Returns: The challenge (base64url of 32 random bytes) and its expiry.
    /// - Throws: ``AttestServiceError`` (`invalidField` for a subject that is empty, too long or holds a NUL;
    ///   `rateLimited`; `storeFailure`).
    public func issueChallenge(
        purpose: ChallengePurpose, subject: String, clientAddress: String? = nil, chargingLimits: Bool = true
    ) async throws -> IssuedChallenge {
        try Self.checkSubject(subject)
        let now = clock()
        let limits = configuration.limits
        if chargingLimits, let clientAddress {
            try checkFailureBudget(clientAddress, now: now)
            try takeIssuance(
                issuanceByAddress, clientAddress, now: now,
                "this address asked for more than \(limits.challengesPerAddressPerMinute) challenges a minute")
        }
        if chargingLimits {
            try takeIssuance(
                issuanceBySubject, subject, now: now,
                "this subject was issued more than \(limits.challengesPerSubjectPerMinute) challenges a minute")
        }
        let challenge = Base64Field.urlEncoded(SecureRandom.bytes(count: Self.challengeByteCount))
        let record = ChallengeRecord(
            digest: SHA256.hash(Array(challenge.utf8)), purpose: purpose, subject: subject,
            expiresAt: now.addingTimeInterval(configuration.challengeLifetime))
        let purgeNow = record.digest.first == 0  // about one issuance in 256 sweeps expired rows
        let keep = limits.outstandingChallengesPerSubject
        try await store.transaction { transaction in
            try transaction.insertChallenge(record)
            if keep > 0 { _ = try transaction.trimChallenges(subject: subject, keeping: keep) }
            if purgeNow { _ = try transaction.purgeChallenges(expiredBefore: now) }
        }
        metrics.recordVerdict(kind: "challenge", reason: "issued")
        return IssuedChallenge(challenge: challenge, expiresAt: record.expiresAt)
    }

    /// Verifies an attestation and registers its key.
    ///
    /// Consumes the challenge (it must be an unexpired `attestation` challenge for the same subject), verifies the
    /// object with clientDataHash = SHA-256(challenge), and stores the key with counter 0. The challenge stays
    /// consumed whatever the outcome, a malformed object included.
    ///
    /// - Parameter submission: The decoded request.
    /// - Returns: The registered key, or a refusal.
    /// - Throws: ``AttestServiceError`` for a malformed object (after burning the challenge), a subject that is
    ///   empty, too long or holds a NUL (`invalidField`), too many failures from the address (`rateLimited`), or a
    ///   store failure.
    public func register(_ submission: AttestationSubmission) async throws -> RegistrationOutcome {
        try Self.checkSubject(submission.subject)
        let now = clock()
        try checkFailureBudget(submission.clientAddress, now: now)
        let verifier = self.verifier
        let checked = try await store.transaction { transaction -> Checked<RegistrationOutcome> in
            if let refusal = try Self.consume(
                submission.challenge, purpose: .attestation, subject: submission.subject, now: now, in: transaction)
            {
                return .done(.refused(refusal))
            }
            let check: AttestationCheck
            do {
                check = try verifier.verifyAttestation(
                    submission.attestationObject, keyID: submission.keyID,
                    clientDataHash: SHA256.hash(Array(submission.challenge.utf8)))
            } catch let error as AttestServiceError {
                return .malformed(error)  // committed: the challenge stays burnt
            }
            switch check {
            case .invalid(let refusal):
                return .done(.refused(refusal))
            case .valid(let publicKey, let environment, let receipt):
                let key = RegisteredKey(
                    keyID: Data(submission.keyID).base64EncodedString(), subject: submission.subject,
                    publicKey: publicKey, environment: environment, receipt: receipt, registeredAt: now)
                guard try transaction.insertKey(key) else {
                    return .done(
                        .refused(
                            Refusal(.keyExists, "this key id is already registered; generate a new key and attest it"))
                    )
                }
                return .done(.registered(key))
            }
        }
        switch checked {
        case .malformed(let error):
            chargeFailure(submission.clientAddress, now: now)
            metrics.recordVerdict(kind: "attestation", reason: error.code.description)
            throw error
        case .done(let outcome):
            if case .refused = outcome { chargeFailure(submission.clientAddress, now: now) }
            metrics.recordVerdict(kind: "attestation", reason: outcome.code)
            return outcome
        }
    }

    /// Checks a protected request's assertion and, when it verifies, advances the key's counter.
    ///
    /// In one transaction: consume the challenge (an unexpired `assertion` challenge for the same subject; it stays
    /// consumed whatever the outcome), look up the key, verify the assertion over `clientData`, then advance the
    /// counter if it grew.
    ///
    /// Only evidence that involves the key's private key raises its risk score: a correctly signed assertion whose
    /// counter equals the stored one or lies more than ``Configuration/counterReorderWindow`` below it, or that
    /// another app made. A signed counter within the window below the stored one is the genuine app's requests
    /// arriving out of order: refused (`counterReplay`), but without risk. Everything an attacker can send without
    /// the private key (used challenges, unknown keys, another subject, a bad signature, a malformed assertion) is
    /// charged to the client address instead (``RequestLimits/failuresPerAddressPerMinute``). Risk decays by one
    /// point per ``Configuration/riskDecayInterval``; at ``Configuration/riskBlockThreshold`` the key is blocked
    /// until it decays or an operator unblocks it (``unblock(keyID:)``).
    ///
    /// - Parameter submission: The decoded request, with the canonical client data computed by the caller.
    /// - Returns: The accepted counter, or a refusal.
    /// - Throws: ``AttestServiceError`` for a malformed assertion (after burning the challenge), a subject that is
    ///   empty, too long or holds a NUL (`invalidField`), too many failures from the address (`rateLimited`), or a
    ///   store failure.
    public func authorize(_ submission: AssertionSubmission) async throws -> AssertionOutcome {
        try Self.checkSubject(submission.subject)
        let now = clock()
        try checkFailureBudget(submission.clientAddress, now: now)
        let verifier = self.verifier
        let configuration = self.configuration
        let keyID = Data(submission.keyID).base64EncodedString()
        let checked = try await store.transaction { transaction -> Checked<AssertionVerdict> in
            if let refusal = try Self.consume(
                submission.challenge, purpose: .assertion, subject: submission.subject, now: now, in: transaction)
            {
                return .done(.unauthenticated(refusal))
            }
            guard let key = try transaction.key(id: keyID) else {
                return .done(
                    .unauthenticated(
                        Refusal(
                            .unknownKey,
                            "no key with this id is registered; generate a new App Attest key and register it with "
                                + "POST /v1/attestations")))
            }
            let risk = key.riskScore(at: now, decayInterval: configuration.riskDecayInterval)
            guard risk < configuration.riskBlockThreshold else {
                return .done(
                    .blocked(
                        Refusal(
                            .keyBlocked,
                            "this key's risk score is \(risk) (blocked at \(configuration.riskBlockThreshold)) after "
                                + "correctly signed assertions that replayed counters or came from another app; "
                                + "generate a new key and attest it, or ask an operator to unblock it")))
            }
            guard Self.sameBytes(key.subject, submission.subject) else {
                return .done(.unauthenticated(Refusal(.wrongSubject, "this key is registered to another subject")))
            }
            let check: AssertionCheck
            do {
                check = try verifier.verifyAssertion(
                    submission.assertion, clientDataHash: SHA256.hash(submission.clientData),
                    publicKey: key.publicKey, previousCounter: 0)
            } catch let error as AttestServiceError {
                return .malformed(error)  // committed: the challenge stays burnt
            }
            switch check {
            case .invalid(let refusal):
                return .done(.unauthenticated(refusal))
            case .invalidSigned(let refusal):
                _ = try transaction.raiseRisk(
                    keyID: keyID, by: 1, at: now, decayInterval: configuration.riskDecayInterval)
                return .done(.keyEvidence(refusal))
            case .valid(let counter):
                return .done(
                    try Self.judgeCounter(counter, of: key, configuration: configuration, now: now, in: transaction))
            }
        }
        let verdict: AssertionVerdict
        switch checked {
        case .malformed(let error):
            chargeFailure(submission.clientAddress, now: now)
            metrics.recordVerdict(kind: "assertion", reason: error.code.description)
            throw error
        case .done(let done):
            verdict = done
        }
        switch verdict {
        case .accepted(let key):
            metrics.recordVerdict(kind: "assertion", reason: "accepted")
            return .accepted(key)
        case .unauthenticated(let refusal):
            chargeFailure(submission.clientAddress, now: now)
            metrics.recordVerdict(kind: "assertion", reason: refusal.reason.description)
            return .refused(refusal)
        case .reordered(let refusal):
            metrics.recordVerdict(kind: "assertion", reason: "counterReordered")
            return .refused(refusal)
        case .blocked(let refusal), .keyEvidence(let refusal):
            metrics.recordVerdict(kind: "assertion", reason: refusal.reason.description)
            return .refused(refusal)
        }
    }

    /// Advances the counter of a correctly signed assertion, or says which kind of counter refusal it is.
    private static func judgeCounter(
        _ counter: UInt32, of key: RegisteredKey, configuration: Configuration, now: Date,
        in transaction: any AttestationStoreTransaction
    ) throws -> AssertionVerdict {
        if counter > key.counter {
            guard try transaction.advanceCounter(keyID: key.keyID, to: counter, usedAt: now) else {
                // Another request advanced the counter between the read and this update: reordering, not replay.
                return .reordered(
                    Refusal(
                        .counterReplay,
                        "the assertion's counter \(counter) is not greater than the stored one (a request signed "
                            + "later arrived first); retry with a new challenge and assertion"))
            }
            var updated = key
            updated.counter = counter
            updated.lastUsedAt = now
            return .accepted(updated)
        }
        if counter < key.counter && key.counter - counter <= configuration.counterReorderWindow {
            return .reordered(
                Refusal(
                    .counterReplay,
                    "the assertion's counter \(counter) is below the stored \(key.counter): a request signed later "
                        + "arrived first; retry with a new challenge and assertion, and send one key's requests in order"
                ))
        }
        _ = try transaction.raiseRisk(keyID: key.keyID, by: 1, at: now, decayInterval: configuration.riskDecayInterval)
        let what =
            counter == key.counter
            ? "equals the stored one: the key signed two requests with one counter"
            : "is \(key.counter - counter) below the stored \(key.counter), beyond the reorder window of "
                + "\(configuration.counterReorderWindow)"
        return .keyEvidence(
            Refusal(.counterReplay, "the assertion's counter \(counter) \(what); refused as a replay or a cloned key"))
    }

    /// The registered key with `keyID`, for operators.
    ///
    /// - Parameter keyID: The key id bytes.
    /// - Returns: The key, or nil.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    public func key(id keyID: [UInt8]) async throws -> RegisteredKey? {
        let id = Data(keyID).base64EncodedString()
        return try await store.transaction { try $0.key(id: id) }
    }

    /// Clears a key's risk score, so a blocked key is accepted again (an operator's decision, after checking why it
    /// was blocked).
    ///
    /// - Parameter keyID: The key id bytes.
    /// - Returns: The key as it now is, or nil when no such key is registered.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    public func unblock(keyID: [UInt8]) async throws -> RegisteredKey? {
        let id = Data(keyID).base64EncodedString()
        let now = clock()
        let key = try await store.transaction { transaction -> RegisteredKey? in
            guard try transaction.resetRisk(keyID: id, at: now) else { return nil }
            return try transaction.key(id: id)
        }
        if key != nil { metrics.recordVerdict(kind: "operator", reason: "unblocked") }
        return key
    }

    /// The key's risk score now, after decay.
    ///
    /// - Parameter key: A key read from the service.
    /// - Returns: The score that counts against ``Configuration/riskBlockThreshold``.
    public func riskScore(of key: RegisteredKey) -> Int {
        key.riskScore(at: clock(), decayInterval: configuration.riskDecayInterval)
    }

    /// Whether the key is blocked now.
    ///
    /// - Parameter key: A key read from the service.
    /// - Returns: Whether its decayed risk reached the threshold.
    public func isBlocked(_ key: RegisteredKey) -> Bool { riskScore(of: key) >= configuration.riskBlockThreshold }

    /// Burns a challenge presented with a request that could not be decoded (a malformed field next to it), so
    /// every presented challenge is spent, as the request would have spent it; charges the address a failure.
    ///
    /// - Parameters:
    ///   - challenge: The challenge string as presented.
    ///   - clientAddress: The requester's address, when known.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    public func burnChallenge(_ challenge: String, clientAddress: String? = nil) async throws {
        let digest = SHA256.hash(Array(challenge.utf8))
        _ = try await store.transaction { try $0.takeChallenge(digest: digest) }
        chargeFailure(clientAddress, now: clock())
    }

    /// Takes an issuance token for `key` from `limiter`, or refuses with `what` and the time to wait.
    private func takeIssuance(_ limiter: RateLimiter, _ key: String, now: Date, _ what: String) throws {
        guard let wait = limiter.take(Array(key.utf8), now: now) else { return }
        metrics.recordVerdict(kind: "challenge", reason: "rateLimited")
        throw AttestServiceError.rateLimited(
            "\(what); retry after \(wait) s, and ask for a challenge only right before the request that uses it",
            retryAfterSeconds: wait)
    }

    /// Refuses a client address that has used up its failure budget.
    private func checkFailureBudget(_ clientAddress: String?, now: Date) throws {
        guard let clientAddress, let wait = failuresByAddress.retryAfter(Array(clientAddress.utf8), now: now) else {
            return
        }
        metrics.recordVerdict(kind: "request", reason: "rateLimited")
        throw AttestServiceError.rateLimited(
            "this address sent more than \(configuration.limits.failuresPerAddressPerMinute) requests a minute that "
                + "failed their checks; retry after \(wait) s, and fix the client before retrying",
            retryAfterSeconds: wait)
    }

    private func chargeFailure(_ clientAddress: String?, now: Date) {
        guard let clientAddress else { return }
        failuresByAddress.take(Array(clientAddress.utf8), now: now)
    }

    /// Burns the challenge and says why it cannot be used, or nil when it can.
    private static func consume(
        _ challenge: String, purpose: ChallengePurpose, subject: String, now: Date,
        in transaction: any AttestationStoreTransaction
    ) throws -> Refusal? {
        guard let record = try transaction.takeChallenge(digest: SHA256.hash(Array(challenge.utf8))) else {
            return Refusal(
                .challengeUsed,
                "the challenge was already used or was never issued; request a new one with POST /v1/challenges")
        }
        guard record.expiresAt > now else {
            return Refusal(.challengeExpired, "the challenge expired; request a new one with POST /v1/challenges")
        }
        guard record.purpose == purpose, sameBytes(record.subject, subject) else {
            return Refusal(
                .challengeMismatch,
                "the challenge was issued for another purpose or subject; request a '\(purpose.rawValue)' challenge "
                    + "for this subject")
        }
        return nil
    }

    /// Identities compare as bytes: Swift's `==` on strings is canonical equivalence, under which the NFC and NFD
    /// spellings of "café" are one string, but they are two subjects.
    static func sameBytes(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.elementsEqual(rhs.utf8) }

    static func checkSubject(_ subject: String) throws {
        guard !subject.isEmpty, subject.utf8.count <= Configuration.maximumSubjectLength else {
            throw AttestServiceError.invalidField(
                "subject must be 1...\(Configuration.maximumSubjectLength) bytes (a user or session id)")
        }
        // The subject is stored as text, which PostgreSQL cannot hold with a NUL (and C APIs would cut there).
        guard !subject.utf8.contains(0) else {
            throw AttestServiceError.invalidField(
                "subject must not contain a NUL (\\u0000); send the user or session id as plain text")
        }
    }
}

/// What a transaction decided, committed either way: a malformed object is thrown only after the commit that burns
/// its challenge.
private enum Checked<Value: Sendable>: Sendable {
    case done(Value)
    case malformed(AttestServiceError)
}

/// An assertion's verdict with what it means for the key and the requester.
private enum AssertionVerdict: Sendable {
    case accepted(RegisteredKey)
    /// Nothing proves the requester holds the key: charged to the address.
    case unauthenticated(Refusal)
    /// Correctly signed, but the counter is within the reorder window below the stored one.
    case reordered(Refusal)
    /// The key is blocked.
    case blocked(Refusal)
    /// Correctly signed and refused: the key's risk was raised.
    case keyEvidence(Refusal)
}

/// A challenge as returned to the client.
public struct IssuedChallenge: Hashable {
    /// The challenge string (base64url, no padding).
    public var challenge: String
    /// When it expires.
    public var expiresAt: Date
}

/// A decoded `POST /v1/attestations` request.
public struct AttestationSubmission: Hashable {
    /// The user or session id.
    public var subject: String
    /// The key id bytes.
    public var keyID: [UInt8]
    /// The CBOR attestation object.
    public var attestationObject: [UInt8]
    /// The challenge string the server issued.
    public var challenge: String
    /// The requester's IP address, when known: failures are charged to it (``RequestLimits``).
    public var clientAddress: String?

    /// Creates a submission.
    ///
    /// - Parameters:
    ///   - subject: The subject.
    ///   - keyID: The key id.
    ///   - attestationObject: The object.
    ///   - challenge: The challenge.
    ///   - clientAddress: The requester's address.
    public init(
        subject: String, keyID: [UInt8], attestationObject: [UInt8], challenge: String, clientAddress: String? = nil
    ) {
        self.subject = subject
        self.keyID = keyID
        self.attestationObject = attestationObject
        self.challenge = challenge
        self.clientAddress = clientAddress
    }
}

/// A decoded protected request: the assertion and the signed text it should sign.
public struct AssertionSubmission: Hashable {
    /// The user or session id.
    public var subject: String
    /// The key id bytes.
    public var keyID: [UInt8]
    /// The CBOR assertion.
    public var assertion: [UInt8]
    /// The challenge string the server issued.
    public var challenge: String
    /// The signed text whose SHA-256 is the assertion's clientDataHash: for a signed HTTP request,
    /// `RequestSignature.clientData(method:target:challenge:digest:)` (`rampart-request-v1`, the method, the
    /// target, the challenge and the body digest).
    public var clientData: [UInt8]
    /// The requester's IP address, when known: failures are charged to it (``RequestLimits``).
    public var clientAddress: String?

    /// Creates a submission.
    ///
    /// - Parameters:
    ///   - subject: The subject.
    ///   - keyID: The key id.
    ///   - assertion: The assertion.
    ///   - challenge: The challenge.
    ///   - clientData: The signed text.
    ///   - clientAddress: The requester's address.
    public init(
        subject: String, keyID: [UInt8], assertion: [UInt8], challenge: String, clientData: [UInt8],
        clientAddress: String? = nil
    ) {
        self.subject = subject
        self.keyID = keyID
        self.assertion = assertion
        self.challenge = challenge
        self.clientData = clientData
        self.clientAddress = clientAddress
    }
}

/// The verdict on an attestation.
public enum RegistrationOutcome: Hashable {
    /// The key is registered.
    case registered(RegisteredKey)
    /// The key was not registered.
    case refused(Refusal)

    var code: String {
        switch self {
        case .registered: "accepted"
        case .refused(let refusal): refusal.reason.description
        }
    }
}

/// The verdict on a protected request.
public enum AssertionOutcome: Hashable {
    /// The assertion verified and the counter advanced (the key as it now is).
    case accepted(RegisteredKey)
    /// Refuse the request.
    case refused(Refusal)

    var code: String {
        switch self {
        case .accepted: "accepted"
        case .refused(let refusal): refusal.reason.description
        }
    }
}

extension AttestationService: Sendable {}

extension IssuedChallenge: Sendable {}

extension AttestationSubmission: Sendable {}

extension AssertionSubmission: Sendable {}

extension RegistrationOutcome: Sendable {}

extension AssertionOutcome: Sendable {}
