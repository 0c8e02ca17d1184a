public import RampartASN1

extension Certificate {
    /// One certificate extension, as received (RFC 5280 section 4.1):
    ///
    /// ```
    /// Extension  ::=  SEQUENCE  {
    ///      extnID      OBJECT IDENTIFIER,
    ///      critical    BOOLEAN DEFAULT FALSE,
    ///      extnValue   OCTET STRING }
    /// ```
    public struct Extension: Hashable {
        /// The extension's identifier.
        public let oid: ASN1ObjectIdentifier
        /// Whether a relying party that does not understand the extension must reject the certificate.
        public let critical: Bool
        /// The contents of `extnValue`: the DER of the extension's own value.
        public let value: [UInt8]

        /// Creates an extension.
        ///
        /// - Parameters:
        ///   - oid: The identifier.
        ///   - critical: Whether it is critical.
        ///   - value: The DER of the value (the contents of `extnValue`).
        public init(oid: ASN1ObjectIdentifier, critical: Bool, value: [UInt8]) {
            self.oid = oid
            self.critical = critical
            self.value = value
        }

        init(node: ASN1Node) throws {
            try node.expect(.sequence, "an Extension")
            var reader = ASN1ChildReader(node, "an Extension")
            oid = try reader.next(.objectIdentifier, "extnID").objectIdentifierValue()
            if let flag = reader.optional(.boolean) {
                guard try flag.booleanValue() else {
                    throw X509Error.invalidDER("extension \(oid) encodes the DEFAULT critical FALSE (X.690 11.5)")
                }
                critical = true
            } else {
                critical = false
            }
            value = try reader.next(.octetString, "extnValue").contentBytes
            try reader.finish()
        }

        func serialize(into writer: inout DERWriter) {
            writer.appendSequence { sequence in
                sequence.appendObjectIdentifier(oid)
                if critical { sequence.appendBoolean(true) }
                sequence.appendOctetString(value)
            }
        }
    }

    /// A certificate's extensions, in encoded order, with the common ones decoded.
    ///
    /// Decoding happens once, when the certificate is parsed: a certificate whose known extensions are malformed is
    /// rejected then, so the typed properties below never fail later.
    public struct Extensions: Hashable {
        /// The most extensions a certificate may carry (DoS bound; web PKI certificates carry about ten).
        public static let maximumCount = 32

        /// Every extension, in encoded order.
        public let all: [Extension]
        /// basicConstraints (2.5.29.19).
        public let basicConstraints: BasicConstraints?
        /// keyUsage (2.5.29.15).
        public let keyUsage: KeyUsage?
        /// extendedKeyUsage (2.5.29.37).
        public let extendedKeyUsage: ExtendedKeyUsage?
        /// subjectAltName (2.5.29.17).
        public let subjectAlternativeNames: [GeneralName]?
        /// authorityKeyIdentifier (2.5.29.35).
        public let authorityKeyIdentifier: AuthorityKeyIdentifier?
        /// subjectKeyIdentifier (2.5.29.14).
        public let subjectKeyIdentifier: [UInt8]?
        /// nameConstraints (2.5.29.30).
        public let nameConstraints: NameConstraints?
        /// authorityInfoAccess (1.3.6.1.5.5.7.1.1).
        public let authorityInformationAccess: [AccessDescription]?

        /// Decodes the known extensions among `all`.
        ///
        /// - Parameter all: The extensions.
        /// - Throws: ``X509Error``: `limitExceeded` beyond ``maximumCount``, `invalidCertificate` for a repeated
        ///   extension (RFC 5280 4.2: "A certificate MUST NOT include more than one instance of a particular
        ///   extension"), or the error of a malformed known extension.
        public init(_ all: [Extension]) throws {
            do {
                guard all.count <= Self.maximumCount else {
                    throw X509Error.limitExceeded("the certificate has more than \(Self.maximumCount) extensions")
                }
                var seen = Set<ASN1ObjectIdentifier>()
                for item in all where !seen.insert(item.oid).inserted {
                    throw X509Error.invalidCertificate("extension \(item.oid) appears twice (RFC 5280 4.2)")
                }
                self.all = all
                func value(_ oid: ASN1ObjectIdentifier) -> [UInt8]? { all.first { $0.oid == oid }?.value }
                basicConstraints = try value(.X509Extension.basicConstraints).map(BasicConstraints.init(derEncoded:))
                keyUsage = try value(.X509Extension.keyUsage).map(KeyUsage.init(derEncoded:))
                extendedKeyUsage = try value(.X509Extension.extendedKeyUsage).map(ExtendedKeyUsage.init(derEncoded:))
                subjectAlternativeNames = try value(.X509Extension.subjectAlternativeName).map {
                    try ExtensionValues.generalNames($0, "subjectAltName")
                }
                authorityKeyIdentifier = try value(.X509Extension.authorityKeyIdentifier).map(
                    AuthorityKeyIdentifier.init(derEncoded:))
                subjectKeyIdentifier = try value(.X509Extension.subjectKeyIdentifier).map(ExtensionValues.keyIdentifier)
                nameConstraints = try value(.X509Extension.nameConstraints).map(NameConstraints.init(derEncoded:))
                authorityInformationAccess = try value(.X509Extension.authorityInformationAccess).map(
                    AccessDescription.sequence(derEncoded:))
            } catch let error as ASN1Error {
                throw X509Error(error)
            }
        }

        /// The extension with identifier `oid`, or nil.
        ///
        /// - Parameter oid: The identifier.
        public subscript(oid oid: ASN1ObjectIdentifier) -> Extension? { all.first { $0.oid == oid } }

        /// Whether there is no extension.
        public var isEmpty: Bool { all.isEmpty }
    }
}

extension Certificate.Extension: Sendable {}

extension Certificate.Extensions: Sendable {}
