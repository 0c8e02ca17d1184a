import Foundation
import RampartPostgres
import RampartSQLite
import Testing

@testable import RampartAttestService

/// Every earlier schema version, as its release created it on PostgreSQL, migrates to the current one.
@Suite(
    .enabled(if: testPostgresURL != nil, "RAMPART_TEST_POSTGRES_URL is unset; run scripts/test.sh to start PostgreSQL"))
struct PostgresStoreSchemaTests {
    static let keys = """
        CREATE TABLE rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BYTEA NOT NULL, environment TEXT NOT NULL,
            counter BIGINT NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BYTEA NOT NULL,
            registered_at BIGINT NOT NULL, risk_score BIGINT NOT NULL DEFAULT 0, last_used_at BIGINT
        """

    static let challenges = """
        CREATE TABLE rampart_challenges (
            digest BYTEA PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, expires_at BIGINT NOT NULL);
        CREATE INDEX rampart_challenges_expiry ON rampart_challenges (expires_at);
        """

    static let version1 = challenges + keys + ");"

    static let version2 =
        """
        CREATE TABLE rampart_schema (version BIGINT NOT NULL);
        INSERT INTO rampart_schema (version) VALUES (2);
        """ + challenges
        + "CREATE INDEX rampart_challenges_subject ON rampart_challenges (subject, expires_at);\n" + keys
        + ", risk_updated_at BIGINT);"

    static let version3 =
        """
        CREATE TABLE rampart_schema (version BIGINT NOT NULL);
        INSERT INTO rampart_schema (version) VALUES (3);
        CREATE TABLE rampart_spent_challenges (nonce BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL);
        CREATE INDEX rampart_spent_challenges_expiry ON rampart_spent_challenges (expires_at);
        CREATE TABLE rampart_challenge_keys (
            id BIGINT PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL, created_at BIGINT NOT NULL);
        INSERT INTO rampart_spent_challenges VALUES ('\\x0102', 4102444800000);
        """ + keys + ", risk_updated_at BIGINT);"

    static let version4 =
        version3.replacingOccurrences(of: "VALUES (3)", with: "VALUES (4)")
            + """
            CREATE TABLE rampart_token_keys (
                kid TEXT PRIMARY KEY, created_at BIGINT NOT NULL, slot BIGINT NOT NULL UNIQUE, private_key BYTEA NOT NULL);
            """

    /// Version 5: the spent set keyed by (expiry, nonce), without its own index.
    static let version5 =
        """
        CREATE TABLE rampart_schema (version BIGINT NOT NULL);
        INSERT INTO rampart_schema (version) VALUES (5);
        CREATE TABLE rampart_spent_challenges (
            nonce BYTEA NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (expires_at, nonce));
        INSERT INTO rampart_spent_challenges (nonce, expires_at) VALUES ('\\x0102', 4102444800000);
        CREATE TABLE rampart_challenge_keys (
            id BIGINT PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL, created_at BIGINT NOT NULL);
        CREATE TABLE rampart_token_keys (
            kid TEXT PRIMARY KEY, created_at BIGINT NOT NULL, slot BIGINT NOT NULL UNIQUE, private_key BYTEA NOT NULL);
        """ + keys + ", risk_updated_at BIGINT);"

    @Test(
        "a database at an earlier version migrates to the current one, keeping its keys and spent challenges",
        arguments: [1, 2, 3, 4, 5])
    func migrates(from version: Int) async throws {
        let url = testPostgresURL ?? ""
        let schema = "h4_migration_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let admin = try PostgresConnection(url: url)
        try admin.execute(unsafeScript: "CREATE SCHEMA \(schema)")
        defer { try? admin.execute(unsafeScript: "DROP SCHEMA \(schema) CASCADE") }
        let script = [Self.version1, Self.version2, Self.version3, Self.version4, Self.version5][version - 1]
        try admin.execute(
            unsafeScript: """
                SET search_path TO \(schema);
                \(script)
                INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at)
                    VALUES ('a2V5', 'alice', '\\x04', 'production', 11, '\\x00', 1790000000000);
                SET search_path TO DEFAULT;
                """)
        let scoped = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        let store = try PostgresAttestationStore(url: scoped, poolSize: 1)
        let migrated = try await store.transaction { try $0.key(id: "a2V5") }
        #expect(migrated?.counter == 11)
        #expect(migrated?.platform == .ios, "every key of an earlier version is an App Attest key")
        #expect(migrated?.publicKeyInfo == nil)
        let expiry = Date(timeIntervalSince1970: 4_102_444_800)
        let spentBefore = try await store.transaction { try $0.spendChallenge(nonce: [1, 2], expiresAt: expiry) }
        #expect(spentBefore == (version < 3), "a challenge spent before the migration stays spent")
        #expect(try await store.transaction { try $0.tokenSigningKeys() }.isEmpty)
        await store.close()
        let stored = try admin.query(SQLQuery(unsafeSQL: "SELECT version FROM \(schema).rampart_schema"))
        #expect(stored.first?.integer(0) == 6)
        await (try PostgresAttestationStore(url: scoped, poolSize: 1)).close()  // opens as the current version
    }
}
