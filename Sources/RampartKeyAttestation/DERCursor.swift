import RampartX509

/// Reads the children of a constructed element in grammar order, for the KeyDescription's structures; the bytes
/// themselves were already read by RampartASN1's strict DER reader.
struct DERCursor {
    private let children: [ASN1Node]
    private var index = 0
    private let what: String

    init(_ node: ASN1Node, _ what: String) {
        self.children = node.children
        self.what = what
    }

    var isAtEnd: Bool { index >= children.count }

    /// The next element, which must have `identifier`.
    mutating func next(_ identifier: ASN1Identifier, _ element: String) throws -> ASN1Node {
        guard index < children.count else {
            throw KeyAttestationError.malformedKeyDescription("\(what) ends before its \(element)")
        }
        let node = children[index]
        index += 1
        guard node.identifier == identifier else {
            throw KeyAttestationError.malformedKeyDescription(
                "the \(element) of \(what) should be a \(identifier) but is a \(node.identifier)")
        }
        return node
    }

    /// The next element if it has `identifier` (an OPTIONAL component), else nil.
    mutating func optional(_ identifier: ASN1Identifier) -> ASN1Node? {
        guard index < children.count, children[index].identifier == identifier else { return nil }
        index += 1
        return children[index - 1]
    }

    /// Fails if any element is left.
    func finish() throws {
        guard index >= children.count else {
            throw KeyAttestationError.malformedKeyDescription(
                "\(what) has \(children.count - index) unexpected trailing elements")
        }
    }
}

/// Value readers shared by the KeyDescription's structures; each names what it read in its error.
enum DERValue {
    /// Parses one strict DER element spanning `bytes`, turning RampartASN1's errors into KeyDescription errors.
    static func parse(_ bytes: [UInt8], _ what: String) throws -> ASN1Node {
        do {
            return try DER.parse(bytes)
        } catch let error as ASN1Error where error.code == .limitExceeded {
            throw KeyAttestationError.limitExceeded("\(what): \(error.reason)")
        } catch let error as ASN1Error {
            throw KeyAttestationError.malformedKeyDescription("\(what) is not strict DER: \(error.reason)")
        }
    }

    /// An INTEGER or ENUMERATED (by `identifier`) that fits in 64 bits, two's complement.
    static func int64(_ node: ASN1Node, _ what: String, identifier: ASN1Identifier = .integer) throws -> Int64 {
        guard node.identifier == identifier else {
            throw KeyAttestationError.malformedKeyDescription(
                "\(what) should be an \(identifier) but is a \(node.identifier)")
        }
        let content = node.contentSlice
        guard let first = content.first, content.count <= 8 else {
            throw KeyAttestationError.limitExceeded("\(what) does not fit in 64 bits")
        }
        var value = Int64(Int8(bitPattern: first))
        for byte in content.dropFirst() { value = value << 8 | Int64(byte) }
        return value
    }

    /// A non-negative INTEGER that fits in 64 bits unsigned (a user secure id).
    static func uint64(_ node: ASN1Node, _ what: String) throws -> UInt64 {
        guard node.identifier == .integer else {
            throw KeyAttestationError.malformedKeyDescription(
                "\(what) should be an INTEGER but is a \(node.identifier)")
        }
        let content = node.contentSlice
        guard let first = content.first, first & 0x80 == 0 else {
            throw KeyAttestationError.malformedKeyDescription("\(what) is negative")
        }
        // DER keeps a leading zero octet only before a set top bit, so the magnitude follows it.
        let magnitude = first == 0 ? content.dropFirst() : content
        guard magnitude.count <= 8 else { throw KeyAttestationError.limitExceeded("\(what) does not fit in 64 bits") }
        return magnitude.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The contents of an OCTET STRING, at most `limit` bytes.
    static func octets(_ node: ASN1Node, _ what: String, limit: Int) throws -> [UInt8] {
        guard node.identifier == .octetString else {
            throw KeyAttestationError.malformedKeyDescription(
                "\(what) should be an OCTET STRING but is a \(node.identifier)")
        }
        guard node.contentSlice.count <= limit else {
            throw KeyAttestationError.limitExceeded("\(what) is longer than \(limit) bytes")
        }
        return node.contentBytes
    }

    /// The contents of an OCTET STRING that holds UTF-8 text (package names, device identifiers).
    static func text(_ node: ASN1Node, _ what: String, limit: Int) throws -> String {
        let bytes = try octets(node, what, limit: limit)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw KeyAttestationError.malformedKeyDescription("\(what) is not valid UTF-8")
        }
        return text
    }

    /// The value of a BOOLEAN (DER: 0x00 or 0xFF, checked by the reader).
    static func boolean(_ node: ASN1Node, _ what: String) throws -> Bool {
        guard node.identifier == .boolean else {
            throw KeyAttestationError.malformedKeyDescription(
                "\(what) should be a BOOLEAN but is a \(node.identifier)")
        }
        return node.contentSlice.first == 0xFF
    }
}

extension DERWriter {
    /// Appends an INTEGER of a signed 64-bit value in the minimum number of octets.
    mutating func appendInt64(_ value: Int64) {
        appendInteger(Int(value))
    }

    /// Appends an ENUMERATED in the minimum number of octets.
    mutating func appendEnumerated(_ value: Int) {
        var content = withUnsafeBytes(of: value.bigEndian) { Array($0) }
        while content.count > 1,
            (content[0] == 0 && content[1] & 0x80 == 0) || (content[0] == 0xFF && content[1] & 0x80 != 0)
        {
            content.removeFirst()
        }
        appendTLV(.enumerated, content: content)
    }
}
