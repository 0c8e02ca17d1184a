internal import RampartCrypto

/// A SQL statement whose interpolated values become bind parameters, never SQL text.
///
/// ```swift
/// let query: SQLQuery = "DELETE FROM challenges WHERE digest = \(digest) RETURNING purpose"
/// ```
/// produces the text `DELETE FROM challenges WHERE digest = ? RETURNING purpose` (SQLite) or `… = $1 …`
/// (PostgreSQL) and one binding. There is no way to splice a runtime string into the text except
/// ``init(unsafeSQL:)``, whose name says what it is.
package struct SQLQuery: Sendable, Hashable, ExpressibleByStringInterpolation {
    /// The literal pieces between bindings; always one more than ``bindings``.
    package private(set) var fragments: [String]
    /// The bound values in order.
    package private(set) var bindings: [SQLValue]

    /// A statement with no bindings from a literal.
    ///
    /// - Parameter value: The SQL text.
    package init(stringLiteral value: String) {
        fragments = [value]
        bindings = []
    }

    /// A statement built by interpolation.
    ///
    /// - Parameter stringInterpolation: The pieces.
    package init(stringInterpolation: StringInterpolation) {
        fragments = stringInterpolation.fragments
        bindings = stringInterpolation.bindings
    }

    /// A statement from runtime text, with no bindings.
    ///
    /// - Warning: Only for trusted, constant SQL such as schema migrations; never for anything derived from input.
    /// - Parameter sql: The SQL text.
    package init(unsafeSQL sql: String) {
        fragments = [sql]
        bindings = []
    }

    /// The statement as a cache key: its text with the bindings left out, which is what a prepared statement is.
    package var statementKey: StatementKey { StatementKey(fragments: fragments) }

    /// A statement's literal text, fragment by fragment, as a dictionary key for its prepared statement.
    ///
    /// It spares every statement run joining and hashing its whole text: the key hashes only the fragments' count
    /// and lengths (the text comes from the program's own literals, not from input, so nothing can steer
    /// collisions) and tells colliding statements apart by their bytes (`hasSameUTF8(as:)`, eight bytes at a
    /// time).
    package struct StatementKey: Hashable, Sendable {
        let fragments: [String]

        package func hash(into hasher: inout Hasher) {
            hasher.combine(fragments.count)
            for fragment in fragments { hasher.combine(fragment.utf8.count) }
        }

        /// Equal when every fragment is the same bytes of UTF-8 (never by Unicode canonical equivalence, as `==` on
        /// strings would: two spellings of an identifier are two statements to SQL).
        package static func == (left: StatementKey, right: StatementKey) -> Bool {
            left.fragments.count == right.fragments.count
                && zip(left.fragments, right.fragments).allSatisfy { $0.hasSameUTF8(as: $1) }
        }
    }

    /// The SQL text, with `placeholder(n)` (1-based) in place of each binding.
    ///
    /// - Parameter placeholder: `{ _ in "?" }` for SQLite, `{ "$\($0)" }` for PostgreSQL.
    /// - Returns: The statement text.
    package func text(placeholder: (Int) -> String) -> String {
        // Reserved once, rather than grown fragment by fragment.
        var result = ""
        result.reserveCapacity(fragments.reduce(0) { $0 + $1.utf8.count } + bindings.count * 4)
        for (index, fragment) in fragments.enumerated() {
            result += fragment
            if index < bindings.count { result += placeholder(index + 1) }
        }
        return result
    }

    /// Collects literal text and bindings.
    package struct StringInterpolation: StringInterpolationProtocol {
        var fragments: [String] = [""]
        var bindings: [SQLValue] = []

        /// Reserves a fragment after each interpolation and a binding for each (a value's, or a nested query's first),
        /// so that building a statement does not grow the two arrays one append at a time.
        ///
        /// - Parameters:
        ///   - literalCapacity: Ignored: each fragment is its own string.
        ///   - interpolationCount: How many values and raw fragments the literal interpolates.
        package init(literalCapacity: Int, interpolationCount: Int) {
            fragments.reserveCapacity(interpolationCount + 1)
            bindings.reserveCapacity(interpolationCount)
        }

        /// Appends SQL text.
        ///
        /// - Parameter literal: The text.
        package mutating func appendLiteral(_ literal: String) {
            fragments[fragments.count - 1] += literal
        }

        /// Appends a compile-time constant, such as a column list, to the statement text.
        ///
        /// Only a `StaticString` is accepted, which is always a literal in the source: nothing read at run time can
        /// reach the text this way.
        ///
        /// - Parameter fragment: The SQL text.
        package mutating func appendInterpolation(raw fragment: StaticString) {
            appendLiteral(fragment.description)
        }

        /// Appends another query in place: its text, and its bindings in their order (a condition several
        /// statements share, kept in one place).
        package mutating func appendInterpolation(_ query: SQLQuery) {
            for (index, fragment) in query.fragments.enumerated() {
                if index > 0 { appendInterpolation(query.bindings[index - 1]) }
                appendLiteral(fragment)
            }
        }

        /// Appends a bind parameter.
        ///
        /// - Parameter value: The value.
        package mutating func appendInterpolation(_ value: SQLValue) {
            bindings.append(value)
            fragments.append("")
        }

        /// Appends a text bind parameter.
        ///
        /// - Parameter value: The text.
        package mutating func appendInterpolation(_ value: String) { appendInterpolation(SQLValue.text(value)) }

        /// Appends an integer bind parameter.
        ///
        /// - Parameter value: The integer.
        package mutating func appendInterpolation(_ value: Int64) { appendInterpolation(SQLValue.integer(value)) }

        /// Appends an integer bind parameter.
        ///
        /// - Parameter value: The integer.
        package mutating func appendInterpolation(_ value: Int) { appendInterpolation(SQLValue.integer(Int64(value))) }

        /// Appends a blob bind parameter.
        ///
        /// - Parameter value: The bytes.
        package mutating func appendInterpolation(_ value: [UInt8]) { appendInterpolation(SQLValue.blob(value)) }

        /// Appends a text bind parameter, or NULL.
        ///
        /// - Parameter value: The text, or nil for NULL.
        package mutating func appendInterpolation(_ value: String?) {
            appendInterpolation(value.map(SQLValue.text) ?? .null)
        }

        /// Appends an integer bind parameter, or NULL.
        ///
        /// - Parameter value: The integer, or nil for NULL.
        package mutating func appendInterpolation(_ value: Int64?) {
            appendInterpolation(value.map(SQLValue.integer) ?? .null)
        }

        /// Appends an integer bind parameter, or NULL.
        ///
        /// - Parameter value: The integer, or nil for NULL.
        package mutating func appendInterpolation(_ value: Int?) { appendInterpolation(value.map { Int64($0) }) }

        /// Appends a blob bind parameter, or NULL.
        ///
        /// - Parameter value: The bytes, or nil for NULL.
        package mutating func appendInterpolation(_ value: [UInt8]?) {
            appendInterpolation(value.map(SQLValue.blob) ?? .null)
        }

        /// Appends a boolean as the integer 1 or 0 (SQLite has no boolean type).
        ///
        /// - Parameter value: The flag.
        package mutating func appendInterpolation(_ value: Bool) { appendInterpolation(Int64(value ? 1 : 0)) }
    }
}
