public import Foundation
import RampartCrypto
public import RampartKeyAttestation
import RampartX509
import Synchronization

/// The App Attest server of the guide: one-time challenges, key registration, and checks of protected requests.
///
/// A challenge is a sealed token (HMAC-SHA256 under ``ChallengeSealingKeys``, binding purpose, subject, expiry and a
/// random nonce), so issuing one writes nothing. A request that presents one is checked in two steps: first, outside
/// any write lock, the token is opened, the key is read (``AttestationStore/read(_:)``) and the signature verified;
/// then one short store transaction spends the challenge (its nonce enters the spent set, a unique key, so it is used
/// once across every instance), reads the key again and advances its counter or raises its risk, judging the key as
/// it is then. The transaction's commit precedes the answer. The service never maps anything to HTTP;
/// ``ServiceRouter`` does.
///
/// - Important: A genuine, unexpired challenge is spent when it is presented, whatever the outcome: a request that
///   fails any check, or carries a malformed object, burns it, so an attacker gets one try per challenge. An expired
///   one needs no burning, and a string that is not a challenge sealed with a listed key costs no write.
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
        /// The App Attest environment this service accepts keys and tokens of (`production` or `development`,
        /// default `production`). Keys registered by a service of the other environment on a shared database are
        /// refused with `wrongEnvironment`, on every request.
        public var environment: String = "production"
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
        ///   - environment: The App Attest environment whose keys and tokens are accepted.
        public init(
            challengeLifetime: TimeInterval = 300, riskBlockThreshold: Int = 5,
            riskDecayInterval: TimeInterval? = 86400,
            counterReorderWindow: UInt32 = 16, limits: RequestLimits = .default, environment: String = "production"
        ) {
            self.environment = environment
            self.challengeLifetime = challengeLifetime
            self.riskBlockThreshold = riskBlockThreshold
            self.riskDecayInterval = riskDecayInterval
            self.counterReorderWindow = counterReorderWindow
            self.limits = limits
        }
    }

    /// How many random bytes each challenge holds (its nonce; the issue asks for at least 16).
    public static let challengeByteCount = ChallengeToken.nonceByteCount
    /// How long after a challenge's expiry its spent record is kept: the most the clocks of instances sharing a
    /// database may disagree (a spent record purged while a slower clock still accepts the challenge would let it be
    /// used again).
    public static let clockSkewAllowance: TimeInterval = 60
    /// How often an instance purges the spent set of records past their challenge's expiry and
    /// ``clockSkewAllowance``: often enough that each purge deletes a short range.
    static let purgeInterval: TimeInterval = 1

    let store: any AttestationStore
    let verifier: any AppAttestVerifying
    /// The Android Key Attestation verifier and policy; nil: Android keys are refused (`androidNotConfigured`).
    let keyAttestation: KeyAttestationVerifier?
    /// Android keys' public keys, imported once (their signatures are checked here, not by ``verifier``).
    private let androidKeys = PublicKeyCache()
    let configuration: Configuration
    let clock: @Sendable () -> Date
    /// The service's metrics, also rendered at `GET /metrics`.
    public let metrics: ServiceMetrics
    private let issuanceByAddress: RateLimiter
    private let issuanceBySubject: RateLimiter
    private let failuresByAddress: RateLimiter
    private let configuredSealingKeys: ChallengeSealingKeys?
    private let storedSealingKeys = Mutex<ChallengeSealingKeys?>(nil)
    /// When spent-challenge records are next purged (see ``purgeCutoff(now:)``).
    private let nextPurge: Mutex<Date>

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - store: Where keys and spent challenges live.
    ///   - verifier: The App Attest checks.
    ///   - configuration: Lifetimes, thresholds and limits.
    ///   - sealingKeys: The keys that seal challenges; nil: the key kept in the store (generated on first use and
    ///     shared by every instance on the database).
    ///   - metrics: Where verdicts are counted.
    ///   - keyAttestation: The Android Key Attestation verifier (roots, policy, revocations); nil: the service
    ///     refuses Android keys with `androidNotConfigured`.
    ///   - clock: The current time; tests fix it.
    public init(
        store: any AttestationStore, verifier: any AppAttestVerifying, configuration: Configuration = Configuration(),
        sealingKeys: ChallengeSealingKeys? = nil, metrics: ServiceMetrics = ServiceMetrics(),
        keyAttestation: KeyAttestationVerifier? = nil, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        configuredSealingKeys = sealingKeys
        self.store = store
        self.verifier = verifier
        self.keyAttestation = keyAttestation
        self.configuration = configuration
        self.metrics = metrics
        self.clock = clock
        nextPurge = Mutex(clock().addingTimeInterval(Self.purgeInterval))
        issuanceByAddress = RateLimiter(perMinute: configuration.limits.challengesPerAddressPerMinute)
        issuanceBySubject = RateLimiter(perMinute: configuration.limits.challengesPerSubjectPerMinute)
        failuresByAddress = RateLimiter(perMinute: configuration.limits.failuresPerAddressPerMinute)
    }

    /// Issues a one-time challenge bound to `purpose` and `subject`; writes nothing.
    ///
    /// Issuance is limited per client address and per subject (``RequestLimits``). The store holds nothing per
    /// outstanding challenge: what bounds them is their expiry (``Configuration/challengeLifetime``), and what makes
    /// each one-time is the spent set, which holds a used challenge's nonce until its expiry (plus
    /// ``clockSkewAllowance``).
    ///
    /// - Parameters:
    ///   - purpose: What it may be used for.
    ///   - subject: The user or session it is for.
    ///   - clientAddress: The requester's IP address, when known (for the per-address limits).
    ///   - chargingLimits: False for the follow-up challenge of an accepted assertion (`Rampart-Next-Challenge`):
    ///     it is issued to the key's own subject after a verified request, so it is not counted against the
    ///     per-minute issuance limits.
    /// - Returns: The challenge (an opaque base64url token, 104 characters today; clients must not parse it) and its
    ///   expiry.
    /// - Throws: ``AttestServiceError`` (`invalidField` for a subject that is empty, too long or holds a NUL;
    ///   `rateLimited`; `storeFailure` when the stored sealing key cannot be read).
    public func issueChallenge(
        purpose: ChallengePurpose, subject: String, clientAddress: String? = nil, chargingLimits: Bool = true
    ) async throws -> IssuedChallenge {
        try issueChallenge(
            purpose: purpose, subject: subject, clientAddress: clientAddress, chargingLimits: chargingLimits,
            sealingWith: try await sealingKeys())
    }

    /// ``issueChallenge(purpose:subject:clientAddress:chargingLimits:)`` with the sealing keys at hand (see
    /// ``loadedSealingKeys``): it never waits, so the HTTP loop may answer with it on its own thread.
    func issueChallenge(
        purpose: ChallengePurpose, subject: String, clientAddress: String?, chargingLimits: Bool,
        sealingWith keys: ChallengeSealingKeys
    ) throws -> IssuedChallenge {
        try Self.checkSubject(subject)
        let now = clock()
        let limits = configuration.limits
        if chargingLimits, let clientAddress {
            try checkFailureBudget(clientAddress, now: now)
            try takeIssuance(
                issuanceByAddress, limits.budgetKey(for: clientAddress), now: now,
                "this address asked for more than \(limits.challengesPerAddressPerMinute) challenges a minute")
        }
        if chargingLimits {
            try takeIssuance(
                issuanceBySubject, Array(subject.utf8), now: now,
                "this subject was issued more than \(limits.challengesPerSubjectPerMinute) challenges a minute")
        }
        let sealed = ChallengeToken.seal(
            purpose: purpose, subject: subject, expiresAt: now.addingTimeInterval(configuration.challengeLifetime),
            with: keys)
        metrics.recordVerdict(kind: "challenge", reason: "issued")
        return IssuedChallenge(challenge: sealed.text, expiresAt: sealed.expiresAt)
    }

    /// The sealing keys when no store read is needed for them: configured, or read from the store already.
    var loadedSealingKeys: ChallengeSealingKeys? { configuredSealingKeys ?? storedSealingKeys.withLock { $0 } }

    /// The configured sealing keys, or the one kept in the store (read once, then cached).
    func sealingKeys() async throws -> ChallengeSealingKeys {
        if let loadedSealingKeys { return loadedSealingKeys }
        let candidate = SecureRandom.bytes(count: ChallengeSealingKeys.minimumByteCount)
        let now = clock()
        let secret = try await store.transaction { try $0.challengeSealingKey(proposing: candidate, createdAt: now) }
        let keys: ChallengeSealingKeys
        do {
            keys = try ChallengeSealingKeys(keys: [SymmetricKey(bytes: secret)])
        } catch {
            throw AttestServiceError.storeFailure(
                "the stored challenge sealing key is not usable; delete the row of rampart_challenge_keys or "
                    + "configure challenges.sealingKeys")
        }
        storedSealingKeys.withLock { $0 = keys }
        return keys
    }

    /// A presented challenge, opened before any write.
    private enum Presented {
        /// Genuine and unexpired: spend it. `mismatch` is the refusal it gets once spent, when it was issued for
        /// another purpose or subject.
        case genuine(ChallengeToken, mismatch: Refusal?)
        /// Refused without a write (not issued with a listed key, or expired).
        case refused(Refusal)
    }

    private func present(
        _ challenge: String, purpose: ChallengePurpose, subject: String, now: Date
    ) async throws -> Presented {
        let opened: ChallengeToken.Opened
        do {
            opened = try ChallengeToken.open(challenge, with: try await sealingKeys())
        } catch {
            return .refused(Self.challengeUsed)
        }
        switch opened.failure(purpose: purpose, subject: subject, now: now) {
        case nil: return .genuine(opened.token, mismatch: nil)
        case .mismatch: return .genuine(opened.token, mismatch: Self.mismatch(purpose))
        case .notIssued: return .refused(Self.challengeUsed)
        case .expired:
            return .refused(
                Refusal(.challengeExpired, "the challenge expired; request a new one with POST /v1/challenges"))
        }
    }

    private static let challengeUsed = Refusal(
        .challengeUsed, "the challenge was already used or was never issued; request a new one with POST /v1/challenges"
    )

    private static func mismatch(_ purpose: ChallengePurpose) -> Refusal {
        Refusal(
            .challengeMismatch,
            "the challenge was issued for another purpose or subject; request a '\(purpose.rawValue)' challenge "
                + "for this subject")
    }

    /// The cut-off for purging spent-challenge records when a purge is due, else nil: at most once per
    /// ``purgeInterval``, the transaction that asked purges the records whose challenges expired more than
    /// ``clockSkewAllowance`` ago, after its own spend.
    private func purgeCutoff(now: Date) -> Date? {
        nextPurge.withLock { next in
            guard now >= next else { return nil }
            next = now.addingTimeInterval(Self.purgeInterval)
            return now.addingTimeInterval(-Self.clockSkewAllowance)
        }
    }

    /// Spends the challenge in `transaction` and, when this call spent it and `cutoff` is set, purges the spent
    /// records past it; whether this call spent it.
    private static func spend(
        _ token: ChallengeToken, purgingBefore cutoff: Date?, in transaction: any AttestationStoreTransaction
    ) throws -> Bool {
        guard try transaction.spendChallenge(nonce: token.nonce, expiresAt: token.expiresAt) else { return false }
        if let cutoff { _ = try transaction.purgeSpentChallenges(expiredBefore: cutoff) }
        return true
    }

    /// Verifies an attestation and registers its key.
    ///
    /// Opens the challenge (it must be an unexpired `attestation` challenge for the same subject) and verifies the
    /// object with clientDataHash = SHA-256(challenge), holding no lock (the verification needs nothing from the
    /// store); then one short transaction spends the challenge and stores the key with counter 0. The challenge
    /// stays spent whatever the outcome, a malformed object included.
    ///
    /// - Parameter submission: The decoded request.
    /// - Returns: The registered key, or a refusal.
    /// - Throws: ``AttestServiceError`` for a malformed object (after burning the challenge), a subject that is
    ///   empty, too long or holds a NUL (`invalidField`), too many failures from the address (`rateLimited`), or a
    ///   store failure.
    public func register(_ submission: AttestationSubmission) async throws -> RegistrationOutcome {
        try await register(
            subject: submission.subject, challenge: submission.challenge, clientAddress: submission.clientAddress
        ) { now in
            let check: AttestationCheck
            do {
                check = try verifier.verifyAttestation(
                    submission.attestationObject, keyID: submission.keyID,
                    clientDataHash: SHA256.hash(Array(submission.challenge.utf8)))
            } catch let error as AttestServiceError {
                return .malformed(error)
            }
            switch check {
            case .invalid(let refusal):
                return .refused(refusal)
            case .valid(let publicKey, let environment, let receipt):
                return .key(
                    RegisteredKey(
                        keyID: Data(submission.keyID).base64EncodedString(), subject: submission.subject,
                        publicKey: publicKey, environment: environment, receipt: receipt, registeredAt: now))
            }
        }
    }

    /// Verifies an Android Key Attestation chain and registers its key.
    ///
    /// The same steps as an App Attest registration: the challenge must be an unexpired `attestation` challenge for
    /// the same subject, and the chain is verified (to Google's roots or the configured extra roots, then the
    /// policy) holding no lock, with the challenge string's UTF-8 bytes as the attestation challenge the key was
    /// generated with; one short transaction then spends the challenge and stores the key, under the id SHA-256 of
    /// the leaf's SubjectPublicKeyInfo. Only ECDSA P-256 keys can sign requests, so any other attested key is
    /// refused (`keyAttestation.unsupportedKeyType`). The key is stored with this service's environment.
    ///
    /// - Parameter submission: The decoded request.
    /// - Returns: The registered key, or a refusal: `androidNotConfigured` when the service has no Key Attestation
    ///   verifier, `keyAttestation.<reason>` when the chain or the policy refused the key.
    /// - Throws: ``AttestServiceError`` as the App Attest `register(_:)`; `invalidField` for a chain
    ///   that is not DER certificates (after burning the challenge).
    public func register(_ submission: KeyAttestationSubmission) async throws -> RegistrationOutcome {
        try await register(
            subject: submission.subject, challenge: submission.challenge, clientAddress: submission.clientAddress
        ) { now in
            guard let keyAttestation else { return .refused(Self.androidNotConfigured) }
            let verdict: KeyAttestationVerdict
            do {
                verdict = try keyAttestation.verify(
                    certificateChainDER: submission.certificateChain, challenge: Array(submission.challenge.utf8))
            } catch let error as KeyAttestationError {
                return .malformed(AttestServiceError.invalidField("'certificateChain': \(error.reason)"))
            } catch {
                return .malformed(
                    AttestServiceError.invalidField(
                        "'certificateChain' could not be read; send the DER certificates, leaf first, in base64"))
            }
            let attestation: VerifiedKeyAttestation
            switch verdict {
            case .invalid(let failure): return .refused(Self.refusal(failure))
            case .valid(let verified): attestation = verified
            }
            switch attestation.requestSigningKey {
            case .refused(let failure):
                return .refused(Self.refusal(failure))
            case .usable(let key):
                return .key(
                    RegisteredKey(
                        keyID: Data(attestation.keyID).base64EncodedString(), subject: submission.subject,
                        publicKey: key.x963Representation, environment: configuration.environment,
                        receipt: attestation.certificateChain[0].derBytes, registeredAt: now, platform: .android,
                        publicKeyInfo: attestation.publicKeyInfo))
            }
        }
    }

    /// The refusal of an Android key whose Key Attestation failed: `keyAttestation.<reason>`, with the verifier's
    /// message (what failed, what was expected, what to do).
    static func refusal(_ failure: KeyAttestationFailure) -> Refusal {
        Refusal(.keyAttestation(failure.reason), "the Android Key Attestation was refused: \(failure.message)")
    }

    static let androidNotConfigured = Refusal(
        .androidNotConfigured,
        "this service does not accept Android keys: its configuration has no \"android\" policy; add one "
            + "(packageNames, signingCertificateDigests, …; docs/android.md) to register and verify Android keys")

    /// What the checks before a registration's transaction made of the submitted key.
    private enum NewKey: Sendable {
        /// Store this key.
        case key(RegisteredKey)
        /// Do not store it.
        case refused(Refusal)
        /// The object could not be parsed.
        case malformed(AttestServiceError)
    }

    /// A registration of either platform: opens the challenge, runs `verify` outside any lock, then one
    /// transaction spends the challenge and stores the key.
    private func register(
        subject: String, challenge: String, clientAddress: String?, verify: (Date) throws -> NewKey
    ) async throws -> RegistrationOutcome {
        try Self.checkSubject(subject)
        let now = clock()
        try checkFailureBudget(clientAddress, now: now)
        let verdict: Verdict
        switch try await present(challenge, purpose: .attestation, subject: subject, now: now) {
        case .refused(let refusal):
            verdict = .unauthenticated(refusal)
        case .genuine(let token, let mismatch?):
            verdict = try await spend(token, refusing: mismatch, now: now)
        case .genuine(let token, nil):
            let checked = try verify(now)
            let cutoff = purgeCutoff(now: now)
            verdict = try await store.transaction { transaction -> Verdict in
                guard try Self.spend(token, purgingBefore: cutoff, in: transaction) else {
                    return .unauthenticated(Self.challengeUsed)
                }
                switch checked {
                case .malformed(let error):
                    return .malformed(error)  // committed: the challenge stays burnt
                case .refused(let refusal):
                    return .unauthenticated(refusal)
                case .key(let key):
                    guard try transaction.insertKey(key) else {
                        return .unauthenticated(
                            Refusal(.keyExists, "this key id is already registered; generate a new key and attest it"))
                    }
                    return .accepted(key)
                }
            }
        }
        switch try settle(verdict, kind: "attestation", clientAddress: clientAddress, now: now) {
        case .accepted(let key): return .registered(key)
        case .refused(let refusal): return .refused(refusal)
        }
    }

    /// Spends a genuine challenge presented for another purpose or subject, and refuses it: with `refusal` when
    /// this call spent it, else as used.
    private func spend(_ token: ChallengeToken, refusing refusal: Refusal, now: Date) async throws -> Verdict {
        let cutoff = purgeCutoff(now: now)
        let spent = try await store.transaction { try Self.spend(token, purgingBefore: cutoff, in: $0) }
        return .unauthenticated(spent ? refusal : Self.challengeUsed)
    }

    /// Counts `verdict` in the metrics under `kind` and charges the requester's address for a refusal that proves
    /// nothing about the key; throws a malformed object's error (its challenge is already burnt).
    private func settle(_ verdict: Verdict, kind: String, clientAddress: String?, now: Date) throws -> AssertionOutcome
    {
        switch verdict {
        case .accepted(let key):
            metrics.recordVerdict(kind: kind, reason: "accepted")
            metrics.recordAccepted(kind: kind, platform: key.platform)
            return .accepted(key)
        case .refused(let refusal, let chargesRequester, let reason):
            if chargesRequester { chargeFailure(clientAddress, now: now) }
            metrics.recordVerdict(kind: kind, reason: reason)
            return .refused(refusal)
        case .malformed(let error):
            chargeFailure(clientAddress, now: now)
            metrics.recordVerdict(kind: kind, reason: error.code.description)
            throw error
        }
    }

    /// Checks a protected request's assertion and, when it verifies, advances the key's counter.
    ///
    /// Opens the challenge (an unexpired `assertion` challenge for the same subject), reads the key and verifies
    /// the assertion over `clientData` against it, holding no lock (so signatures are checked in parallel, not on the
    /// store's writer). Then one transaction spends the challenge (it stays spent whatever the outcome), reads the key
    /// again and judges it as it is now: advanced if its counter grew, refused as reordered or replayed if another
    /// request got there first, and refused if it is unknown, blocked, another subject's or another environment's,
    /// or was replaced since it was read.
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
        let verdict: Verdict
        switch try await present(submission.challenge, purpose: .assertion, subject: submission.subject, now: now) {
        case .refused(let refusal):
            verdict = .unauthenticated(refusal)
        case .genuine(let token, let mismatch?):
            verdict = try await spend(token, refusing: mismatch, now: now)
        case .genuine(let token, nil):
            let checked = try await check(submission, now: now)
            let cutoff = purgeCutoff(now: now)
            let keyID = Data(submission.keyID).base64EncodedString()
            verdict = try await store.transaction { transaction in
                let (spent, stored) = try transaction.spendChallenge(
                    nonce: token.nonce, expiresAt: token.expiresAt, readingKey: keyID)
                guard spent else { return .unauthenticated(Self.challengeUsed) }
                if let cutoff { _ = try transaction.purgeSpentChallenges(expiredBefore: cutoff) }
                switch checked {
                case .decided(let verdict): return verdict
                case .verified(let check, let key):
                    return try self.judge(check, verifiedWith: key, stored: stored, now: now, in: transaction)
                case .signed(let key):
                    return try self.judge(nil, verifiedWith: key, stored: stored, now: now, in: transaction)
                }
            }
        }
        return try settle(verdict, kind: "assertion", clientAddress: submission.clientAddress, now: now)
    }

    /// What the checks before the transaction made of a protected request.
    private enum CheckedAssertion: Sendable {
        /// Refused (or malformed) whatever the transaction finds, once it spent the challenge.
        case decided(Verdict)
        /// The verifier's answer, against this key as read.
        case verified(AssertionCheck, RegisteredKey)
        /// An Android key's signature verified, against this key as read (no counter to judge).
        case signed(RegisteredKey)
    }

    /// Reads the key and verifies the assertion against it, outside any transaction.
    private func check(_ submission: AssertionSubmission, now: Date) async throws -> CheckedAssertion {
        let keyID = Data(submission.keyID).base64EncodedString()
        guard let key = try await store.read({ try $0.key(id: keyID) }) else {
            return .decided(.unauthenticated(Self.unknownKey))
        }
        if let blocked = blockedRefusal(key, now: now) { return .decided(.keyRefused(blocked)) }
        guard key.subject.hasSameUTF8(as: submission.subject) else {
            return .decided(.unauthenticated(Refusal(.wrongSubject, "this key is registered to another subject")))
        }
        if let refusal = Self.environmentRefusal(key, configuration: configuration) {
            return .decided(.unauthenticated(refusal))
        }
        guard key.platform == submission.platform else {
            return .decided(.unauthenticated(Self.wrongPlatform(key: key.platform)))
        }
        if key.platform == .android {
            guard keyAttestation != nil else { return .decided(.unauthenticated(Self.androidNotConfigured)) }
            // ECDSA P-256 with SHA-256 over the client data, DER (`Signature.getInstance("SHA256withECDSA")`). A
            // stored point that does not import fails closed, as a signature that does not verify.
            guard let publicKey = try? androidKeys.p256Key(key.publicKey),
                publicKey.isValidSignature(submission.assertion, for: submission.clientData, digest: .sha256)
            else {
                return .decided(
                    .unauthenticated(
                        Refusal(
                            .invalidSignature,
                            "Rampart-Signature does not verify under this Android key over the request's client data "
                                + "(rampart-request-v1: method, target, challenge and body digest); sign exactly the "
                                + "request sent, with SHA256withECDSA, and send the DER signature in base64")))
            }
            return .signed(key)
        }
        do {
            let check = try verifier.verifyAssertion(
                submission.assertion, clientDataHash: SHA256.hash(submission.clientData), publicKey: key.publicKey,
                previousCounter: 0)
            return .verified(check, key)
        } catch let error as AttestServiceError {
            return .decided(.malformed(error))  // committed with the spend: the challenge stays burnt
        }
    }

    /// Judges a verified assertion against the key as `transaction` read it (`stored`): deleted or replaced since it
    /// was verified (another public key or subject) is `unknownKey`, blocked meanwhile is `keyBlocked`; then the
    /// check decides, and a valid counter is judged against the stored one. A nil `check` is an Android key's
    /// verified signature: it has no counter, and the challenge this transaction spent is its replay guard.
    private func judge(
        _ check: AssertionCheck?, verifiedWith verifiedKey: RegisteredKey, stored: RegisteredKey?, now: Date,
        in transaction: any AttestationStoreTransaction
    ) throws -> Verdict {
        guard let key = stored, key.publicKey == verifiedKey.publicKey,
            key.subject.hasSameUTF8(as: verifiedKey.subject)
        else {
            return .unauthenticated(
                Refusal(
                    .unknownKey,
                    "the key was deleted or replaced while the request was checked; register a new App Attest key "
                        + "with POST /v1/attestations"))
        }
        if let blocked = blockedRefusal(key, now: now) { return .keyRefused(blocked) }
        if let refusal = Self.environmentRefusal(key, configuration: configuration) {
            return .unauthenticated(refusal)
        }
        guard let check else { return .accepted(key) }
        switch check {
        case .invalid(let refusal):
            return .unauthenticated(refusal)
        case .invalidSigned(let refusal):
            _ = try transaction.raiseRisk(
                keyID: key.keyID, by: 1, at: now, decayInterval: configuration.riskDecayInterval)
            return .keyRefused(refusal)
        case .valid(let counter):
            return try judgeCounter(counter, of: key, now: now, in: transaction)
        }
    }

    /// Advances the counter of a correctly signed assertion, or says which kind of counter refusal it is.
    private func judgeCounter(
        _ counter: UInt32, of key: RegisteredKey, now: Date, in transaction: any AttestationStoreTransaction
    ) throws -> Verdict {
        if counter > key.counter {
            guard try transaction.advanceCounter(keyID: key.keyID, to: counter, usedAt: now) else {
                // Another request advanced the counter since this transaction read it: reordering, not replay.
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
        return .keyRefused(
            Refusal(.counterReplay, "the assertion's counter \(counter) \(what); refused as a replay or a cloned key"))
    }

    /// `wrongPlatform`: the request's signature header is not the one the key's platform makes.
    static func wrongPlatform(key platform: KeyPlatform) -> Refusal {
        switch platform {
        case .ios:
            Refusal(
                .wrongPlatform,
                "this key is an App Attest key, which signs with Rampart-Assertion; the request carries "
                    + "Rampart-Signature (Android keys only); send the assertion from generateAssertion instead")
        case .android:
            Refusal(
                .wrongPlatform,
                "this key is an Android Keystore key, which signs with Rampart-Signature; the request carries "
                    + "Rampart-Assertion (App Attest keys only); send the ECDSA signature over the client data instead")
        }
    }

    private static let unknownKey = Refusal(
        .unknownKey,
        "no key with this id is registered; generate a new App Attest (or Android Keystore) key and register it with "
            + "POST /v1/attestations")

    /// `wrongEnvironment` for a key another environment's service registered (they may share a database).
    static func environmentRefusal(_ key: RegisteredKey, configuration: Configuration) -> Refusal? {
        guard !key.environment.hasSameUTF8(as: configuration.environment) else { return nil }
        if key.platform == .android {
            return Refusal(
                .wrongEnvironment,
                "this Android key was registered by a \(key.environment) service and this service accepts "
                    + "\(configuration.environment) keys only (its Android policy may differ); register the key with "
                    + "this service, or use the \(key.environment) server")
        }
        return Refusal(
            .wrongEnvironment,
            "this key was attested in the \(key.environment) App Attest environment and this service accepts "
                + "\(configuration.environment) keys only; use the app build whose entitlement matches this server, or "
                + "the \(key.environment) server")
    }

    private func blockedRefusal(_ key: RegisteredKey, now: Date) -> Refusal? {
        let risk = key.riskScore(at: now, decayInterval: configuration.riskDecayInterval)
        guard risk >= configuration.riskBlockThreshold else { return nil }
        return Refusal(
            .keyBlocked,
            "this key's risk score is \(risk) (blocked at \(configuration.riskBlockThreshold)) after correctly signed "
                + "assertions that replayed counters or came from another app; generate a new key and attest it, or "
                + "ask an operator to unblock it")
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
        let now = clock()
        // Only a genuine, unexpired challenge needs burning: anything else can never be used.
        if let opened = try? ChallengeToken.open(challenge, with: try await sealingKeys()),
            opened.token.expiresAt > now
        {
            let token = opened.token
            let cutoff = purgeCutoff(now: now)
            _ = try await store.transaction { try Self.spend(token, purgingBefore: cutoff, in: $0) }
        }
        chargeFailure(clientAddress, now: now)
    }

    /// Takes an issuance token for `key` from `limiter`, or refuses with `what` and the time to wait.
    private func takeIssuance(_ limiter: RateLimiter, _ key: [UInt8], now: Date, _ what: String) throws {
        guard let wait = limiter.take(key, now: now) else { return }
        metrics.recordVerdict(kind: "challenge", reason: "rateLimited")
        throw AttestServiceError.rateLimited(
            "\(what); retry after \(wait) s, and ask for a challenge only right before the request that uses it",
            retryAfterSeconds: wait)
    }

    /// Refuses a client address that has used up its failure budget.
    private func checkFailureBudget(_ clientAddress: String?, now: Date) throws {
        guard let clientAddress,
            let wait = failuresByAddress.retryAfter(configuration.limits.budgetKey(for: clientAddress), now: now)
        else { return }
        metrics.recordVerdict(kind: "request", reason: "rateLimited")
        throw AttestServiceError.rateLimited(
            "this address sent more than \(configuration.limits.failuresPerAddressPerMinute) requests a minute that "
                + "failed their checks; retry after \(wait) s, and fix the client before retrying",
            retryAfterSeconds: wait)
    }

    private func chargeFailure(_ clientAddress: String?, now: Date) {
        guard let clientAddress else { return }
        failuresByAddress.take(configuration.limits.budgetKey(for: clientAddress), now: now)
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

/// What checking a registration or a protected request decided; its transaction commits it either way (a
/// malformed object's error is thrown only after the commit that burns its challenge).
private enum Verdict: Sendable {
    /// Registered, or its counter advanced: the key as it now is.
    case accepted(RegisteredKey)
    /// Refused. `chargesRequester`: nothing proves the requester holds the key, so the refusal counts against its
    /// address's failure budget. `reason`: the metrics label.
    case refused(Refusal, chargesRequester: Bool, reason: String)
    /// The object could not be parsed (charged to the requester).
    case malformed(AttestServiceError)

    /// A refusal of a request that proves nothing about the key: charged to the requester's address.
    static func unauthenticated(_ refusal: Refusal) -> Verdict {
        .refused(refusal, chargesRequester: true, reason: refusal.reason.description)
    }

    /// A refusal decided by the key's own state or signature (blocked, or evidence that raised its risk).
    static func keyRefused(_ refusal: Refusal) -> Verdict {
        .refused(refusal, chargesRequester: false, reason: refusal.reason.description)
    }

    /// A correctly signed counter below the stored one within the reorder window: the genuine app's requests out of
    /// order, neither charged nor evidence.
    static func reordered(_ refusal: Refusal) -> Verdict {
        .refused(refusal, chargesRequester: false, reason: "counterReordered")
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

/// A decoded Android registration: `POST /v1/attestations` with `"platform": "android"`.
public struct KeyAttestationSubmission: Hashable {
    /// The user or session id.
    public var subject: String
    /// The key's certificate chain as DER certificates, leaf first (`KeyStore.getCertificateChain`).
    public var certificateChain: [[UInt8]]
    /// The challenge string the server issued; its UTF-8 bytes are the key's attestation challenge.
    public var challenge: String
    /// The requester's IP address, when known: failures are charged to it (``RequestLimits``).
    public var clientAddress: String?

    /// Creates a submission.
    ///
    /// - Parameters:
    ///   - subject: The subject.
    ///   - certificateChain: The chain, leaf first.
    ///   - challenge: The challenge.
    ///   - clientAddress: The requester's address.
    public init(subject: String, certificateChain: [[UInt8]], challenge: String, clientAddress: String? = nil) {
        self.subject = subject
        self.certificateChain = certificateChain
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
    /// The CBOR assertion (`Rampart-Assertion`) of an App Attest key, or an Android key's DER ECDSA signature
    /// (`Rampart-Signature`), as ``platform`` says.
    public var assertion: [UInt8]
    /// Which signature ``assertion`` holds: the key must be of this platform, else `wrongPlatform`.
    public var platform: KeyPlatform
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
    ///   - platform: `ios` for an assertion, `android` for a signature.
    public init(
        subject: String, keyID: [UInt8], assertion: [UInt8], challenge: String, clientData: [UInt8],
        clientAddress: String? = nil, platform: KeyPlatform = .ios
    ) {
        self.subject = subject
        self.keyID = keyID
        self.assertion = assertion
        self.platform = platform
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

extension KeyAttestationSubmission: Sendable {}

extension AssertionSubmission: Sendable {}

extension RegistrationOutcome: Sendable {}

extension AssertionOutcome: Sendable {}
