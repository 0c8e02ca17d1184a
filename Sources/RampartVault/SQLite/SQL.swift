/// A SQL statement whose values can only be bind parameters.
///
/// Written as a string literal, every interpolated value becomes a `?` placeholder and a binding, never text in the
/// statement, so no value can change the SQL:
///
/// ```swift
/// let sql: SQL = "SELECT sealed FROM items WHERE service = \(service)"
/// ```
struct SQL: ExpressibleByStringInterpolation, Sendable {
    struct StringInterpolation: StringInterpolationProtocol {
        var text = ""
        var bindings: [SQLiteValue] = []

        init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + interpolationCount)
        }

        mutating func appendLiteral(_ literal: StaticString) {
            text += literal.description
        }

        /// Splices a compile-time constant (a column list) into the statement text; never a runtime value.
        mutating func appendInterpolation(raw fragment: StaticString) {
            text += fragment.description
        }

        mutating func appendInterpolation(_ value: SQLiteValue) {
            text += "?"
            bindings.append(value)
        }

        mutating func appendInterpolation(_ value: String?) {
            appendInterpolation(value.map(SQLiteValue.text) ?? .null)
        }

        mutating func appendInterpolation(_ value: [UInt8]?) {
            appendInterpolation(value.map(SQLiteValue.blob) ?? .null)
        }

        mutating func appendInterpolation(_ value: Int64?) {
            appendInterpolation(value.map(SQLiteValue.integer) ?? .null)
        }

        mutating func appendInterpolation(_ value: Int?) { appendInterpolation(value.map { Int64($0) }) }

        mutating func appendInterpolation(_ value: Bool) { appendInterpolation(Int64(value ? 1 : 0)) }
    }

    let text: String
    let bindings: [SQLiteValue]

    init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
        bindings = stringInterpolation.bindings
    }

    init(stringLiteral value: StaticString) {
        text = value.description
        bindings = []
    }
}

/// One SQLite value.
enum SQLiteValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case blob([UInt8])

    var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    var blob: [UInt8]? {
        switch self {
        case .blob(let value): value
        default: nil
        }
    }
}
