public import Foundation
public import RampartASN1
import RampartCrypto

/// An X.509 v1–v3 certificate, parsed strictly from DER (RFC 5280 section 4.1).
///
/// ```
/// Certificate  ::=  SEQUENCE  {
///      tbsCertificate       TBSCertificate,
///      signatureAlgorithm   AlgorithmIdentifier,
///      signatureValue       BIT STRING  }
///
/// TBSCertificate  ::=  SEQUENCE  {
///      version         [0]  EXPLICIT Version DEFAULT v1,
///      serialNumber         CertificateSerialNumber,
///      signature            AlgorithmIdentifier,
///      issuer               Name,
///      validity             Validity,
///      subject              Name,
///      subjectPublicKeyInfo SubjectPublicKeyInfo,
///      issuerUniqueID  [1]  IMPLICIT UniqueIdentifier OPTIONAL,
///      subjectUniqueID [2]  IMPLICIT UniqueIdentifier OPTIONAL,
///      extensions      [3]  EXPLICIT Extensions OPTIONAL }
/// ```
///
/// Every byte-valued property is a copy of bytes as received: ``tbsCertificateBytes`` is what the issuer signed and
/// ``subjectPublicKeyInfoBytes`` is what ``spkiSHA256`` hashes, so nothing is ever re-encoded before it is hashed
/// or verified. Parsing checks structure only; it does not check the signature, the validity period or the chain.
public struct Certificate {
    /// The most bytes a certificate may have (DoS bound; web PKI certificates are 1–3 KB).
    public static let maximumByteCount = 64 << 10
    /// The most content octets of a serial number. RFC 5280 4.1.2.2 allows 20 octets; one more covers a leading
    /// zero, and a few more tolerate CAs that overshoot ("Certificate users SHOULD be prepared to gracefully handle
    /// such certificates").
    public static let maximumSerialNumberByteCount = 32

    /// The whole certificate, DER, as received.
    public let derBytes: [UInt8]
    /// The DER of the TBSCertificate, as received: the bytes the signature covers.
    public let tbsCertificateBytes: [UInt8]
    /// The signature value (the BIT STRING's octets), e.g. a DER `ECDSA-Sig-Value`.
    public let signatureBytes: [UInt8]
    /// The version: 1, 2 or 3.
    public let version: Int
    /// The serial number's INTEGER content octets (two's complement, big-endian).
    public let serialNumber: [UInt8]
    /// The signature algorithm (the outer one; the TBSCertificate's copy must match it byte for byte).
    public let signatureAlgorithm: SignatureAlgorithm
    /// The issuer's name.
    public let issuer: DistinguishedName
    /// The subject's name.
    public let subject: DistinguishedName
    /// The start of the validity period.
    public let notBefore: Date
    /// The end of the validity period (inclusive).
    public let notAfter: Date
    /// The DER SubjectPublicKeyInfo, as received.
    public let subjectPublicKeyInfoBytes: [UInt8]
    /// The SubjectPublicKeyInfo's algorithm identifier.
    public let publicKeyAlgorithm: ASN1ObjectIdentifier
    /// A short description of the key: `RSA 2048`, `RSA-PSS 2048`, `EC P-256`, `Ed25519`, `Ed448`, …
    public let publicKeyDescription: String
    /// The extensions (empty for v1 and v2 certificates).
    public let extensions: Extensions

    /// Parses one DER certificate.
    ///
    /// - Parameter derEncoded: The DER, with nothing after it.
    /// - Throws: ``X509Error``: `invalidDER` when the bytes are not strict DER, `invalidCertificate` when the DER is
    ///   not a valid certificate, `limitExceeded` beyond the limits.
    public init(derEncoded: [UInt8]) throws {
        do {
            guard derEncoded.count <= Self.maximumByteCount else {
                throw X509Error.limitExceeded("a certificate is larger than \(Self.maximumByteCount) bytes")
            }
            let root = try DER.parse(derEncoded)
            try root.expect(.sequence, "a Certificate")
            var outer = ASN1ChildReader(root, "the Certificate")
            let tbs = try outer.next(.sequence, "tbsCertificate")
            let outerAlgorithm = try outer.next(.sequence, "signatureAlgorithm")
            let signature = try outer.next(.bitString, "signatureValue").bitStringValue()
            try outer.finish()
            guard signature.unusedBitCount == 0 else {
                throw X509Error.invalidCertificate("the signature BIT STRING has unused bits")
            }

            var reader = ASN1ChildReader(tbs, "the TBSCertificate")
            if let versionNode = reader.optional(.contextSpecific(0, isConstructed: true)) {
                guard versionNode.children.count == 1, let number = versionNode.children.first else {
                    throw X509Error.invalidDER("the [0] version must wrap exactly one INTEGER")
                }
                let value = try number.integerValue()
                guard value == 1 || value == 2 else {
                    throw X509Error.invalidCertificate(
                        value == 0
                            ? "the version encodes the DEFAULT v1 (X.690 11.5)"
                            : "unknown certificate version \(value); RFC 5280 defines v1, v2 and v3")
                }
                version = value + 1
            } else {
                version = 1
            }
            let serial = try reader.next(.integer, "serialNumber")
            guard serial.contentSlice.count <= Self.maximumSerialNumberByteCount else {
                throw X509Error.limitExceeded(
                    "the serial number is longer than \(Self.maximumSerialNumberByteCount) octets (RFC 5280 4.1.2.2)")
            }
            let innerAlgorithm = try reader.next(.sequence, "signature")
            guard innerAlgorithm.encodedSlice.elementsEqual(outerAlgorithm.encodedSlice) else {
                throw X509Error.invalidCertificate(
                    "the TBSCertificate's signature algorithm differs from the outer one (RFC 5280 4.1.1.2)")
            }
            let issuerNode = try reader.next(.sequence, "issuer")
            let validity = try reader.next(.sequence, "validity")
            let subjectNode = try reader.next(.sequence, "subject")
            let spki = try reader.next(.sequence, "subjectPublicKeyInfo")
            for (tag, name) in [(UInt32(1), "issuerUniqueID"), (2, "subjectUniqueID")] {
                guard let unique = reader.optional(.contextSpecific(tag, isConstructed: false)) else { continue }
                guard version >= 2 else {
                    throw X509Error.invalidCertificate("a v1 certificate carries \(name) (RFC 5280 4.1.2.8)")
                }
                _ = try ASN1Node.bitStringContent(unique, name)
            }
            var extensionList: [Extension] = []
            if let wrapper = reader.optional(.contextSpecific(3, isConstructed: true)) {
                guard version == 3 else {
                    throw X509Error.invalidCertificate(
                        "a v\(version) certificate carries extensions (RFC 5280 4.1.2.9)")
                }
                guard wrapper.children.count == 1, let sequence = wrapper.children.first else {
                    throw X509Error.invalidDER("the [3] extensions must wrap exactly one SEQUENCE")
                }
                try sequence.expect(.sequence, "Extensions")
                guard !sequence.children.isEmpty else {
                    throw X509Error.invalidCertificate("the extensions SEQUENCE is empty (RFC 5280: SIZE (1..MAX))")
                }
                guard sequence.children.count <= Extensions.maximumCount else {
                    throw X509Error.limitExceeded("the certificate has more than \(Extensions.maximumCount) extensions")
                }
                extensionList = try sequence.children.map(Extension.init(node:))
            }
            try reader.finish()

            var validityReader = ASN1ChildReader(validity, "the Validity")
            let notBefore = try ASN1Time.date(from: validityReader.next("notBefore"))
            let notAfter = try ASN1Time.date(from: validityReader.next("notAfter"))
            try validityReader.finish()

            var spkiReader = ASN1ChildReader(spki, "the SubjectPublicKeyInfo")
            let keyAlgorithm = try SignatureAlgorithm(node: spkiReader.next(.sequence, "algorithm"))
            let keyBits = try spkiReader.next(.bitString, "subjectPublicKey").bitStringValue()
            try spkiReader.finish()

            self.derBytes = derEncoded
            self.tbsCertificateBytes = tbs.encodedBytes
            self.signatureBytes = signature.bytes
            self.serialNumber = serial.contentBytes
            self.signatureAlgorithm = try SignatureAlgorithm(node: outerAlgorithm)
            self.issuer = try DistinguishedName(node: issuerNode)
            self.subject = try DistinguishedName(node: subjectNode)
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.subjectPublicKeyInfoBytes = spki.encodedBytes
            self.publicKeyAlgorithm = keyAlgorithm.oid
            self.publicKeyDescription = Self.describePublicKey(
                algorithm: keyAlgorithm.oid,
                parameters: try keyAlgorithm.parameters.map { try DER.parse($0) },
                key: keyBits.bytes)
            self.extensions = try Extensions(extensionList)
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// Parses text holding exactly one `CERTIFICATE` PEM block.
    ///
    /// - Parameter pemEncoded: The PEM text.
    /// - Throws: ``X509Error``: `invalidPEM` unless there is exactly one block, labelled `CERTIFICATE`; otherwise as
    ///   ``init(derEncoded:)``.
    public init(pemEncoded: String) throws {
        do {
            let document: PEMDocument
            do {
                document = try PEMDocument(pemEncoded: pemEncoded)
            } catch let error as ASN1Error {
                throw X509Error.invalidPEM(error.reason)
            }
            guard document.label == "CERTIFICATE" else {
                throw X509Error.invalidPEM("expected a CERTIFICATE PEM block; found \(document.label)")
            }
            try self.init(derEncoded: document.derBytes)
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// Parses every certificate in a file's bytes: one DER certificate, or PEM text with one or more `CERTIFICATE`
    /// blocks (other blocks, such as keys, and text between blocks are ignored).
    ///
    /// - Parameter bytes: The file contents.
    /// - Returns: The certificates, in order; never empty.
    /// - Throws: ``X509Error``: `invalidPEM` for text with no `CERTIFICATE` block or malformed PEM; the DER errors of
    ///   ``init(derEncoded:)`` for a malformed certificate.
    public static func parseAll(_ bytes: [UInt8]) throws -> [Certificate] {
        do {
            if bytes.first == 0x30 { return [try Certificate(derEncoded: bytes)] }
            guard let text = String(strictUTF8: bytes) else {
                throw X509Error.invalidPEM("the input is neither DER (it does not start with a SEQUENCE) nor PEM text")
            }
            let documents: [PEMDocument]
            do {
                documents = try PEMDocument.parseAll(text).filter { $0.label == "CERTIFICATE" }
            } catch let error as ASN1Error {
                throw X509Error.invalidPEM(error.reason)
            }
            guard !documents.isEmpty else {
                throw X509Error.invalidPEM("no -----BEGIN CERTIFICATE----- block found")
            }
            return try documents.map { try Certificate(derEncoded: $0.derBytes) }
        } catch let error as ASN1Error {
            throw X509Error(error)
        }
    }

    /// The PEM encoding, one `CERTIFICATE` block.
    public var pemString: String { PEMDocument(label: "CERTIFICATE", derBytes: derBytes).pemString }

    /// The SPKI pin: base64 of the SHA-256 of ``subjectPublicKeyInfoBytes`` as received.
    ///
    /// This is the `pin-sha256` of HPKP, the `SPKI-SHA256-BASE64` of Apple's `NSPinnedDomains`, TrustKit's
    /// public key hashes and OkHttp's `sha256/…` pins. It equals
    /// `openssl x509 -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64`
    /// for every key type, because it never rebuilds the SPKI from the key.
    public var spkiSHA256: String { Data(SHA256.hash(subjectPublicKeyInfoBytes)).base64EncodedString() }

    /// SHA-256 of the whole DER certificate (the fingerprint `openssl x509 -fingerprint -sha256` prints).
    public var fingerprintSHA256: [UInt8] { SHA256.hash(derBytes) }
}

extension Certificate: Hashable {
    /// Certificates are equal when their DER encodings are.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derBytes == rhs.derBytes }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

extension Certificate: CustomStringConvertible {
    /// `Certificate(subject: …, issuer: …, key: …)`.
    public var description: String {
        "Certificate(subject: \(subject), issuer: \(issuer), key: \(publicKeyDescription))"
    }
}

extension ASN1Node {
    /// Checks a BIT STRING-content node (for implicitly tagged BIT STRINGs) and returns its bits.
    static func bitStringContent(_ node: ASN1Node, _ what: String) throws -> [UInt8] {
        guard let unused = node.contentSlice.first, unused <= 7, node.contentSlice.count > 1 || unused == 0 else {
            throw X509Error.invalidDER("\(what) is not a valid BIT STRING (X.690 8.6.2)")
        }
        if let last = node.contentSlice.last, node.contentSlice.count > 1, last & ((1 << unused) - 1) != 0 {
            throw X509Error.invalidDER("the unused bits of \(what) are not zero (X.690 11.2.1)")
        }
        return Array(node.contentSlice.dropFirst())
    }
}

extension Certificate: Sendable {}
