/// One value bound into, or read out of, a SQL statement.
///
/// Only the storage classes Rampart uses are modelled: NULL, 64-bit integers, UTF-8 text and blobs.
package enum SQLValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// UTF-8 text.
    case text(String)
    /// Raw bytes.
    case blob([UInt8])
}

/// One result row: the columns in `SELECT`/`RETURNING` order.
package struct SQLRow: Sendable, Hashable {
    /// The column values.
    package let values: [SQLValue]

    /// Wraps column values.
    ///
    /// - Parameter values: The columns in order.
    package init(_ values: [SQLValue]) { self.values = values }

    /// The integer in column `index`, or nil when the column is absent, NULL or of another type.
    ///
    /// - Parameter index: The zero-based column.
    /// - Returns: The value.
    package func integer(_ index: Int) -> Int64? {
        guard values.indices.contains(index), case .integer(let value) = values[index] else { return nil }
        return value
    }

    /// The text in column `index`, or nil when the column is absent, NULL or of another type.
    ///
    /// - Parameter index: The zero-based column.
    /// - Returns: The value.
    package func text(_ index: Int) -> String? {
        guard values.indices.contains(index), case .text(let value) = values[index] else { return nil }
        return value
    }

    /// The bytes in column `index`, or nil when the column is absent, NULL or of another type.
    ///
    /// - Parameter index: The zero-based column.
    /// - Returns: The value.
    package func blob(_ index: Int) -> [UInt8]? {
        guard values.indices.contains(index), case .blob(let value) = values[index] else { return nil }
        return value
    }
}
