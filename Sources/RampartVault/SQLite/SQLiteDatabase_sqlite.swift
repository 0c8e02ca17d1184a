internal import CSQLite

/// One SQLite connection, used only through ``SQL`` statements with bind parameters.
///
/// Its owner serialises access (``FileVault`` keeps it behind a `Mutex`, so transactions do not interleave).
///
/// `@unchecked Sendable`: the handle is immutable after `init`, and the connection is opened in SQLite's serialized
/// threading mode (`SQLITE_OPEN_FULLMUTEX`), in which every call on it is thread-safe.
final class SQLiteDatabase: @unchecked Sendable {
    private let handle: OpaquePointer
    let path: String

    /// Opens (and, with `create`, creates) a database file.
    init(path: String, create: Bool, readOnly: Bool = false) throws {
        var flags = SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW
        flags |= readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create { flags |= SQLITE_OPEN_CREATE }
        var db: OpaquePointer?
        // sqlite3_open_v2: "Whether or not an error occurs when it is opened, resources associated with the database
        // connection handle should be released by passing it to sqlite3_close() when it is no longer required."
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(status: status, message: message)
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        // sqlite3_close_v2 defers the close until every prepared statement is finalized; ours are finalized as soon
        // as each call returns.
        sqlite3_close_v2(handle)
    }

    /// Sets how long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Runs one statement and returns its rows.
    @discardableResult
    func rows(_ sql: SQL) throws -> [[SQLiteValue]] {
        var statement: OpaquePointer?
        // sqlite3_prepare_v2: the caller owns the statement and must sqlite3_finalize it.
        var status = sqlite3_prepare_v2(handle, sql.text, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else { throw error(status) }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in sql.bindings.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: status = sqlite3_bind_null(statement, index)
            case .integer(let number): status = sqlite3_bind_int64(statement, index, number)
            case .text(let text):
                // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
                status = sqlite3_bind_text(statement, index, text, -1, Self.transient)
            case .blob(let bytes):
                if bytes.isEmpty {
                    status = sqlite3_bind_zeroblob(statement, index, 0)
                } else {
                    status = bytes.withUnsafeBytes { buffer in
                        sqlite3_bind_blob(statement, index, buffer.baseAddress, Int32(buffer.count), Self.transient)
                    }
                }
            }
            guard status == SQLITE_OK else { throw error(status) }
        }
        var result: [[SQLiteValue]] = []
        while true {
            status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw error(status) }
            let columns = sqlite3_column_count(statement)
            var row: [SQLiteValue] = []
            row.reserveCapacity(Int(columns))
            for column in 0..<columns {
                row.append(value(statement, column))
            }
            result.append(row)
        }
        return result
    }

    /// The number of rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` takes the write lock at once, so two writers never deadlock
    /// upgrading a read lock; any thrown error rolls back.
    func writeTransaction<R>(_ body: () throws -> R) throws -> R {
        try rows("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try rows("COMMIT")
            return result
        } catch {
            _ = try? rows("ROLLBACK")
            throw error
        }
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            let count = Int(sqlite3_column_bytes(statement, column))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            // The pointer stays valid until the next step or finalize; copy now.
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
        case SQLITE_FLOAT: return .integer(Int64(sqlite3_column_double(statement, column)))
        default: return .null
        }
    }

    private func error(_ status: Int32) -> SQLiteError {
        SQLiteError(status: status, message: String(cString: sqlite3_errmsg(handle)))
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A failed SQLite call; ``FileVault`` turns it into a ``VaultError``.
struct SQLiteError: Error, CustomStringConvertible {
    let status: Int32
    let message: String

    var description: String { "SQLite \(status): \(message)" }

    /// `SQLITE_CONSTRAINT_UNIQUE` or `SQLITE_CONSTRAINT_PRIMARYKEY`.
    var isUniqueViolation: Bool {
        status == CSQLite_SQLITE_CONSTRAINT_UNIQUE() || status == CSQLite_SQLITE_CONSTRAINT_PRIMARYKEY()
    }

    /// `SQLITE_NOTADB`: the file is not a database (or is encrypted by something else).
    var isNotADatabase: Bool { status & 0xFF == SQLITE_NOTADB }

    /// `SQLITE_BUSY`: another connection holds the lock past the busy timeout.
    var isBusy: Bool { status & 0xFF == SQLITE_BUSY }
}
