public import Foundation
import RampartASN1
public import RampartCrypto

/// Builds and signs X.509 v3 certificates with ECDSA: test PKIs, the App Attest device simulator, sample chains.
///
/// The TBSCertificate is written with ``DERWriter`` (RFC 5280 section 4.1), signed with an `ECPrivateKey` using
/// ecdsa-with-SHA256, -SHA384 or -SHA512 (RFC 5758 section 3.2, parameters absent), and the result is parsed back
/// with ``Certificate/init(derEncoded:)``, so a built certificate passes the same checks as a received one.
///
/// ```swift
/// let rootKey = ECPrivateKey(curve: .p384)
/// let rootName = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Test Root")])
/// var root = CertificateBuilder(
///     subject: rootName, issuer: rootName, publicKey: rootKey.publicKey,
///     notBefore: start, notAfter: start.addingTimeInterval(86_400 * 365))
/// root.basicConstraints = BasicConstraints(isCA: true)
/// root.keyUsage = [.keyCertSign, .crlSign]
/// let rootCertificate = try root.sign(with: rootKey)
/// ```
///
/// - Important: Building certificates is for tests and simulators; the builder does not stop you from making
///   certificates that a verifier should refuse (expired, wrong key usage), which is what negative tests need.
public struct CertificateBuilder {
    /// The serial number's unsigned big-endian magnitude (encoded as a positive INTEGER).
    public var serialNumber: [UInt8]
    /// The issuer's name (the subject of the signing certificate; equal to ``subject`` for a self-signed one).
    public var issuer: DistinguishedName
    /// The subject's name.
    public var subject: DistinguishedName
    /// Start of validity (fractions of a second are dropped).
    public var notBefore: Date
    /// End of validity (fractions of a second are dropped).
    public var notAfter: Date
    /// The DER SubjectPublicKeyInfo of the subject's key, written as given.
    public var subjectPublicKeyInfo: [UInt8]
    /// basicConstraints; marked critical (RFC 5280 4.2.1.9 requires it in CA certificates).
    public var basicConstraints: BasicConstraints?
    /// keyUsage; marked critical (RFC 5280 4.2.1.3 "SHOULD").
    public var keyUsage: KeyUsage?
    /// extendedKeyUsage; not critical.
    public var extendedKeyUsage: ExtendedKeyUsage?
    /// subjectAltName; critical only when ``subject`` is empty (RFC 5280 4.2.1.6).
    public var subjectAlternativeNames: [GeneralName]?
    /// subjectKeyIdentifier; not critical. See ``keyIdentifier(forSubjectPublicKeyInfo:)``.
    public var subjectKeyIdentifier: [UInt8]?
    /// The keyIdentifier of authorityKeyIdentifier (usually the issuer's subjectKeyIdentifier); not critical.
    public var authorityKeyIdentifier: [UInt8]?
    /// More extensions, written after the ones above in this order (e.g. App Attest's nonce extension).
    public var extraExtensions: [Certificate.Extension] = []

    /// Starts a certificate for a subject key given as SPKI DER.
    ///
    /// - Parameters:
    ///   - subject: The subject's name.
    ///   - issuer: The issuer's name.
    ///   - subjectPublicKeyInfo: The subject key's DER SubjectPublicKeyInfo (any key type).
    ///   - notBefore: Start of validity.
    ///   - notAfter: End of validity.
    ///   - serialNumber: The serial's magnitude; 16 random bytes (positive, non-zero) when nil.
    public init(
        subject: DistinguishedName,
        issuer: DistinguishedName,
        subjectPublicKeyInfo: [UInt8],
        notBefore: Date,
        notAfter: Date,
        serialNumber: [UInt8]? = nil
    ) {
        self.subject = subject
        self.issuer = issuer
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.serialNumber = serialNumber ?? Self.randomSerialNumber()
    }

    /// Starts a certificate for an EC subject key.
    ///
    /// - Parameters:
    ///   - subject: The subject's name.
    ///   - issuer: The issuer's name.
    ///   - publicKey: The subject's key.
    ///   - notBefore: Start of validity.
    ///   - notAfter: End of validity.
    ///   - serialNumber: The serial's magnitude; 16 random bytes when nil.
    public init(
        subject: DistinguishedName,
        issuer: DistinguishedName,
        publicKey: ECPublicKey,
        notBefore: Date,
        notAfter: Date,
        serialNumber: [UInt8]? = nil
    ) {
        self.init(
            subject: subject, issuer: issuer, subjectPublicKeyInfo: publicKey.derRepresentation, notBefore: notBefore,
            notAfter: notAfter, serialNumber: serialNumber)
    }

    /// Starts from an existing certificate: same names, validity, key, serial and extensions (all kept as
    /// ``extraExtensions``, byte for byte), for making variants of it or re-signing it with another key.
    ///
    /// - Parameter certificate: The certificate to copy. A negative serial number is copied as its magnitude.
    public init(copying certificate: Certificate) {
        self.init(
            subject: certificate.subject, issuer: certificate.issuer,
            subjectPublicKeyInfo: certificate.subjectPublicKeyInfoBytes, notBefore: certificate.notBefore,
            notAfter: certificate.notAfter, serialNumber: certificate.serialNumber)
        self.extraExtensions = certificate.extensions.all
    }

    /// A key identifier by RFC 7093 section 2 method 1: the leftmost 160 bits of the SHA-256 of the
    /// subjectPublicKey BIT STRING's value.
    ///
    /// - Parameter subjectPublicKeyInfo: The DER SubjectPublicKeyInfo.
    /// - Returns: 20 octets.
    /// - Throws: ``X509Error`` when the bytes are not a SubjectPublicKeyInfo.
    public static func keyIdentifier(forSubjectPublicKeyInfo subjectPublicKeyInfo: [UInt8]) throws -> [UInt8] {
        do {
            let node = try DER.parse(subjectPublicKeyInfo)
            try node.expect(.sequence, "a SubjectPublicKeyInfo")
            var reader = ASN1ChildReader(node, "the SubjectPublicKeyInfo")
            _ = try reader.next(.sequence, "algorithm")
            let key = try reader.next(.bitString, "subjectPublicKey").bitStringValue()
            try reader.finish()
            return Array(SHA256.hash(key.bytes).prefix(20))
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// The extensions this builder writes, in order.
    ///
    /// - Returns: The extensions.
    /// - Throws: ``X509Error`` when a GeneralName kept as DER is malformed.
    public func extensions() throws -> [Certificate.Extension] {
        do {
            var list: [Certificate.Extension] = []
            if let basicConstraints {
                list.append(
                    .init(oid: .X509Extension.basicConstraints, critical: true, value: basicConstraints.derEncoded))
            }
            if let keyUsage {
                list.append(.init(oid: .X509Extension.keyUsage, critical: true, value: keyUsage.derEncoded))
            }
            if let extendedKeyUsage {
                list.append(
                    .init(oid: .X509Extension.extendedKeyUsage, critical: false, value: extendedKeyUsage.derEncoded))
            }
            if let subjectAlternativeNames {
                list.append(
                    .init(
                        oid: .X509Extension.subjectAlternativeName, critical: subject.relativeNames.isEmpty,
                        value: try ExtensionValues.encodeGeneralNames(subjectAlternativeNames)))
            }
            if let subjectKeyIdentifier {
                list.append(
                    .init(
                        oid: .X509Extension.subjectKeyIdentifier, critical: false,
                        value: ExtensionValues.encodeKeyIdentifier(subjectKeyIdentifier)))
            }
            if let authorityKeyIdentifier {
                list.append(
                    .init(
                        oid: .X509Extension.authorityKeyIdentifier, critical: false,
                        value: try AuthorityKeyIdentifier(keyIdentifier: authorityKeyIdentifier).derEncoded()))
            }
            return list + extraExtensions
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// The DER TBSCertificate this builder describes, for the given signature algorithm.
    ///
    /// - Parameter signatureAlgorithm: The algorithm the issuer will sign with.
    /// - Returns: The TBSCertificate DER.
    /// - Throws: ``X509Error`` for dates outside years 1–9999 or malformed raw DER (SPKI, GeneralNames).
    public func tbsCertificateBytes(signatureAlgorithm: Certificate.SignatureAlgorithm) throws -> [UInt8] {
        do {
            let extensions = try extensions()
            var writer = DERWriter()
            try writer.appendSequence { tbs in
                tbs.appendExplicit(tag: 0) { $0.appendInteger(2) }
                tbs.appendInteger(unsignedBigEndian: serialNumber)
                try signatureAlgorithm.serialize(into: &tbs)
                try tbs.appendRawTLV(issuer.derBytes)
                try tbs.appendSequence { validity in
                    try validity.appendTime(notBefore)
                    try validity.appendTime(notAfter)
                }
                try tbs.appendRawTLV(subject.derBytes)
                try tbs.appendRawTLV(subjectPublicKeyInfo)
                if !extensions.isEmpty {
                    tbs.appendExplicit(tag: 3) { wrapper in
                        wrapper.appendSequence { list in
                            for item in extensions { item.serialize(into: &list) }
                        }
                    }
                }
            }
            return writer.bytes
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// Signs the certificate with the issuer's key.
    ///
    /// - Parameters:
    ///   - issuerKey: The issuer's private key (the subject's own key for a self-signed certificate).
    ///   - digest: The hash; the curve's default (SHA-256 for P-256, SHA-384 for P-384, SHA-512 for P-521) when nil.
    /// - Returns: The parsed certificate.
    /// - Throws: ``X509Error`` when the description cannot be encoded or the result does not parse (for example a
    ///   repeated extension), or `CryptoError` when signing fails.
    public func sign(with issuerKey: ECPrivateKey, digest: DigestAlgorithm? = nil) throws -> Certificate {
        do {
            let digest = digest ?? issuerKey.curve.defaultDigest
            let algorithm =
                switch digest {
                case .sha256: Certificate.SignatureAlgorithm(oid: .SignatureAlgorithm.ecdsaWithSHA256)
                case .sha384: Certificate.SignatureAlgorithm(oid: .SignatureAlgorithm.ecdsaWithSHA384)
                case .sha512: Certificate.SignatureAlgorithm(oid: .SignatureAlgorithm.ecdsaWithSHA512)
                }
            let tbs = try tbsCertificateBytes(signatureAlgorithm: algorithm)
            let signature = try issuerKey.signature(for: tbs, digest: digest)
            var writer = DERWriter()
            try writer.appendSequence { certificate in
                try certificate.appendRawTLV(tbs)
                try algorithm.serialize(into: &certificate)
                certificate.appendBitString(signature)
            }
            return try Certificate(derEncoded: writer.bytes)
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    private static func randomSerialNumber() -> [UInt8] {
        var bytes = SecureRandom.bytes(count: 16)
        // Top bit clear (positive) and the next one set (no leading zero to strip, so always 16 octets).
        if let first = bytes.first { bytes[0] = first & 0x7F | 0x40 }
        return bytes
    }
}

extension CertificateBuilder: Sendable {}
