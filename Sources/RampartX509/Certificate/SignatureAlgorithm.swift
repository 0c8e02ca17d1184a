public import RampartASN1

extension Certificate {
    /// An `AlgorithmIdentifier` (RFC 5280 section 4.1.1.2):
    ///
    /// ```
    /// AlgorithmIdentifier  ::=  SEQUENCE  {
    ///      algorithm               OBJECT IDENTIFIER,
    ///      parameters              ANY DEFINED BY algorithm OPTIONAL  }
    /// ```
    public struct SignatureAlgorithm: Hashable {
        /// The algorithm, e.g. ``ASN1ObjectIdentifier/SignatureAlgorithm/ecdsaWithSHA256``.
        public let oid: ASN1ObjectIdentifier
        /// The DER of the parameters element, or nil when absent (ECDSA and EdDSA have none; RSA PKCS #1 has NULL).
        public let parameters: [UInt8]?

        /// Creates an identifier.
        ///
        /// - Parameters:
        ///   - oid: The algorithm.
        ///   - parameters: The DER of the parameters element, if any.
        public init(oid: ASN1ObjectIdentifier, parameters: [UInt8]? = nil) {
            self.oid = oid
            self.parameters = parameters
        }

        /// ecdsa-with-SHA256 (RFC 5758 3.2: parameters absent).
        public static let ecdsaWithSHA256 = SignatureAlgorithm(oid: .SignatureAlgorithm.ecdsaWithSHA256)
        /// ecdsa-with-SHA384 (RFC 5758 3.2: parameters absent).
        public static let ecdsaWithSHA384 = SignatureAlgorithm(oid: .SignatureAlgorithm.ecdsaWithSHA384)

        init(node: ASN1Node) throws {
            var reader = ASN1ChildReader(node, "an AlgorithmIdentifier")
            oid = try reader.next(.objectIdentifier, "algorithm").objectIdentifierValue()
            parameters = reader.isAtEnd ? nil : try reader.next("parameters").encodedBytes
            try reader.finish()
        }

        func serialize(into writer: inout DERWriter) throws {
            try writer.appendSequence { sequence in
                sequence.appendObjectIdentifier(oid)
                if let parameters { try sequence.appendRawTLV(parameters) }
            }
        }
    }
}

extension Certificate.SignatureAlgorithm: CustomStringConvertible {
    /// OpenSSL's name for the algorithm (`ecdsa-with-SHA256`, `sha256WithRSAEncryption`, `ED25519`, …), or the
    /// dotted identifier.
    public var description: String { ObjectNames.shortName(for: oid) ?? oid.dottedString }
}

extension Certificate.SignatureAlgorithm: Sendable {}
