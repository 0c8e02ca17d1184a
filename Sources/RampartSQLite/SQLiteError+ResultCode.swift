internal import CSQLite

extension SQLiteError {
    /// Whether a UNIQUE or PRIMARY KEY constraint refused the write (`SQLITE_CONSTRAINT_UNIQUE`,
    /// `SQLITE_CONSTRAINT_PRIMARYKEY`), rather than a NOT NULL, CHECK or other ``Code/constraint`` failure.
    package var isUniqueViolation: Bool {
        resultCode == CSQLite_SQLITE_CONSTRAINT_UNIQUE() || resultCode == CSQLite_SQLITE_CONSTRAINT_PRIMARYKEY()
    }

    /// Whether SQLite found that the file is not a database (`SQLITE_NOTADB`: junk, or encrypted by something
    /// else), rather than a damaged one (`SQLITE_CORRUPT`); either code may carry it, ``Code/openFailed`` when
    /// opening found it.
    package var isNotADatabase: Bool { resultCode & 0xFF == SQLITE_NOTADB }
}
