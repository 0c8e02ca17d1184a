/// RFC 8785 JSON Canonicalization Scheme (JCS).
///
/// The canonical form has no whitespace, object members sorted by the UTF-16 code units of their names (section
/// 3.2.3), strings escaped minimally (section 3.2.2.2) and numbers serialized as ECMAScript's `Number.prototype
/// .toString` does (section 3.2.2.3). Two JSON texts with the same I-JSON data have the same canonical bytes, so a
/// client and a server can hash a request independently and agree.
public enum CanonicalJSON {
    /// Canonicalizes a JSON text.
    ///
    /// - Parameter json: UTF-8 JSON text.
    /// - Returns: The canonical UTF-8 bytes.
    /// - Throws: ``RequestSigningError/Code/malformedJSON`` when the text is not I-JSON.
    public static func canonicalize(_ json: [UInt8]) throws -> [UInt8] {
        canonicalBytes(of: try JSONValue(parsing: json))
    }

    /// The canonical UTF-8 bytes of a value.
    ///
    /// - Precondition: Every number is finite (I-JSON has no NaN or infinity). Values from
    ///   ``JSONValue/init(parsing:)`` always are; building `.number(.nan)` by hand is a programming error.
    /// - Parameter value: The value.
    /// - Returns: The canonical bytes.
    public static func canonicalBytes(of value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        serialize(value, into: &out)
        return out
    }

    private static func serialize(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += "null".utf8
        case .bool(let flag): out += (flag ? "true" : "false").utf8
        case .number(let number): out += numberString(number).utf8
        case .string(let text): appendString(text, into: &out)
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                serialize(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let sorted = members.sorted { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }
            for (index, member) in sorted.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                appendString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                serialize(member.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// RFC 8785 section 3.2.2.2: escape `"` and `\`, the five short control escapes, other controls as `\u00xx`.
    private static func appendString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += "\\\"".utf8
            case UInt8(ascii: "\\"): out += "\\\\".utf8
            case 0x08: out += "\\b".utf8
            case 0x09: out += "\\t".utf8
            case 0x0A: out += "\\n".utf8
            case 0x0C: out += "\\f".utf8
            case 0x0D: out += "\\r".utf8
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += "\\u00".utf8
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// ECMAScript `Number.prototype.toString` (ECMA-262 section 7.1.12.1) for a finite double.
    ///
    /// Swift's `description` yields the shortest digits that round-trip, choosing the closest when several do, which
    /// is the digit string ECMAScript requires; only the layout is changed here.
    ///
    /// - Parameter value: A finite double.
    /// - Returns: Its ECMAScript string.
    public static func numberString(_ value: Double) -> String {
        precondition(value.isFinite, "I-JSON numbers are finite; JSONValue(parsing:) rejects the others")
        if value == 0 { return "0" }
        let (digits, exponent) = shortestDigits(of: value.magnitude)
        let k = digits.count
        let n = exponent
        var text = value < 0 ? "-" : ""
        if k <= n && n <= 21 {
            text += digits + String(repeating: "0", count: n - k)
        } else if 0 < n && n <= 21 {
            text += digits.prefix(n) + "." + digits.dropFirst(n)
        } else if -6 < n && n <= 0 {
            text += "0." + String(repeating: "0", count: -n) + digits
        } else {
            let power = n - 1
            text += digits.prefix(1) + (k > 1 ? "." + digits.dropFirst() : "")
            text += "e" + (power >= 0 ? "+" : "-") + String(power.magnitude)
        }
        return text
    }

    /// The shortest round-trip decimal digits `d₁…dₖ` (no leading or trailing zeros) and the exponent `n` such that
    /// `value = 0.d₁…dₖ × 10ⁿ`, read from Swift's shortest representation.
    static func shortestDigits(of value: Double) -> (digits: String, exponent: Int) {
        let description = value.description
        let parts = description.split(separator: "e", maxSplits: 1)
        let mantissa = parts.first.map(String.init) ?? description
        let decimalExponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let pieces = mantissa.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let integerPart = pieces.first.map(String.init) ?? ""
        let fractionPart = pieces.count == 2 ? String(pieces[1]) : ""
        var digits = Substring(integerPart + fractionPart)
        var pointPosition = integerPart.count + decimalExponent
        while digits.first == "0" {
            digits = digits.dropFirst()
            pointPosition -= 1
        }
        while digits.last == "0" {
            digits = digits.dropLast()
        }
        return (String(digits), pointPosition)
    }
}
