import Foundation
import RampartCrypto
import RampartX509
import TestSupport
import Testing

/// One way to break a certificate and the error code it must raise.
struct CertificateRejection: CustomTestStringConvertible, Sendable {
    let name: String
    let code: X509Error.Code
    let reason: String
    let mutate: @Sendable (inout RawCertificate) throws -> Void
    var testDescription: String { name }
}

struct CertificateTests {
    static func tlv(_ body: (inout DERWriter) -> Void) -> [UInt8] { RawCertificate.tlv(body) }
    static func ext(_ oid: ASN1ObjectIdentifier, critical: Bool? = nil, value: [UInt8]) -> [UInt8] {
        RawCertificate.extensionTLV(oid, critical: critical, value: value)
    }

    /// A Name with one CN whose value has the given identifier and content, unchecked.
    static func rawName(_ identifier: ASN1Identifier, _ content: [UInt8]) -> [UInt8] {
        tlv {
            $0.appendSequence {
                $0.appendSetOf([
                    tlv {
                        $0.appendSequence {
                            $0.appendObjectIdentifier(.NameAttribute.commonName)
                            $0.appendTLV(identifier, content: content)
                        }
                    }
                ])
            }
        }
    }

    static let rejections: [CertificateRejection] = [
        CertificateRejection(name: "trailing element", code: .invalidDER, reason: "unexpected trailing") {
            $0.trailing = [tlv { $0.appendNull() }]
        },
        CertificateRejection(name: "signature with unused bits", code: .invalidCertificate, reason: "unused bits") {
            $0.signature = tlv { $0.appendBitString([0x80], unusedBitCount: 7) }
        },
        CertificateRejection(name: "signature not a BIT STRING", code: .invalidDER, reason: "signatureValue") {
            $0.signature = tlv { $0.appendOctetString([1]) }
        },
        CertificateRejection(name: "version wraps two values", code: .invalidDER, reason: "exactly one INTEGER") {
            $0.version = tlv {
                $0.appendExplicit(tag: 0) {
                    $0.appendInteger(2)
                    $0.appendInteger(2)
                }
            }
        },
        CertificateRejection(name: "explicit DEFAULT v1", code: .invalidCertificate, reason: "DEFAULT v1") {
            $0.version = tlv { $0.appendExplicit(tag: 0) { $0.appendInteger(0) } }
            $0.extensions = nil
        },
        CertificateRejection(name: "version 4", code: .invalidCertificate, reason: "unknown certificate version") {
            $0.version = tlv { $0.appendExplicit(tag: 0) { $0.appendInteger(3) } }
        },
        CertificateRejection(name: "serial too long", code: .limitExceeded, reason: "serial number") {
            $0.serial = tlv { $0.appendInteger(unsignedBigEndian: [UInt8](repeating: 0x7F, count: 33)) }
        },
        CertificateRejection(name: "serial not INTEGER", code: .invalidDER, reason: "serialNumber") {
            $0.serial = tlv { $0.appendOctetString([1]) }
        },
        CertificateRejection(name: "algorithm mismatch", code: .invalidCertificate, reason: "differs") {
            $0.outerAlgorithm = RawCertificate.ecdsaSHA384
        },
        CertificateRejection(name: "algorithm with extra element", code: .invalidDER, reason: "unexpected trailing") {
            let algorithm = tlv {
                $0.appendSequence {
                    $0.appendObjectIdentifier(.SignatureAlgorithm.ecdsaWithSHA256)
                    $0.appendNull()
                    $0.appendNull()
                }
            }
            $0.innerAlgorithm = algorithm
            $0.outerAlgorithm = algorithm
        },
        CertificateRejection(name: "v1 with unique ID", code: .invalidCertificate, reason: "v1 certificate carries") {
            $0.version = nil
            $0.extensions = nil
            $0.uniqueIDs = [tlv { $0.appendImplicit(tag: 1, content: [0, 1]) }]
        },
        CertificateRejection(name: "malformed unique ID", code: .invalidDER, reason: "not a valid BIT STRING") {
            $0.uniqueIDs = [tlv { $0.appendImplicit(tag: 2, content: [9, 1]) }]
        },
        CertificateRejection(name: "unique ID padding bits", code: .invalidDER, reason: "not zero") {
            $0.uniqueIDs = [tlv { $0.appendImplicit(tag: 2, content: [1, 1]) }]
        },
        CertificateRejection(name: "v2 with extensions", code: .invalidCertificate, reason: "v2 certificate carries") {
            $0.version = tlv { $0.appendExplicit(tag: 0) { $0.appendInteger(1) } }
        },
        CertificateRejection(name: "empty extensions", code: .invalidCertificate, reason: "SIZE (1..MAX)") {
            $0.extensions = []
        },
        CertificateRejection(name: "[3] wraps two", code: .invalidDER, reason: "exactly one SEQUENCE") {
            $0.extensionsWrapper = tlv {
                $0.appendExplicit(tag: 3) {
                    $0.appendSequence { _ in }
                    $0.appendSequence { _ in }
                }
            }
        },
        CertificateRejection(name: "too many extensions", code: .limitExceeded, reason: "more than 32") {
            $0.extensions = try (0...Certificate.Extensions.maximumCount).map { index in
                ext(try ASN1ObjectIdentifier("1.3.6.1.4.1.99999.\(index)"), value: [0x05, 0x00])
            }
        },
        CertificateRejection(name: "duplicate extension", code: .invalidCertificate, reason: "appears twice") {
            $0.extensions = [
                ext(.X509Extension.subjectKeyIdentifier, value: [0x04, 0x01, 0x01]),
                ext(.X509Extension.subjectKeyIdentifier, value: [0x04, 0x01, 0x02]),
            ]
        },
        CertificateRejection(name: "explicit critical FALSE", code: .invalidDER, reason: "DEFAULT critical FALSE") {
            $0.extensions = [ext(.X509Extension.subjectKeyIdentifier, critical: false, value: [0x04, 0x01, 0x01])]
        },
        CertificateRejection(name: "extension without value", code: .invalidDER, reason: "ends before its extnValue") {
            $0.extensions = [tlv { $0.appendSequence { $0.appendObjectIdentifier(.X509Extension.keyUsage) } }]
        },
        CertificateRejection(name: "malformed known extension", code: .invalidCertificate, reason: "sets no bit") {
            $0.extensions = [ext(.X509Extension.keyUsage, critical: true, value: [0x03, 0x01, 0x00])]
        },
        CertificateRejection(name: "bad notBefore", code: .invalidDER, reason: "YYMMDDHHMMSSZ") {
            $0.validity = tlv {
                $0.appendSequence {
                    $0.appendTLV(.utcTime, content: Array("2601010000Z".utf8))
                    $0.appendTLV(.utcTime, content: Array("270101000000Z".utf8))
                }
            }
        },
        CertificateRejection(name: "validity with three times", code: .invalidDER, reason: "unexpected trailing") {
            $0.validity = tlv {
                $0.appendSequence {
                    for _ in 0..<3 { $0.appendTLV(.utcTime, content: Array("270101000000Z".utf8)) }
                }
            }
        },
        CertificateRejection(name: "SPKI without key", code: .invalidDER, reason: "subjectPublicKey") {
            $0.spki = tlv {
                $0.appendSequence { $0.appendSequence { $0.appendObjectIdentifier(.PublicKeyAlgorithm.ed25519) } }
            }
        },
        CertificateRejection(name: "issuer not a SEQUENCE", code: .invalidDER, reason: "issuer") {
            $0.issuer = tlv { $0.appendNull() }
        },
        CertificateRejection(name: "empty RDN", code: .invalidCertificate, reason: "empty SET") {
            $0.subject = tlv { $0.appendSequence { $0.appendTLV(.set, content: []) } }
        },
        CertificateRejection(name: "RDN holds a non-SEQUENCE", code: .invalidDER, reason: "AttributeTypeAndValue") {
            $0.subject = tlv { $0.appendSequence { $0.appendSetOf([[0x05, 0x00]]) } }
        },
        CertificateRejection(name: "context-specific name value", code: .invalidCertificate, reason: "not a universal")
        {
            $0.subject = tlv {
                $0.appendSequence {
                    $0.appendSetOf([
                        tlv {
                            $0.appendSequence {
                                $0.appendObjectIdentifier(.NameAttribute.commonName)
                                $0.appendImplicit(tag: 0, content: [0x41])
                            }
                        }
                    ])
                }
            }
        },
        CertificateRejection(name: "invalid UTF8String in name", code: .invalidCertificate, reason: "malformed") {
            $0.subject = rawName(.utf8String, [0xC3, 0x28])
        },
        CertificateRejection(name: "odd BMPString in name", code: .invalidCertificate, reason: "malformed") {
            $0.subject = rawName(.bmpString, [0x00, 0x41, 0x00])
        },
        CertificateRejection(name: "surrogate in UniversalString", code: .invalidCertificate, reason: "malformed") {
            $0.subject = rawName(.universalString, [0, 0, 0xD8, 0])
        },
        CertificateRejection(name: "too many name attributes", code: .limitExceeded, reason: "more than 128") {
            let attribute = DistinguishedName.Attribute(.NameAttribute.organizationalUnitName, "x")
            $0.subject = tlv { writer in
                writer.appendSequence { sequence in
                    for _ in 0...DistinguishedName.maximumAttributeCount {
                        sequence.appendSetOf([
                            tlv {
                                $0.appendSequence {
                                    $0.appendObjectIdentifier(attribute.type)
                                    $0.appendUTF8String("x")
                                }
                            }
                        ])
                    }
                }
            }
        },
    ]

    @Test("every broken certificate is refused with its code", arguments: rejections)
    func rejection(_ rejection: CertificateRejection) throws {
        var raw = try RawCertificate()
        try rejection.mutate(&raw)
        let error = try #require(throws: X509Error.self) { try Certificate(derEncoded: raw.der) }
        #expect(error.code == rejection.code, "\(error)")
        #expect(error.reason.contains(rejection.reason), "\(error.reason)")
    }

    @Test("the unbroken raw certificate parses, so each rejection above is caused by its one change")
    func rawBaseline() throws {
        let certificate = try Certificate(derEncoded: try RawCertificate().der)
        #expect(certificate.version == 3)
        #expect(certificate.serialNumber == [1])
        #expect(certificate.subject.description == "CN=raw")
        #expect(certificate.extensions.basicConstraints == BasicConstraints(isCA: false))
    }

    @Test("v1 and v2 certificates parse, with unique IDs in v2")
    func oldVersions() throws {
        var raw = try RawCertificate()
        raw.version = nil
        raw.extensions = nil
        #expect(try Certificate(derEncoded: raw.der).version == 1)
        raw.version = Self.tlv { $0.appendExplicit(tag: 0) { $0.appendInteger(1) } }
        raw.uniqueIDs = [Self.tlv { $0.appendImplicit(tag: 1, content: [0, 1]) }]
        let v2 = try Certificate(derEncoded: raw.der)
        #expect(v2.version == 2 && v2.extensions.isEmpty)
    }

    @Test("a certificate larger than Certificate.maximumByteCount is limitExceeded")
    func sizeLimit() throws {
        var raw = try RawCertificate()
        raw.extensions = [
            Self.ext(.AppAttest.nonce, value: Self.tlv { $0.appendOctetString([UInt8](repeating: 0, count: 70_000)) })
        ]
        #expect(throws: X509Error.limitExceeded("")) { try Certificate(derEncoded: raw.der) }
    }

    @Test("PEM entry points: exactly one CERTIFICATE block, or many; other input is invalidPEM")
    func pemEntryPoints() throws {
        let chain = try X509Fixtures.chain()
        let text =
            chain.leaf.pemString + "junk\n" + PEMDocument(label: "PRIVATE KEY", derBytes: [1]).pemString
            + chain.intermediate.pemString
        #expect(try Certificate.parseAll(Array(text.utf8)) == [chain.leaf, chain.intermediate])
        #expect(try Certificate.parseAll(chain.root.derBytes) == [chain.root])
        #expect(try Certificate(pemEncoded: chain.root.pemString) == chain.root)
        #expect(throws: X509Error.invalidPEM("")) {
            try Certificate(pemEncoded: PEMDocument(label: "PRIVATE KEY", derBytes: [1]).pemString)
        }
        #expect(throws: X509Error.invalidPEM("")) { try Certificate(pemEncoded: text) }
        #expect(throws: X509Error.invalidPEM("")) { try Certificate.parseAll(Array("hello\n".utf8)) }
        #expect(throws: X509Error.invalidPEM("")) { try Certificate.parseAll([0xFF, 0xFE, 0x00]) }
        #expect(throws: X509Error.invalidDER("")) { try Certificate.parseAll([0x30, 0x03, 0x02]) }
    }

    @Test("built chain: fields and typed extensions read back; signatures verify over tbsCertificateBytes")
    func builtChain() throws {
        let (root, intermediate, leaf) = try X509Fixtures.chain()
        #expect(root.subject.description == "C=GB, O=Rampart Test, CN=Rampart Test Root")
        #expect(root.issuer == root.subject)
        #expect(leaf.issuer == intermediate.subject)
        #expect(leaf.subject.commonName == "leaf.rampart.test")
        #expect(leaf.version == 3)
        #expect(leaf.signatureAlgorithm == .ecdsaWithSHA384)
        #expect(leaf.signatureAlgorithm.description == "ecdsa-with-SHA384")
        #expect(leaf.publicKeyDescription == "EC P-256")
        #expect(root.publicKeyDescription == "EC P-384")
        #expect(leaf.notBefore == X509Fixtures.start)
        #expect(leaf.notAfter == X509Fixtures.start + X509Fixtures.year)
        #expect(root.extensions.basicConstraints == BasicConstraints(isCA: true))
        #expect(intermediate.extensions.basicConstraints?.pathLengthConstraint == 0)
        #expect(root.extensions.keyUsage == [.keyCertSign, .crlSign])
        #expect(leaf.extensions.extendedKeyUsage?.contains(.ExtendedKeyUsage.serverAuth) == true)
        #expect(
            leaf.extensions.subjectAlternativeNames == [.dnsName("leaf.rampart.test"), .ipAddress([127, 0, 0, 1])])
        #expect(leaf.extensions.authorityKeyIdentifier?.keyIdentifier == intermediate.extensions.subjectKeyIdentifier)
        #expect(leaf.extensions[oid: .X509Extension.basicConstraints]?.critical == true)
        #expect(leaf.extensions[oid: .X509Extension.subjectAlternativeName]?.critical == false)
        #expect(leaf.extensions[oid: .AppAttest.nonce] == nil)
        #expect(leaf.spkiSHA256 == Data(SHA256.hash(leaf.subjectPublicKeyInfoBytes)).base64EncodedString())

        let intermediateKey = try ECPublicKey(derRepresentation: intermediate.subjectPublicKeyInfoBytes)
        #expect(intermediateKey.isValidSignature(leaf.signatureBytes, for: leaf.tbsCertificateBytes, digest: .sha384))
        var tampered = leaf.tbsCertificateBytes
        tampered[tampered.count - 1] ^= 1
        #expect(!intermediateKey.isValidSignature(leaf.signatureBytes, for: tampered, digest: .sha384))
    }

    @Test("the builder writes extra extensions and refuses duplicates through the parser")
    func builderExtras() throws {
        let key = ECPrivateKey(curve: .p256)
        let name = try X509Fixtures.name([(.NameAttribute.commonName, "attest")])
        var builder = CertificateBuilder(
            subject: name, issuer: name, publicKey: key.publicKey, notBefore: X509Fixtures.start,
            notAfter: X509Fixtures.start + 86_400, serialNumber: [0x00, 0x01])
        var nonce = DERWriter()
        nonce.appendSequence { $0.appendExplicit(tag: 1) { $0.appendOctetString([UInt8](repeating: 0xAB, count: 32)) } }
        builder.extraExtensions = [Certificate.Extension(oid: .AppAttest.nonce, critical: false, value: nonce.bytes)]
        let certificate = try builder.sign(with: key)
        #expect(certificate.serialNumber == [0x01])
        #expect(certificate.extensions[oid: .AppAttest.nonce]?.value == nonce.bytes)
        #expect(certificate.extensions.all.count == 1)

        builder.extraExtensions.append(builder.extraExtensions[0])
        #expect(throws: X509Error.invalidCertificate("")) { try builder.sign(with: key) }

        var emptySubject = CertificateBuilder(
            subject: try DistinguishedName([]), issuer: name, publicKey: key.publicKey,
            notBefore: X509Fixtures.start, notAfter: X509Fixtures.start + 86_400)
        emptySubject.subjectAlternativeNames = [.rfc822Name("a@b.example")]
        let noSubject = try emptySubject.sign(with: key, digest: .sha512)
        #expect(noSubject.extensions[oid: .X509Extension.subjectAlternativeName]?.critical == true)
        #expect(noSubject.subject.description == "")
        #expect(noSubject.signatureAlgorithm.oid == .SignatureAlgorithm.ecdsaWithSHA512)
    }

    @Test(
        "openssl verify accepts a chain the builder made (x509_strict, purpose sslserver)",
        .enabled(if: OpenSSLCLI.available, "the openssl command-line tool is not installed"))
    func opensslVerifiesBuiltChain() throws {
        let (root, intermediate, leaf) = try X509Fixtures.chain()
        let directory = try OpenSSLCLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (file, certificate) in [("root.pem", root), ("intermediate.pem", intermediate), ("leaf.pem", leaf)] {
            try Data(certificate.pemString.utf8).write(to: directory.appendingPathComponent(file))
        }
        let path = { (file: String) in directory.appendingPathComponent(file).path }
        let result = try OpenSSLCLI.run([
            "verify", "-x509_strict", "-purpose", "sslserver", "-verify_hostname", "leaf.rampart.test",
            "-attime", String(Int(X509Fixtures.start.timeIntervalSince1970) + 86_400),
            "-CAfile", path("root.pem"), "-untrusted", path("intermediate.pem"), path("leaf.pem"),
        ])
        #expect(result.status == 0)
        #expect(String(decoding: result.output, as: UTF8.self).contains(": OK"))
        // And the openssl parser agrees with ours on the names and the pin.
        let subject = try OpenSSLCLI.run(
            ["x509", "-noout", "-subject", "-nameopt", "oneline,-space_eq", "-in", path("intermediate.pem")])
        #expect(String(decoding: subject.output, as: UTF8.self) == "subject=\(intermediate.subject)\n")
    }
}

struct CertificateBuilderErrorTests {
    @Test("builder inputs that are not DER are refused with their code")
    func badInputs() throws {
        #expect(throws: X509Error.invalidDER("")) {
            try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: [0x05, 0x00])
        }
        #expect(throws: X509Error.invalidDER("")) {
            try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: [0x30, 0x02, 0x05, 0x00])
        }
        let key = ECPrivateKey(curve: .p256)
        let name = try X509Fixtures.name([(.NameAttribute.commonName, "x")])
        var builder = CertificateBuilder(
            subject: name, issuer: name, publicKey: key.publicKey, notBefore: X509Fixtures.start,
            notAfter: X509Fixtures.start + 60)
        builder.subjectAlternativeNames = [.otherName([0x01])]
        #expect(throws: X509Error.invalidDER("")) { try builder.sign(with: key) }
        builder.subjectAlternativeNames = nil
        builder.subjectPublicKeyInfo = [0x30, 0x00, 0x00]
        #expect(throws: X509Error.invalidDER("")) { try builder.sign(with: key) }
        builder.subjectPublicKeyInfo = key.publicKey.derRepresentation
        builder.notAfter = Date(timeIntervalSince1970: 1e12)
        #expect(throws: X509Error.invalidDER("")) { try builder.sign(with: key) }
        builder.notAfter = X509Fixtures.start + 60
        #expect(throws: X509Error.invalidDER("")) {
            try AuthorityKeyIdentifier(keyIdentifier: nil, authorityCertIssuer: [.ediPartyName([])]).derEncoded()
        }
        _ = try builder.sign(with: key)
    }
}
