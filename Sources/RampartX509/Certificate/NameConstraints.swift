public import RampartASN1

/// The nameConstraints extension (RFC 5280 section 4.2.1.10), parsed strictly:
///
/// ```
/// NameConstraints ::= SEQUENCE {
///      permittedSubtrees       [0]     GeneralSubtrees OPTIONAL,
///      excludedSubtrees        [1]     GeneralSubtrees OPTIONAL }
///
/// GeneralSubtrees ::= SEQUENCE SIZE (1..MAX) OF GeneralSubtree
///
/// GeneralSubtree ::= SEQUENCE {
///      base                    GeneralName,
///      minimum         [0]     BaseDistance DEFAULT 0,
///      maximum         [1]     BaseDistance OPTIONAL }
/// ```
///
/// "Conforming CAs MUST NOT issue certificates where name constraints is an empty sequence. That is, either the
/// permittedSubtrees field or the excludedSubtrees field MUST be present." and "Within this profile, the minimum and
/// maximum fields are not used with any name forms, thus, the minimum MUST be zero, and maximum MUST be absent."
/// Each is refused here, as is an empty GeneralSubtrees.
public struct NameConstraints: Hashable {
    /// The permitted subtrees' bases, or nil when absent.
    public let permittedSubtrees: [GeneralName]?
    /// The excluded subtrees' bases, or nil when absent.
    public let excludedSubtrees: [GeneralName]?

    /// Parses the extension's value.
    ///
    /// - Parameter derEncoded: The DER of the NameConstraints SEQUENCE (the contents of `extnValue`).
    /// - Throws: ``X509Error``: `invalidCertificate` for an empty NameConstraints or GeneralSubtrees, a minimum other
    ///   than 0 or a maximum; `invalidDER` or `limitExceeded` as for any GeneralName.
    public init(derEncoded: [UInt8]) throws {
        do {
            let node = try DER.parse(derEncoded)
            try node.expect(.sequence, "NameConstraints")
            var reader = ASN1ChildReader(node, "NameConstraints")
            let permitted = reader.optional(.contextSpecific(0, isConstructed: true))
            let excluded = reader.optional(.contextSpecific(1, isConstructed: true))
            try reader.finish()
            guard permitted != nil || excluded != nil else {
                throw X509Error.invalidCertificate(
                    "nameConstraints is an empty SEQUENCE; permittedSubtrees or excludedSubtrees must be present "
                        + "(RFC 5280 4.2.1.10)")
            }
            permittedSubtrees = try permitted.map { try Self.subtrees($0, "permittedSubtrees") }
            excludedSubtrees = try excluded.map { try Self.subtrees($0, "excludedSubtrees") }
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    private static func subtrees(_ node: ASN1Node, _ what: String) throws -> [GeneralName] {
        guard !node.children.isEmpty else {
            throw X509Error.invalidCertificate(
                "nameConstraints \(what) holds no subtree; GeneralSubtrees is SIZE (1..MAX) (RFC 5280 4.2.1.10)")
        }
        guard node.children.count <= GeneralName.maximumCount else {
            throw X509Error.limitExceeded(
                "nameConstraints \(what) holds more than \(GeneralName.maximumCount) subtrees")
        }
        return try node.children.map { subtree in
            try subtree.expect(.sequence, "a GeneralSubtree")
            var reader = ASN1ChildReader(subtree, "a GeneralSubtree")
            let base = try GeneralName(node: reader.next("base"), isSubtreeBase: true)
            if let minimum = reader.optional(.contextSpecific(0, isConstructed: false)) {
                _ = minimum
                throw X509Error.invalidCertificate(
                    "a GeneralSubtree of \(what) encodes a minimum; it must be the DEFAULT 0, left out "
                        + "(RFC 5280 4.2.1.10, X.690 11.5)")
            }
            if reader.optional(.contextSpecific(1, isConstructed: false)) != nil {
                throw X509Error.invalidCertificate(
                    "a GeneralSubtree of \(what) has a maximum; RFC 5280 4.2.1.10 requires it to be absent")
            }
            try reader.finish()
            return base
        }
    }
}

extension NameConstraints: Sendable {}

/// One AccessDescription of the authorityInfoAccess extension (RFC 5280 section 4.2.2.1):
///
/// ```
/// AuthorityInfoAccessSyntax  ::=
///         SEQUENCE SIZE (1..MAX) OF AccessDescription
///
/// AccessDescription  ::=  SEQUENCE {
///         accessMethod          OBJECT IDENTIFIER,
///         accessLocation        GeneralName  }
/// ```
public struct AccessDescription: Hashable {
    /// The access method, e.g. id-ad-caIssuers (1.3.6.1.5.5.7.48.2) or id-ad-ocsp (1.3.6.1.5.5.7.48.1).
    public let method: ASN1ObjectIdentifier
    /// Where the information is, usually a URI.
    public let location: GeneralName

    /// Parses `AuthorityInfoAccessSyntax` from the extension's value.
    ///
    /// - Parameter derEncoded: The DER of the SEQUENCE OF AccessDescription.
    /// - Returns: The descriptions, in order; never empty.
    /// - Throws: ``X509Error``: `invalidCertificate` for an empty sequence or a malformed AccessDescription,
    ///   `invalidDER` for malformed DER, `limitExceeded` beyond ``GeneralName/maximumCount`` descriptions.
    public static func sequence(derEncoded: [UInt8]) throws -> [AccessDescription] {
        do {
            let node = try DER.parse(derEncoded)
            try node.expect(.sequence, "authorityInfoAccess")
            guard !node.children.isEmpty else {
                throw X509Error.invalidCertificate(
                    "authorityInfoAccess holds no AccessDescription; it must hold at least one (RFC 5280 4.2.2.1)")
            }
            guard node.children.count <= GeneralName.maximumCount else {
                throw X509Error.limitExceeded("authorityInfoAccess holds more than \(GeneralName.maximumCount) entries")
            }
            return try node.children.map { child in
                try child.expect(.sequence, "an AccessDescription")
                var reader = ASN1ChildReader(child, "an AccessDescription")
                let method = try reader.next(.objectIdentifier, "accessMethod").objectIdentifierValue()
                let location = try GeneralName(node: reader.next("accessLocation"))
                try reader.finish()
                return AccessDescription(method: method, location: location)
            }
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    init(method: ASN1ObjectIdentifier, location: GeneralName) {
        self.method = method
        self.location = location
    }
}

extension AccessDescription: Sendable {}
