public import RampartASN1

/// `BasicConstraints` (RFC 5280 section 4.2.1.9).
///
/// ```
/// BasicConstraints ::= SEQUENCE {
///      cA                      BOOLEAN DEFAULT FALSE,
///      pathLenConstraint       INTEGER (0..MAX) OPTIONAL }
/// ```
public struct BasicConstraints: Hashable {
    /// Whether the subject is a certificate authority.
    public var isCA: Bool
    /// The most non-self-issued intermediates that may follow this one, or nil for no limit.
    public var pathLengthConstraint: Int?

    /// Creates the value.
    ///
    /// - Parameters:
    ///   - isCA: Whether the subject is a CA.
    ///   - pathLengthConstraint: The path length limit, or nil.
    public init(isCA: Bool, pathLengthConstraint: Int? = nil) {
        self.isCA = isCA
        self.pathLengthConstraint = pathLengthConstraint
    }

    /// Parses the extension value.
    ///
    /// - Parameter derEncoded: The DER in the extension's OCTET STRING.
    /// - Throws: ``X509Error`` (`invalidDER`, `invalidCertificate`), including for an explicit `cA FALSE`, which DER
    ///   forbids (X.690 11.5: a DEFAULT value "shall not" be encoded).
    public init(derEncoded: [UInt8]) throws {
        do {
            let node = try DER.parse(derEncoded)
            try node.expect(.sequence, "basicConstraints")
            var reader = ASN1ChildReader(node, "basicConstraints")
            if let flag = reader.optional(.boolean) {
                guard try flag.booleanValue() else {
                    throw X509Error.invalidDER("basicConstraints encodes the DEFAULT cA FALSE (X.690 11.5)")
                }
                isCA = true
            } else {
                isCA = false
            }
            if let length = reader.optional(.integer) {
                let value = try length.integerValue()
                guard value >= 0 else {
                    throw X509Error.invalidCertificate("basicConstraints has a negative path length")
                }
                pathLengthConstraint = value
            } else {
                pathLengthConstraint = nil
            }
            try reader.finish()
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// The DER of the extension value.
    public var derEncoded: [UInt8] {
        var writer = DERWriter()
        writer.appendSequence { sequence in
            if isCA { sequence.appendBoolean(true) }
            if let pathLengthConstraint { sequence.appendInteger(pathLengthConstraint) }
        }
        return writer.bytes
    }
}

/// `KeyUsage` (RFC 5280 section 4.2.1.3): a named bit list.
///
/// ```
/// KeyUsage ::= BIT STRING {
///      digitalSignature        (0), nonRepudiation (1), keyEncipherment (2), dataEncipherment (3),
///      keyAgreement            (4), keyCertSign (5), cRLSign (6), encipherOnly (7), decipherOnly (8) }
/// ```
/// Bit *n* of the list is bit *n* of ``rawValue``.
public struct KeyUsage: OptionSet, Hashable {
    /// The named bits; bit *n* is the list's bit *n*.
    public let rawValue: UInt16

    /// Creates a set from raw bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// digitalSignature (0).
    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    /// nonRepudiation / contentCommitment (1).
    public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    /// keyEncipherment (2).
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    /// dataEncipherment (3).
    public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    /// keyAgreement (4).
    public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    /// keyCertSign (5).
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    /// cRLSign (6).
    public static let crlSign = KeyUsage(rawValue: 1 << 6)
    /// encipherOnly (7).
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    /// decipherOnly (8).
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    /// Parses the extension value.
    ///
    /// - Parameter derEncoded: The DER in the extension's OCTET STRING.
    /// - Throws: ``X509Error`` (`invalidDER`) for a malformed BIT STRING or trailing zero bits (X.690 11.2.2: "the
    ///   bitstring shall have all trailing 0 bits removed"), and `invalidCertificate` when no bit is set (RFC 5280
    ///   4.2.1.3: "at least one of the bits MUST be set") or a bit beyond decipherOnly is.
    public init(derEncoded: [UInt8]) throws {
        do {
            let (octets, unused) = try DER.parse(derEncoded).bitStringValue()
            guard let last = octets.last, last != 0 else {
                throw X509Error.invalidCertificate("keyUsage sets no bit (RFC 5280 4.2.1.3)")
            }
            guard last & (1 << unused) != 0 else {
                throw X509Error.invalidDER("keyUsage keeps trailing zero bits (X.690 11.2.2)")
            }
            guard octets.count <= 2 else {
                throw X509Error.invalidCertificate("keyUsage sets bits beyond decipherOnly")
            }
            var raw: UInt16 = 0
            for (index, octet) in octets.enumerated() {
                for bit in 0..<8 where octet & (0x80 >> bit) != 0 {
                    raw |= 1 << (index * 8 + bit)
                }
            }
            guard raw < 1 << 9 else { throw X509Error.invalidCertificate("keyUsage sets bits beyond decipherOnly") }
            self.rawValue = raw
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// The DER of the extension value, trailing zero bits removed (X.690 11.2.2).
    public var derEncoded: [UInt8] {
        var octets: [UInt8] = []
        var highest = -1
        for bit in 0..<9 where rawValue & (1 << bit) != 0 { highest = bit }
        if highest >= 0 {
            octets = Array(repeating: 0, count: highest / 8 + 1)
            for bit in 0...highest where rawValue & (1 << bit) != 0 {
                octets[bit / 8] |= 0x80 >> (bit % 8)
            }
        }
        var writer = DERWriter()
        writer.appendBitString(octets, unusedBitCount: highest < 0 ? 0 : 7 - highest % 8)
        return writer.bytes
    }
}

/// `ExtKeyUsageSyntax` (RFC 5280 section 4.2.1.12): `SEQUENCE SIZE (1..MAX) OF KeyPurposeId`.
public struct ExtendedKeyUsage: Hashable {
    /// The purposes, in encoded order; see ``ASN1ObjectIdentifier/ExtendedKeyUsage``.
    public var purposes: [ASN1ObjectIdentifier]

    /// Creates the value.
    ///
    /// - Parameter purposes: The purposes.
    public init(_ purposes: [ASN1ObjectIdentifier]) { self.purposes = purposes }

    /// Parses the extension value.
    ///
    /// - Parameter derEncoded: The DER in the extension's OCTET STRING.
    /// - Throws: ``X509Error`` (`invalidDER`, or `invalidCertificate` for an empty list).
    public init(derEncoded: [UInt8]) throws {
        do {
            let node = try DER.parse(derEncoded)
            try node.expect(.sequence, "extKeyUsage")
            guard !node.children.isEmpty else {
                throw X509Error.invalidCertificate("extKeyUsage lists no purpose (RFC 5280 4.2.1.12: SIZE (1..MAX))")
            }
            purposes = try node.children.map { try $0.objectIdentifierValue() }
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// Whether `purpose` is listed.
    ///
    /// - Parameter purpose: The purpose.
    /// - Returns: True when listed.
    public func contains(_ purpose: ASN1ObjectIdentifier) -> Bool { purposes.contains(purpose) }

    /// The DER of the extension value.
    public var derEncoded: [UInt8] {
        var writer = DERWriter()
        writer.appendSequence { sequence in
            for purpose in purposes { sequence.appendObjectIdentifier(purpose) }
        }
        return writer.bytes
    }
}

/// `AuthorityKeyIdentifier` (RFC 5280 section 4.2.1.1).
///
/// ```
/// AuthorityKeyIdentifier ::= SEQUENCE {
///   keyIdentifier             [0] KeyIdentifier           OPTIONAL,
///   authorityCertIssuer       [1] GeneralNames            OPTIONAL,
///   authorityCertSerialNumber [2] CertificateSerialNumber OPTIONAL  }
/// ```
public struct AuthorityKeyIdentifier: Hashable {
    /// The issuer's key identifier, usually its subjectKeyIdentifier.
    public var keyIdentifier: [UInt8]?
    /// The issuer's issuer's names.
    public var authorityCertIssuer: [GeneralName]?
    /// The issuer certificate's serial number (INTEGER content octets).
    public var authorityCertSerialNumber: [UInt8]?

    /// Creates the value.
    ///
    /// - Parameters:
    ///   - keyIdentifier: The key identifier.
    ///   - authorityCertIssuer: Issuer names.
    ///   - authorityCertSerialNumber: Issuer serial.
    public init(
        keyIdentifier: [UInt8]?,
        authorityCertIssuer: [GeneralName]? = nil,
        authorityCertSerialNumber: [UInt8]? = nil
    ) {
        self.keyIdentifier = keyIdentifier
        self.authorityCertIssuer = authorityCertIssuer
        self.authorityCertSerialNumber = authorityCertSerialNumber
    }

    /// Parses the extension value.
    ///
    /// - Parameter derEncoded: The DER in the extension's OCTET STRING.
    /// - Throws: ``X509Error`` (`invalidDER`, `invalidCertificate`).
    public init(derEncoded: [UInt8]) throws {
        do {
            let node = try DER.parse(derEncoded)
            try node.expect(.sequence, "authorityKeyIdentifier")
            var reader = ASN1ChildReader(node, "authorityKeyIdentifier")
            keyIdentifier = reader.optional(.contextSpecific(0, isConstructed: false))?.contentBytes
            authorityCertIssuer = try reader.optional(.contextSpecific(1, isConstructed: true)).map {
                try GeneralName.sequence($0, "authorityCertIssuer")
            }
            if let serial = reader.optional(.contextSpecific(2, isConstructed: false)) {
                try DERReader.checkMinimalInteger(serial.contentSlice)
                authorityCertSerialNumber = serial.contentBytes
            }
            try reader.finish()
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// The DER of the extension value.
    ///
    /// - Throws: ``X509Error`` when a GeneralName kept as DER is malformed.
    public func derEncoded() throws -> [UInt8] {
        do {
            var writer = DERWriter()
            try writer.appendSequence { sequence in
                if let keyIdentifier { sequence.appendImplicit(tag: 0, content: keyIdentifier) }
                if let authorityCertIssuer {
                    try sequence.appendConstructed(.contextSpecific(1, isConstructed: true)) { names in
                        for name in authorityCertIssuer { try name.serialize(into: &names) }
                    }
                }
                if let authorityCertSerialNumber { sequence.appendImplicit(tag: 2, content: authorityCertSerialNumber) }
            }
            return writer.bytes
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }
}

/// Encodes and decodes `GeneralNames` and `SubjectKeyIdentifier` extension values.
enum ExtensionValues {
    /// `SubjectAltName ::= GeneralNames` (RFC 5280 4.2.1.6).
    static func generalNames(_ derEncoded: [UInt8], _ what: String) throws -> [GeneralName] {
        let node = try DER.parse(derEncoded)
        try node.expect(.sequence, what)
        return try GeneralName.sequence(node, what)
    }

    static func encodeGeneralNames(_ names: [GeneralName]) throws -> [UInt8] {
        var writer = DERWriter()
        try writer.appendSequence { sequence in
            for name in names { try name.serialize(into: &sequence) }
        }
        return writer.bytes
    }

    /// `SubjectKeyIdentifier ::= KeyIdentifier ::= OCTET STRING` (RFC 5280 4.2.1.2).
    static func keyIdentifier(_ derEncoded: [UInt8]) throws -> [UInt8] {
        try DER.parse(derEncoded).octetStringValue()
    }

    static func encodeKeyIdentifier(_ identifier: [UInt8]) -> [UInt8] {
        var writer = DERWriter()
        writer.appendOctetString(identifier)
        return writer.bytes
    }
}

extension BasicConstraints: Sendable {}

extension KeyUsage: Sendable {}

extension ExtendedKeyUsage: Sendable {}

extension AuthorityKeyIdentifier: Sendable {}
