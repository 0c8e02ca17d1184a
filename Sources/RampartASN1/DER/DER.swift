/// Strict Distinguished Encoding Rules (ITU-T X.690 clause 10): the reader.
///
/// ``DER/parse(_:)-([UInt8])`` turns bytes into a tree of ``ASN1Node`` values and refuses anything that BER allows
/// but DER does not, so that every value has exactly one encoding and signatures over re-encodings cannot differ
/// from signatures over what was received:
///
/// - the indefinite length form (X.690 10.1: "The definite form of length encoding shall be used"), and with it the
///   end-of-contents octets (8.1.5);
/// - lengths not "encoded in the minimum number of octets" (10.1), including the long form for lengths below 128
///   and the reserved initial length octet `0xFF` (8.1.3.5 c);
/// - tag numbers 0–30 in the high-tag-number form (8.1.2.2 requires a single identifier octet for them) and
///   high-tag-number forms whose first subsequent octet has bits 7–1 all zero (8.1.2.4.2 c);
/// - constructed encodings of primitive types (10.2: "the constructed form of encoding shall not be used" for
///   string types; BOOLEAN, INTEGER, NULL, OBJECT IDENTIFIER are always primitive, 8.2.1, 8.3.1, 8.8.1, 8.19.1),
///   and primitive encodings of SEQUENCE and SET (8.9.1, 8.11.1);
/// - BOOLEAN values other than `0x00` and `0xFF` (8.2.1, 11.1);
/// - INTEGER and ENUMERATED contents that are empty or whose first nine bits are all zeros or all ones (8.3.1, 8.3.2,
///   8.4);
/// - BIT STRINGs with more than seven unused bits, unused bits in an empty string, or unused bits that are not zero
///   (8.6.2.2, 8.6.2.3, 11.2.1);
/// - NULL with contents (8.8.2);
/// - OBJECT IDENTIFIERs that are empty, end inside a subidentifier, or pad a subidentifier with a leading `0x80`
///   octet (8.19.2);
/// - any byte after the outermost element.
///
/// - Important: The reader does not check that SET OF components are sorted (X.690 11.6); certificate names are read
///   in the order received, as OpenSSL does.
public enum DER {
    /// The DoS bounds and the few profile choices that differ between the inputs Rampart reads.
    ///
    /// Every rule listed on ``DER`` applies to both settings; ``key`` is stricter than ``certificate`` where keys
    /// never need what certificates may carry.
    public struct Limits: Hashable, Sendable {
        /// The deepest nesting accepted (DoS bound: recursion depth).
        public let maximumDepth: Int
        /// The largest input accepted, in bytes (DoS bound: memory).
        public let maximumInputByteCount: Int
        /// Whether tag numbers above 30 (the high-tag-number form, X.690 8.1.2.4) are accepted. Certificates from
        /// the field carry them (Android's Key Attestation extension has context tags such as `[701]`); keys never do.
        public let allowsHighTagNumbers: Bool
        /// Whether EXTERNAL, EMBEDDED PDV and CHARACTER STRING (universal 8, 11, 29, always constructed) are
        /// accepted; with `false` the only constructed universal types are SEQUENCE and SET, which is all keys use.
        public let allowsOtherConstructedUniversalTypes: Bool

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - maximumDepth: The deepest nesting accepted.
        ///   - maximumInputByteCount: The largest input accepted, in bytes.
        ///   - allowsHighTagNumbers: Whether tag numbers above 30 are accepted.
        ///   - allowsOtherConstructedUniversalTypes: Whether universal 8, 11 and 29 are accepted.
        public init(
            maximumDepth: Int, maximumInputByteCount: Int, allowsHighTagNumbers: Bool,
            allowsOtherConstructedUniversalTypes: Bool
        ) {
            self.maximumDepth = maximumDepth
            self.maximumInputByteCount = maximumInputByteCount
            self.allowsHighTagNumbers = allowsHighTagNumbers
            self.allowsOtherConstructedUniversalTypes = allowsOtherConstructedUniversalTypes
        }

        /// Certificates and what they carry: 50 levels (a certificate nests about 10 deep), 4 MiB (certificates are
        /// a few kilobytes), high tag numbers and every constructed universal type accepted.
        public static let certificate = Limits(
            maximumDepth: 50, maximumInputByteCount: 4 << 20, allowsHighTagNumbers: true,
            allowsOtherConstructedUniversalTypes: true)

        /// Keys and signatures (SubjectPublicKeyInfo, PKCS#8, ECDSA-Sig-Value): 16 levels (SubjectPublicKeyInfo with
        /// explicit EC parameters nests 5 deep), 1 MiB, low tag numbers only, only SEQUENCE and SET constructed.
        public static let key = Limits(
            maximumDepth: 16, maximumInputByteCount: 1 << 20, allowsHighTagNumbers: false,
            allowsOtherConstructedUniversalTypes: false)
    }

    /// The deepest nesting ``Limits/certificate`` accepts.
    public static var maximumDepth: Int { Limits.certificate.maximumDepth }
    /// The largest input ``Limits/certificate`` accepts, in bytes.
    public static var maximumInputByteCount: Int { Limits.certificate.maximumInputByteCount }
    /// The most octets a long-form length may use. Four octets already exceed any input size limit.
    static let maximumLengthOctetCount = 4
    /// The most octets a high-tag-number identifier may use after the first (tag numbers fit in 32 bits).
    static let maximumTagOctetCount = 5

    /// Parses exactly one DER element that spans all of `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: The encoding.
    ///   - limits: The bounds and profile; certificates' by default.
    /// - Returns: The element, with its nested elements parsed.
    /// - Throws: ``ASN1Error`` with code `invalidDER` for anything that is not strict DER (including trailing bytes)
    ///   or that `limits` refuses, or `limitExceeded` when the input is larger or nests deeper than `limits` allow.
    public static func parse(_ bytes: [UInt8], limits: Limits = .certificate) throws -> ASN1Node {
        try parse(bytes[...], limits: limits)
    }

    /// Parses exactly one DER element that spans all of `bytes`; the nodes share the slice's storage.
    ///
    /// - Parameters:
    ///   - bytes: The encoding.
    ///   - limits: The bounds and profile; certificates' by default.
    /// - Returns: The element, with its nested elements parsed.
    /// - Throws: ``ASN1Error`` with code `invalidDER` or `limitExceeded`, as ``DER/parse(_:limits:)-([UInt8],_)``.
    public static func parse(_ bytes: ArraySlice<UInt8>, limits: Limits = .certificate) throws -> ASN1Node {
        guard bytes.count <= limits.maximumInputByteCount else {
            throw ASN1Error.limitExceeded("the DER input is larger than \(limits.maximumInputByteCount) bytes")
        }
        var reader = DERReader(bytes, limits: limits)
        let node = try reader.readNode(depth: 1)
        guard reader.isAtEnd else {
            throw ASN1Error.invalidDER("\(reader.remaining) trailing bytes after the DER element")
        }
        return node
    }
}

/// Reads DER elements from a slice, one after another, never reading outside it.
package struct DERReader {
    private let bytes: ArraySlice<UInt8>
    private let limits: DER.Limits
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>, limits: DER.Limits) {
        self.bytes = bytes
        self.limits = limits
        self.position = bytes.startIndex
    }

    var isAtEnd: Bool { position >= bytes.endIndex }
    var remaining: Int { bytes.endIndex - position }

    private mutating func readByte(_ what: String) throws -> UInt8 {
        guard position < bytes.endIndex else { throw ASN1Error.invalidDER("the input ends inside \(what)") }
        let byte = bytes[position]
        position += 1
        return byte
    }

    mutating func readNode(depth: Int) throws -> ASN1Node {
        guard depth <= limits.maximumDepth else {
            throw ASN1Error.limitExceeded("DER elements nest deeper than \(limits.maximumDepth) levels")
        }
        let start = position
        let identifier = try readIdentifier()
        let length = try readLength()
        guard length <= remaining else {
            throw ASN1Error.invalidDER("a \(identifier) claims \(length) content bytes but only \(remaining) remain")
        }
        let content = bytes[position..<(position + length)]
        position += length
        let encoded = bytes[start..<position]
        try checkForm(identifier)
        if identifier.isConstructed {
            var inner = DERReader(content, limits: limits)
            var children: [ASN1Node] = []
            while !inner.isAtEnd {
                children.append(try inner.readNode(depth: depth + 1))
            }
            return ASN1Node(
                identifier: identifier, encodedSlice: encoded, contentStart: content.startIndex, children: children)
        }
        try Self.checkPrimitiveContent(identifier, content)
        return ASN1Node(identifier: identifier, encodedSlice: encoded, contentStart: content.startIndex, children: [])
    }

    /// X.690 8.1.2: identifier octets.
    private mutating func readIdentifier() throws -> ASN1Identifier {
        let first = try readByte("an identifier")
        let tagClass = ASN1Identifier.TagClass(rawValue: first >> 6) ?? .universal
        let isConstructed = first & 0x20 != 0
        var number = UInt32(first & 0x1F)
        if number == 0x1F {
            guard limits.allowsHighTagNumbers else {
                throw ASN1Error.invalidDER("a high-tag-number identifier (X.690 8.1.2.4), which keys never use")
            }
            // 8.1.2.4: high-tag-number form, base 128, bit 8 set on every octet but the last.
            number = 0
            var octetCount = 0
            while true {
                let octet = try readByte("a high tag number")
                octetCount += 1
                if octetCount == 1, octet == 0x80 {
                    throw ASN1Error.invalidDER("a high tag number is padded with a leading 0x80 (X.690 8.1.2.4.2 c)")
                }
                guard octetCount <= DER.maximumTagOctetCount, number <= UInt32.max >> 7 else {
                    throw ASN1Error.invalidDER("a tag number does not fit in 32 bits")
                }
                number = number << 7 | UInt32(octet & 0x7F)
                if octet & 0x80 == 0 { break }
            }
            guard number > 30 else {
                throw ASN1Error.invalidDER("tag number \(number) uses the high-tag-number form (X.690 8.1.2.2)")
            }
        }
        if tagClass == .universal, number == 0 {
            throw ASN1Error.invalidDER("end-of-contents octets appear, but DER has no indefinite lengths (X.690 10.1)")
        }
        return ASN1Identifier(tagClass: tagClass, tagNumber: number, isConstructed: isConstructed)
    }

    /// X.690 8.1.3 and 10.1: definite length, minimum number of octets.
    private mutating func readLength() throws -> Int {
        let first = try readByte("a length")
        if first < 0x80 { return Int(first) }
        if first == 0x80 {
            throw ASN1Error.invalidDER("indefinite length form; DER requires definite lengths (X.690 10.1)")
        }
        if first == 0xFF { throw ASN1Error.invalidDER("the reserved length octet 0xFF (X.690 8.1.3.5 c)") }
        let octetCount = Int(first & 0x7F)
        guard octetCount <= DER.maximumLengthOctetCount else {
            throw ASN1Error.invalidDER("a length of \(octetCount) octets exceeds any input Rampart accepts")
        }
        var length = 0
        for index in 0..<octetCount {
            let octet = try readByte("a length")
            if index == 0, octet == 0 {
                throw ASN1Error.invalidDER("a long-form length has a leading zero octet (X.690 10.1)")
            }
            length = length << 8 | Int(octet)
        }
        guard length >= 0x80 else {
            throw ASN1Error.invalidDER("the long form encodes length \(length), which fits the short form (X.690 10.1)")
        }
        return length
    }

    private func checkForm(_ identifier: ASN1Identifier) throws {
        guard identifier.tagClass == .universal else { return }
        // EXTERNAL (8), EMBEDDED PDV (11), SEQUENCE (16), SET (17) and CHARACTER STRING (29) are always constructed.
        let mustBeConstructed: Bool =
            switch identifier.tagNumber {
            case 8, 11, 16, 17, 29: true
            default: false
            }
        if mustBeConstructed, !identifier.isConstructed {
            throw ASN1Error.invalidDER("a \(identifier) uses the primitive form (X.690 8.9.1, 8.11.1)")
        }
        if mustBeConstructed, !limits.allowsOtherConstructedUniversalTypes, identifier.tagNumber != 16,
            identifier.tagNumber != 17
        {
            throw ASN1Error.invalidDER(
                "universal type \(identifier.tagNumber) is constructed; here only SEQUENCE and SET may be (X.690 10.2)")
        }
        if !mustBeConstructed, identifier.isConstructed {
            throw ASN1Error.invalidDER(
                "universal type \(identifier.tagNumber) uses the constructed form, which DER forbids (X.690 10.2)")
        }
    }

    private static func checkPrimitiveContent(_ identifier: ASN1Identifier, _ content: ArraySlice<UInt8>) throws {
        guard identifier.tagClass == .universal else { return }
        switch identifier.tagNumber {
        case 1:
            guard content.count == 1, let value = content.first, value == 0 || value == 0xFF else {
                throw ASN1Error.invalidDER("a BOOLEAN must be one octet, 0x00 or 0xFF (X.690 8.2.1, 11.1)")
            }
        case 2, 10:
            try checkMinimalInteger(content)
        case 3:
            guard let unused = content.first, unused <= 7 else {
                throw ASN1Error.invalidDER("a BIT STRING needs an unused-bits octet of 0 to 7 (X.690 8.6.2.2)")
            }
            if content.count == 1, unused != 0 {
                throw ASN1Error.invalidDER("an empty BIT STRING declares unused bits (X.690 8.6.2.3)")
            }
            if let last = content.last, content.count > 1, last & ((1 << unused) - 1) != 0 {
                throw ASN1Error.invalidDER("the unused bits of a BIT STRING are not zero (X.690 11.2.1)")
            }
        case 5:
            guard content.isEmpty else { throw ASN1Error.invalidDER("NULL has contents (X.690 8.8.2)") }
        case 6:
            try ASN1ObjectIdentifier.validate(content)
        default:
            break
        }
    }

    /// X.690 8.3.2: "the bits of the first octet and bit 8 of the second octet shall not all be ones; and shall not
    /// all be zero".
    package static func checkMinimalInteger(_ content: ArraySlice<UInt8>) throws {
        guard let first = content.first else {
            throw ASN1Error.invalidDER("an INTEGER has no content octets (X.690 8.3.1)")
        }
        guard content.count > 1 else { return }
        let second = content[content.startIndex + 1]
        if (first == 0 && second & 0x80 == 0) || (first == 0xFF && second & 0x80 != 0) {
            throw ASN1Error.invalidDER("an INTEGER is not encoded in the minimum number of octets (X.690 8.3.2)")
        }
    }
}
