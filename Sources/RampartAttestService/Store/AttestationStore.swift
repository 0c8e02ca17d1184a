public import Foundation

/// Where the service keeps registered keys and spent challenges: the embedded SQLite file or a shared PostgreSQL
/// database.
///
/// Every write happens inside ``transaction(_:)``; reads that only prepare a decision may use ``read(_:)``, which
/// takes no write lock. A transaction's body runs exactly once, synchronously, on the store's own writer, grouped
/// with other requests' bodies into one commit: each body runs in its own savepoint, so a body that throws keeps
/// nothing of its own and does not fail the others. The method returns only after that commit is durable, which is
/// when the service may answer 2xx. If the body throws, nothing it wrote is kept; if the commit fails, nothing of
/// the body is kept and the method throws.
///
/// Both implementations pass the same contract suite (`StoreContractTests`): one-time challenge spending under
/// concurrency, conditional counter advance, durability of acknowledged writes, and group commit isolation.
public protocol AttestationStore: Sendable {
    /// Runs `body` in a database transaction and commits it (possibly together with other callers' bodies).
    ///
    /// - Parameter body: The reads and writes, run once; short, and it must not block on anything but the
    ///   database.
    /// - Returns: What `body` returned, after the commit.
    /// - Throws: What `body` threw (after rolling back its work), or ``AttestServiceError`` with
    ///   ``AttestServiceError/Code/storeFailure`` when the database failed; in both cases nothing of `body` was
    ///   committed.
    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T

    /// Runs `body`, which only reads, without taking the write lock; it sees committed data only.
    ///
    /// The default runs it as a ``transaction(_:)``. The body must not write: the SQLite store runs it on a
    /// `query_only` connection, where a write fails with ``AttestServiceError/Code/storeFailure``.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`).
    func read<T: Sendable>(_ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T) async throws -> T

    /// Releases the store's connections. Further calls fail with ``AttestServiceError/Code/storeFailure``.
    func close() async
}

extension AttestationStore {
    /// Runs `body` as a ``transaction(_:)``.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` or the transaction threw.
    public func read<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        try await transaction(body)
    }
}

/// The operations available inside ``AttestationStore/transaction(_:)``.
///
/// Each is a single statement with bind parameters; the guarantees that make replays fail are in the statements
/// themselves (`INSERT … ON CONFLICT DO NOTHING` on the spent set's primary key spends a challenge at most once,
/// `UPDATE … WHERE counter < new` advances a counter at most once per value), so they hold across processes sharing
/// one database.
public protocol AttestationStoreTransaction {
    /// Records a challenge as spent, unless it already is.
    ///
    /// A challenge is named by its expiry and nonce together (both are sealed in it; the challenge text is never
    /// stored). Of any number of concurrent callers with the same pair, at most one gets `true`, across every process
    /// on the database.
    ///
    /// - Parameters:
    ///   - nonce: The challenge's random nonce.
    ///   - expiresAt: The challenge's expiry (to the millisecond): the record may be purged after it.
    /// - Returns: Whether this call spent it (`false`: it was spent before).
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func spendChallenge(nonce: [UInt8], expiresAt: Date) throws -> Bool

    /// Records a challenge as spent, unless it already is, and reads a key: ``spendChallenge(nonce:expiresAt:)``
    /// and ``key(id:)`` together, the first step of a protected request's transaction (one statement on
    /// PostgreSQL, where each statement is a round trip).
    ///
    /// - Parameters:
    ///   - nonce: The challenge's random nonce.
    ///   - expiresAt: The challenge's expiry.
    ///   - keyID: The key id in standard base64.
    /// - Returns: Whether this call spent the challenge, and the key (nil when there is none).
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func spendChallenge(
        nonce: [UInt8], expiresAt: Date, readingKey keyID: String
    ) throws -> (
        spent: Bool, key: RegisteredKey?
    )

    /// Deletes spent-challenge records whose challenges expired before `date` (they can no longer be presented).
    ///
    /// - Parameter date: The cut-off.
    /// - Returns: How many were deleted.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func purgeSpentChallenges(expiredBefore date: Date) throws -> Int

    /// The challenge sealing key kept in the database, storing `candidate` first when there is none.
    ///
    /// Of concurrent callers (in any process), all get the same key: the first stored one.
    ///
    /// - Parameters:
    ///   - candidate: Fresh random bytes to keep if the database holds no key yet.
    ///   - createdAt: The creation time stored with `candidate`.
    /// - Returns: The stored key's bytes.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func challengeSealingKey(proposing candidate: [UInt8], createdAt: Date) throws -> [UInt8]

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

    /// Deletes one access-token signing key.
    ///
    /// ``AccessTokenIssuer`` deletes a key in the transaction that reads it, once its publication has ended (the
    /// issuer decides which, so the store and the JWKS agree exactly).
    ///
    /// - Parameter keyID: The key's ``TokenSigningKeyRecord/keyID``.
    /// - Returns: Whether a key was deleted.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    func deleteTokenSigningKey(keyID: String) throws -> Bool
}

extension AttestationStoreTransaction {
    /// ``spendChallenge(nonce:expiresAt:)``, then ``key(id:)``: two statements.
    ///
    /// - Parameters:
    ///   - nonce: The challenge's random nonce.
    ///   - expiresAt: The challenge's expiry.
    ///   - keyID: The key id in standard base64.
    /// - Returns: Whether this call spent the challenge, and the key.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    public func spendChallenge(
        nonce: [UInt8], expiresAt: Date, readingKey keyID: String
    ) throws -> (
        spent: Bool, key: RegisteredKey?
    ) {
        (try spendChallenge(nonce: nonce, expiresAt: expiresAt), try key(id: keyID))
    }
}

/// Why a challenge was issued.
public enum ChallengePurpose: String, Hashable, Codable, CaseIterable {
    /// For registering a key (`POST /v1/attestations`).
    case attestation
    /// For one protected request.
    case assertion
}

/// An attested key as the service keeps it: an App Attest key, or an Android Keystore key.
public struct RegisteredKey: Hashable {
    /// The key id in standard base64: SHA-256 of the X9.63 public key (App Attest), or of the leaf certificate's
    /// SubjectPublicKeyInfo (Android).
    public var keyID: String
    /// The user or session that registered it.
    public var subject: String
    /// The P-256 public key, X9.63 uncompressed (for both platforms).
    public var publicKey: [UInt8]
    /// `production` or `development`: the App Attest environment, or for an Android key the environment of the
    /// service that registered it.
    public var environment: String
    /// The last accepted assertion counter (0 right after attestation; always 0 for Android keys).
    public var counter: UInt32
    /// Apple's receipt from the attestation, for later fraud-metric refreshes; for an Android key, its attestation
    /// certificate (the chain's leaf, DER).
    public var receipt: [UInt8]
    /// When the key was registered.
    public var registeredAt: Date
    /// Failures counted against the key; at the configured threshold the key is blocked.
    public var riskScore: Int
    /// When an assertion last advanced the counter.
    public var lastUsedAt: Date?
    /// When ``riskScore`` last changed (decay counts from here); nil when it never did.
    public var riskUpdatedAt: Date?
    /// Which platform attested the key, and so which request signature it makes.
    public var platform: KeyPlatform
    /// For an Android key, the attestation leaf's SubjectPublicKeyInfo (DER), whose SHA-256 is ``keyID``; nil for
    /// App Attest keys.
    public var publicKeyInfo: [UInt8]?

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
    ///   - platform: The attesting platform.
    ///   - publicKeyInfo: An Android key's SubjectPublicKeyInfo.
    public init(
        keyID: String, subject: String, publicKey: [UInt8], environment: String, counter: UInt32 = 0,
        receipt: [UInt8], registeredAt: Date, riskScore: Int = 0, lastUsedAt: Date? = nil, riskUpdatedAt: Date? = nil,
        platform: KeyPlatform = .ios, publicKeyInfo: [UInt8]? = nil
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
        self.platform = platform
        self.publicKeyInfo = publicKeyInfo
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

extension RegisteredKey: Sendable {}
