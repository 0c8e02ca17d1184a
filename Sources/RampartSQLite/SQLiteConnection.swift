internal import CSQLite

#if canImport(Glibc)
internal import Glibc
#endif

/// One SQLite database connection: prepared-statement cache, bind parameters only, immediate transactions.
///
/// A connection is confined: callers use it from one thread at a time (the stores give each connection its own
/// serial queue or keep it behind a `Mutex`). By default it opens the file in WAL mode with `synchronous=FULL`, so a
/// statement that returned has been made durable before the caller acknowledges anything, and waits up to
/// ``busyTimeoutMilliseconds`` for another process's lock; ``Options`` changes each of these.
package final class SQLiteConnection {
    /// How long a statement waits, by default, for a lock held by another connection before failing with
    /// ``SQLiteError/Code/busy``.
    package static let busyTimeoutMilliseconds: Int32 = 5000

    private let handle: OpaquePointer
    /// How long a statement waits for another connection's lock (``Options/busyTimeout``).
    private let busyTimeoutMilliseconds: Int32
    /// Prepared statements by their literal text (``SQLQuery/StatementKey``): found without building the text.
    private var statements: [SQLQuery.StatementKey: OpaquePointer] = [:]
    /// The statements of ``execute(constant:)``, by the address of their literal text: found without building or
    /// hashing a string.
    private var constants: [UnsafeRawPointer: OpaquePointer] = [:]

    /// Opens the database at `path` as `options` say: by default creating it if needed and switching it to WAL.
    ///
    /// With ``Options/OpenMode/readWriteExisting`` and ``Options/JournalMode/unchanged`` opening writes nothing: it
    /// only sets per-connection pragmas (`synchronous`, `foreign_keys=ON`), which read the schema, so a file that is
    /// not a database is refused here.
    ///
    /// - Parameters:
    ///   - path: A file path, or `:memory:`.
    ///   - options: Whether to create the file, switch it to WAL, the `synchronous` level, the busy timeout and
    ///     whether to follow symbolic links.
    /// - Throws: ``SQLiteError`` with ``SQLiteError/Code/openFailed`` when the file cannot be opened or configured:
    ///   missing (with ``Options/OpenMode/readWriteExisting``), a refused symbolic link, no permission, or not a
    ///   database; ``SQLiteError/resultCode`` holds SQLite's code for the cause.
    package init(path: String, options: Options = Options()) throws {
        var opened: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if options.mode == .readWriteCreate { flags |= SQLITE_OPEN_CREATE }
        if !options.followsSymbolicLinks { flags |= SQLITE_OPEN_NOFOLLOW }
        // sqlite3_open_v2: "Whether or not an error occurs when it is opened, resources associated with the database
        // connection handle should be released by passing it to sqlite3_close() when it is no longer required."
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard let opened else {
            throw SQLiteError.openFailed("could not open SQLite database at \(path)", resultCode: status)
        }
        guard status == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(opened))
            let extended = sqlite3_extended_errcode(opened)
            sqlite3_close_v2(opened)
            throw SQLiteError.openFailed(
                "could not open SQLite database at \(path): \(message); check the path and its permissions",
                resultCode: extended)
        }
        handle = opened
        busyTimeoutMilliseconds = options.busyTimeoutMilliseconds
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        do {
            if options.journalMode == .wal { try switchToWAL() }
            try execute(unsafeScript: "PRAGMA synchronous=\(options.synchronous.rawValue); PRAGMA foreign_keys=ON;")
        } catch let error as SQLiteError {
            throw SQLiteError.openFailed(
                "could not configure SQLite database at \(path) (\(error)); is it a database file?",
                resultCode: error.resultCode)
        }
    }

    deinit {
        for statement in statements.values {
            // sqlite3_finalize: "The application must finalize every prepared statement in order to avoid resource
            // leaks."
            sqlite3_finalize(statement)
        }
        for statement in constants.values { sqlite3_finalize(statement) }
        // sqlite3_close_v2 defers the close until every statement is finalized; all are finalized above.
        sqlite3_close_v2(handle)
    }

    /// Runs semicolon-separated statements with no parameters, ignoring any rows.
    ///
    /// - Warning: Only for trusted constant SQL (schema, pragmas); never for anything derived from input.
    /// - Parameter script: The SQL.
    /// - Throws: ``SQLiteError``.
    package func execute(unsafeScript script: String) throws {
        let status = sqlite3_exec(handle, script, nil, nil, nil)
        guard status == SQLITE_OK else { throw error(status, doing: "run a schema statement") }
    }

    /// Runs one constant statement without parameters or rows (`BEGIN`, `SAVEPOINT`, `COMMIT`), prepared once and
    /// kept: a group commit runs these for every batch and member, and `sqlite3_exec` would parse them every time.
    ///
    /// - Parameter sql: One statement, a literal in the source.
    /// - Throws: ``SQLiteError``.
    package func execute(constant sql: StaticString) throws {
        let key = UnsafeRawPointer(sql.utf8Start)
        let statement: OpaquePointer
        if let cached = constants[key] {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            // sqlite3_prepare_v3 with nByte = the literal's length: the text need not be NUL-terminated.
            let status = sql.utf8Start.withMemoryRebound(to: CChar.self, capacity: sql.utf8CodeUnitCount) { text in
                sqlite3_prepare_v3(
                    handle, text, Int32(sql.utf8CodeUnitCount), UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
            }
            guard status == SQLITE_OK, let prepared else { throw error(status, doing: "prepare a statement") }
            constants[key] = prepared
            statement = prepared
        }
        // sqlite3_reset: "resets a prepared statement object back to its initial state, ready to be re-executed";
        // a statement left unreset would keep its transaction's read lock.
        defer { sqlite3_reset(statement) }
        var status = sqlite3_step(statement)
        while status == SQLITE_ROW { status = sqlite3_step(statement) }
        guard status == SQLITE_DONE else { throw error(status, doing: "run a statement") }
    }

    /// Runs `query` and returns every row it produced (`SELECT` or `… RETURNING`).
    ///
    /// - Parameter query: The statement; interpolated values are bound, never spliced.
    /// - Returns: The rows.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    package func query(_ query: SQLQuery) throws -> [SQLRow] {
        let statement = try prepare(query)
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var rows: [SQLRow] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(status, doing: "run a statement") }
            rows.append(row(statement))
        }
        return rows
    }

    /// Runs `query` and returns how many rows it changed.
    ///
    /// - Parameter query: An `INSERT`, `UPDATE` or `DELETE`.
    /// - Returns: `sqlite3_changes` for the statement.
    /// - Throws: ``SQLiteError``.
    @discardableResult
    package func run(_ query: SQLQuery) throws -> Int {
        try self.query(query)
        return Int(sqlite3_changes(handle))
    }

    /// Switches the file to write-ahead logging (`PRAGMA journal_mode=WAL`).
    ///
    /// The mode is persistent: this writes the file header (and a new database's first page). It does nothing to a
    /// file already in WAL mode, and leaves `:memory:` in its own mode.
    ///
    /// The switch needs the file to itself, and SQLite does not wait for it the way statements wait for a lock: when
    /// another process opens the same new file at that moment (two processes creating one vault), the pragma fails at
    /// once with `SQLITE_BUSY`, or answers with the old mode. So this retries every few milliseconds until the file
    /// reports WAL, for up to the connection's busy timeout.
    ///
    /// - Throws: ``SQLiteError``: ``SQLiteError/Code/corrupt`` when the file is not a database,
    ///   ``SQLiteError/Code/busy`` when another connection holds the file past the busy timeout.
    package func switchToWAL() throws {
        let (switched, busy) = try retryingWhileBusy {
            let mode = try query("PRAGMA journal_mode=WAL").first?.text(0)?.lowercased()
            return mode == "wal" || mode == "memory"
        }
        guard switched else {
            throw busy
                ?? SQLiteError(
                    code: .busy,
                    reason: "SQLite could not switch to WAL: another connection kept the file in its old journal "
                        + "mode for \(busyTimeoutMilliseconds) ms; close it and try again",
                    resultCode: SQLITE_BUSY)
        }
    }

    /// Copies every page of the write-ahead log into the main file and empties the log (`PRAGMA
    /// wal_checkpoint(TRUNCATE)`), waiting up to the connection's busy timeout.
    ///
    /// Only one connection checkpoints at a time, and SQLite answers busy at once, without the busy handler, when
    /// another process holds the checkpoint lock (wal.c, `walLockExclusive(WAL_CKPT_LOCK)`), as it does whenever two
    /// processes write the file together; so a busy answer is retried like ``switchToWAL()``.
    ///
    /// - Returns: Whether the whole log was copied and emptied within the busy timeout.
    /// - Throws: ``SQLiteError`` when the pragma fails.
    package func checkpointTruncating() throws -> Bool {
        try retryingWhileBusy { try query("PRAGMA wal_checkpoint(TRUNCATE)").first?.integer(0) == 0 }.done
    }

    /// Runs `attempt` every few milliseconds until it reports done or the busy timeout passes: for what SQLite does
    /// not wait for the way statements wait for a lock. A busy error counts as not done.
    ///
    /// - Returns: Whether `attempt` finished, and the last busy error it threw.
    private func retryingWhileBusy(_ attempt: () throws -> Bool) throws -> (done: Bool, busy: SQLiteError?) {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(busyTimeoutMilliseconds)
        while true {
            var busy: SQLiteError?
            do {
                if try attempt() { return (true, nil) }
            } catch let error as SQLiteError where error.code == .busy {
                busy = error
            }
            guard clock.now < deadline else { return (false, busy) }
            usleep(5_000)
        }
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT` (or `BEGIN DEFERRED`), rolling back if it throws.
    ///
    /// `IMMEDIATE` takes the write lock up front, so two processes never both read then both write; `DEFERRED` suits
    /// reads, which then see one snapshot. The method returns only after `COMMIT` succeeded, so callers acknowledge
    /// only durable state.
    ///
    /// - Parameters:
    ///   - kind: How the transaction begins; ``TransactionKind/immediate`` unless it only reads.
    ///   - body: The work.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or ``SQLiteError`` from `BEGIN`/`COMMIT`.
    package func transaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        if kind == .immediate {
            try execute(constant: "BEGIN IMMEDIATE")
        } else {
            try execute(constant: "BEGIN DEFERRED")
        }
        do {
            let result = try body()
            try execute(constant: "COMMIT")
            return result
        } catch {
            // Ignore a rollback failure: the transaction is already gone when COMMIT itself failed.
            try? execute(constant: "ROLLBACK")
            throw error
        }
    }

    /// Whether no transaction is open (`sqlite3_get_autocommit`).
    ///
    /// A group commit checks it after each member's work: some errors (`SQLITE_FULL`, `SQLITE_IOERR`, `SQLITE_NOMEM`,
    /// `SQLITE_BUSY` in some cases) make SQLite roll back the whole transaction by itself, and then the earlier
    /// members' work is gone as well, and must not be acknowledged.
    package var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    private func prepare(_ query: SQLQuery) throws -> OpaquePointer {
        let key = query.statementKey
        let statement: OpaquePointer
        if let cached = statements[key] {
            statement = cached
        } else {
            var prepared: OpaquePointer?
            let status = sqlite3_prepare_v3(
                handle, query.text { _ in "?" }, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
            guard status == SQLITE_OK, let prepared else { throw error(status, doing: "prepare a statement") }
            statements[key] = prepared
            statement = prepared
        }
        for (offset, value) in query.bindings.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value {
            case .null:
                status = sqlite3_bind_null(statement, index)
            case .integer(let integer):
                status = sqlite3_bind_int64(statement, index, integer)
            case .text(let text):
                // The UTF-8 bytes with their length, so a NUL inside the text is kept rather than ending it.
                // SQLITE_TRANSIENT: "SQLite makes its own private copy of the data immediately".
                var text = text
                status = text.withUTF8 { buffer in
                    sqlite3_bind_text64(
                        statement, index,
                        UnsafeRawPointer(buffer.baseAddress ?? UnsafePointer(bitPattern: 1))?.assumingMemoryBound(
                            to: CChar.self),
                        UInt64(buffer.count), CSQLite_SQLITE_TRANSIENT(), UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    sqlite3_bind_blob64(
                        statement, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), UInt64(buffer.count),
                        CSQLite_SQLITE_TRANSIENT())
                }
            }
            guard status == SQLITE_OK else {
                sqlite3_clear_bindings(statement)
                throw error(status, doing: "bind a parameter")
            }
        }
        return statement
    }

    private func row(_ statement: OpaquePointer) -> SQLRow {
        let count = sqlite3_column_count(statement)
        var values: [SQLValue] = []
        values.reserveCapacity(Int(count))
        for column in 0..<count {
            switch sqlite3_column_type(statement, column) {
            case SQLITE_INTEGER:
                values.append(.integer(sqlite3_column_int64(statement, column)))
            case SQLITE_TEXT:
                // sqlite3_column_bytes after sqlite3_column_text: the length of that UTF-8 text, NULs included.
                if let text = sqlite3_column_text(statement, column) {
                    let count = Int(sqlite3_column_bytes(statement, column))
                    values.append(
                        .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)))
                } else {
                    values.append(.null)
                }
            case SQLITE_BLOB:
                // sqlite3_column_blob: the pointer is valid until the next step/reset; copy it now.
                let length = Int(sqlite3_column_bytes(statement, column))
                if let bytes = sqlite3_column_blob(statement, column), length > 0 {
                    values.append(.blob(Array(UnsafeRawBufferPointer(start: bytes, count: length))))
                } else {
                    values.append(.blob([]))
                }
            default:
                values.append(.null)
            }
        }
        return SQLRow(values)
    }

    private func error(
        _ status: Int32, doing action: String, file: String = #fileID, line: UInt = #line
    )
        -> SQLiteError
    {
        let message = String(cString: sqlite3_errmsg(handle))
        let code: SQLiteError.Code
        switch status & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: code = .busy
        case SQLITE_CONSTRAINT: code = .constraint
        case SQLITE_IOERR, SQLITE_FULL, SQLITE_READONLY, SQLITE_CANTOPEN: code = .ioFailure
        case SQLITE_CORRUPT, SQLITE_NOTADB: code = .corrupt
        default: code = .statementFailed
        }
        return SQLiteError(
            code: code, reason: "SQLite could not \(action): \(message)", resultCode: status, file: file, line: line)
    }
}
