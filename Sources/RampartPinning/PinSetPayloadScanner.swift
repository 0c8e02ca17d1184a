import RampartCrypto

/// The strict reading of a signed pin set's payload, before Foundation's JSON reader sees it.
///
/// Foundation's `JSONSerialization` is lenient where a signed document must not be: it guesses UTF-16 and UTF-32,
/// skips a byte-order mark, keeps the last of two members with the same name, and turns `true`, `5.0` and `1e2` into
/// the number a reader asks for. Two implementations could then read one signed payload differently. This scanner
/// accepts exactly the JSON text of RFC 8259 (sections 2–7) in UTF-8 without a byte-order mark (section 8.1), with
/// unique member names in every object (I-JSON, RFC 7493 section 2.3) and no lone surrogate escapes (section 2.1); it
/// requires the top level to be an object and its `version` member, if present, to be a non-negative integer literal
/// (`int` in RFC 8259's grammar: no minus, fraction or exponent).
///
/// ```
/// JSON-text = ws value ws
/// value     = false / null / true / object / array / number / string
/// object    = begin-object [ member *( value-separator member ) ] end-object
/// member    = string name-separator value
/// array     = begin-array [ value *( value-separator value ) ] end-array
/// number    = [ minus ] int [ frac ] [ exp ]
/// int       = zero / ( digit1-9 *DIGIT )
/// string    = quotation-mark *char quotation-mark
/// ws        = *( %x20 / %x09 / %x0A / %x0D )
/// ```
struct PinSetPayloadScanner {
    /// Why a payload was refused: what was wrong and at which byte.
    struct Fault: Error, Equatable {
        let reason: String
    }

    /// DoS bound: the deepest nesting of objects and arrays (a pin set needs four).
    static let maximumDepth = 16

    private let bytes: [UInt8]
    private var index = 0
    private var versionLiteral: ArraySlice<UInt8>?

    private init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Checks a payload and returns the value of its top-level `version` member when it has one.
    ///
    /// - Parameter bytes: The payload as signed.
    /// - Returns: The version, or nil when there is no `version` member.
    /// - Throws: ``Fault`` naming the first violation and its byte offset.
    static func scan(_ bytes: [UInt8]) throws(Fault) -> UInt64? {
        guard !bytes.starts(with: [0xEF, 0xBB, 0xBF]) else {
            throw Fault(reason: "it starts with a byte-order mark (RFC 8259 section 8.1 forbids one)")
        }
        guard String(strictUTF8: bytes) != nil else { throw Fault(reason: "it is not UTF-8 (RFC 8259 section 8.1)") }
        // A NUL is valid UTF-8 but never valid JSON outside a string, and is what UTF-16 and UTF-32 text is full of.
        guard !bytes.contains(0) else {
            throw Fault(
                reason:
                    "it is not UTF-8 JSON: it holds NUL bytes, as UTF-16 and UTF-32 text does (RFC 8259 section 8.1)")
        }
        var scanner = PinSetPayloadScanner(bytes)
        scanner.skipWhitespace()
        guard scanner.peek == UInt8(ascii: "{") else { throw scanner.fault("the top level is not an object") }
        try scanner.value(depth: 0)
        scanner.skipWhitespace()
        guard scanner.index == bytes.count else { throw scanner.fault("bytes follow the JSON text") }
        guard let literal = scanner.versionLiteral else { return nil }
        guard literal.allSatisfy({ (0x30...0x39).contains($0) }), literal.first != 0x30 || literal.count == 1,
            let version = UInt64(String(decoding: literal, as: UTF8.self))
        else {
            throw Fault(
                reason: "its version is not an integer from 0 to 2^64 − 1 written without sign, fraction or exponent")
        }
        return version
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private func fault(_ what: String) -> Fault { Fault(reason: "\(what) (at byte \(index))") }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    private mutating func value(depth: Int) throws(Fault) {
        guard depth < Self.maximumDepth else { throw fault("it nests deeper than \(Self.maximumDepth) levels") }
        switch peek {
        case UInt8(ascii: "{"): try object(depth: depth + 1)
        case UInt8(ascii: "["): try array(depth: depth + 1)
        case UInt8(ascii: "\""): _ = try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        case let byte? where byte == UInt8(ascii: "-") || (0x30...0x39).contains(byte): try number()
        default: throw fault("a value was expected")
        }
    }

    private mutating func literal(_ word: StaticString) throws(Fault) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<(index + expected.count)].elementsEqual(expected)
        else { throw fault("a value was expected") }
        index += expected.count
    }

    private mutating func object(depth: Int) throws(Fault) {
        index += 1
        var names: Set<String> = []
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else { throw fault("a member name was expected") }
            let nameStart = index
            let name = try string()
            // Names compare as Swift strings (canonical equivalence): two spellings of one name fail closed.
            guard names.insert(name).inserted else {
                index = nameStart
                throw fault("an object repeats a member name (RFC 7493 section 2.3)")
            }
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw fault("':' was expected after a member name") }
            index += 1
            skipWhitespace()
            let valueStart = index
            try value(depth: depth)
            if depth == 1, name == "version" { versionLiteral = bytes[valueStart..<index] }
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return
            default: throw fault("',' or '}' was expected")
            }
        }
    }

    private mutating func array(depth: Int) throws(Fault) {
        index += 1
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            try value(depth: depth)
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return
            default: throw fault("',' or ']' was expected")
            }
        }
    }

    /// `number = [ minus ] int [ frac ] [ exp ]`.
    private mutating func number() throws(Fault) {
        if peek == UInt8(ascii: "-") { index += 1 }
        guard let first = peek, (0x30...0x39).contains(first) else { throw fault("a digit was expected") }
        index += 1
        if first != 0x30 { skipDigits() }
        if peek == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw fault("a digit was expected after '.'") }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            index += 1
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { throw fault("a digit was expected in the exponent") }
        }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = peek, (0x30...0x39).contains(byte) { index += 1 }
        return index - start
    }

    /// A string's decoded text: escapes resolved, surrogate pairs joined, lone surrogates and raw control characters
    /// refused.
    private mutating func string() throws(Fault) -> String {
        index += 1
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ scanner: PinSetPayloadScanner, upTo end: Int) {
            scalars.append(contentsOf: String(decoding: scanner.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
        }
        while true {
            guard let byte = peek else { throw fault("a string is not closed") }
            switch byte {
            case UInt8(ascii: "\""):
                flush(self, upTo: index)
                index += 1
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(self, upTo: index)
                index += 1
                scalars.append(try escape())
                runStart = index
            case 0x00..<0x20:
                throw fault("a string holds a control character that must be escaped")
            default:
                index += 1
            }
        }
    }

    /// `escape ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG )`, after the backslash.
    private mutating func escape() throws(Fault) -> Unicode.Scalar {
        guard let byte = peek else { throw fault("a string is not closed") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            let unit = try hex4()
            if (0xD800..<0xDC00).contains(unit) {
                guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw fault("a string holds a lone surrogate escape (RFC 7493 section 2.1)")
                }
                index += 2
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low),
                    let scalar = Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
                else { throw fault("a string holds a lone surrogate escape (RFC 7493 section 2.1)") }
                return scalar
            }
            guard let scalar = Unicode.Scalar(unit) else {
                throw fault("a string holds a lone surrogate escape (RFC 7493 section 2.1)")
            }
            return scalar
        default:
            throw fault("a string holds an unknown escape")
        }
    }

    private mutating func hex4() throws(Fault) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek else { throw fault("a \\u escape needs four hex digits") }
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - 0x30)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - 0x61 + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - 0x41 + 10)
            default: throw fault("a \\u escape needs four hex digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }
}
