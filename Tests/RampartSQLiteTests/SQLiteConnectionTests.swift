import Foundation
import RampartSQLite
import Testing

struct SQLiteConnectionTests {
    @Test("interpolated values become bind parameters, never SQL text")
    func bindings() {
        let hostile = "x'); DROP TABLE t; --"
        let query: SQLQuery = "SELECT a FROM t WHERE b = \(hostile) AND c = \(Int64(7))"
        #expect(query.text { _ in "?" } == "SELECT a FROM t WHERE b = ? AND c = ?")
        #expect(query.text { "$\($0)" } == "SELECT a FROM t WHERE b = $1 AND c = $2")
        #expect(query.bindings == [.text(hostile), .integer(7)])
    }

    @Test("a statement's cache key is its literal text: bindings do not matter, every byte of the text does")
    func statementKeys() {
        func key(_ query: SQLQuery) -> SQLQuery.StatementKey { query.statementKey }
        #expect(key("SELECT a FROM t WHERE b = \(Int64(1))") == key("SELECT a FROM t WHERE b = \("text")"))
        // Same fragment count and lengths (so the same hash), different bytes.
        #expect(key("SELECT a FROM t WHERE b = \(Int64(1))") != key("SELECT c FROM t WHERE b = \(Int64(1))"))
        #expect(key("SELECT a FROM t WHERE b = \(Int64(1))") != key("SELECT a FROM t WHERE \(Int64(1)) = b"))
        #expect(key("SELECT 1") != key("SELECT 1 WHERE 1 = \(Int64(1))"))
        // Canonically equivalent spellings, which `==` on strings calls equal, are two statements.
        #expect(
            SQLQuery(unsafeSQL: "SELECT 'caf\u{E9}'").statementKey
                != SQLQuery(unsafeSQL: "SELECT 'cafe\u{301}'").statementKey)
    }

    @Test("statements whose keys hash alike run their own text (the prepared-statement cache tells them apart)")
    func sameShapeStatements() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(unsafeScript: "CREATE TABLE t (a INTEGER, c INTEGER); INSERT INTO t VALUES (1, 2)")
        for _ in 0..<3 {
            #expect(try connection.query("SELECT a FROM t WHERE 1 = \(Int64(1))").first?.integer(0) == 1)
            #expect(try connection.query("SELECT c FROM t WHERE 1 = \(Int64(1))").first?.integer(0) == 2)
        }
    }

    @Test("values round-trip through a table, including hostile text and empty blobs")
    func roundTrip() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(unsafeScript: "CREATE TABLE t (a TEXT, b INTEGER, c BLOB, d TEXT)")
        let hostile = "x'); DROP TABLE t; --"
        try connection.run("INSERT INTO t VALUES (\(hostile), \(Int64.min), \([UInt8]([0, 255])), \(SQLValue.null))")
        try connection.run("INSERT INTO t VALUES (\("é"), \(Int64.max), \([UInt8]()), \("z"))")
        let rows = try connection.query("SELECT a, b, c, d FROM t ORDER BY b")
        #expect(rows.count == 2)
        #expect(rows[0].text(0) == hostile)
        #expect(rows[0].integer(1) == Int64.min)
        #expect(rows[0].blob(2) == [0, 255])
        #expect(rows[0].values[3] == .null)
        #expect(rows[1].text(0) == "é")
        #expect(rows[1].blob(2) == [])
        #expect(rows[1].integer(0) == nil)
    }

    @Test("text with a NUL inside is bound, stored, compared and read whole")
    func embeddedNUL() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(unsafeScript: "CREATE TABLE t (a TEXT)")
        try connection.run("INSERT INTO t VALUES (\("a\u{0}b"))")
        let row = try connection.query("SELECT a, length(CAST(a AS BLOB)) FROM t").first
        #expect(row?.values == [.text("a\u{0}b"), .integer(3)])
        #expect(try connection.query("SELECT a FROM t WHERE a = \("a\u{0}b")").count == 1)
        #expect(try connection.query("SELECT a FROM t WHERE a = \("a")").isEmpty)
    }

    @Test(
        "a throwing transaction body rolls back (immediate or deferred); a constraint failure has the constraint code")
    func transactions() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(unsafeScript: "CREATE TABLE t (a INTEGER PRIMARY KEY)")
        struct Abort: Error {}
        for kind in [SQLiteConnection.TransactionKind.immediate, .deferred] {
            #expect(throws: Abort.self) {
                try connection.transaction(kind) {
                    try connection.run("INSERT INTO t VALUES (\(1))")
                    throw Abort()
                }
            }
            #expect(try connection.query("SELECT a FROM t").isEmpty)
        }
        try connection.run("INSERT INTO t VALUES (\(1))")
        let error = #expect(throws: SQLiteError.self) { try connection.run("INSERT INTO t VALUES (\(1))") }
        #expect(error?.code == .constraint)
    }

    @Test("a path that cannot be opened is openFailed; a non-database file is refused")
    func openFailures() throws {
        let error = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: "/nonexistent/dir/x.db") }
        #expect(error?.code == .openFailed)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-notdb-\(UUID()).db")
        try Data(repeating: 0x41, count: 4096).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let notDB = #expect(throws: SQLiteError.self) { try SQLiteConnection(path: url.path) }
        #expect(notDB?.code == .openFailed)
    }

    @Test("a syntax error is statementFailed and names SQLite's message")
    func syntax() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        let error = #expect(throws: SQLiteError.self) { try connection.query("SELEKT 1") }
        #expect(error?.code == .statementFailed)
        #expect(error?.reason.contains("syntax") == true)
    }

    @Test("a kept constant statement works again after it failed; one that does not parse is statementFailed")
    func constantStatements() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(unsafeScript: "CREATE TABLE t (a INTEGER PRIMARY KEY)")
        let release = #expect(throws: SQLiteError.self) { try connection.execute(constant: "RELEASE rampart_test") }
        #expect(release?.code == .statementFailed)
        #expect(release?.reason.contains("no such savepoint") == true)
        let commit = #expect(throws: SQLiteError.self) { try connection.execute(constant: "COMMIT") }
        #expect(commit?.code == .statementFailed)
        #expect(commit?.reason.contains("no transaction is active") == true)
        for value in Int64(1)...3 {
            try connection.execute(constant: "BEGIN IMMEDIATE")
            #expect(!connection.isAutocommit)
            try connection.execute(constant: "SAVEPOINT rampart_test")
            try connection.run("INSERT INTO t VALUES (\(value))")
            try connection.execute(constant: "RELEASE rampart_test")
            try connection.execute(constant: "COMMIT")
            #expect(connection.isAutocommit)
        }
        #expect(try connection.query("SELECT a FROM t").count == 3)
        let syntax = #expect(throws: SQLiteError.self) { try connection.execute(constant: "BEGN") }
        #expect(syntax?.code == .statementFailed)
        #expect(syntax?.reason.contains("syntax") == true)
    }

    @Test("a kept statement follows a schema change: SELECT * sees the new column")
    func keptStatementAfterSchemaChange() throws {
        let connection = try SQLiteConnection(path: ":memory:")
        try connection.execute(unsafeScript: "CREATE TABLE t (a INTEGER); INSERT INTO t VALUES (1)")
        #expect(try connection.query("SELECT * FROM t").first?.values == [.integer(1)])
        try connection.execute(unsafeScript: "ALTER TABLE t ADD COLUMN b TEXT DEFAULT 'x'")
        #expect(try connection.query("SELECT * FROM t").first?.values == [.integer(1), .text("x")])
        try connection.execute(unsafeScript: "DROP TABLE t")
        let dropped = #expect(throws: SQLiteError.self) { try connection.query("SELECT * FROM t") }
        #expect(dropped?.code == .statementFailed)
        #expect(dropped?.reason.contains("no such table") == true)
    }
}
