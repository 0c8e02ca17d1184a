/// The one error type of ``RampartSQLite``.
///
/// Errors compare by ``code`` only. ``reason`` carries SQLite's own message (`sqlite3_errmsg`), which names the
/// statement's problem but never a bound value.
package struct SQLiteError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case openFailed
            case busy
            case constraint
            case ioFailure
            case statementFailed
            case corrupt
        }

        let backing: Backing

        /// The database file could not be opened or configured.
        package static let openFailed = Code(backing: .openFailed)
        /// Another connection held the lock longer than the busy timeout.
        package static let busy = Code(backing: .busy)
        /// A UNIQUE, NOT NULL or CHECK constraint refused the write.
        package static let constraint = Code(backing: .constraint)
        /// The disk or file system failed (full disk, read-only file, I/O error).
        package static let ioFailure = Code(backing: .ioFailure)
        /// A statement failed to prepare or run for another reason.
        package static let statementFailed = Code(backing: .statementFailed)
        /// The database file is damaged or not a database.
        package static let corrupt = Code(backing: .corrupt)

        /// The code's stable name.
        package var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    package let code: Code
    /// What failed, in words, with SQLite's message.
    package let reason: String
    /// SQLite's extended result code.
    package let resultCode: Int32
    /// The source file that raised the error.
    package let file: String
    /// The source line that raised the error.
    package let line: UInt

    init(code: Code, reason: String, resultCode: Int32, file: String = #fileID, line: UInt = #line) {
        self.code = code
        self.reason = reason
        self.resultCode = resultCode
        self.file = file
        self.line = line
    }

    /// `code: reason`.
    package var description: String { "\(code): \(reason)" }

    /// Compares codes only.
    package static func == (lhs: SQLiteError, rhs: SQLiteError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A failure to open or configure the database.
    static func openFailed(
        _ reason: String, resultCode: Int32, file: String = #fileID, line: UInt = #line
    )
        -> SQLiteError
    {
        SQLiteError(code: .openFailed, reason: reason, resultCode: resultCode, file: file, line: line)
    }
}

extension SQLiteError: Sendable {}
