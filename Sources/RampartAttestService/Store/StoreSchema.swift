import RampartSQLite

/// The store's tables in the two dialects, their version, and the check every store makes when it opens.
///
/// Tables carry a `rampart_` prefix so the service can share a database. `rampart_schema` holds one row, the schema
/// version. A store opens a database only when it can be sure the tables are Rampart's at a version it reads:
///
/// - no `rampart_` table at all: the tables are created at ``version``;
/// - version 1 (the first release, which kept no version): the tables have exactly version 1's columns, and are
///   migrated to version 2 (`risk_updated_at`, the per-subject challenge index, `rampart_schema`), then on;
/// - version 2: the tables have exactly version 2's columns, and are migrated to version 3 (the spent set and the
///   stored sealing key replace `rampart_challenges`, whose outstanding challenges are dropped: clients that hold
///   one get `challengeUsed` and ask again), then on;
/// - version 3: the tables are exactly its tables, and `rampart_token_keys` is added (version 4), then on;
/// - version 4: the tables are exactly its tables, and the spent set is rebuilt keyed by (expiry, nonce) with its
///   spent challenges kept (version 5);
/// - ``version``: the tables are exactly its tables, with exactly their columns;
/// - anything else (a foreign `rampart_keys`, a newer version, a half-made schema) is refused with
///   ``AttestServiceError/Code/storeFailure`` naming what is wrong, before the service listens, instead of a service
///   that reports healthy and answers 503 to every registration.
enum StoreSchema {
    /// The version this build creates and reads.
    ///
    /// 1: challenges and keys. 2: `rampart_keys.risk_updated_at` (risk decay), `rampart_challenges_subject` (the cap
    /// on outstanding challenges per subject) and `rampart_schema`. 3: challenges are sealed tokens, so
    /// `rampart_challenges` is gone; `rampart_spent_challenges` (nonce, expiry) records their one use and
    /// `rampart_challenge_keys` holds the sealing key when none is configured. 4: `rampart_token_keys`, the
    /// access-token signing keys. 5: the spent set's key is (expiry, nonce), in that order, and it has no other
    /// index: a spend appends to the newest end of one B-tree (one page per commit, however many requests it
    /// holds, instead of a random page of the nonce index for each request plus the table's and the expiry index's
    /// pages), and the purge deletes a range at the oldest end. A sealed challenge's expiry and nonce are both sealed,
    /// so the pair names exactly one challenge, as the nonce alone did.
    static let version: Int64 = 5

    enum Dialect {
        case sqlite
        case postgres
    }

    static let challengeColumns: Set<String> = ["digest", "purpose", "subject", "expires_at"]
    static let keyColumnsVersion1: Set<String> = [
        "key_id", "subject", "public_key", "environment", "counter", "receipt", "registered_at", "risk_score",
        "last_used_at",
    ]
    static let keyColumns = keyColumnsVersion1.union(["risk_updated_at"])
    static let tokenKeyColumns: Set<String> = ["kid", "created_at", "slot", "private_key"]
    static let spentColumns: Set<String> = ["nonce", "expires_at"]
    static let sealingKeyColumns: Set<String> = ["id", "secret", "created_at"]
    /// The tables of version 3.
    static let version3TableNames: Set<String> = [
        "rampart_schema", "rampart_keys", "rampart_spent_challenges", "rampart_challenge_keys",
    ]
    /// Every table of the current version.
    static let tableNames: Set<String> = version3TableNames.union(["rampart_token_keys"])

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
        var tables = try existingTables(dialect, query)
        if tables.isEmpty {
            try script(dialect == .sqlite ? sqlite : postgres)
            _ = try query("INSERT INTO rampart_schema (version) VALUES (\(version))")
            return
        }
        var keys = try columns(of: "rampart_keys", dialect, query)
        let challenges = try columns(of: "rampart_challenges", dialect, query)
        var found: Int64
        if tables.contains("rampart_schema") {
            let rows = try query("SELECT version FROM rampart_schema")
            guard rows.count == 1, let stored = rows[0].integer(0) else {
                throw AttestServiceError.storeFailure(
                    "the database's rampart_schema table holds \(rows.count) rows instead of one version; it was not "
                        + "made by Rampart: use another database, or drop the rampart_ tables")
            }
            found = stored
        } else {
            guard keys == keyColumnsVersion1, challenges == challengeColumns, tables.count == 2 else {
                throw foreign(tables: tables, keys: keys, challenges: challenges)
            }
            try script(dialect == .sqlite ? migrationFrom1SQLite : migrationFrom1Postgres)
            _ = try query("INSERT INTO rampart_schema (version) VALUES (2)")
            tables.insert("rampart_schema")
            keys = try columns(of: "rampart_keys", dialect, query)
            found = 2
        }
        guard found <= version else {
            throw AttestServiceError.storeFailure(
                "the database's schema is version \(found), newer than this rampart reads (\(version)); run the "
                    + "rampart release that wrote it, or a newer one")
        }
        if found == 2 {
            let version2: Set<String> = ["rampart_schema", "rampart_keys", "rampart_challenges"]
            let extra = tables.subtracting(version2).sorted()
            guard extra.isEmpty else {
                throw AttestServiceError.storeFailure(
                    "the database is at schema version 2 but already holds a \(extra.joined(separator: ", ")) table; "
                        + "it was not made by Rampart: drop it, or use another database")
            }
            guard tables == version2, keys == keyColumns, challenges == challengeColumns else {
                throw foreign(tables: tables, keys: keys, challenges: challenges)
            }
            try script(dialect == .sqlite ? migrationFrom2SQLite : migrationFrom2Postgres)
            tables = version3TableNames
            found = 3
        }
        let spent = try columns(of: "rampart_spent_challenges", dialect, query)
        let sealing = try columns(of: "rampart_challenge_keys", dialect, query)
        if found == 3 {
            guard tables == version3TableNames, keys == keyColumns, spent == spentColumns, sealing == sealingKeyColumns
            else {
                throw foreign(tables: tables, keys: keys, challenges: challenges)
            }
            try script(dialect == .sqlite ? tokenKeysSQLite : tokenKeysPostgres)
            tables = tableNames
            found = 4
        }
        guard found == 4 || found == version, tables == tableNames, keys == keyColumns,
            spent == spentColumns, sealing == sealingKeyColumns
        else {
            throw foreign(tables: tables, keys: keys, challenges: challenges)
        }
        let tokenKeys = try columns(of: "rampart_token_keys", dialect, query)
        guard tokenKeys == tokenKeyColumns else {
            throw AttestServiceError.storeFailure(
                "the database holds rampart_ tables that are not Rampart's schema version \(version) ("
                    + (tokenKeys.isEmpty
                        ? "no rampart_token_keys table"
                        : "rampart_token_keys has columns \(tokenKeys.sorted().joined(separator: ", "))")
                    + "); use another database, or drop those tables if they are a failed earlier setup")
        }
        if found == 4 {
            try script(dialect == .sqlite ? migrationFrom4SQLite : migrationFrom4Postgres)
            _ = try query("UPDATE rampart_schema SET version = \(version)")
        }
    }

    private static func foreign(tables: Set<String>, keys: Set<String>, challenges: Set<String>) -> AttestServiceError {
        var problems: [String] = []
        if keys != keyColumns && keys != keyColumnsVersion1 {
            problems.append(
                keys.isEmpty
                    ? "no rampart_keys table" : "rampart_keys has columns \(keys.sorted().joined(separator: ", "))")
        }
        let isVersion3 = tables.contains("rampart_spent_challenges") || tables.contains("rampart_challenge_keys")
        if isVersion3 {
            for missing in tableNames.subtracting(tables).sorted() { problems.append("no \(missing) table") }
            if tables.contains("rampart_challenges") { problems.append("a leftover rampart_challenges table") }
        } else if challenges != challengeColumns {
            problems.append(
                challenges.isEmpty
                    ? "no rampart_challenges table"
                    : "rampart_challenges has columns \(challenges.sorted().joined(separator: ", "))")
        }
        if problems.isEmpty { problems.append("its rampart_schema version does not match its tables") }
        return AttestServiceError.storeFailure(
            "the database holds rampart_ tables that are not Rampart's schema version \(version) ("
                + problems.joined(separator: "; ")
                + "); use another database, or drop those tables if they are a failed earlier setup")
    }

    private static func existingTables(_ dialect: Dialect, _ query: (SQLQuery) throws -> [SQLRow]) throws -> Set<String>
    {
        let rows =
            switch dialect {
            case .sqlite:
                try query(
                    """
                    SELECT name FROM sqlite_master WHERE type = 'table' \
                    AND name IN ('rampart_schema', 'rampart_keys', 'rampart_challenges', 'rampart_spent_challenges', \
                    'rampart_challenge_keys', 'rampart_token_keys')
                    """)
            case .postgres:
                try query(
                    """
                    SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() \
                    AND table_name IN ('rampart_schema', 'rampart_keys', 'rampart_challenges', \
                    'rampart_spent_challenges', 'rampart_challenge_keys', 'rampart_token_keys')
                    """)
            }
        return Set(rows.compactMap { $0.text(0) })
    }

    private static func columns(
        of table: String, _ dialect: Dialect, _ query: (SQLQuery) throws -> [SQLRow]
    ) throws -> Set<String> {
        let rows =
            switch dialect {
            case .sqlite:
                try query("SELECT name FROM pragma_table_info(\(table))")
            case .postgres:
                try query(
                    """
                    SELECT column_name::text FROM information_schema.columns \
                    WHERE table_schema = current_schema() AND table_name = \(table)
                    """)
            }
        return Set(rows.compactMap { $0.text(0) })
    }

    static let sqlite = """
        CREATE TABLE rampart_schema (version INTEGER NOT NULL);
        \(spentSQLite)
        CREATE TABLE rampart_challenge_keys (
            id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL, created_at INTEGER NOT NULL);
        CREATE TABLE rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BLOB NOT NULL, environment TEXT NOT NULL,
            counter INTEGER NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BLOB NOT NULL,
            registered_at INTEGER NOT NULL, risk_score INTEGER NOT NULL DEFAULT 0, last_used_at INTEGER,
            risk_updated_at INTEGER);
        """ + tokenKeysSQLite

    static let postgres = """
        CREATE TABLE rampart_schema (version BIGINT NOT NULL);
        \(spentPostgres)
        CREATE TABLE rampart_challenge_keys (
            id BIGINT PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL, created_at BIGINT NOT NULL);
        CREATE TABLE rampart_keys (
            key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BYTEA NOT NULL, environment TEXT NOT NULL,
            counter BIGINT NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BYTEA NOT NULL,
            registered_at BIGINT NOT NULL, risk_score BIGINT NOT NULL DEFAULT 0, last_used_at BIGINT,
            risk_updated_at BIGINT);
        """ + tokenKeysPostgres

    /// Version 5's spent set (see ``version``). SQLite: `WITHOUT ROWID`, so the key is the table itself.
    static let spentSQLite = """
        CREATE TABLE rampart_spent_challenges (
            nonce BLOB NOT NULL, expires_at INTEGER NOT NULL, PRIMARY KEY (expires_at, nonce)) WITHOUT ROWID;
        """

    static let spentPostgres = """
        CREATE TABLE rampart_spent_challenges (
            nonce BYTEA NOT NULL, expires_at BIGINT NOT NULL, PRIMARY KEY (expires_at, nonce));
        """

    /// Version 4 to 5: the spent set rebuilt under its new key, its rows kept (a challenge spent before the upgrade
    /// stays spent).
    static let migrationFrom4SQLite = """
        ALTER TABLE rampart_spent_challenges RENAME TO rampart_spent_challenges_4;
        DROP INDEX rampart_spent_challenges_expiry;
        \(spentSQLite)
        INSERT INTO rampart_spent_challenges (nonce, expires_at) SELECT nonce, expires_at FROM rampart_spent_challenges_4;
        DROP TABLE rampart_spent_challenges_4;
        """

    static let migrationFrom4Postgres = """
        ALTER TABLE rampart_spent_challenges RENAME TO rampart_spent_challenges_4;
        ALTER TABLE rampart_spent_challenges_4 RENAME CONSTRAINT rampart_spent_challenges_pkey TO rampart_spent_challenges_4_pkey;
        DROP INDEX rampart_spent_challenges_expiry;
        \(spentPostgres)
        INSERT INTO rampart_spent_challenges (nonce, expires_at) SELECT nonce, expires_at FROM rampart_spent_challenges_4;
        DROP TABLE rampart_spent_challenges_4;
        """

    /// Version 4's table: the access-token signing keys (see ``TokenSigningKeyRecord``). `slot` is unique, so of
    /// several processes rotating at once exactly one key is made per rotation period.
    static let tokenKeysSQLite = """
        CREATE TABLE rampart_token_keys (
            kid TEXT PRIMARY KEY, created_at INTEGER NOT NULL, slot INTEGER NOT NULL UNIQUE, private_key BLOB NOT NULL);
        """

    static let tokenKeysPostgres = """
        CREATE TABLE rampart_token_keys (
            kid TEXT PRIMARY KEY, created_at BIGINT NOT NULL, slot BIGINT NOT NULL UNIQUE, private_key BYTEA NOT NULL);
        """

    static let migrationFrom1SQLite = """
        CREATE TABLE rampart_schema (version INTEGER NOT NULL);
        ALTER TABLE rampart_keys ADD COLUMN risk_updated_at INTEGER;
        CREATE INDEX IF NOT EXISTS rampart_challenges_subject ON rampart_challenges (subject, expires_at);
        """

    static let migrationFrom1Postgres = """
        CREATE TABLE rampart_schema (version BIGINT NOT NULL);
        ALTER TABLE rampart_keys ADD COLUMN risk_updated_at BIGINT;
        CREATE INDEX IF NOT EXISTS rampart_challenges_subject ON rampart_challenges (subject, expires_at);
        """

    static let migrationFrom2SQLite = """
        DROP TABLE rampart_challenges;
        CREATE TABLE rampart_spent_challenges (nonce BLOB PRIMARY KEY, expires_at INTEGER NOT NULL);
        CREATE INDEX rampart_spent_challenges_expiry ON rampart_spent_challenges (expires_at);
        CREATE TABLE rampart_challenge_keys (
            id INTEGER PRIMARY KEY CHECK (id = 1), secret BLOB NOT NULL, created_at INTEGER NOT NULL);
        """

    static let migrationFrom2Postgres = """
        DROP TABLE rampart_challenges;
        CREATE TABLE rampart_spent_challenges (nonce BYTEA PRIMARY KEY, expires_at BIGINT NOT NULL);
        CREATE INDEX rampart_spent_challenges_expiry ON rampart_spent_challenges (expires_at);
        CREATE TABLE rampart_challenge_keys (
            id BIGINT PRIMARY KEY CHECK (id = 1), secret BYTEA NOT NULL, created_at BIGINT NOT NULL);
        """
}
