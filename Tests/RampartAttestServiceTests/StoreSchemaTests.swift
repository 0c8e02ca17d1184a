import Foundation
import RampartAttestService
import RampartSQLite
import Testing

/// The schema version check when a store opens (SQLite; PostgreSQL runs the same rules through its own catalog
/// queries on every open in the contract tests).
struct StoreSchemaTests {
    /// Version 1's tables exactly as the first release created them (it kept no version).
    static let version1 = """
        CREATE TABLE IF NOT EXISTS rampart_challenges (
            digest BLOB PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, expires_at INTEGER NOT NULL);
        CREATE INDEX IF NOT EXISTS rampart_challenges_expiry ON rampart_challenges (expires_at);
        CREATE TABLE IF NOT EXISTS rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BLOB NOT NULL, environment TEXT NOT NULL,
            counter INTEGER NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BLOB NOT NULL,
            registered_at INTEGER NOT NULL, risk_score INTEGER NOT NULL DEFAULT 0, last_used_at INTEGER);
        """

    func database(_ script: String) throws -> String {
        let path = temporarySQLitePath()
        let connection = try SQLiteConnection(path: path)
        try connection.execute(unsafeScript: script)
        return path
    }

    func refusal(_ path: String) -> AttestServiceError? {
        #expect(throws: AttestServiceError.self) { try SQLiteAttestationStore(path: path) }
    }

    @Test("a foreign rampart_keys table is refused at open, naming its columns")
    func foreignTable() throws {
        let path = try database("CREATE TABLE rampart_keys (id INTEGER PRIMARY KEY, owner TEXT);")
        let error = refusal(path)
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("rampart_keys has columns id, owner") == true)
    }

    @Test("a half-made schema (keys without challenges) is refused")
    func halfMade() throws {
        let path = try database(
            String(Self.version1.split(separator: ";").suffix(1).joined(separator: ";")))
        let error = refusal(path)
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("no rampart_challenges table") == true)
    }

    @Test("a version 1 database is migrated and keeps its keys")
    func migration() async throws {
        let path = try database(
            Self.version1 + """
                INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at,
                    risk_score) VALUES ('a2V5', 'alice', x'04', 'production', 7, x'00', 1790000000000, 2);
                """)
        let store = try SQLiteAttestationStore(path: path)
        let key = try await store.transaction { try $0.key(id: "a2V5") }
        #expect(key?.counter == 7)
        #expect(key?.riskScore == 2)
        #expect(key?.riskUpdatedAt == nil)
        await store.close()
        let version = try SQLiteConnection(path: path).query("SELECT version FROM rampart_schema")
        #expect(version.first?.integer(0) == 6)
        let reopened = try SQLiteAttestationStore(path: path)  // the migrated file opens as version 6
        await reopened.close()
    }

    @Test("a newer schema version is refused with what to do")
    func newer() async throws {
        let path = temporarySQLitePath()
        await (try SQLiteAttestationStore(path: path)).close()
        _ = try SQLiteConnection(path: path).query("UPDATE rampart_schema SET version = 99")
        let error = refusal(path)
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("version 99, newer than this rampart reads (6)") == true)
    }

    @Test("a version row that does not match its tables is refused")
    func versionWithoutColumns() async throws {
        let path = temporarySQLitePath()
        await (try SQLiteAttestationStore(path: path)).close()
        _ = try SQLiteConnection(path: path).query("ALTER TABLE rampart_keys DROP COLUMN risk_updated_at")
        #expect(refusal(path)?.code == .storeFailure)
        _ = try SQLiteConnection(path: path).query("DELETE FROM rampart_schema")
        #expect(refusal(path)?.reason.contains("holds 0 rows") == true)
    }
}

extension StoreSchemaTests {
    /// Version 2's tables exactly as the previous release created them.
    static let version2 = """
        CREATE TABLE rampart_schema (version INTEGER NOT NULL);
        INSERT INTO rampart_schema (version) VALUES (2);
        CREATE TABLE rampart_challenges (
            digest BLOB PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, expires_at INTEGER NOT NULL);
        CREATE INDEX rampart_challenges_expiry ON rampart_challenges (expires_at);
        CREATE INDEX rampart_challenges_subject ON rampart_challenges (subject, expires_at);
        CREATE TABLE rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BLOB NOT NULL, environment TEXT NOT NULL,
            counter INTEGER NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BLOB NOT NULL,
            registered_at INTEGER NOT NULL, risk_score INTEGER NOT NULL DEFAULT 0, last_used_at INTEGER,
            risk_updated_at INTEGER);
        """

    @Test(
        "a version 2 database is migrated through 3, 4 and 5 to 6: keys kept, outstanding challenges dropped, spent set"
    )
    func migrationFrom2() async throws {
        let path = try database(
            Self.version2 + """
                INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at,
                    risk_score, risk_updated_at) VALUES ('a2V5', 'alice', x'04', 'production', 9, x'00',
                    1790000000000, 1, 1790000000500);
                INSERT INTO rampart_challenges VALUES (x'0102', 'assertion', 'alice', 1790000300000);
                """)
        let store = try SQLiteAttestationStore(path: path)
        let key = try await store.transaction { try $0.key(id: "a2V5") }
        #expect(key?.counter == 9)
        #expect(key?.riskScore == 1)
        #expect(key?.riskUpdatedAt == Date(storeMilliseconds: 1_790_000_000_500))
        #expect(try await store.transaction { try $0.spendChallenge(nonce: [1, 2], expiresAt: Date()) })
        await store.close()
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.query("SELECT version FROM rampart_schema").first?.integer(0) == 6)
        let tables = try connection.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(
            tables.compactMap { $0.text(0) } == [
                "rampart_challenge_keys", "rampart_keys", "rampart_schema", "rampart_spent_challenges",
                "rampart_token_keys",
            ])
        await (try SQLiteAttestationStore(path: path)).close()  // the migrated file opens as version 6
    }

    /// Version 3's tables exactly as that release created them (version 4 added `rampart_token_keys`).
    static let version3 = """
        CREATE TABLE rampart_schema (version INTEGER NOT NULL);
        INSERT INTO rampart_schema (version) VALUES (3);
        CREATE TABLE rampart_spent_challenges (nonce BLOB PRIMARY KEY, expires_at INTEGER NOT NULL);
        CREATE INDEX rampart_spent_challenges_expiry ON rampart_spent_challenges (expires_at);
        CREATE TABLE rampart_challenge_keys (
            id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BLOB NOT NULL, environment TEXT NOT NULL,
            counter INTEGER NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BLOB NOT NULL,
            registered_at INTEGER NOT NULL, risk_score INTEGER NOT NULL DEFAULT 0, last_used_at INTEGER,
            risk_updated_at INTEGER);
        INSERT INTO rampart_spent_challenges VALUES (x'0102', 4102444800000);
        """

    /// Version 4's tables exactly as that release created them, with one spent challenge.
    static let version4 =
        version3.replacingOccurrences(of: "VALUES (3)", with: "VALUES (4)") + """
            CREATE TABLE rampart_token_keys (
                kid TEXT PRIMARY KEY, created_at INTEGER NOT NULL, slot INTEGER NOT NULL UNIQUE,
                private_key BLOB NOT NULL);
            """

    /// Version 5's tables exactly as that release created them (the spent set keyed by expiry and nonce), with one
    /// App Attest key and one spent challenge.
    static let version5 = """
        CREATE TABLE rampart_schema (version INTEGER NOT NULL);
        INSERT INTO rampart_schema (version) VALUES (5);
        CREATE TABLE rampart_challenge_keys (
            id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BLOB NOT NULL, environment TEXT NOT NULL,
            counter INTEGER NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BLOB NOT NULL,
            registered_at INTEGER NOT NULL, risk_score INTEGER NOT NULL DEFAULT 0, last_used_at INTEGER,
            risk_updated_at INTEGER);
        CREATE TABLE rampart_token_keys (
            kid TEXT PRIMARY KEY, created_at INTEGER NOT NULL, slot INTEGER NOT NULL UNIQUE, private_key BLOB NOT NULL);
        CREATE TABLE rampart_spent_challenges (
            nonce BLOB NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (expires_at, nonce)) WITHOUT ROWID;
        INSERT INTO rampart_spent_challenges VALUES (x'0102', 4102444800000);
        INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at)
            VALUES ('a2V5', 'alice', x'04', 'production', 9, x'00', 1790000000000);
        """

    @Test("a version 5 database is migrated to 6: its keys are App Attest keys, and Android keys can be stored")
    func migrationFrom5() async throws {
        let path = try database(Self.version5)
        let store = try SQLiteAttestationStore(path: path)
        try await expectSpentChallengeKept(store)
        let key = try await store.transaction { try $0.key(id: "a2V5") }
        #expect(key?.platform == .ios)
        #expect(key?.publicKeyInfo == nil)
        #expect(key?.counter == 9)
        var android = StoreContract.key()
        android.platform = .android
        android.publicKeyInfo = [0x30, 0x59]
        let inserted = android
        #expect(try await store.transaction { try $0.insertKey(inserted) })
        #expect(try await store.read { try $0.key(id: inserted.keyID) }?.platform == .android)
        await store.close()
        #expect(try SQLiteConnection(path: path).query("SELECT version FROM rampart_schema").first?.integer(0) == 6)
        await (try SQLiteAttestationStore(path: path)).close()  // the migrated file opens as version 6
    }

    @Test("a version 6 database whose key has a platform this build does not know fails closed, naming the row")
    func unknownPlatform() async throws {
        let path = try database(Self.version5)
        await (try SQLiteAttestationStore(path: path)).close()
        _ = try SQLiteConnection(path: path).query("UPDATE rampart_keys SET platform = 'windows'")
        let store = try SQLiteAttestationStore(path: path)
        let error = await #expect(throws: AttestServiceError.self) {
            try await store.read { try $0.key(id: "a2V5") }
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("a stored key row is malformed") == true)
        await store.close()
    }

    /// The spent challenge the version 3 and 4 databases hold: still spent after the migration.
    func expectSpentChallengeKept(_ store: SQLiteAttestationStore) async throws {
        let expiry = Date(storeMilliseconds: 4_102_444_800_000)
        #expect(try await store.transaction { try $0.spendChallenge(nonce: [1, 2], expiresAt: expiry) } == false)
        #expect(try await store.transaction { try $0.spendChallenge(nonce: [1, 3], expiresAt: expiry) })
    }

    @Test("a version 3 database (spent set, no token keys) is migrated to 6 and keeps its spent challenges")
    func migrationFrom3() async throws {
        let path = try database(Self.version3)
        let store = try SQLiteAttestationStore(path: path)
        try await expectSpentChallengeKept(store)
        #expect(try await store.transaction { try $0.tokenSigningKeys() }.isEmpty)
        await store.close()
        #expect(try SQLiteConnection(path: path).query("SELECT version FROM rampart_schema").first?.integer(0) == 6)
    }

    @Test("a version 4 database is migrated to 6: the spent set is keyed (expiry, nonce), without its own index")
    func migrationFrom4() async throws {
        let path = try database(Self.version4)
        let store = try SQLiteAttestationStore(path: path)
        try await expectSpentChallengeKept(store)
        // Purged by expiry as before, through the key's leading column.
        #expect(
            try await store.transaction {
                try $0.purgeSpentChallenges(expiredBefore: Date(storeMilliseconds: 4_102_444_800_001))
            } == 2)
        await store.close()
        let connection = try SQLiteConnection(path: path)
        #expect(try connection.query("SELECT version FROM rampart_schema").first?.integer(0) == 6)
        let definition = try connection.query(
            "SELECT sql FROM sqlite_master WHERE name = 'rampart_spent_challenges'"
        ).first?.text(0)
        #expect(definition?.contains("PRIMARY KEY (expires_at, nonce)) WITHOUT ROWID") == true)
        let indexes = try connection.query(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name LIKE 'rampart_spent_challenges%'")
        #expect(indexes.isEmpty)
        #expect(
            try connection.query("SELECT name FROM sqlite_master WHERE name = 'rampart_spent_challenges_4'").isEmpty)
        await (try SQLiteAttestationStore(path: path)).close()  // the migrated file opens as version 6
    }

    @Test("a version 2 database with other columns is refused, not migrated")
    func foreignVersion2() throws {
        let path = try database(Self.version2 + "ALTER TABLE rampart_keys DROP COLUMN risk_updated_at;")
        let error = refusal(path)
        #expect(error?.code == .storeFailure)
        #expect(try SQLiteConnection(path: path).query("SELECT version FROM rampart_schema").first?.integer(0) == 2)
    }

    @Test("a version 3 database missing the spent set, or keeping rampart_challenges, is refused, naming it")
    func halfMadeVersion3() async throws {
        let path = temporarySQLitePath()
        await (try SQLiteAttestationStore(path: path)).close()
        _ = try SQLiteConnection(path: path).query("DROP TABLE rampart_spent_challenges")
        #expect(refusal(path)?.reason.contains("no rampart_spent_challenges table") == true)
        let other = temporarySQLitePath()
        await (try SQLiteAttestationStore(path: other)).close()
        try SQLiteConnection(path: other).execute(
            unsafeScript: "CREATE TABLE rampart_challenges (digest BLOB, purpose TEXT, subject TEXT, expires_at INT)")
        #expect(refusal(other)?.reason.contains("a leftover rampart_challenges table") == true)
    }
}

extension Date {
    init(storeMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(storeMilliseconds) / 1000) }
}
