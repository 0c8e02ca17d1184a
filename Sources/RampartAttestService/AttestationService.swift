public import Foundation
import RampartCrypto

/// The App Attest server of the guide: one-time challenges, key registration, and checks of protected requests.
///
/// Everything that touches state runs in one store transaction whose commit precedes the answer. The service never
/// maps anything to HTTP; ``ServiceRouter`` does.
///
/// - Important: A challenge is consumed when it is presented, whatever the outcome: a request that fails any check
///   burns its challenge, so an attacker gets one try per challenge.
public final class AttestationService {
    /// The service's tunables.
    public struct Configuration: Sendable, Hashable {
        /// How long an issued challenge stays valid (default 5 minutes).
        public var challengeLifetime: TimeInterval
        /// The risk score at which a key is blocked and must be re-attested (default 5).
        public var riskBlockThreshold: Int
        /// The longest accepted subject (user or session id).
        public static let maximumSubjectLength = 256

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - challengeLifetime: Seconds a challenge lives.
        ///   - riskBlockThreshold: Failures before a key is blocked.
        public init(challengeLifetime: TimeInterval = 300, riskBlockThreshold: Int = 5) {
            self.challengeLifetime = challengeLifetime
            self.riskBlockThreshold = riskBlockThreshold
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

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - store: Where challenges and keys live.
    ///   - verifier: The App Attest checks.
    ///   - configuration: Lifetimes and thresholds.
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
    }

    /// Issues a one-time challenge bound to `purpose` and `subject`.
    ///
    /// - Parameters:
    ///   - purpose: What it may be used for.
    ///   - subject: The user or session it is for.
    /// - Returns: The challenge (base64url of 32 random bytes) and its expiry.
    /// - Throws: ``AttestServiceError`` (`invalidField` for a subject that is empty, too long or holds a NUL;
    ///   `storeFailure`).
    public func issueChallenge(purpose: ChallengePurpose, subject: String) async throws -> IssuedChallenge {
        try Self.checkSubject(subject)
        let challenge = Base64Field.urlEncoded(SecureRandom.bytes(count: Self.challengeByteCount))
        let now = clock()
        let record = ChallengeRecord(
            digest: SHA256.hash(Array(challenge.utf8)), purpose: purpose, subject: subject,
            expiresAt: now.addingTimeInterval(configuration.challengeLifetime))
        let purgeNow = record.digest.first == 0  // about one issuance in 256 sweeps expired rows
        try await store.transaction { transaction in
            try transaction.insertChallenge(record)
            if purgeNow { _ = try transaction.purgeChallenges(expiredBefore: now) }
        }
        metrics.recordVerdict(kind: "challenge", reason: "issued")
        return IssuedChallenge(challenge: challenge, expiresAt: record.expiresAt)
    }

    /// Verifies an attestation and registers its key.
    ///
    /// Consumes the challenge (it must be an unexpired `attestation` challenge for the same subject), verifies the
    /// object with clientDataHash = SHA-256(challenge), and stores the key with counter 0.
    ///
    /// - Parameter submission: The decoded request.
    /// - Returns: The registered key, or a refusal.
    /// - Throws: ``AttestServiceError`` for a malformed object, a subject that is empty, too long or holds a NUL
    ///   (`invalidField`), or a store failure.
    public func register(_ submission: AttestationSubmission) async throws -> RegistrationOutcome {
        try Self.checkSubject(submission.subject)
        let now = clock()
        let verifier = self.verifier
        let outcome = try await store.transaction { transaction -> RegistrationOutcome in
            if let refusal = try Self.consume(
                submission.challenge, purpose: .attestation, subject: submission.subject, now: now, in: transaction)
            {
                return .refused(refusal)
            }
            let check = try verifier.verifyAttestation(
                submission.attestationObject, keyID: submission.keyID,
                clientDataHash: SHA256.hash(Array(submission.challenge.utf8)))
            switch check {
            case .invalid(let refusal):
                return .refused(refusal)
            case .valid(let publicKey, let environment, let receipt):
                let key = RegisteredKey(
                    keyID: Data(submission.keyID).base64EncodedString(), subject: submission.subject,
                    publicKey: publicKey, environment: environment, receipt: receipt, registeredAt: now)
                guard try transaction.insertKey(key) else {
                    return .refused(
                        Refusal(.keyExists, "this key id is already registered; generate a new key and attest it"))
                }
                return .registered(key)
            }
        }
        metrics.recordVerdict(kind: "attestation", reason: outcome.code)
        return outcome
    }

    /// Checks a protected request's assertion and, when it verifies, advances the key's counter.
    ///
    /// In one transaction: look up the key, consume the challenge (an unexpired `assertion` challenge for the same
    /// subject), verify the assertion over `clientData`, then advance the counter only if it grew. A failure after the
    /// key is known raises its risk score; at the threshold the key is blocked.
    ///
    /// - Parameter submission: The decoded request, with the canonical client data computed by the caller.
    /// - Returns: The accepted counter, or a refusal.
    /// - Throws: ``AttestServiceError`` for a malformed assertion, a subject that is empty, too long or holds a NUL
    ///   (`invalidField`), or a store failure.
    public func authorize(_ submission: AssertionSubmission) async throws -> AssertionOutcome {
        try Self.checkSubject(submission.subject)
        let now = clock()
        let verifier = self.verifier
        let threshold = configuration.riskBlockThreshold
        let keyID = Data(submission.keyID).base64EncodedString()
        let outcome = try await store.transaction { transaction -> AssertionOutcome in
            if let refusal = try Self.consume(
                submission.challenge, purpose: .assertion, subject: submission.subject, now: now, in: transaction)
            {
                return .refused(refusal)
            }
            guard let key = try transaction.key(id: keyID) else {
                return .refused(
                    Refusal(
                        .unknownKey,
                        "no key with this id is registered; generate a new App Attest key and register it with "
                            + "POST /v1/attestations"))
            }
            guard key.riskScore < threshold else {
                return .refused(
                    Refusal(
                        .keyBlocked,
                        "this key failed \(key.riskScore) checks and is blocked; generate a new key and attest it"))
            }
            guard key.subject == submission.subject else {
                _ = try transaction.raiseRisk(keyID: keyID, by: 1)
                return .refused(Refusal(.wrongSubject, "this key is registered to another subject"))
            }
            let check = try verifier.verifyAssertion(
                submission.assertion, clientDataHash: SHA256.hash(submission.clientData), publicKey: key.publicKey,
                previousCounter: key.counter)
            switch check {
            case .invalid(let refusal):
                _ = try transaction.raiseRisk(keyID: keyID, by: 1)
                return .refused(refusal)
            case .valid(let counter):
                guard try transaction.advanceCounter(keyID: keyID, to: counter, usedAt: now) else {
                    _ = try transaction.raiseRisk(keyID: keyID, by: 1)
                    return .refused(
                        Refusal(
                            .counterReplay,
                            "the assertion's counter \(counter) is not greater than the stored one; refused as a replay"
                        ))
                }
                var updated = key
                updated.counter = counter
                updated.lastUsedAt = now
                return .accepted(updated)
            }
        }
        metrics.recordVerdict(kind: "assertion", reason: outcome.code)
        return outcome
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
        guard record.purpose == purpose, record.subject == subject else {
            return Refusal(
                .challengeMismatch,
                "the challenge was issued for another purpose or subject; request a '\(purpose.rawValue)' challenge "
                    + "for this subject")
        }
        return nil
    }

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

    /// Creates a submission.
    ///
    /// - Parameters:
    ///   - subject: The subject.
    ///   - keyID: The key id.
    ///   - attestationObject: The object.
    ///   - challenge: The challenge.
    public init(subject: String, keyID: [UInt8], attestationObject: [UInt8], challenge: String) {
        self.subject = subject
        self.keyID = keyID
        self.attestationObject = attestationObject
        self.challenge = challenge
    }
}

/// A decoded protected request: the assertion and the canonical client data it should sign.
public struct AssertionSubmission: Hashable {
    /// The user or session id.
    public var subject: String
    /// The key id bytes.
    public var keyID: [UInt8]
    /// The CBOR assertion.
    public var assertion: [UInt8]
    /// The challenge string the server issued.
    public var challenge: String
    /// The RFC 8785 canonical JSON of `{"challenge","payload"}`.
    public var clientData: [UInt8]

    /// Creates a submission.
    ///
    /// - Parameters:
    ///   - subject: The subject.
    ///   - keyID: The key id.
    ///   - assertion: The assertion.
    ///   - challenge: The challenge.
    ///   - clientData: The canonical client data.
    public init(subject: String, keyID: [UInt8], assertion: [UInt8], challenge: String, clientData: [UInt8]) {
        self.subject = subject
        self.keyID = keyID
        self.assertion = assertion
        self.challenge = challenge
        self.clientData = clientData
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
