/// The identifier octets of a BER/DER element: tag class, tag number and whether the encoding is constructed.
///
/// X.690 clause 8.1.2: bits 8–7 of the first identifier octet give the class, bit 6 says whether the element is
/// constructed, and bits 5–1 give the tag number, or `11111` when the number follows in base-128 octets
/// (the high-tag-number form, 8.1.2.4).
public struct ASN1Identifier: Hashable {
    /// The tag class (X.690 8.1.2.2, Table 1).
    public enum TagClass: UInt8, Hashable {
        /// Universal: the types X.680 defines (INTEGER, SEQUENCE, …).
        case universal = 0
        /// Application-specific.
        case application = 1
        /// Context-specific: `[n]` tags inside a SEQUENCE, such as a certificate's `[3] extensions`.
        case contextSpecific = 2
        /// Private.
        case `private` = 3
    }

    /// The tag class.
    public let tagClass: TagClass
    /// The tag number.
    public let tagNumber: UInt32
    /// Whether the contents are a series of nested elements (X.690 8.1.2.5).
    public let isConstructed: Bool

    /// Creates an identifier.
    ///
    /// - Parameters:
    ///   - tagClass: The class.
    ///   - tagNumber: The number.
    ///   - isConstructed: Whether the encoding is constructed.
    public init(tagClass: TagClass, tagNumber: UInt32, isConstructed: Bool) {
        self.tagClass = tagClass
        self.tagNumber = tagNumber
        self.isConstructed = isConstructed
    }

    /// A context-specific identifier, `[number]`.
    ///
    /// - Parameters:
    ///   - number: The tag number.
    ///   - isConstructed: Whether the encoding is constructed (true for EXPLICIT tags).
    /// - Returns: The identifier.
    public static func contextSpecific(_ number: UInt32, isConstructed: Bool) -> ASN1Identifier {
        ASN1Identifier(tagClass: .contextSpecific, tagNumber: number, isConstructed: isConstructed)
    }

    static func universal(_ number: UInt32, constructed: Bool = false) -> ASN1Identifier {
        ASN1Identifier(tagClass: .universal, tagNumber: number, isConstructed: constructed)
    }

    /// BOOLEAN (universal 1).
    public static let boolean = universal(1)
    /// INTEGER (universal 2).
    public static let integer = universal(2)
    /// BIT STRING (universal 3).
    public static let bitString = universal(3)
    /// OCTET STRING (universal 4).
    public static let octetString = universal(4)
    /// NULL (universal 5).
    public static let null = universal(5)
    /// OBJECT IDENTIFIER (universal 6).
    public static let objectIdentifier = universal(6)
    /// ENUMERATED (universal 10).
    public static let enumerated = universal(10)
    /// UTF8String (universal 12).
    public static let utf8String = universal(12)
    /// SEQUENCE and SEQUENCE OF (universal 16, constructed).
    public static let sequence = universal(16, constructed: true)
    /// SET and SET OF (universal 17, constructed).
    public static let set = universal(17, constructed: true)
    /// NumericString (universal 18).
    public static let numericString = universal(18)
    /// PrintableString (universal 19).
    public static let printableString = universal(19)
    /// TeletexString / T61String (universal 20).
    public static let teletexString = universal(20)
    /// IA5String (universal 22).
    public static let ia5String = universal(22)
    /// UTCTime (universal 23).
    public static let utcTime = universal(23)
    /// GeneralizedTime (universal 24).
    public static let generalizedTime = universal(24)
    /// VisibleString (universal 26).
    public static let visibleString = universal(26)
    /// UniversalString (universal 28).
    public static let universalString = universal(28)
    /// BMPString (universal 30).
    public static let bmpString = universal(30)

    /// The identifier octets (X.690 8.1.2), low-tag-number form for numbers up to 30.
    var encoded: [UInt8] {
        let leading = tagClass.rawValue << 6 | (isConstructed ? 0x20 : 0)
        guard tagNumber > 30 else { return [leading | UInt8(tagNumber)] }
        var groups: [UInt8] = []
        var number = tagNumber
        repeat {
            groups.append(UInt8(number & 0x7F))
            number >>= 7
        } while number > 0
        var octets = [leading | 0x1F]
        for (index, group) in groups.reversed().enumerated() {
            octets.append(index == groups.count - 1 ? group : group | 0x80)
        }
        return octets
    }
}

extension ASN1Identifier: CustomStringConvertible {
    /// For example `SEQUENCE`, `INTEGER`, `[3] constructed` or `universal 99`.
    public var description: String {
        switch self {
        case .boolean: return "BOOLEAN"
        case .integer: return "INTEGER"
        case .bitString: return "BIT STRING"
        case .octetString: return "OCTET STRING"
        case .null: return "NULL"
        case .objectIdentifier: return "OBJECT IDENTIFIER"
        case .utf8String: return "UTF8String"
        case .sequence: return "SEQUENCE"
        case .set: return "SET"
        case .printableString: return "PrintableString"
        case .ia5String: return "IA5String"
        case .utcTime: return "UTCTime"
        case .generalizedTime: return "GeneralizedTime"
        default:
            let form = isConstructed ? " constructed" : ""
            switch tagClass {
            case .universal: return "universal \(tagNumber)\(form)"
            case .application: return "[APPLICATION \(tagNumber)]\(form)"
            case .contextSpecific: return "[\(tagNumber)]\(form)"
            case .private: return "[PRIVATE \(tagNumber)]\(form)"
            }
        }
    }
}

extension ASN1Identifier: Sendable {}

extension ASN1Identifier.TagClass: Sendable {}
