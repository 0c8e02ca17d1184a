import RampartCrypto

/// A strict reader for the small XML documents pin configurations come in (Android's `network_security_config.xml`):
/// elements, attributes, text, comments and the XML declaration — nothing that can reach outside the document.
///
/// It implements the subset of XML 1.0 (W3C REC-xml, 5th edition) such files use: `element ::= EmptyElemTag |
/// STag content ETag` (§3.1), attributes in single or double quotes, the five predefined entities and character
/// references (§4.1, §4.6), comments (§2.5) and the declaration (§2.8). A document type declaration, CDATA sections,
/// processing instructions other than the declaration, and any other entity are refused: they are where XML parsers
/// are attacked (entity expansion, external entities), and these files never need them.
struct MiniXML {
    /// One element: its name, attributes in document order, child elements and its own text (entities resolved).
    struct Element: Hashable {
        var name: String
        var attributes: [(name: String, value: String)]
        var children: [Element]
        var text: String

        static func == (lhs: Element, rhs: Element) -> Bool {
            lhs.name == rhs.name && lhs.children == rhs.children && lhs.text == rhs.text
                && lhs.attributes.map(\.name) == rhs.attributes.map(\.name)
                && lhs.attributes.map(\.value) == rhs.attributes.map(\.value)
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(children)
            hasher.combine(text)
        }

        /// The value of the attribute `name`, if present.
        func attribute(_ name: String) -> String? { attributes.first { $0.name == name }?.value }
    }

    /// The deepest nesting accepted (a DoS bound: each level is a recursion).
    static let maximumDepth = 32
    /// The most elements one document may hold (a DoS bound).
    static let maximumElementCount = 10_000

    private let bytes: [UInt8]
    private var offset = 0
    private var elementCount = 0

    /// Parses a whole document: optional BOM, declaration and comments, one root element, trailing whitespace and
    /// comments, nothing else.
    ///
    /// - Parameter bytes: UTF-8 XML.
    /// - Returns: The root element.
    /// - Throws: ``PinningError`` with code `invalidConfiguration` naming the byte offset and the problem.
    static func parse(_ bytes: [UInt8]) throws -> Element {
        guard String(strictUTF8: bytes) != nil else {
            throw PinningError.invalidConfiguration("the XML is not valid UTF-8")
        }
        var parser = MiniXML(bytes: bytes)
        if parser.peek([0xEF, 0xBB, 0xBF]) { parser.offset = 3 }
        if parser.peek(Array("<?xml".utf8)) { try parser.skip(past: Array("?>".utf8), what: "the XML declaration") }
        try parser.skipMisc()
        guard parser.current == UInt8(ascii: "<") else { throw parser.error("expected the root element") }
        let root = try parser.element(depth: 1)
        try parser.skipMisc()
        guard parser.offset == bytes.count else { throw parser.error("unexpected content after the root element") }
        return root
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

    private func peek(_ literal: [UInt8]) -> Bool {
        bytes.count - offset >= literal.count && bytes[offset..<(offset + literal.count)].elementsEqual(literal)
    }

    private func error(_ what: String) -> PinningError {
        .invalidConfiguration("the XML is not well-formed at byte \(offset): \(what)")
    }

    private mutating func skip(past terminator: [UInt8], what: String) throws {
        while offset < bytes.count {
            if peek(terminator) {
                offset += terminator.count
                return
            }
            offset += 1
        }
        throw error("\(what) is not closed")
    }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { offset += 1 }
    }

    /// Whitespace and comments; a DOCTYPE, CDATA or processing instruction is refused.
    private mutating func skipMisc() throws {
        while true {
            skipWhitespace()
            if peek(Array("<!--".utf8)) {
                offset += 4
                try skip(past: Array("-->".utf8), what: "a comment")
            } else if peek(Array("<!".utf8)) || peek(Array("<?".utf8)) {
                throw error("document type declarations, CDATA and processing instructions are not accepted")
            } else {
                return
            }
        }
    }

    private mutating func name() throws -> String {
        let start = offset
        while let byte = current,
            byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: ".") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        {
            offset += 1
        }
        guard offset > start, offset - start <= 128 else { throw error("expected a name") }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    private mutating func element(depth: Int) throws -> Element {
        guard depth <= Self.maximumDepth else {
            throw PinningError.limitExceeded("the XML nests deeper than \(Self.maximumDepth) elements")
        }
        elementCount += 1
        guard elementCount <= Self.maximumElementCount else {
            throw PinningError.limitExceeded("the XML holds more than \(Self.maximumElementCount) elements")
        }
        offset += 1  // <
        var element = Element(name: try name(), attributes: [], children: [], text: "")
        while true {
            skipWhitespace()
            if peek(Array("/>".utf8)) {
                offset += 2
                return element
            }
            if current == UInt8(ascii: ">") {
                offset += 1
                break
            }
            let attribute = try name()
            skipWhitespace()
            guard current == UInt8(ascii: "=") else { throw error("expected = after the attribute \(attribute)") }
            offset += 1
            skipWhitespace()
            guard let quote = current, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
                throw error("an attribute value must be quoted")
            }
            offset += 1
            let value = try characters(until: quote)
            offset += 1
            guard !element.attributes.contains(where: { $0.name == attribute }) else {
                throw error("the attribute \(attribute) appears twice")
            }
            element.attributes.append((attribute, value))
        }
        while true {
            element.text += try characters(until: UInt8(ascii: "<"))
            if peek(Array("</".utf8)) {
                offset += 2
                let closing = try name()
                skipWhitespace()
                guard closing == element.name, current == UInt8(ascii: ">") else {
                    throw error("</\(closing)> does not close <\(element.name)>")
                }
                offset += 1
                return element
            }
            if peek(Array("<!--".utf8)) {
                offset += 4
                try skip(past: Array("-->".utf8), what: "a comment")
                continue
            }
            if peek(Array("<!".utf8)) || peek(Array("<?".utf8)) {
                throw error("CDATA sections and processing instructions are not accepted")
            }
            guard current == UInt8(ascii: "<") else { throw error("<\(element.name)> is not closed") }
            element.children.append(try self.element(depth: depth + 1))
        }
    }

    /// Text up to (not including) `terminator`, with entity and character references resolved.
    private mutating func characters(until terminator: UInt8) throws -> String {
        var scalars = String.UnicodeScalarView()
        var runStart = offset
        func flush(_ parser: MiniXML, _ end: Int) {
            if runStart < end {
                scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while let byte = current, byte != terminator {
            if byte == UInt8(ascii: "<") { throw error("a < inside an attribute value") }
            if byte == UInt8(ascii: "&") {
                flush(self, offset)
                scalars.append(try reference())
                runStart = offset
                continue
            }
            offset += 1
        }
        guard current == terminator else { throw error("the document ends inside text or an attribute") }
        flush(self, offset)
        return String(scalars)
    }

    private mutating func reference() throws -> Unicode.Scalar {
        let start = offset
        while let byte = current, byte != UInt8(ascii: ";"), offset - start < 12 { offset += 1 }
        guard current == UInt8(ascii: ";") else { throw error("an & that does not start a reference") }
        let body = String(decoding: bytes[(start + 1)..<offset], as: UTF8.self)
        offset += 1
        switch body {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let value: UInt32? =
                body.hasPrefix("#x")
                ? UInt32(body.dropFirst(2), radix: 16)
                : body.hasPrefix("#") ? UInt32(body.dropFirst(), radix: 10) : nil
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw error("only &amp; &lt; &gt; &quot; &apos; and character references are accepted")
            }
            return scalar
        }
    }
}
