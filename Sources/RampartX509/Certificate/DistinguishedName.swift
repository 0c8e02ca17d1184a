public import RampartASN1

/// An X.501 Name: the issuer or subject of a certificate.
///
/// RFC 5280 section 4.1.2.4:
/// ```
/// Name ::= CHOICE { -- only one possibility for now --
///   rdnSequence  RDNSequence }
/// RDNSequence ::= SEQUENCE OF RelativeDistinguishedName
/// RelativeDistinguishedName ::= SET SIZE (1..MAX) OF AttributeTypeAndValue
/// AttributeTypeAndValue ::= SEQUENCE { type AttributeType, value AttributeValue }
/// AttributeValue ::= ANY -- DEFINED BY AttributeType
/// ```
///
/// ``description`` prints the name the way `openssl x509 -noout -subject -nameopt oneline,-space_eq` does on
/// OpenSSL 3 (the form `openssl s_client` shows in its chain), for example `C=GB, O=Sectigo Limited, CN=...`.
/// See ``description`` for the exact rules.
public struct DistinguishedName {
    /// The most attributes one name may hold (DoS bound; real names hold fewer than 20).
    public static let maximumAttributeCount = 128

    /// The relative distinguished names, in encoded order (for certificates, usually country first).
    public let relativeNames: [RelativeDistinguishedName]
    /// The DER encoding of the Name: as received when parsed, as written when built.
    public let derBytes: [UInt8]

    /// Builds a name from relative distinguished names, encoding each as a DER SET OF (components sorted, X.690 11.6).
    ///
    /// - Parameter relativeNames: The RDNs, in order; each must hold at least one attribute.
    /// - Throws: ``X509Error`` with code `invalidCertificate` for an empty RDN.
    public init(_ relativeNames: [RelativeDistinguishedName]) throws {
        do {
            var writer = DERWriter()
            try writer.appendSequence { sequence in
                for relativeName in relativeNames {
                    guard !relativeName.attributes.isEmpty else {
                        throw X509Error.invalidCertificate(
                            "a relative distinguished name must hold at least one attribute")
                    }
                    sequence.appendSetOf(relativeName.attributes.map(\.derBytes))
                }
            }
            // Re-read what was written so the stored RDNs are in encoded (sorted) order, as a parsed name's would be.
            self = try DistinguishedName(node: DER.parse(writer.bytes))
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// Builds a name with one attribute per RDN, in order, e.g. `[.init(.countryName, "GB"), .init(.commonName, "x")]`.
    ///
    /// - Parameter attributes: The attributes.
    /// - Throws: ``X509Error`` only on internal encoding failure.
    public init(attributes: [Attribute]) throws {
        do {
            try self.init(attributes.map { RelativeDistinguishedName([$0]) })
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// Parses a DER Name.
    ///
    /// - Parameter derEncoded: The DER.
    /// - Throws: ``X509Error`` (`invalidDER`, `invalidCertificate`, `limitExceeded`).
    public init(derEncoded: [UInt8]) throws {
        do {
            try self.init(node: DER.parse(derEncoded))
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    init(node: ASN1Node) throws {
        try node.expect(.sequence, "a Name")
        var relativeNames: [RelativeDistinguishedName] = []
        var attributeCount = 0
        for set in node.children {
            try set.expect(.set, "a RelativeDistinguishedName")
            guard !set.children.isEmpty else {
                throw X509Error.invalidCertificate("a RelativeDistinguishedName is an empty SET (RFC 5280 4.1.2.4)")
            }
            attributeCount += set.children.count
            guard attributeCount <= Self.maximumAttributeCount else {
                throw X509Error.limitExceeded("a name holds more than \(Self.maximumAttributeCount) attributes")
            }
            relativeNames.append(RelativeDistinguishedName(try set.children.map(Attribute.init(node:))))
        }
        self.relativeNames = relativeNames
        self.derBytes = node.encodedBytes
    }

    /// The value of the last common name (CN), the most specific one, or nil.
    public var commonName: String? {
        relativeNames.flatMap(\.attributes).last { $0.type == .NameAttribute.commonName }?.stringValue
    }

    /// One relative distinguished name: a SET of attributes (more than one for a multi-valued RDN such as
    /// `OU=x + O=y`).
    public struct RelativeDistinguishedName: Hashable {
        /// The attributes, in encoded order.
        public let attributes: [Attribute]

        /// Creates an RDN.
        ///
        /// - Parameter attributes: The attributes; encoding sorts them (X.690 11.6).
        public init(_ attributes: [Attribute]) { self.attributes = attributes }
    }

    /// One `AttributeTypeAndValue`.
    public struct Attribute: Hashable {
        /// The attribute type, e.g. ``ASN1ObjectIdentifier/NameAttribute/commonName``.
        public let type: ASN1ObjectIdentifier
        /// The identifier of the value element (UTF8String, PrintableString, …).
        public let valueIdentifier: ASN1Identifier
        /// The content octets of the value element.
        public let valueContent: [UInt8]

        /// An attribute whose value is a UTF8String, or a PrintableString for country names (RFC 5280 appendix A
        /// requires PrintableString for `countryName`).
        ///
        /// - Parameters:
        ///   - type: The attribute type.
        ///   - value: The text.
        public init(_ type: ASN1ObjectIdentifier, _ value: String) {
            self.type = type
            self.valueIdentifier = type == .NameAttribute.countryName ? .printableString : .utf8String
            self.valueContent = Array(value.utf8)
        }

        /// An attribute with an explicit value type.
        ///
        /// - Parameters:
        ///   - type: The attribute type.
        ///   - valueIdentifier: The value's identifier, e.g. ``ASN1Identifier/ia5String``.
        ///   - valueContent: The value's content octets.
        public init(type: ASN1ObjectIdentifier, valueIdentifier: ASN1Identifier, valueContent: [UInt8]) {
            self.type = type
            self.valueIdentifier = valueIdentifier
            self.valueContent = valueContent
        }

        init(node: ASN1Node) throws {
            try node.expect(.sequence, "an AttributeTypeAndValue")
            var reader = ASN1ChildReader(node, "an AttributeTypeAndValue")
            self.type = try reader.next(.objectIdentifier, "type").objectIdentifierValue()
            let value = try reader.next("value")
            try reader.finish()
            guard value.identifier.tagClass == .universal else {
                throw X509Error.invalidCertificate("a name attribute value is not a universal ASN.1 type")
            }
            self.valueIdentifier = value.identifier
            self.valueContent = value.contentBytes
            guard Self.isWellFormed(valueIdentifier, value.contentSlice) else {
                throw X509Error.invalidCertificate("the \(valueIdentifier) value of a \(type) attribute is malformed")
            }
        }

        /// The DER of the whole `AttributeTypeAndValue`.
        var derBytes: [UInt8] {
            var writer = DERWriter()
            writer.appendSequence { sequence in
                sequence.appendObjectIdentifier(type)
                sequence.appendTLV(valueIdentifier, content: valueContent)
            }
            return writer.bytes
        }

        /// The value as text for the string types, or nil for other types.
        ///
        /// One-octet types (PrintableString, IA5String, TeletexString, …) are read as ISO 8859-1 code points, as
        /// OpenSSL does.
        public var stringValue: String? {
            guard let points = Self.codePoints(valueIdentifier, valueContent) else { return nil }
            var text = String.UnicodeScalarView()
            for point in points {
                guard let scalar = Unicode.Scalar(point) else { return nil }
                text.append(scalar)
            }
            return String(text)
        }

        /// Octets per character for the string types OpenSSL prints (`tag2nbyte` in OpenSSL's a_strex.c);
        /// 0 for UTF-8; nil for types it dumps in hex.
        static func width(of identifier: ASN1Identifier) -> Int? {
            guard identifier.tagClass == .universal, !identifier.isConstructed else { return nil }
            switch identifier.tagNumber {
            case 12: return 0
            case 18, 19, 20, 22, 23, 24, 26: return 1
            case 28: return 4
            case 30: return 2
            default: return nil
            }
        }

        /// Whether a value of a string type is well formed (what ``codePoints(_:_:)`` checks, without allocating);
        /// true for the types that are printed in hex.
        static func isWellFormed(_ identifier: ASN1Identifier, _ content: ArraySlice<UInt8>) -> Bool {
            switch width(of: identifier) {
            case 0:
                var decoder = UTF8()
                var iterator = content.makeIterator()
                while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue: continue
                    case .emptyInput: return true
                    case .error: return false
                    }
                }
            case let width? where width == 2 || width == 4:
                guard content.count % width == 0 else { return false }
                var index = content.startIndex
                while index < content.endIndex {
                    var point: UInt32 = 0
                    for offset in 0..<width { point = point << 8 | UInt32(content[index + offset]) }
                    guard point <= 0x10_FFFF, !(0xD800...0xDFFF).contains(point) else { return false }
                    index += width
                }
                return true
            default:
                return true
            }
        }

        /// The code points of a string value, or nil for non-string types and malformed strings (invalid UTF-8,
        /// a BMPString of odd length or a UniversalString whose length is not a multiple of four, surrogates).
        static func codePoints(_ identifier: ASN1Identifier, _ content: [UInt8]) -> [UInt32]? {
            switch width(of: identifier) {
            case 0:
                var points: [UInt32] = []
                var decoder = UTF8()
                var iterator = content.makeIterator()
                while true {
                    switch decoder.decode(&iterator) {
                    case .scalarValue(let scalar): points.append(scalar.value)
                    case .emptyInput: return points
                    case .error: return nil
                    }
                }
            case 1:
                return content.map(UInt32.init)
            case let width? where width == 2 || width == 4:
                guard content.count % width == 0 else { return nil }
                var points: [UInt32] = []
                var index = 0
                while index < content.count {
                    var point: UInt32 = 0
                    for offset in 0..<width { point = point << 8 | UInt32(content[index + offset]) }
                    guard point <= 0x10_FFFF, !(0xD800...0xDFFF).contains(point) else { return nil }
                    points.append(point)
                    index += width
                }
                return points
            default:
                return nil
            }
        }
    }
}

extension DistinguishedName: Hashable {
    /// Names are equal when their DER encodings are.
    public static func == (lhs: DistinguishedName, rhs: DistinguishedName) -> Bool { lhs.derBytes == rhs.derBytes }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

extension DistinguishedName: CustomStringConvertible {
    /// The name as `openssl x509 -noout -subject -nameopt oneline,-space_eq` prints it on OpenSSL 3.
    ///
    /// The rules, from OpenSSL's `X509_NAME_print_ex` with `XN_FLAG_ONELINE & ~XN_FLAG_SPC_EQ`:
    /// - RDNs in encoded order joined by `, `; the attributes of a multi-valued RDN joined by ` + `;
    /// - each attribute as `SHORTNAME=value`, with OpenSSL's short name (`C`, `O`, `CN`, `emailAddress`, …) or the
    ///   dotted OID when OpenSSL has no name for it;
    /// - string values converted to UTF-8, then every octet above 0x7F and every control character printed as
    ///   `\XX` (upper-case hex), `"` and `\` preceded by a backslash;
    /// - the whole value in double quotes when it holds `,` `+` `;` `<` `>`, starts with `#` or a space, or ends
    ///   with a space (RFC 2253 specials, quoted rather than escaped);
    /// - values of non-string types as `#` and the upper-case hex of their DER.
    public var description: String {
        relativeNames.map { relativeName in
            relativeName.attributes.map { attribute in
                let name = ObjectNames.shortName(for: attribute.type) ?? attribute.type.dottedString
                return name + "=" + Self.printedValue(attribute)
            }.joined(separator: " + ")
        }.joined(separator: ", ")
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    private static func printedValue(_ attribute: Attribute) -> String {
        guard let width = Attribute.width(of: attribute.valueIdentifier) else {
            var writer = DERWriter()
            writer.appendTLV(attribute.valueIdentifier, content: attribute.valueContent)
            var text: [UInt8] = [UInt8(ascii: "#")]
            for byte in writer.bytes {
                text.append(hexDigits[Int(byte >> 4)])
                text.append(hexDigits[Int(byte & 0xF)])
            }
            return String(decoding: text, as: UTF8.self)
        }
        // OpenSSL prints a UTF8String octet by octet (it asks for UTF-8 output, which it already is) and converts
        // the other types' characters to UTF-8 first; either way it escapes octets, not characters.
        var octets: [(UInt8, isFirst: Bool, isLast: Bool)] = []
        if width == 0 {
            for (index, byte) in attribute.valueContent.enumerated() {
                octets.append((byte, index == 0, index == attribute.valueContent.count - 1))
            }
        } else {
            let points = Attribute.codePoints(attribute.valueIdentifier, attribute.valueContent) ?? []
            for (index, point) in points.enumerated() {
                let scalar = Unicode.Scalar(point) ?? "?"
                let encoded = Array(String(Character(scalar)).utf8)
                for byte in encoded {
                    octets.append((byte, index == 0, index == points.count - 1))
                }
            }
        }
        var quoted = false
        var text: [UInt8] = []
        for (byte, isFirst, isLast) in octets {
            switch byte {
            case 0x00...0x1F, 0x7F...0xFF:
                text += [UInt8(ascii: "\\"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                text += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: ","), UInt8(ascii: "+"), UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: ">"):
                quoted = true
                text.append(byte)
            case UInt8(ascii: " ") where isFirst || isLast:
                quoted = true
                text.append(byte)
            case UInt8(ascii: "#") where isFirst && !isLast:
                // OpenSSL marks a one-character value as "last", not "first", so a lone `#` stays unquoted.
                quoted = true
                text.append(byte)
            default:
                text.append(byte)
            }
        }
        let value = String(decoding: text, as: UTF8.self)
        return quoted ? "\"" + value + "\"" : value
    }
}

extension DistinguishedName: Sendable {}

extension DistinguishedName.RelativeDistinguishedName: Sendable {}

extension DistinguishedName.Attribute: Sendable {}
