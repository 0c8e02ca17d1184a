/// One parsed DER element: its identifier, its contents and, when constructed, the elements nested in it.
///
/// Nodes share the storage of the bytes they were parsed from; ``encodedBytes`` are exactly the bytes received
/// (identifier, length and contents), so hashes and signatures can be checked over them without re-encoding.
public struct ASN1Node: Hashable {
    /// The tag class, number and form.
    public let identifier: ASN1Identifier
    /// The whole element as received (a slice of the parsed input; its indices are the input's).
    public let encodedSlice: ArraySlice<UInt8>
    /// Where the content octets start in ``encodedSlice`` (an index of the parsed input).
    private let contentStart: Int
    /// The nested elements of a constructed element, in order; empty for a primitive one.
    public let children: [ASN1Node]

    init(
        identifier: ASN1Identifier,
        encodedSlice: ArraySlice<UInt8>,
        contentStart: Int,
        children: [ASN1Node]
    ) {
        self.identifier = identifier
        self.encodedSlice = encodedSlice
        self.contentStart = contentStart
        self.children = children
    }

    /// The content octets (a slice of the parsed input; its indices are the input's).
    public var contentSlice: ArraySlice<UInt8> { encodedSlice[contentStart..<encodedSlice.endIndex] }

    /// The whole element (identifier, length, contents) exactly as received.
    public var encodedBytes: [UInt8] { Array(encodedSlice) }

    /// The content octets.
    public var contentBytes: [UInt8] { Array(contentSlice) }

    /// Writes this element again from its parts: the identifier, then the children (re-encoded recursively) or the
    /// content octets. For strict DER the result equals ``encodedBytes``, which the round-trip tests check.
    ///
    /// - Parameter writer: The writer.
    public func serialize(into writer: inout DERWriter) {
        if identifier.isConstructed {
            writer.appendConstructed(identifier) { inner in
                for child in children { child.serialize(into: &inner) }
            }
        } else {
            writer.appendTLV(identifier, content: contentSlice)
        }
    }

    /// Fails unless this element has the given identifier.
    ///
    /// - Parameters:
    ///   - expected: The identifier the grammar requires here.
    ///   - what: What the element is, for the message (e.g. `the TBSCertificate`).
    /// - Throws: ``ASN1Error`` with code `invalidDER`.
    public func expect(_ expected: ASN1Identifier, _ what: @autoclosure () -> String) throws {
        guard identifier == expected else {
            throw ASN1Error.invalidDER("\(what()) should be a \(expected) but is a \(identifier)")
        }
    }

    /// The content octets of an INTEGER, in two's complement, big-endian, minimal (checked when parsed).
    ///
    /// - Returns: The content octets.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when this is not an INTEGER.
    public func integerBytes() throws -> [UInt8] {
        try expect(.integer, "the value")
        return contentBytes
    }

    /// The value of an INTEGER that fits in an `Int`.
    ///
    /// - Returns: The value.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when this is not an INTEGER, or `limitExceeded` when the value
    ///   does not fit in 64 bits.
    public func integerValue() throws -> Int {
        try expect(.integer, "the value")
        guard contentSlice.count <= 8, let first = contentSlice.first else {
            throw ASN1Error.limitExceeded("an INTEGER is too large for this field")
        }
        var value = Int(Int8(bitPattern: first))
        for byte in contentSlice.dropFirst() {
            value = value << 8 | Int(byte)
        }
        return value
    }

    /// The value of a BOOLEAN.
    ///
    /// - Returns: The value.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when this is not a BOOLEAN.
    public func booleanValue() throws -> Bool {
        try expect(.boolean, "the value")
        return contentSlice.first == 0xFF
    }

    /// The value of an OBJECT IDENTIFIER.
    ///
    /// - Returns: The identifier.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when this is not an OBJECT IDENTIFIER.
    public func objectIdentifierValue() throws -> ASN1ObjectIdentifier {
        try expect(.objectIdentifier, "the value")
        return try ASN1ObjectIdentifier(validatingContent: contentSlice)
    }

    /// The contents of an OCTET STRING.
    ///
    /// - Returns: The octets.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when this is not an OCTET STRING.
    public func octetStringValue() throws -> [UInt8] {
        try expect(.octetString, "the value")
        return contentBytes
    }

    /// The bits of a BIT STRING as octets, and how many trailing bits of the last octet are unused.
    ///
    /// - Returns: The octets (without the leading unused-bits octet) and the unused bit count, 0–7.
    /// - Throws: ``ASN1Error`` with code `invalidDER` when this is not a BIT STRING.
    public func bitStringValue() throws -> (bytes: [UInt8], unusedBitCount: Int) {
        try expect(.bitString, "the value")
        return (Array(contentSlice.dropFirst()), Int(contentSlice.first ?? 0))
    }
}

/// Reads the children of a constructed element in grammar order: required elements, then optional ones, then
/// a check that nothing unexpected is left.
package struct ASN1ChildReader {
    private let children: [ASN1Node]
    private var index = 0
    private let what: String

    package init(_ node: ASN1Node, _ what: String) {
        self.children = node.children
        self.what = what
    }

    package var isAtEnd: Bool { index >= children.count }

    /// The next element, which the grammar requires.
    package mutating func next(_ element: String) throws -> ASN1Node {
        guard index < children.count else { throw ASN1Error.invalidDER("\(what) ends before its \(element)") }
        let node = children[index]
        index += 1
        return node
    }

    /// The next element with identifier `identifier`, which the grammar requires.
    package mutating func next(_ identifier: ASN1Identifier, _ element: String) throws -> ASN1Node {
        let node = try next(element)
        try node.expect(identifier, "the \(element) of \(what)")
        return node
    }

    /// The next element if it has identifier `identifier` (an OPTIONAL or DEFAULT component), else nil.
    package mutating func optional(_ identifier: ASN1Identifier) -> ASN1Node? {
        guard index < children.count, children[index].identifier == identifier else { return nil }
        index += 1
        return children[index - 1]
    }

    /// Fails if any element is left.
    package func finish() throws {
        guard index >= children.count else {
            throw ASN1Error.invalidDER("\(what) has \(children.count - index) unexpected trailing elements")
        }
    }
}

extension ASN1Node: Sendable {}
