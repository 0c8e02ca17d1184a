import Foundation
import RampartPostgres
import RampartSQLite
import Testing

/// The PostgreSQL connection's prepared statements: prepared once per session, and prepared again when the server
/// forgot them (`DEALLOCATE`, a new session) or their result columns changed.
@Suite(
    .enabled(if: testPostgresURL != nil, "RAMPART_TEST_POSTGRES_URL is unset; run scripts/test.sh to start PostgreSQL"))
struct PostgresConnectionTests {
    let url = testPostgresURL ?? ""

    /// How many prepared statements of the session have `text`.
    static func preparedCount(_ text: String, on connection: PostgresConnection) throws -> Int64? {
        try connection.query("SELECT count(*) FROM pg_prepared_statements WHERE statement = \(text)").first?
            .integer(0)
    }

    @Test("a statement is prepared once per session and runs with its new values every time")
    func preparedOnce() throws {
        let connection = try PostgresConnection(url: url)
        for value in Int64(1)...5 {
            #expect(try connection.query("SELECT \(value) + 1").first?.integer(0) == value + 1)
        }
        #expect(try Self.preparedCount("SELECT $1 + 1", on: connection) == 1)
        // Another parameter type is another prepared statement of the same text.
        #expect(try connection.query("SELECT length(\("abc"))").first?.integer(0) == 3)
        #expect(try connection.query("SELECT length(\([UInt8]([1, 2])))").first?.integer(0) == 2)
        #expect(try Self.preparedCount("SELECT length($1)", on: connection) == 2)
    }

    @Test("after DEALLOCATE ALL: alone, the statement is prepared again at once; in a transaction that one fails")
    func deallocated() throws {
        let connection = try PostgresConnection(url: url)
        #expect(try connection.query("SELECT \(Int64(1)) * 2").first?.integer(0) == 2)
        try connection.execute(unsafeScript: "DEALLOCATE ALL")
        #expect(try connection.query("SELECT \(Int64(2)) * 2").first?.integer(0) == 4)
        try connection.execute(unsafeScript: "BEGIN; DEALLOCATE ALL")
        let error = #expect(throws: PostgresError.self) { try connection.query("SELECT \(Int64(3)) * 2") }
        #expect(error?.sqlState == "26000")
        #expect(error?.description.contains("SQLSTATE 26000") == true)
        connection.rollback()
        #expect(try connection.query("SELECT \(Int64(4)) * 2").first?.integer(0) == 8)
        #expect(try Self.preparedCount("SELECT $1 * 2", on: connection) == 1)
    }

    @Test("a statement whose result columns changed with the schema is prepared again (SQLSTATE 0A000 retried)")
    func resultColumnsChanged() throws {
        let connection = try PostgresConnection(url: url)
        try connection.execute(
            unsafeScript: "CREATE TEMPORARY TABLE prepared_shape (a BIGINT); INSERT INTO prepared_shape VALUES (1)")
        #expect(
            try connection.query("SELECT * FROM prepared_shape WHERE a = \(Int64(1))").first?.values == [.integer(1)])
        try connection.execute(unsafeScript: "ALTER TABLE prepared_shape ADD COLUMN b BIGINT DEFAULT 7")
        #expect(
            try connection.query("SELECT * FROM prepared_shape WHERE a = \(Int64(1))").first?.values == [
                .integer(1), .integer(7),
            ])
    }

    @Test("after the connection is lost and reset, statements are prepared again on the new session")
    func reconnected() throws {
        let connection = try PostgresConnection(url: url)
        let pid = try #require(try connection.query("SELECT pg_backend_pid() + \(Int64(0))").first?.integer(0))
        let admin = try PostgresConnection(url: url)
        _ = try admin.query("SELECT pg_terminate_backend(\(pid)::int)")
        let lost = #expect(throws: PostgresError.self) {
            try connection.query("SELECT pg_backend_pid() + \(Int64(0))")
        }
        #expect(lost?.reason.contains("nothing was acknowledged") == true)
        connection.resetIfBroken()
        let newPID = try #require(try connection.query("SELECT pg_backend_pid() + \(Int64(0))").first?.integer(0))
        #expect(newPID != pid)
        #expect(try Self.preparedCount("SELECT pg_backend_pid() + $1", on: connection) == 1)
    }
}
