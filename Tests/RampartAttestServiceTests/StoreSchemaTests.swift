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
        #expect(version.first?.integer(0) == 3)
        let reopened = try SQLiteAttestationStore(path: path)  // the migrated file opens as version 3
        await reopened.close()
    }

    @Test("a newer schema version is refused with what to do")
    func newer() async throws {
        let path = temporarySQLitePath()
        await (try SQLiteAttestationStore(path: path)).close()
        _ = try SQLiteConnection(path: path).query("UPDATE rampart_schema SET version = 99")
        let error = refusal(path)
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("version 99, newer than this rampart reads (3)") == true)
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
