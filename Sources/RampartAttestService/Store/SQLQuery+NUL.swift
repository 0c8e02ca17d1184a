import RampartSQLite

extension SQLQuery {
    /// Refuses the statement when a text parameter holds a NUL, before anything is sent.
    ///
    /// PostgreSQL `text` cannot hold U+0000: the server fails the statement with SQLSTATE 22021 ("invalid byte
    /// sequence"), and a C-string API would cut the text there instead. SQLite could store it, but the SQLite store
    /// refuses it too, so both stores keep one contract. The service itself refuses NUL in request fields
    /// (``AttestServiceError/Code/invalidField``), so this fires only on a programming error.
    ///
    /// - Throws: ``AttestServiceError`` (`storeFailure`) naming the parameter's position (never its text).
    func refuseNULInText() throws {
        for (index, value) in bindings.enumerated() {
            guard case .text(let text) = value, text.utf8.contains(0) else { continue }
            throw AttestServiceError.storeFailure(
                "text parameter $\(index + 1) contains a NUL byte, which PostgreSQL text cannot hold; nothing was "
                    + "written. Refuse NUL in the input before it reaches the store")
        }
    }
}
