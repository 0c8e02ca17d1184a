import RampartCrypto

/// A JSON value as I-JSON (RFC 7493) allows it: the input domain of RFC 8785 canonicalization.
///
/// Numbers are IEEE 754 doubles, objects have unique keys, strings hold Unicode scalars only (no lone surrogates).
public indirect enum JSONValue: Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A finite number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; keys are unique.
    ///
    /// Keys compare as Swift strings, that is by Unicode canonical equivalence: a text with two keys that differ only
    /// in normalization (`"\u00e9"` and `"e\u0301"`) is refused as a duplicate, which fails closed.
    case object([String: JSONValue])
}

extension JSONValue: Sendable {}

extension JSONValue {
    /// Named denial-of-service bounds for ``init(parsing:)``.
    public enum Limits {
        /// The most bytes one JSON text may hold: 1 MiB.
        public static let maximumByteCount = 1 << 20
        /// The deepest nesting of arrays and objects.
        public static let maximumDepth = 64
    }

    /// How ``init(parsing:numbers:)`` reads numbers.
    public enum NumberPolicy: Hashable, Sendable {
        /// Each number becomes the nearest double, as RFC 8785's examples read `333333333.33333329`.
        case nearestDouble
        /// A number is accepted only if its RFC 8785 canonical form is the same number: integers within ±(2^53−1)
        /// (I-JSON, RFC 7493 section 2.2; this covers `2e18` too, whose canonical form is the integer
        /// `2000000000000000000`), no underflow to zero, and no more significant digits than the double keeps (`-0`
        /// is zero, written `0`). Canonical output read back this way is accepted as the same value. Anything else
        /// is ``RequestSigningError/Code/inexactNumber``, naming its place.
        ///
        /// Use it wherever a signature covers the canonical form: otherwise `1234567890123456789` and
        /// `1234567890123456850` would share the canonical `1234567890123456800`, and one signature.
        case exact
    }

    /// Parses a JSON text (RFC 8259) under I-JSON's rules (RFC 7493): UTF-8, unique object keys, no lone surrogate
    /// escapes, numbers that fit a double. Whitespace around values is allowed; anything after the value is not.
    ///
    /// - Parameters:
    ///   - bytes: The UTF-8 text.
    ///   - numbers: How numbers are read; ``NumberPolicy/exact`` for anything that is signed.
    /// - Throws: ``RequestSigningError/Code/malformedJSON`` for invalid JSON, ``RequestSigningError/Code/limitExceeded`` past
    ///   ``Limits``, ``RequestSigningError/Code/inexactNumber`` for a number ``NumberPolicy/exact`` refuses.
    public init(parsing bytes: [UInt8], numbers: NumberPolicy = .nearestDouble) throws {
        guard bytes.count <= Limits.maximumByteCount else {
            throw RequestSigningError.limitExceeded(
                "the JSON text is \(bytes.count) bytes; at most \(Limits.maximumByteCount) are accepted"
            )
        }
        guard String(strictUTF8: bytes) != nil else {
            throw RequestSigningError.malformedJSON("the JSON text is not valid UTF-8")
        }
        var parser = JSONParser(bytes: bytes, numbers: numbers)
        parser.skipWhitespace()
        let value = try parser.parseValue(depth: 1)
        parser.skipWhitespace()
        guard parser.offset == bytes.count else {
            throw RequestSigningError.malformedJSON("unexpected text after the JSON value at byte \(parser.offset)")
        }
        self = value
    }
}

/// A recursive-descent JSON reader over UTF-8 bytes; every access is bounds-checked.
private struct JSONParser {
    let bytes: [UInt8]
    let numbers: JSONValue.NumberPolicy
    var offset = 0
    /// The keys and indexes leading to the value being read, for ``JSONValue/NumberPolicy/exact``'s errors.
    var path: [PathComponent] = []

    enum PathComponent {
        case key(String)
        case index(Int)
    }

    init(bytes: [UInt8], numbers: JSONValue.NumberPolicy) {
        self.bytes = bytes
        self.numbers = numbers
    }

    var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
            offset += 1
        }
    }

    func error(_ what: String) -> RequestSigningError {
        .malformedJSON("\(what) at byte \(offset)")
    }

    mutating func expect(_ literal: String) throws {
        for byte in literal.utf8 {
            guard current == byte else { throw error("expected '\(literal)'") }
            offset += 1
        }
    }

    mutating func parseValue(depth: Int) throws -> JSONValue {
        guard depth <= JSONValue.Limits.maximumDepth else {
            throw RequestSigningError.limitExceeded("JSON nests deeper than \(JSONValue.Limits.maximumDepth) levels")
        }
        guard let byte = current else { throw error("the JSON text ends where a value was expected") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expect("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expect("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expect("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        default: throw error("unexpected character")
        }
    }

    mutating func parseObject(depth: Int) throws -> JSONValue {
        offset += 1
        var object: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            offset += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let key = try parseString()
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            path.append(.key(key))
            let value = try parseValue(depth: depth + 1)
            path.removeLast()
            guard object.updateValue(value, forKey: key) == nil else {
                throw error("duplicate object key (I-JSON, RFC 7493 section 2.3)")
            }
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect("}")
            return .object(object)
        }
    }

    mutating func parseArray(depth: Int) throws -> JSONValue {
        offset += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            offset += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            path.append(.index(elements.count))
            elements.append(try parseValue(depth: depth + 1))
            path.removeLast()
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                offset += 1
                continue
            }
            try expect("]")
            return .array(elements)
        }
    }

    mutating func parseHex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("truncated \\u escape") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error("bad hex digit in a \\u escape")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    mutating func parseString() throws -> String {
        offset += 1
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        func flushRun(_ parser: JSONParser, upTo end: Int) {
            if runStart < end {
                scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                flushRun(self, upTo: offset)
                offset += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flushRun(self, upTo: offset)
                offset += 1
                guard let escape = current else { throw error("unterminated escape") }
                offset += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{08}")
                case UInt8(ascii: "f"): scalars.append("\u{0C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    scalars.append(try parseUnicodeEscape())
                default: throw error("unknown escape")
                }
                runStart = offset
            case 0..<0x20:
                throw error("unescaped control character in a string")
            default:
                offset += 1
            }
        }
    }

    /// Reads the hex of a `\u` escape (the `\u` already consumed), joining a surrogate pair.
    mutating func parseUnicodeEscape() throws -> Unicode.Scalar {
        let first = try parseHex4()
        switch first {
        case 0xD800...0xDBFF:
            guard current == UInt8(ascii: "\\") else {
                throw error("a high surrogate escape is not followed by a low one")
            }
            offset += 1
            guard current == UInt8(ascii: "u") else {
                throw error("a high surrogate escape is not followed by a low one")
            }
            offset += 1
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else { throw error("a high surrogate escape is not followed by a low one") }
            return scalar
        case 0xDC00...0xDFFF:
            throw error("a lone low surrogate escape")
        default:
            guard let scalar = Unicode.Scalar(first) else { throw error("invalid \\u escape") }
            return scalar
        }
    }

    /// `number = [ minus ] int [ frac ] [ exp ]` (RFC 8259 section 6), converted to the nearest double and, under
    /// ``JSONValue/NumberPolicy/exact``, checked to be that double's canonical value.
    mutating func parseNumber() throws -> Double {
        let start = offset
        if current == UInt8(ascii: "-") { offset += 1 }
        guard let lead = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(lead) else {
            throw error("a number needs a digit")
        }
        let integerStart = offset
        if lead == UInt8(ascii: "0") {
            offset += 1
        } else {
            skipDigits()
        }
        let integerEnd = offset
        var fraction = offset..<offset
        var exponentStart: Int?
        if current == UInt8(ascii: ".") {
            offset += 1
            let fractionStart = offset
            guard skipDigits() > 0 else { throw error("a fraction needs a digit") }
            fraction = fractionStart..<offset
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            offset += 1
            exponentStart = offset
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { offset += 1 }
            guard skipDigits() > 0 else { throw error("an exponent needs a digit") }
        }
        let text = String(decoding: bytes[start..<offset], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw error("the number does not fit an IEEE 754 double")
        }
        if numbers == .exact {
            let literal = DecimalLiteral(
                bytes: bytes, integer: integerStart..<integerEnd, fraction: fraction,
                exponent: exponentStart.map { $0..<offset })
            try checkExact(value, literal: literal)
        }
        return value
    }

    /// Refuses a number whose canonical form (the double's shortest round-trip digits) is another number.
    func checkExact(_ value: Double, literal: DecimalLiteral) throws {
        let place = path.isEmpty ? "the number" : "the number at '\(Self.describe(path))'"
        let advice = "send it as a string, or as a number a double holds exactly"
        // Zero in any spelling, -0 included: RFC 8785 writes 0, and -0 == 0 as a number.
        if literal.digits.isEmpty { return }
        guard value != 0 else {
            throw RequestSigningError.inexactNumber("\(place) is too small for a double and would become 0; \(advice)")
        }
        // An integer literal beyond the range, or any value whose canonical form is written as one: RFC 8785 writes
        // magnitudes below 1e21 without an exponent, so 2e18 becomes the integer 2000000000000000000.
        if value.magnitude > Self.largestExactInteger && (literal.isIntegerLiteral || value.magnitude < 1e21) {
            throw RequestSigningError.inexactNumber(
                "\(place) is an integer beyond ±(2^53−1) (I-JSON, RFC 7493 section 2.2); \(advice)")
        }
        let canonical = CanonicalJSON.shortestDigits(of: value.magnitude)
        guard canonical.digits.utf8.elementsEqual(literal.digits), canonical.exponent == literal.exponent else {
            throw RequestSigningError.inexactNumber(
                "\(place) has more precision than a double holds; its canonical form would be another number; "
                    + advice)
        }
    }

    /// 2^53 − 1, the largest integer I-JSON exchanges exactly.
    static let largestExactInteger: Double = 9_007_199_254_740_991

    /// A JSON path for an error message: printable ASCII only, at most 80 characters (keys are client text).
    static func describe(_ path: [PathComponent]) -> String {
        var text = ""
        for component in path {
            switch component {
            case .index(let index):
                text += "[\(index)]"
            case .key(let key):
                text +=
                    (text.isEmpty ? "" : ".")
                    + key.unicodeScalars.map { (0x20...0x7E).contains($0.value) ? String($0) : "?" }.joined()
            }
        }
        return text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }

    @discardableResult
    mutating func skipDigits() -> Int {
        var count = 0
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            offset += 1
            count += 1
        }
        return count
    }
}

/// The digits of a JSON number literal as `0.d₁…dₖ × 10ⁿ` (no leading or trailing zeros), the layout
/// ``CanonicalJSON/shortestDigits(of:)`` returns, so the two can be compared digit for digit.
private struct DecimalLiteral {
    /// The significant digits, ASCII; empty for zero.
    let digits: [UInt8]
    /// `n` in `0.d₁…dₖ × 10ⁿ`.
    let exponent: Int
    /// Written without a fraction or an exponent.
    let isIntegerLiteral: Bool

    /// A bound on the exponent's magnitude: far past any double (±324), and small enough that adding the digit
    /// counts of a 1 MiB text can never overflow.
    static let exponentBound = 100_000_000

    init(bytes: [UInt8], integer: Range<Int>, fraction: Range<Int>, exponent: Range<Int>?) {
        isIntegerLiteral = fraction.isEmpty && exponent == nil
        var written = 0
        if let exponent {
            var index = exponent.lowerBound
            var sign = 1
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
                sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
                index += 1
            }
            for byte in bytes[index..<exponent.upperBound] {
                written = min(written * 10 + Int(byte - UInt8(ascii: "0")), Self.exponentBound)
            }
            written *= sign
        }
        var all = Array(bytes[integer]) + Array(bytes[fraction])
        var point = integer.count + written
        var leading = 0
        while leading < all.count, all[leading] == UInt8(ascii: "0") { leading += 1 }
        all.removeFirst(leading)
        point -= leading
        while let last = all.last, last == UInt8(ascii: "0") { all.removeLast() }
        digits = all
        self.exponent = point
    }
}
