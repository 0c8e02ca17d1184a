/// A failure of the PostgreSQL connection: what failed and what to check, with the server's or libpq's own message.
///
/// Every failure means the same to a caller: the statement (and, inside a transaction, the transaction) did not take
/// effect, so nothing of it may be acknowledged. A store maps it to its own error type.
package struct PostgresError: Error, CustomStringConvertible {
    /// What failed and what to check, written for the operator.
    package let reason: String
    /// The server's or libpq's message, for logs; empty when there is none.
    package let detail: String
    /// The SQLSTATE the server answered with (for example `26000`), or nil when the failure was not the server's.
    package let sqlState: String?

    package init(_ reason: String, detail: String = "", sqlState: String? = nil) {
        self.reason = reason
        self.detail = detail
        self.sqlState = sqlState
    }

    package var description: String { detail.isEmpty ? reason : "\(reason): \(detail)" }
}
