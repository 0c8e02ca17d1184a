import Foundation
import RampartSQLite

/// The store operations as SQL, shared by SQLite and PostgreSQL: both speak `RETURNING` and `ON CONFLICT`, so one
/// set of statements (with bind parameters only) gives both stores the same semantics.
struct SQLStoreTransaction: AttestationStoreTransaction {
    /// Runs one statement on the transaction's connection and returns its rows.
    let execute: (SQLQuery) throws -> [SQLRow]
    /// Runs one statement and returns how many rows it changed, where the database counts them itself (SQLite's
    /// `sqlite3_changes`); nil where a statement must say so with `RETURNING` (PostgreSQL's rows). SQLite would run
    /// `RETURNING` as a second pass over a temporary table of the changed rows, for a count it keeps anyway.
    var changes: ((SQLQuery) throws -> Int)? = nil

    /// Runs `statement`, an `INSERT`, `UPDATE` or `DELETE` of at most one row, and says whether it changed one: counted
    /// by ``changes`` where the database counts, else through `RETURNING 1`.
    private func changedOneRow(_ statement: SQLQuery) throws -> Bool {
        if let changes { return try changes(statement) == 1 }
        return try execute("\(statement) RETURNING 1").count == 1
    }

    func spendChallenge(nonce: [UInt8], expiresAt: Date) throws -> Bool {
        try changedOneRow(
            """
            INSERT INTO rampart_spent_challenges (nonce, expires_at) VALUES (\(nonce), \(expiresAt.storeMilliseconds)) \
            ON CONFLICT (expires_at, nonce) DO NOTHING
            """)
    }

    func purgeSpentChallenges(expiredBefore date: Date) throws -> Int {
        try execute(
            "DELETE FROM rampart_spent_challenges WHERE expires_at < \(date.storeMilliseconds) RETURNING 1"
        ).count
    }

    func challengeSealingKey(proposing candidate: [UInt8], createdAt: Date) throws -> [UInt8] {
        _ = try execute(
            """
            INSERT INTO rampart_challenge_keys (id, secret, created_at) VALUES (1, \(candidate), \
            \(createdAt.storeMilliseconds)) ON CONFLICT (id) DO NOTHING
            """)
        guard let secret = try execute("SELECT secret FROM rampart_challenge_keys WHERE id = 1").first?.blob(0),
            secret.count >= ChallengeSealingKeys.minimumByteCount
        else {
            throw AttestServiceError.storeFailure(
                "the stored challenge sealing key is missing or shorter than \(ChallengeSealingKeys.minimumByteCount) "
                    + "bytes; delete the row of rampart_challenge_keys (a new key is made), or configure "
                    + "challenges.sealingKeys")
        }
        return secret
    }

    func insertKey(_ key: RegisteredKey) throws -> Bool {
        try changedOneRow(
            """
            INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at, \
            risk_score, platform, public_key_info) VALUES (\(key.keyID), \(key.subject), \(key.publicKey), \
            \(key.environment), \(Int64(key.counter)), \(key.receipt), \(key.registeredAt.storeMilliseconds), \
            \(key.riskScore), \(key.platform.rawValue), \(key.publicKeyInfo)) ON CONFLICT (key_id) DO NOTHING
            """)
    }

    func key(id keyID: String) throws -> RegisteredKey? {
        let rows = try execute("SELECT \(Self.keyColumns) FROM rampart_keys WHERE key_id = \(keyID)")
        guard let row = rows.first else { return nil }
        return try Self.key(keyID, from: row, at: 0)
    }

    func spendChallenge(
        nonce: [UInt8], expiresAt: Date, readingKey keyID: String
    ) throws -> (
        spent: Bool, key: RegisteredKey?
    ) {
        // Where the database counts changed rows itself (SQLite, in process), two statements cost nothing extra.
        guard changes == nil else {
            return (try spendChallenge(nonce: nonce, expiresAt: expiresAt), try key(id: keyID))
        }
        let rows = try execute(
            """
            WITH spent AS (INSERT INTO rampart_spent_challenges (nonce, expires_at) \
            VALUES (\(nonce), \(expiresAt.storeMilliseconds)) ON CONFLICT (expires_at, nonce) DO NOTHING RETURNING 1) \
            SELECT (SELECT count(*) FROM spent), \(Self.keyColumns) \
            FROM (SELECT 1) AS one LEFT JOIN rampart_keys ON key_id = \(keyID)
            """)
        guard rows.count == 1, let spent = rows[0].integer(0), spent == 0 || spent == 1 else {
            throw AttestServiceError.storeFailure(
                "spending a challenge and reading a key returned an unexpected row; the schema is not Rampart's")
        }
        let key = rows[0].text(1) == nil ? nil : try Self.key(keyID, from: rows[0], at: 1)
        return (spent == 1, key)
    }

    /// The columns of a `rampart_keys` row that ``key(_:from:at:)`` reads, in its order.
    private static let keyColumns: SQLQuery =
        """
        subject, public_key, environment, counter, receipt, registered_at, risk_score, last_used_at, risk_updated_at, \
        platform, public_key_info
        """

    /// The key `keyID` from ``keyColumns`` starting at column `offset` of `row`.
    private static func key(_ keyID: String, from row: SQLRow, at offset: Int) throws -> RegisteredKey {
        guard let subject = row.text(offset), let publicKey = row.blob(offset + 1),
            let environment = row.text(offset + 2), let counterValue = row.integer(offset + 3),
            let counter = UInt32(exactly: counterValue), let receipt = row.blob(offset + 4),
            let registered = row.integer(offset + 5), let risk = row.integer(offset + 6),
            let riskScore = Int(exactly: risk), let platformName = row.text(offset + 9),
            let platform = KeyPlatform(rawValue: platformName)
        else { throw AttestServiceError.storeFailure("a stored key row is malformed; the schema is not Rampart's") }
        return RegisteredKey(
            keyID: keyID, subject: subject, publicKey: publicKey, environment: environment, counter: counter,
            receipt: receipt, registeredAt: Date(storeMilliseconds: registered), riskScore: riskScore,
            lastUsedAt: row.integer(offset + 7).map { Date(storeMilliseconds: $0) },
            riskUpdatedAt: row.integer(offset + 8).map { Date(storeMilliseconds: $0) }, platform: platform,
            publicKeyInfo: row.blob(offset + 10))
    }

    func advanceCounter(keyID: String, to counter: UInt32, usedAt date: Date) throws -> Bool {
        let value = Int64(counter)
        return try changedOneRow(
            """
            UPDATE rampart_keys SET counter = \(value), last_used_at = \(date.storeMilliseconds) \
            WHERE key_id = \(keyID) AND counter < \(value)
            """)
    }

    func raiseRisk(keyID: String, by amount: Int, at date: Date, decayInterval: TimeInterval?) throws -> Int? {
        let now = date.storeMilliseconds
        // No decay: a period no clock reaches, so the division below is always 0.
        let period = decayInterval.map { max(Int64(($0 * 1000).rounded(.down)), 1) } ?? Int64.max
        // Integer division in both dialects; CASE rather than MAX/GREATEST so one statement serves both.
        let rows = try execute(
            """
            UPDATE rampart_keys SET risk_score = (CASE \
            WHEN risk_score - (\(now) - COALESCE(risk_updated_at, \(now))) / \(period) > 0 \
            THEN risk_score - (\(now) - COALESCE(risk_updated_at, \(now))) / \(period) ELSE 0 END) + \(amount), \
            risk_updated_at = \(now) WHERE key_id = \(keyID) RETURNING risk_score
            """)
        return rows.first?.integer(0).flatMap { Int(exactly: $0) }
    }

    func resetRisk(keyID: String, at date: Date) throws -> Bool {
        try changedOneRow(
            """
            UPDATE rampart_keys SET risk_score = 0, risk_updated_at = \(date.storeMilliseconds) \
            WHERE key_id = \(keyID)
            """)
    }

    func tokenSigningKeys() throws -> [TokenSigningKeyRecord] {
        try execute("SELECT kid, created_at, slot, private_key FROM rampart_token_keys ORDER BY created_at, kid").map {
            row in
            guard let keyID = row.text(0), let created = row.integer(1), let slot = row.integer(2),
                let privateKey = row.blob(3)
            else {
                throw AttestServiceError.storeFailure(
                    "a stored token key row is malformed; the schema is not Rampart's")
            }
            return TokenSigningKeyRecord(
                keyID: keyID, createdAt: Date(storeMilliseconds: created), slot: slot, privateKey: privateKey)
        }
    }

    func insertTokenSigningKey(_ key: TokenSigningKeyRecord) throws -> Bool {
        try changedOneRow(
            """
            INSERT INTO rampart_token_keys (kid, created_at, slot, private_key) VALUES (\(key.keyID), \
            \(key.createdAt.storeMilliseconds), \(key.slot), \(key.privateKey)) ON CONFLICT DO NOTHING
            """)
    }

    func deleteTokenSigningKey(keyID: String) throws -> Bool {
        try changedOneRow("DELETE FROM rampart_token_keys WHERE kid = \(keyID)")
    }
}
