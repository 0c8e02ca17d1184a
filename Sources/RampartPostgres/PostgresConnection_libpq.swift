internal import CPostgres
import Foundation
package import RampartSQLite
import Synchronization

/// A count of round trips to PostgreSQL, shared by a pool's connections (for tests: how many a batch took).
package final class RoundTripCount: Sendable {
    private let count = Atomic<Int>(0)

    package init() {}

    /// The round trips so far.
    package var value: Int { count.load(ordering: .relaxed) }

    package func add() { count.add(1, ordering: .relaxed) }
}

/// One libpq connection, used by one thread at a time. Parameters and results travel in binary format, so values
/// are never spliced into SQL text and bytes arrive as sent.
package final class PostgresConnection {
    private let handle: OpaquePointer
    /// Commands without results (`BEGIN`, `SAVEPOINT`, `RELEASE`) held back to travel in one pipeline with the next
    /// statement that needs an answer, so they cost no round trip of their own.
    private var deferred: [String] = []
    /// The statements prepared on this session, by text and parameter types, with their names (``query(_:)``).
    private var prepared: [PreparedKey: String] = [:]
    /// How many names were handed out: names are never reused, so a stale one cannot clash with its successor.
    private var preparedCount = 0
    /// A random prefix for this connection's statement names, so that no two connections' names are the same: a
    /// server session shared between clients (a pooler in transaction mode) then answers "does not exist" (26000),
    /// which is handled, instead of running another client's statement of the same name.
    private let namePrefix = "rampart_" + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "_"
    /// Counts this connection's round trips (pipelines and `PQexec`s).
    private let roundTrips: RoundTripCount
    /// Whether every transaction of the session is read-only (`default_transaction_read_only`).
    private let readOnly: Bool
    /// Whether the session's settings are in place; when not, statements are refused until a reset sets them.
    private var isSessionSetUp = false

    // Type OIDs from PostgreSQL's pg_type.h.
    private static let int2OID: Oid = 21
    private static let int4OID: Oid = 23
    private static let int8OID: Oid = 20
    private static let textOID: Oid = 25
    private static let varcharOID: Oid = 1043
    private static let byteaOID: Oid = 17

    /// Connects to `url` (`postgres://user:password@host:port/database` or a libpq keyword string), counting its
    /// round trips in `roundTrips`.
    ///
    /// - Parameters:
    ///   - url: Where to connect.
    ///   - readOnly: Whether the server refuses every write on this connection (`default_transaction_read_only`,
    ///     set again after each reset): a write fails with SQLSTATE 25006.
    ///   - roundTrips: The counter of round trips this connection adds to.
    /// - Throws: ``PostgresError`` when the connection or its session settings fail.
    package init(url: String, readOnly: Bool = false, roundTrips: RoundTripCount = RoundTripCount()) throws {
        self.roundTrips = roundTrips
        self.readOnly = readOnly
        // PQconnectdb: "a PGconn pointer is returned … even if the connection attempt fails … PQfinish should be
        // called to free the memory used by the PGconn object".
        guard let connection = PQconnectdb(url) else {
            throw PostgresError("libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(
                "could not connect to PostgreSQL; check the --db URL, that the server runs and accepts the role",
                detail: message)
        }
        handle = connection
        // Server NOTICEs (e.g. "relation already exists, skipping" from CREATE TABLE IF NOT EXISTS) would go to
        // stderr through libpq's default processor; the service logs JSON only, so drop them.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        try setUpSession()
    }

    /// Applies the session's settings (after connecting, and after each reset).
    private func setUpSession() throws {
        isSessionSetUp = false
        if readOnly { try execute(unsafeScript: "SET default_transaction_read_only = on") }
        isSessionSetUp = true
    }

    deinit { PQfinish(handle) }

    /// Re-establishes a broken connection, or one a failed pipeline left in pipeline mode; a no-op when it is
    /// healthy. Any transaction open on the old connection is rolled back by the server.
    package func resetIfBroken() {
        deferred.removeAll()
        if PQstatus(handle) != CONNECTION_OK || PQpipelineStatus(handle) != PQ_PIPELINE_OFF || !isSessionSetUp {
            // A new session: the server forgot the old one's prepared statements and settings.
            prepared.removeAll()
            PQreset(handle)
            // A failure leaves isSessionSetUp false: statements are refused until the next reset succeeds.
            try? setUpSession()
        }
    }

    /// Runs semicolon-separated statements without parameters.
    ///
    /// - Warning: Only for trusted constant SQL (schema, `BEGIN`, `COMMIT`).
    package func execute(unsafeScript script: String) throws {
        // PQexec: "the PGresult … should be freed with PQclear when it is no longer needed".
        roundTrips.add()
        let result = PQexec(handle, script)
        defer { if let result { PQclear(result) } }
        try check(result, doing: "run \(script.prefix(40))")
    }

    /// Holds back a constant command without results until the next statement or ``commit()``, which send it in
    /// the same pipeline (libpq pipeline mode), in order.
    ///
    /// - Warning: Only for trusted constant SQL.
    package func deferCommand(unsafeScript command: String) { deferred.append(command) }

    /// Whether a transaction is open on the server (anything but `PQTRANS_IDLE`; deferred commands not counted).
    package var isInTransaction: Bool { PQtransactionStatus(handle) != PQTRANS_IDLE }

    /// Whether `BEGIN` is still held back: no statement has reached the server since it was deferred.
    private var isBeginPending: Bool { deferred.first == "BEGIN" }

    /// Whether a transaction whose `BEGIN` reached the server is gone (the connection dropped or was reset, or the
    /// server ended it): then nothing done in it may be acknowledged.
    package var hasLostTransaction: Bool {
        guard !isBeginPending else { return false }
        let status = PQtransactionStatus(handle)
        return status != PQTRANS_INTRANS && status != PQTRANS_INERROR
    }

    /// Sends the deferred commands and `COMMIT` in one pipeline and checks that the server committed.
    ///
    /// When `BEGIN` itself is still deferred, no statement ran in the transaction: nothing is sent.
    ///
    /// - Throws: ``PostgresError`` when the transaction is no longer open on the server (a
    ///   `COMMIT` outside a transaction would only warn), or when the server answered `ROLLBACK` (it does for a
    ///   transaction that failed).
    package func commit() throws {
        if isBeginPending {
            deferred.removeAll()
            return
        }
        // A member that failed last leaves the transaction aborted until its deferred `ROLLBACK TO` reaches the
        // server in this pipeline; if that does not restore it, COMMIT answers ROLLBACK, refused below.
        let status = PQtransactionStatus(handle)
        guard status == PQTRANS_INTRANS || (status == PQTRANS_INERROR && !deferred.isEmpty) else {
            deferred.removeAll()
            throw PostgresError(
                "the PostgreSQL transaction was lost before COMMIT (connection dropped?); nothing was acknowledged",
                detail: Self.message(PQerrorMessage(handle)))
        }
        let commands = deferred + ["COMMIT"]
        deferred.removeAll()
        _ = try pipeline(commands, then: []) { result in
            // "COMMIT" on a failed transaction succeeds with the tag ROLLBACK: nothing was committed.
            let tag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
            guard tag == "COMMIT" else {
                throw PostgresError(
                    "PostgreSQL rolled the transaction back instead of committing it (\(tag)); nothing was "
                        + "acknowledged")
            }
        }
    }

    /// Drops the deferred commands and rolls back the open transaction, if any; errors are ignored (a broken
    /// connection has no transaction left).
    package func rollback() {
        deferred.removeAll()
        if isInTransaction { try? execute(unsafeScript: "ROLLBACK") }
    }

    /// Runs one statement with its bindings and returns its rows, after the deferred commands (in one pipeline).
    ///
    /// The statement is prepared on the server once per connection (a named prepared statement per text and
    /// parameter types): the first use sends its `Parse` in the same pipeline, every later one only `Bind` and
    /// `Execute`, so the server neither parses nor plans it again.
    ///
    /// - Throws: ``PostgresError``.
    package func query(_ query: SQLQuery) throws -> [SQLRow] {
        try run(query, mayPrepareAgain: true)
    }

    private func run(_ query: SQLQuery, mayPrepareAgain: Bool) throws -> [SQLRow] {
        guard isSessionSetUp else {
            throw PostgresError(
                "the PostgreSQL session's settings could not be applied after a reconnect; nothing was sent. Check "
                    + "that the server is reachable",
                detail: Self.message(PQerrorMessage(handle)))
        }
        let statement = makeStatement(query, key: Self.preparedKey(query))
        let commands = deferred
        deferred.removeAll()
        // Outside a transaction with nothing sent before it, a statement the server refused as stale ran nothing.
        let alone = commands.isEmpty && PQtransactionStatus(handle) == PQTRANS_IDLE
        do {
            return try pipeline(commands, then: [statement]) { try self.rows($0) }.first ?? []
        } catch let error as PreparedStatementFailure {
            // The server refused the prepared statement itself (dropped by `DEALLOCATE`, or its result columns
            // changed with the schema); the pipeline forgot it, so the next use prepares it again under a new name.
            // Alone, nothing ran and no transaction is affected: prepare it again and run it now. In a transaction,
            // which the error aborted, the caller fails; the next use prepares it again.
            guard alone && mayPrepareAgain else { throw error.underlying }
            return try run(query, mayPrepareAgain: false)
        }
    }

    /// The literal text and parameter types of `query`: found without building or hashing its whole text.
    private static func preparedKey(_ query: SQLQuery) -> PreparedKey {
        PreparedKey(
            statement: query.statementKey,
            types: query.bindings.map { value in
                switch value {
                case .null: 0
                case .integer: int8OID
                case .text: textOID
                case .blob: byteaOID
                }
            })
    }

    /// The execution of `query` as a pipeline statement: under its prepared name (a new one, with its text to
    /// prepare, the first time), with its values in binary format.
    private func makeStatement(_ query: SQLQuery, key: PreparedKey) -> Statement {
        var lengths: [Int32] = []
        var formats: [Int32] = []
        var storage: [[UInt8]?] = []
        lengths.reserveCapacity(query.bindings.count)
        formats.reserveCapacity(query.bindings.count)
        storage.reserveCapacity(query.bindings.count)
        for value in query.bindings {
            switch value {
            case .null: storage.append(nil)
            case .integer(let integer): storage.append(withUnsafeBytes(of: integer.bigEndian) { Array($0) })
            case .text(let string): storage.append(Array(string.utf8))
            case .blob(let bytes): storage.append(bytes)
            }
            lengths.append(Int32(clamping: storage.last??.count ?? 0))
            formats.append(1)
        }
        let known = prepared[key]
        let name = known ?? namePrefix + String(preparedCount)
        if known == nil { preparedCount += 1 }
        return Statement(
            name: name, key: key, text: known == nil ? query.text { "$\($0)" } : nil,
            send: { handle in
                Self.withCStringPointers(storage) { pointers in
                    // PQsendQueryPrepared with resultFormat 1: binary results. The parameter buffers only need to
                    // live for the call (libpq copies them into its output buffer).
                    PQsendQueryPrepared(handle, name, Int32(storage.count), pointers, lengths, formats, 1)
                }
            })
    }

    /// A statement's literal text with its parameter types: one named prepared statement on the server.
    private struct PreparedKey: Hashable {
        let statement: SQLQuery.StatementKey
        let types: [Oid]
    }

    /// A statement a pipeline runs: its prepared name, its key, its text (with `$n` placeholders) when the pipeline
    /// must prepare it first, and the call that queues its execution.
    private struct Statement {
        let name: String
        let key: PreparedKey
        let text: String?
        let send: (OpaquePointer) -> Int32
    }

    /// The server refused to run a prepared statement it should know.
    private struct PreparedStatementFailure: Error {
        let underlying: any Error
    }

    // SQLSTATEs after which a cached prepared statement is no longer usable: 26000 invalid_sql_statement_name
    // ("prepared statement … does not exist"), 0A000 feature_not_supported ("cached plan must not change result
    // type", after a schema change).
    private static let staleStatementStates: Set<String> = ["26000", "0A000"]

    /// Sends `commands` (no parameters) and then `statements` (each one's `Parse` first when it is not yet
    /// prepared), in one pipeline ending in a sync, reads every result, and returns `each` of every statement's
    /// result, in order; with no statements, `each` of the last command's result.
    ///
    /// libpq's pipeline mode (PostgreSQL 14+): "the application must … call PQpipelineSync … results are returned
    /// in order … after an error, the server skips the remaining queries up to the sync (PGRES_PIPELINE_ABORTED)".
    /// Every PGresult is freed with PQclear; each query's results end with a null pointer, the sync with
    /// PGRES_PIPELINE_SYNC. The first error is thrown, after the pipeline is fully read, so the connection stays usable;
    /// a prepared statement the server no longer knows is forgotten and reported as ``PreparedStatementFailure``.
    private func pipeline<R>(
        _ commands: [String], then statements: [Statement], each: (OpaquePointer) throws -> R
    ) throws -> [R] {
        guard PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(
                "libpq could not enter pipeline mode; nothing was acknowledged",
                detail: Self.message(PQerrorMessage(handle)))
        }
        defer { PQexitPipelineMode(handle) }
        roundTrips.add()
        var sent = 0
        var failure: (any Error)?
        for command in commands {
            // PQsendQueryParams with no parameters: PQsendQuery is not allowed in pipeline mode.
            guard PQsendQueryParams(handle, command, 0, nil, nil, nil, nil, 1) == 1 else {
                failure = PostgresError(
                    "libpq could not send \(command.prefix(20)); nothing was acknowledged",
                    detail: Self.message(PQerrorMessage(handle)))
                break
            }
            sent += 1
        }
        // Which statement each result index belongs to, and whether it is its Parse or its execution.
        var roles: [Int: (statement: Int, isPrepare: Bool)] = [:]
        for (index, statement) in statements.enumerated() where failure == nil {
            var queued = true
            if let text = statement.text {
                // PQsendPrepare: "the statement is … prepared for later execution with PQsendQueryPrepared"; the
                // parameter types are fixed here, the values travel with each execution.
                queued =
                    PQsendPrepare(
                        handle, statement.name, text, Int32(statement.key.types.count), statement.key.types) == 1
                if queued {
                    roles[sent] = (index, true)
                    sent += 1
                }
            }
            if queued {
                queued = statement.send(handle) == 1
                if queued {
                    roles[sent] = (index, false)
                    sent += 1
                }
            }
            if !queued {
                failure = PostgresError(
                    "libpq could not send a statement; nothing was acknowledged",
                    detail: Self.message(PQerrorMessage(handle)))
            }
        }
        guard PQpipelineSync(handle) == 1 else {
            throw PostgresError(
                "libpq could not send the pipeline (connection lost?); nothing was acknowledged",
                detail: Self.message(PQerrorMessage(handle)))
        }
        var values: [R] = []
        var stale = false
        for index in 0..<sent {
            // One result per query (our statements return no row sets in single-row mode), then a null pointer.
            let result = PQgetResult(handle)
            let role = roles[index]
            do {
                try check(result, doing: "run a pipelined statement", abortedIsError: failure == nil)
                if let role, role.isPrepare {
                    prepared[statements[role.statement].key] = statements[role.statement].name
                } else if let result, role != nil || (statements.isEmpty && index == sent - 1) {
                    values.append(try each(result))
                }
            } catch {
                if failure == nil {
                    failure = error
                    if let role, !role.isPrepare, let result, Self.staleStatementStates.contains(Self.sqlState(result))
                    {
                        // Forgotten, so the next use prepares it again under a new name.
                        prepared[statements[role.statement].key] = nil
                        stale = true
                    }
                }
            }
            if let result { PQclear(result) }
            while let extra = PQgetResult(handle) { PQclear(extra) }
        }
        // The sync's own result.
        var synced = false
        while let result = PQgetResult(handle) {
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC { synced = true }
            PQclear(result)
            if synced { break }
        }
        if let failure { throw stale ? PreparedStatementFailure(underlying: failure) : failure }
        guard synced else {
            throw PostgresError(
                "PostgreSQL did not finish the pipeline (connection lost?); nothing was acknowledged",
                detail: Self.message(PQerrorMessage(handle)))
        }
        return values
    }

    private static func sqlState(_ result: OpaquePointer) -> String {
        PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? "?"
    }

    private static func withCStringPointers<R>(
        _ storage: [[UInt8]?], _ body: ([UnsafePointer<CChar>?]) -> R
    ) -> R {
        var pointers: [UnsafePointer<CChar>?] = []
        var buffers: [UnsafeMutableRawBufferPointer] = []
        defer { buffers.forEach { $0.deallocate() } }
        for bytes in storage {
            guard let bytes else {
                pointers.append(nil)
                continue
            }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            buffers.append(buffer)
            buffer.copyBytes(from: bytes)
            pointers.append(UnsafePointer(buffer.baseAddress?.assumingMemoryBound(to: CChar.self)))
        }
        return body(pointers)
    }

    private func check(_ result: OpaquePointer?, doing action: String, abortedIsError: Bool = true) throws {
        guard let result else {
            throw PostgresError(
                "PostgreSQL did not answer (connection lost?); nothing was acknowledged",
                detail: Self.message(PQerrorMessage(handle)))
        }
        let status = PQresultStatus(result)
        if status == PGRES_PIPELINE_ABORTED && !abortedIsError { return }
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = Self.sqlState(result)
            throw PostgresError(
                "PostgreSQL could not \(action) (SQLSTATE \(state)); nothing was acknowledged",
                detail: Self.message(PQresultErrorMessage(result)), sqlState: state)
        }
    }

    private func rows(_ result: OpaquePointer) throws -> [SQLRow] {
        let rowCount = PQntuples(result)
        let columnCount = PQnfields(result)
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            for column in 0..<columnCount {
                guard PQgetisnull(result, row, column) == 0, let pointer = PQgetvalue(result, row, column) else {
                    values.append(.null)
                    continue
                }
                let length = Int(PQgetlength(result, row, column))
                let bytes = Array(UnsafeRawBufferPointer(start: pointer, count: max(length, 0)))
                values.append(try Self.value(bytes, type: PQftype(result, column)))
            }
            rows.append(SQLRow(values))
        }
        return rows
    }

    private static func value(_ bytes: [UInt8], type: Oid) throws -> SQLValue {
        switch type {
        case int2OID, int4OID, int8OID:
            guard bytes.count == 2 || bytes.count == 4 || bytes.count == 8 else {
                throw PostgresError("PostgreSQL returned an integer of \(bytes.count) bytes")
            }
            var value: Int64 = bytes.first.map { $0 & 0x80 != 0 ? -1 : 0 } ?? 0
            for byte in bytes { value = value << 8 | Int64(byte) }
            return .integer(value)
        case textOID, varcharOID:
            return .text(String(decoding: bytes, as: UTF8.self))
        case byteaOID:
            return .blob(bytes)
        default:
            return .blob(bytes)
        }
    }

    private static func message(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0) }?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
}
