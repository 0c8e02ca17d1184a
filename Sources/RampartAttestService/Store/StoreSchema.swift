import RampartSQLite

/// The store's tables, made and upgraded by an ordered list of named migrations, and the check every store makes
/// when it opens.
///
/// Tables carry a `rampart_` prefix so the service can share a database. `rampart_schema` holds one row: how many of
/// ``migrations`` the database has (the schema version; the first release kept none, and a database with `rampart_`
/// tables and no `rampart_schema` is at version 1). A store opens a database only when its tables are exactly those
/// its version's migrations made, with exactly their columns; it then runs the migrations the database lacks, in
/// order, in the caller's transaction. A new database runs them all. Anything else (a foreign `rampart_keys`, a
/// newer version, a half-made schema) is refused with ``AttestServiceError/Code/storeFailure`` naming what is wrong,
/// before the service listens, instead of a service that reports healthy and answers 503 to every registration.
enum StoreSchema {
    enum Dialect {
        case sqlite
        case postgres
    }

    /// One step of the schema: its SQL in both dialects, and every `rampart_` table with its columns once it ran.
    struct Migration {
        let name: String
        let sqlite: String
        let postgres: String
        let tables: [String: Set<String>]

        func script(_ dialect: Dialect) -> String { dialect == .sqlite ? sqlite : postgres }
    }

    /// The migrations, oldest first; a database at version `n` has run the first `n`. Append only: a released
    /// migration never changes.
    static let migrations: [Migration] = [
        Migration(
            name: "challenges and keys",
            sqlite: """
                CREATE TABLE IF NOT EXISTS rampart_challenges (
                    digest BLOB PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, expires_at INTEGER NOT NULL);
                CREATE INDEX IF NOT EXISTS rampart_challenges_expiry ON rampart_challenges (expires_at);
                CREATE TABLE IF NOT EXISTS rampart_keys (
                    key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BLOB NOT NULL, environment TEXT NOT NULL,
                    counter INTEGER NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BLOB NOT NULL,
                    registered_at INTEGER NOT NULL, risk_score INTEGER NOT NULL DEFAULT 0, last_used_at INTEGER);
                """,
            postgres: """
                CREATE TABLE IF NOT EXISTS rampart_challenges (
                    digest BYTEA PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, expires_at BIGINT NOT NULL);
                CREATE INDEX IF NOT EXISTS rampart_challenges_expiry ON rampart_challenges (expires_at);
                CREATE TABLE IF NOT EXISTS rampart_keys (
                    key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BYTEA NOT NULL, environment TEXT NOT NULL,
                    counter BIGINT NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BYTEA NOT NULL,
                    registered_at BIGINT NOT NULL, risk_score BIGINT NOT NULL DEFAULT 0, last_used_at BIGINT);
                """,
            tables: ["rampart_challenges": challengeColumns, "rampart_keys": keyColumnsVersion1]),
        Migration(
            name: "risk decay, the per-subject challenge index and the schema version",
            sqlite: """
                CREATE TABLE rampart_schema (version INTEGER NOT NULL);
                ALTER TABLE rampart_keys ADD COLUMN risk_updated_at INTEGER;
                CREATE INDEX IF NOT EXISTS rampart_challenges_subject ON rampart_challenges (subject, expires_at);
                """,
            postgres: """
                CREATE TABLE rampart_schema (version BIGINT NOT NULL);
                ALTER TABLE rampart_keys ADD COLUMN risk_updated_at BIGINT;
                CREATE INDEX IF NOT EXISTS rampart_challenges_subject ON rampart_challenges (subject, expires_at);
                """,
            tables: [
                "rampart_schema": ["version"], "rampart_challenges": challengeColumns, "rampart_keys": keyColumns,
            ]),
        // Challenges became sealed tokens: outstanding ones are dropped (clients that hold one get
        // `challengeUsed` and ask again); the spent set records their one use, and the sealing key is stored when
        // none is configured.
        Migration(
            name: "sealed challenges: the spent set and the stored sealing key",
            sqlite: """
                DROP TABLE rampart_challenges;
                CREATE TABLE rampart_spent_challenges (nonce BLOB PRIMARY KEY, expires_at INTEGER NOT NULL);
                CREATE INDEX rampart_spent_challenges_expiry ON rampart_spent_challenges (expires_at);
                CREATE TABLE rampart_challenge_keys (
                    id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL, created_at INTEGER NOT NULL);
                """,
            postgres: """
                DROP TABLE rampart_challenges;
                CREATE TABLE rampart_spent_challenges (nonce BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL);
                CREATE INDEX rampart_spent_challenges_expiry ON rampart_spent_challenges (expires_at);
                CREATE TABLE rampart_challenge_keys (
                    id BIGINT PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL, created_at BIGINT NOT NULL);
                """,
            tables: version3Tables),
        // `slot` is unique, so of several processes rotating at once exactly one key is made per rotation period.
        Migration(
            name: "access-token signing keys",
            sqlite: """
                CREATE TABLE rampart_token_keys (
                    kid TEXT PRIMARY KEY, created_at INTEGER NOT NULL, slot INTEGER NOT NULL UNIQUE,
                    private_key BLOB NOT NULL);
                """,
            postgres: """
                CREATE TABLE rampart_token_keys (
                    kid TEXT PRIMARY KEY, created_at BIGINT NOT NULL, slot BIGINT NOT NULL UNIQUE,
                    private_key BYTEA NOT NULL);
                """,
            tables: version3Tables.merging(["rampart_token_keys": tokenKeyColumns]) { $1 }),
        // The spent set keyed by (expiry, nonce), in that order, with no other index: a spend appends to the newest
        // end of one B-tree (one page per commit, however many requests it holds, instead of a random page of the
        // nonce index for each request plus the table's and the expiry index's pages), and the purge deletes a
        // range at the oldest end. A sealed challenge's expiry and nonce are both sealed, so the pair names exactly
        // one challenge, as the nonce alone did. Its rows are kept: a challenge spent before stays spent. SQLite:
        // `WITHOUT ROWID`, so the key is the table itself.
        Migration(
            name: "the spent set keyed by expiry and nonce",
            sqlite: """
                ALTER TABLE rampart_spent_challenges RENAME TO rampart_spent_challenges_4;
                DROP INDEX rampart_spent_challenges_expiry;
                CREATE TABLE rampart_spent_challenges (
                    nonce BLOB NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (expires_at, nonce)) WITHOUT ROWID;
                INSERT INTO rampart_spent_challenges (nonce, expires_at)
                    SELECT nonce, expires_at FROM rampart_spent_challenges_4;
                DROP TABLE rampart_spent_challenges_4;
                """,
            postgres: """
                ALTER TABLE rampart_spent_challenges RENAME TO rampart_spent_challenges_4;
                ALTER TABLE rampart_spent_challenges_4
                    RENAME CONSTRAINT rampart_spent_challenges_pkey TO rampart_spent_challenges_4_pkey;
                DROP INDEX rampart_spent_challenges_expiry;
                CREATE TABLE rampart_spent_challenges (
                    nonce BYTEA NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (expires_at, nonce));
                INSERT INTO rampart_spent_challenges (nonce, expires_at)
                    SELECT nonce, expires_at FROM rampart_spent_challenges_4;
                DROP TABLE rampart_spent_challenges_4;
                """,
            tables: version3Tables.merging(["rampart_token_keys": tokenKeyColumns]) { $1 }),
        // Android keys beside App Attest ones: every existing key is an App Attest key. An Android key keeps its
        // attestation leaf's SubjectPublicKeyInfo, whose SHA-256 is its key id.
        Migration(
            name: "key platforms: Android Key Attestation keys",
            sqlite: """
                ALTER TABLE rampart_keys ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios';
                ALTER TABLE rampart_keys ADD COLUMN public_key_info BLOB;
                """,
            postgres: """
                ALTER TABLE rampart_keys ADD COLUMN platform TEXT NOT NULL DEFAULT 'ios';
                ALTER TABLE rampart_keys ADD COLUMN public_key_info BYTEA;
                """,
            tables: version3Tables.merging([
                "rampart_token_keys": tokenKeyColumns, "rampart_keys": keyColumnsVersion6,
            ]) { $1 }),
    ]

    /// The version this build makes and reads: every migration run.
    static var version: Int64 { Int64(migrations.count) }

    static let challengeColumns: Set<String> = ["digest", "purpose", "subject", "expires_at"]
    static let keyColumnsVersion1: Set<String> = [
        "key_id", "subject", "public_key", "environment", "counter", "receipt", "registered_at", "risk_score",
        "last_used_at",
    ]
    static let keyColumns = keyColumnsVersion1.union(["risk_updated_at"])
    static let keyColumnsVersion6 = keyColumns.union(["platform", "public_key_info"])
    static let tokenKeyColumns: Set<String> = ["kid", "created_at", "slot", "private_key"]
    static let version3Tables: [String: Set<String>] = [
        "rampart_schema": ["version"], "rampart_keys": keyColumns,
        "rampart_spent_challenges": ["nonce", "expires_at"],
        "rampart_challenge_keys": ["id", "secret", "created_at"],
    ]

    /// Every table name any migration made: what the check looks for.
    static let knownTables: [String] = Set(migrations.flatMap(\.tables.keys)).sorted()

    /// Creates, migrates or checks the tables; runs inside the caller's transaction (or lock).
    ///
    /// - Parameters:
    ///   - dialect: SQLite or PostgreSQL.
    ///   - query: Runs one statement with bindings.
    ///   - script: Runs constant SQL.
    /// - Throws: ``AttestServiceError`` (`storeFailure`) when the database holds tables this build cannot use.
    static func prepare(
        _ dialect: Dialect, query: (SQLQuery) throws -> [SQLRow], script: (String) throws -> Void
    ) throws {
        let tables = try existingTables(dialect, query)
        let found: Int64
        if tables.isEmpty {
            found = 0
        } else if tables["rampart_schema"] == nil {
            found = 1
        } else {
            let rows = try query("SELECT version FROM rampart_schema")
            guard rows.count == 1, let stored = rows[0].integer(0) else {
                throw AttestServiceError.storeFailure(
                    "the database's rampart_schema table holds \(rows.count) rows instead of one version; it was not "
                        + "made by Rampart: use another database, or drop the rampart_ tables")
            }
            found = stored
        }
        guard found <= version else {
            throw AttestServiceError.storeFailure(
                "the database's schema is version \(found), newer than this rampart reads (\(version)); run the "
                    + "rampart release that wrote it, or a newer one")
        }
        if !tables.isEmpty {
            guard found >= 1 else {
                throw AttestServiceError.storeFailure(
                    "the database's rampart_schema table holds version \(found), which no Rampart wrote: use another "
                        + "database, or drop the rampart_ tables")
            }
            let expected = migrations[Int(found) - 1].tables
            guard tables == expected else { throw foreign(tables, expected: expected, found) }
        }
        guard found < version else { return }
        for migration in migrations[Int(found)...] { try script(migration.script(dialect)) }
        if found < 2 {
            _ = try query("INSERT INTO rampart_schema (version) VALUES (\(version))")
        } else {
            _ = try query("UPDATE rampart_schema SET version = \(version)")
        }
    }

    /// The refusal of tables that are not what `version`'s migrations made (`expected`), naming each difference.
    private static func foreign(
        _ tables: [String: Set<String>], expected: [String: Set<String>], _ version: Int64
    ) -> AttestServiceError {
        var problems: [String] = []
        for name in expected.keys.sorted() {
            guard let columns = tables[name] else {
                problems.append("no \(name) table")
                continue
            }
            if columns != expected[name] {
                problems.append("\(name) has columns \(columns.sorted().joined(separator: ", "))")
            }
        }
        for name in tables.keys.sorted() where expected[name] == nil {
            // A table of a later version than the database's, or one a later version dropped.
            let isLater = migrations.prefix(Int(max(version, 0))).allSatisfy { $0.tables[name] == nil }
            problems.append(isLater ? "already holds a \(name) table" : "a leftover \(name) table")
        }
        if problems.isEmpty { problems.append("its rampart_schema version does not match its tables") }
        return AttestServiceError.storeFailure(
            "the database holds rampart_ tables that are not Rampart's schema version \(version) ("
                + problems.joined(separator: "; ")
                + "); use another database, or drop those tables if they are a failed earlier setup")
    }

    /// The `rampart_` tables any migration made that the database holds, with their columns.
    private static func existingTables(
        _ dialect: Dialect, _ query: (SQLQuery) throws -> [SQLRow]
    ) throws -> [String: Set<String>] {
        var tables: [String: Set<String>] = [:]
        for name in knownTables {
            let rows =
                switch dialect {
                case .sqlite:
                    try query("SELECT name FROM pragma_table_info(\(name))")
                case .postgres:
                    try query(
                        """
                        SELECT column_name::text FROM information_schema.columns \
                        WHERE table_schema = current_schema() AND table_name = \(name)
                        """)
                }
            if !rows.isEmpty { tables[name] = Set(rows.compactMap { $0.text(0) }) }
        }
        return tables
    }
}
