import RampartASN1

/// One `GeneralName` (RFC 5280 section 4.2.1.6), as found in subjectAltName and authorityKeyIdentifier.
///
/// ```
/// GeneralName ::= CHOICE {
///      otherName                       [0]     OtherName,
///      rfc822Name                      [1]     IA5String,
///      dNSName                         [2]     IA5String,
///      x400Address                     [3]     ORAddress,
///      directoryName                   [4]     Name,
///      ediPartyName                    [5]     EDIPartyName,
///      uniformResourceIdentifier       [6]     IA5String,
///      iPAddress                       [7]     OCTET STRING,
///      registeredID                    [8]     OBJECT IDENTIFIER }
/// ```
/// The module uses IMPLICIT tagging, except that `directoryName` is explicit because Name is a CHOICE.
public enum GeneralName: Hashable {
    /// `otherName`: the whole `[0]` element, kept as DER.
    case otherName([UInt8])
    /// `rfc822Name`: an email address.
    case rfc822Name(String)
    /// `dNSName`: a host name, possibly with a leading `*.` wildcard label.
    case dnsName(String)
    /// `x400Address`: the whole `[3]` element, kept as DER.
    case x400Address([UInt8])
    /// `directoryName`: a distinguished name.
    case directoryName(DistinguishedName)
    /// `ediPartyName`: the whole `[5]` element, kept as DER.
    case ediPartyName([UInt8])
    /// `uniformResourceIdentifier`.
    case uniformResourceIdentifier(String)
    /// `iPAddress`: 4 octets (IPv4) or 16 (IPv6), network order.
    case ipAddress([UInt8])
    /// `registeredID`.
    case registeredID(ASN1ObjectIdentifier)

    /// The most names one GeneralNames sequence may hold (DoS bound; busy CDN certificates hold a few hundred).
    public static let maximumCount = 1024

    /// Parses one GeneralName.
    ///
    /// - Parameters:
    ///   - node: The element.
    ///   - isSubtreeBase: Whether it is the base of a nameConstraints GeneralSubtree, where an iPAddress is an
    ///     address and a mask: 8 octets (IPv4) or 32 (IPv6) (RFC 5280 4.2.1.10).
    /// - Throws: ``X509Error`` with code `invalidCertificate` for an unknown tag, a non-ASCII string or an iPAddress
    ///   of the wrong length; `invalidDER` for a malformed element.
    init(node: ASN1Node, isSubtreeBase: Bool = false) throws {
        let identifier = node.identifier
        guard identifier.tagClass == .contextSpecific else {
            throw X509Error.invalidCertificate("a GeneralName is a \(identifier), not a context-specific tag")
        }
        switch (identifier.tagNumber, identifier.isConstructed) {
        case (0, true): self = .otherName(node.encodedBytes)
        case (1, false): self = .rfc822Name(try Self.ia5(node, "rfc822Name"))
        case (2, false): self = .dnsName(try Self.ia5(node, "dNSName"))
        case (3, true): self = .x400Address(node.encodedBytes)
        case (4, true):
            guard node.children.count == 1, let name = node.children.first else {
                throw X509Error.invalidCertificate("a directoryName must wrap exactly one Name")
            }
            self = .directoryName(try DistinguishedName(node: name))
        case (5, true): self = .ediPartyName(node.encodedBytes)
        case (6, false): self = .uniformResourceIdentifier(try Self.ia5(node, "uniformResourceIdentifier"))
        case (7, false):
            let lengths = isSubtreeBase ? [8, 32] : [4, 16]
            guard lengths.contains(node.contentSlice.count) else {
                throw X509Error.invalidCertificate(
                    "an iPAddress \(isSubtreeBase ? "subtree" : "name") has \(node.contentSlice.count) octets; it must "
                        + "have \(lengths[0]) or \(lengths[1]) (RFC 5280 \(isSubtreeBase ? "4.2.1.10" : "4.2.1.6"))")
            }
            self = .ipAddress(node.contentBytes)
        case (8, false): self = .registeredID(try ASN1ObjectIdentifier(validatingContent: node.contentSlice))
        default:
            throw X509Error.invalidCertificate("a GeneralName has the unknown or wrongly formed tag \(identifier)")
        }
    }

    /// Parses `GeneralNames ::= SEQUENCE SIZE (1..MAX) OF GeneralName` from its (possibly implicitly tagged) node.
    static func sequence(_ node: ASN1Node, _ what: String) throws -> [GeneralName] {
        guard !node.children.isEmpty else {
            throw X509Error.invalidCertificate("\(what) holds no names; it must hold at least one (RFC 5280 4.2.1.6)")
        }
        guard node.children.count <= maximumCount else {
            throw X509Error.limitExceeded("\(what) holds more than \(maximumCount) names")
        }
        return try node.children.map { try GeneralName(node: $0) }
    }

    private static func ia5(_ node: ASN1Node, _ what: String) throws -> String {
        guard node.contentSlice.allSatisfy({ $0 < 0x80 }) else {
            throw X509Error.invalidCertificate("a \(what) holds a non-ASCII octet; IA5String is ASCII")
        }
        return String(decoding: node.contentSlice, as: UTF8.self)
    }

    /// Writes this name as one element of a GeneralNames sequence.
    ///
    /// - Parameter writer: The writer.
    /// - Throws: ``X509Error`` when a name kept as DER is not one strict DER element.
    func serialize(into writer: inout DERWriter) throws {
        switch self {
        case .otherName(let der), .x400Address(let der), .ediPartyName(let der): try writer.appendRawTLV(der)
        case .rfc822Name(let text): writer.appendImplicit(tag: 1, content: Array(text.utf8))
        case .dnsName(let text): writer.appendImplicit(tag: 2, content: Array(text.utf8))
        case .directoryName(let name): try writer.appendExplicit(tag: 4) { try $0.appendRawTLV(name.derBytes) }
        case .uniformResourceIdentifier(let text): writer.appendImplicit(tag: 6, content: Array(text.utf8))
        case .ipAddress(let octets): writer.appendImplicit(tag: 7, content: octets)
        case .registeredID(let identifier): writer.appendImplicit(tag: 8, content: identifier.derContent)
        }
    }
}

extension GeneralName: Sendable {}
