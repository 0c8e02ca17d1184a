public import Foundation

/// Where the service keeps challenges and registered keys: the embedded SQLite file or a shared PostgreSQL database.
///
/// Every read and write happens inside ``transaction(_:)``. The body runs synchronously on the store's own
/// connection thread, so it may verify signatures between reads and writes (pure CPU work) and still be atomic; the
/// method returns only after the commit, which is when the service may answer 2xx. If the body throws, nothing it
/// wrote is kept.
///
/// Both implementations pass the same contract suite (`StoreContractTests`): one-time challenge consumption under
/// concurrency, conditional counter advance, durability of acknowledged writes.
public protocol AttestationStore: Sendable {
    /// Runs `body` in one database transaction and commits it.
    ///
    /// - Parameter body: The reads and writes; it must not block on anything but the database.
    /// - Returns: What `body` returned, after the commit.
    /// - Throws: What `body` threw (after rolling back), or ``AttestServiceError`` with
    ///   ``AttestServiceError/Code/storeFailure`` when the database failed; in both cases nothing was committed.
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T

    /// Releases the store's connections. Further calls fail with ``AttestServiceError/Code/storeFailure``.
    func close() async
}

/// The operations available inside ``AttestationStore/transaction(_:)``.
///
/// Each is a single statement with bind parameters; the guarantees that make replays fail are in the statements
/// themselves (`DELETE … RETURNING` consumes a challenge at most once, `UPDATE … WHERE counter < new` advances a
/// counter at most once per value), so they hold across processes sharing one database.
public protocol AttestationStoreTransaction {
    /// Stores a newly issued challenge.
    ///
    /// - Parameter challenge: The record (only the challenge's digest is stored).
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func insertChallenge(_ challenge: ChallengeRecord) throws

    /// Deletes the challenge with `digest` and returns it, or nil when there is none (never issued, or consumed).
    ///
    /// Of any number of concurrent callers with the same digest, at most one gets the record.
    ///
    /// - Parameter digest: SHA-256 of the challenge string.
    /// - Returns: The record that was deleted.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func takeChallenge(digest: [UInt8]) throws -> ChallengeRecord?

    /// Deletes challenges that expired before `date`.
    ///
    /// - Parameter date: The cut-off.
    /// - Returns: How many were deleted.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func purgeChallenges(expiredBefore date: Date) throws -> Int

    /// Stores a newly attested key.
    ///
    /// - Parameter key: The key with counter 0.
    /// - Returns: `false` when a key with the same id already exists (nothing was written).
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func insertKey(_ key: RegisteredKey) throws -> Bool

    /// The registered key with `keyID`, or nil.
    ///
    /// - Parameter keyID: The key id in standard base64.
    /// - Returns: The key.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func key(id keyID: String) throws -> RegisteredKey?

    /// Sets the key's counter to `counter` if, and only if, the stored counter is smaller.
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - counter: The assertion's counter.
    ///   - date: When the key was used.
    /// - Returns: Whether the counter advanced (false: a concurrent or replayed assertion got there first).
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func advanceCounter(keyID: String, to counter: UInt32, usedAt date: Date) throws -> Bool

    /// Adds `amount` to the key's risk score after letting it decay, and records when.
    ///
    /// The stored score first loses one point per whole `decayInterval` since the last change (never below 0), then
    /// gains `amount`; the change time becomes `date`. One statement, so concurrent raises never lose a point.
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - amount: How much to add.
    ///   - date: Now.
    ///   - decayInterval: Seconds per point of decay; `nil` for no decay.
    /// - Returns: The new score, or nil when the key does not exist.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func raiseRisk(keyID: String, by amount: Int, at date: Date, decayInterval: TimeInterval?) throws -> Int?

    /// Sets the key's risk score to 0 (an operator's unblock).
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - date: Now.
    /// - Returns: Whether the key exists.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func resetRisk(keyID: String, at date: Date) throws -> Bool

    /// Deletes the subject's oldest challenges so that at most `count` stay outstanding.
    ///
    /// - Parameters:
    ///   - subject: The subject (compared as bytes).
    ///   - count: How many may stay.
    /// - Returns: How many were deleted.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func trimChallenges(subject: String, keeping count: Int) throws -> Int

    /// Every access-token signing key, oldest first (see ``AccessTokenIssuer``).
    ///
    /// - Returns: The keys.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func tokenSigningKeys() throws -> [TokenSigningKeyRecord]

    /// Stores a new access-token signing key, unless a key with the same ``TokenSigningKeyRecord/slot`` or kid exists.
    ///
    /// Of several processes inserting a key for one slot, exactly one succeeds; the others then read its key.
    ///
    /// - Parameter key: The key.
    /// - Returns: `false` when nothing was written because the slot (or kid) is taken.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func insertTokenSigningKey(_ key: TokenSigningKeyRecord) throws -> Bool

    /// Deletes the access-token signing keys created before `date`.
    ///
    /// - Parameter date: The cut-off.
    /// - Returns: How many were deleted.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func deleteTokenSigningKeys(createdBefore date: Date) throws -> Int
}

/// Why a challenge was issued.
public enum ChallengePurpose: String, Hashable, Codable, CaseIterable {
    /// For registering a key (`POST /v1/attestations`).
    case attestation
    /// For one protected request (`POST /v1/assertions` and protected routes).
    case assertion
}

/// An issued challenge as stored: its digest, purpose, subject and expiry.
///
/// The challenge string itself is never stored, only its SHA-256, so a copy of the database cannot be used to answer
/// outstanding challenges.
public struct ChallengeRecord: Hashable {
    /// SHA-256 of the challenge string's UTF-8 bytes.
    public var digest: [UInt8]
    /// What the challenge may be used for.
    public var purpose: ChallengePurpose
    /// The user or session it was issued to.
    public var subject: String
    /// When it stops being accepted.
    public var expiresAt: Date

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - digest: SHA-256 of the challenge.
    ///   - purpose: Its purpose.
    ///   - subject: Its subject.
    ///   - expiresAt: Its expiry.
    public init(digest: [UInt8], purpose: ChallengePurpose, subject: String, expiresAt: Date) {
        self.digest = digest
        self.purpose = purpose
        self.subject = subject
        self.expiresAt = expiresAt
    }
}

/// An attested App Attest key as the service keeps it.
public struct RegisteredKey: Hashable {
    /// The key id (SHA-256 of the public key) in standard base64.
    public var keyID: String
    /// The user or session that registered it.
    public var subject: String
    /// The P-256 public key, X9.63 uncompressed.
    public var publicKey: [UInt8]
    /// `production` or `development`.
    public var environment: String
    /// The last accepted assertion counter (0 right after attestation).
    public var counter: UInt32
    /// Apple's receipt from the attestation, for later fraud-metric refreshes.
    public var receipt: [UInt8]
    /// When the key was registered.
    public var registeredAt: Date
    /// Failures counted against the key; at the configured threshold the key is blocked.
    public var riskScore: Int
    /// When an assertion last advanced the counter.
    public var lastUsedAt: Date?
    /// When ``riskScore`` last changed (decay counts from here); nil when it never did.
    public var riskUpdatedAt: Date?

    /// Creates a record.
    ///
    /// - Parameters:
    ///   - keyID: The key id, standard base64.
    ///   - subject: The registering subject.
    ///   - publicKey: X9.63 public key.
    ///   - environment: `production` or `development`.
    ///   - counter: The counter.
    ///   - receipt: The receipt bytes.
    ///   - registeredAt: Registration time.
    ///   - riskScore: The risk score.
    ///   - lastUsedAt: Last use.
    ///   - riskUpdatedAt: When the risk score last changed.
    public init(
        keyID: String, subject: String, publicKey: [UInt8], environment: String, counter: UInt32 = 0,
        receipt: [UInt8], registeredAt: Date, riskScore: Int = 0, lastUsedAt: Date? = nil, riskUpdatedAt: Date? = nil
    ) {
        self.keyID = keyID
        self.subject = subject
        self.publicKey = publicKey
        self.environment = environment
        self.counter = counter
        self.receipt = receipt
        self.registeredAt = registeredAt
        self.riskScore = riskScore
        self.lastUsedAt = lastUsedAt
        self.riskUpdatedAt = riskUpdatedAt
    }

    /// The risk score after decay: one point less per whole `decayInterval` since ``riskUpdatedAt``, never below 0.
    ///
    /// - Parameters:
    ///   - date: Now.
    ///   - decayInterval: Seconds per point; nil for no decay.
    /// - Returns: The score that counts against the block threshold.
    public func riskScore(at date: Date, decayInterval: TimeInterval?) -> Int {
        guard let decayInterval, decayInterval > 0, let riskUpdatedAt, date > riskUpdatedAt else { return riskScore }
        let points = (date.timeIntervalSince(riskUpdatedAt) / decayInterval).rounded(.down)
        guard points < Double(riskScore) else { return 0 }
        return riskScore - Int(points)
    }
}

extension Date {
    /// Milliseconds since 1970, the stores' time column format.
    var storeMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }

    /// The date for a stored millisecond count.
    init(storeMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(storeMilliseconds) / 1000) }
}

extension ChallengePurpose: Sendable {}

extension ChallengeRecord: Sendable {}

extension RegisteredKey: Sendable {}
