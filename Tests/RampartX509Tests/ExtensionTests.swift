import Foundation
import RampartX509
import TestSupport
import Testing

/// One malformed extension value and the error it must raise.
struct ExtensionRejection: CustomTestStringConvertible, Sendable {
    let name: String
    let hex: String
    let code: X509Error.Code
    let parse: @Sendable ([UInt8]) throws -> Void
    var testDescription: String { name }
}

struct ExtensionTests {
    static func basic(_ bytes: [UInt8]) throws { _ = try BasicConstraints(derEncoded: bytes) }
    static func usage(_ bytes: [UInt8]) throws { _ = try KeyUsage(derEncoded: bytes) }
    static func extended(_ bytes: [UInt8]) throws { _ = try ExtendedKeyUsage(derEncoded: bytes) }
    static func authority(_ bytes: [UInt8]) throws { _ = try AuthorityKeyIdentifier(derEncoded: bytes) }
    static func alternativeNames(_ bytes: [UInt8]) throws {
        _ = try Certificate.Extensions([
            Certificate.Extension(oid: .X509Extension.subjectAlternativeName, critical: false, value: bytes)
        ])
    }
    static func subjectKeyIdentifier(_ bytes: [UInt8]) throws {
        _ = try Certificate.Extensions([
            Certificate.Extension(oid: .X509Extension.subjectKeyIdentifier, critical: false, value: bytes)
        ])
    }

    static func nameConstraints(_ bytes: [UInt8]) throws { _ = try NameConstraints(derEncoded: bytes) }
    static func informationAccess(_ bytes: [UInt8]) throws { _ = try AccessDescription.sequence(derEncoded: bytes) }

    static let rejections: [ExtensionRejection] = [
        ExtensionRejection(name: "NC empty SEQUENCE", hex: "3000", code: .invalidCertificate, parse: nameConstraints),
        ExtensionRejection(
            name: "NC empty permittedSubtrees", hex: "3002a000", code: .invalidCertificate, parse: nameConstraints),
        ExtensionRejection(
            name: "NC empty excludedSubtrees", hex: "3002a100", code: .invalidCertificate, parse: nameConstraints),
        ExtensionRejection(
            name: "NC minimum encoded", hex: "300ba009300782016180020100", code: .invalidCertificate,
            parse: nameConstraints),
        ExtensionRejection(
            name: "NC maximum present", hex: "300ba009300782016181020101", code: .invalidCertificate,
            parse: nameConstraints),
        ExtensionRejection(
            name: "NC IP subtree of 4 octets", hex: "300aa0083006870401020304", code: .invalidCertificate,
            parse: nameConstraints),
        ExtensionRejection(name: "NC trailing element", hex: "30020500", code: .invalidDER, parse: nameConstraints),
        ExtensionRejection(name: "AIA empty", hex: "3000", code: .invalidCertificate, parse: informationAccess),
        ExtensionRejection(
            name: "AIA description without location", hex: "300c300a06082b06010505073002", code: .invalidDER,
            parse: informationAccess),

        ExtensionRejection(name: "basicConstraints not a SEQUENCE", hex: "0500", code: .invalidDER, parse: basic),
        ExtensionRejection(name: "basicConstraints cA FALSE", hex: "3003010100", code: .invalidDER, parse: basic),
        ExtensionRejection(
            name: "basicConstraints negative", hex: "30030201ff", code: .invalidCertificate, parse: basic),
        ExtensionRejection(name: "basicConstraints extra", hex: "300605000201ff", code: .invalidDER, parse: basic),
        ExtensionRejection(
            name: "basicConstraints huge", hex: "300b0209010000000000000000", code: .limitExceeded, parse: basic),
        ExtensionRejection(name: "keyUsage no bits", hex: "030100", code: .invalidCertificate, parse: usage),
        ExtensionRejection(name: "keyUsage zero octet", hex: "03020000", code: .invalidCertificate, parse: usage),
        ExtensionRejection(name: "keyUsage trailing zeros", hex: "03020180", code: .invalidDER, parse: usage),
        ExtensionRejection(name: "keyUsage bit 9", hex: "0303060040", code: .invalidCertificate, parse: usage),
        ExtensionRejection(name: "keyUsage three octets", hex: "030407000080", code: .invalidCertificate, parse: usage),
        ExtensionRejection(name: "keyUsage not BIT STRING", hex: "040100", code: .invalidDER, parse: usage),
        ExtensionRejection(name: "EKU empty", hex: "3000", code: .invalidCertificate, parse: extended),
        ExtensionRejection(name: "EKU not OIDs", hex: "30020500", code: .invalidDER, parse: extended),
        ExtensionRejection(name: "AKI wrong tag", hex: "30038101aa", code: .invalidDER, parse: authority),
        ExtensionRejection(name: "AKI extra element", hex: "30058001aa0500", code: .invalidDER, parse: authority),
        ExtensionRejection(name: "AKI padded serial", hex: "300680010a82010000", code: .invalidDER, parse: authority),
        ExtensionRejection(name: "AKI empty issuer", hex: "3002a100", code: .invalidCertificate, parse: authority),
        ExtensionRejection(name: "SAN empty", hex: "3000", code: .invalidCertificate, parse: alternativeNames),
        ExtensionRejection(
            name: "SAN universal tag", hex: "30020500", code: .invalidCertificate, parse: alternativeNames),
        ExtensionRejection(
            name: "SAN IP 8 octets", hex: "300a87080a0000000aff0000", code: .invalidCertificate, parse: alternativeNames
        ),
        ExtensionRejection(
            name: "SAN non-ASCII DNS", hex: "30038201ff", code: .invalidCertificate, parse: alternativeNames),
        ExtensionRejection(
            name: "SAN constructed dNSName", hex: "3002a200", code: .invalidCertificate, parse: alternativeNames),
        ExtensionRejection(name: "SAN tag 9", hex: "3002890000", code: .invalidDER, parse: alternativeNames),
        ExtensionRejection(
            name: "SAN directoryName two", hex: "3006a40430003000", code: .invalidCertificate, parse: alternativeNames),
        ExtensionRejection(name: "SAN bad registeredID", hex: "3003880180", code: .invalidDER, parse: alternativeNames),
        ExtensionRejection(name: "SKI not OCTET STRING", hex: "0500", code: .invalidDER, parse: subjectKeyIdentifier),
    ]

    @Test("every malformed extension value is refused with its code", arguments: rejections)
    func rejection(_ rejection: ExtensionRejection) throws {
        let bytes = try #require(Hex.decode(rejection.hex))
        let error = try #require(throws: X509Error.self) { try rejection.parse(bytes) }
        #expect(error.code == rejection.code, "\(error)")
    }

    @Test("nameConstraints and authorityInfoAccess parse: DNS and IP subtrees, a caIssuers URI")
    func constraintsAndAccess() throws {
        // permitted [0] { dNSName "a" }, excluded [1] { iPAddress 10.0.0.0/255.0.0.0 }
        let constraints = try NameConstraints(
            derEncoded: try #require(Hex.decode("3015a0053003820161a10c300a87080a000000ff000000")))
        #expect(constraints.permittedSubtrees == [.dnsName("a")])
        #expect(constraints.excludedSubtrees == [.ipAddress([10, 0, 0, 0, 255, 0, 0, 0])])
        // { caIssuers, URI "h" }
        let access = try AccessDescription.sequence(
            derEncoded: try #require(Hex.decode("300f300d06082b06010505073002860168")))
        #expect(access.count == 1)
        #expect(access.first?.method == "1.3.6.1.5.5.7.48.2")
        #expect(access.first?.location == .uniformResourceIdentifier("h"))
    }

    @Test("too many subjectAltNames is limitExceeded")
    func generalNameLimit() throws {
        var writer = DERWriter()
        writer.appendSequence { sequence in
            for _ in 0...GeneralName.maximumCount { sequence.appendImplicit(tag: 2, content: Array("a".utf8)) }
        }
        #expect(throws: X509Error.limitExceeded("")) { try Self.alternativeNames(writer.bytes) }
    }

    @Test("typed values round-trip: encode, parse, same value and same bytes")
    func roundTrips() throws {
        for value in [
            BasicConstraints(isCA: false), BasicConstraints(isCA: true),
            BasicConstraints(isCA: true, pathLengthConstraint: 0),
            BasicConstraints(isCA: true, pathLengthConstraint: 300),
        ] {
            #expect(try BasicConstraints(derEncoded: value.derEncoded) == value)
        }
        #expect(BasicConstraints(isCA: false).derEncoded == [0x30, 0x00])
        for raw in [UInt16(1), 0b10_0001, 0b1_1111_1111, 0b1_0000_0000, 0b1000_0000, 0b0110_0000] {
            let usage = KeyUsage(rawValue: raw)
            #expect(try KeyUsage(derEncoded: usage.derEncoded) == usage)
        }
        #expect(KeyUsage([.digitalSignature, .keyCertSign]).derEncoded == [0x03, 0x02, 0x02, 0x84])
        #expect(KeyUsage.decipherOnly.derEncoded == [0x03, 0x03, 0x07, 0x00, 0x80])
        let eku = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth, .ExtendedKeyUsage.clientAuth])
        #expect(try ExtendedKeyUsage(derEncoded: eku.derEncoded) == eku)
        let name = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "CA")])
        let aki = AuthorityKeyIdentifier(
            keyIdentifier: [1, 2, 3],
            authorityCertIssuer: [.directoryName(name), .uniformResourceIdentifier("https://x")],
            authorityCertSerialNumber: [0x00, 0x80])
        #expect(try AuthorityKeyIdentifier(derEncoded: aki.derEncoded()) == aki)
        let names: [GeneralName] = [
            .dnsName("*.example.com"), .rfc822Name("a@example.com"), .uniformResourceIdentifier("https://example.com"),
            .ipAddress([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]), .registeredID(.AppAttest.nonce),
            .directoryName(name), .otherName([0xA0, 0x05, 0x06, 0x01, 0x2A, 0xA0, 0x00]),
        ]
        let extensions = try Certificate.Extensions([
            Certificate.Extension(
                oid: .X509Extension.subjectAlternativeName, critical: false,
                value: try CertificateBuilderProbe.subjectAltNameValue(names)),
            Certificate.Extension(
                oid: .X509Extension.subjectKeyIdentifier, critical: false, value: [0x04, 0x01, 0x07]),
        ])
        #expect(extensions.subjectAlternativeNames == names)
        #expect(extensions.subjectKeyIdentifier == [7])
    }
}

/// Gets a subjectAltName value out of the public builder API.
enum CertificateBuilderProbe {
    static func subjectAltNameValue(_ names: [GeneralName]) throws -> [UInt8] {
        let key = RampartCryptoProbe.p256SPKI
        let name = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "probe")])
        var builder = CertificateBuilder(
            subject: name, issuer: name, subjectPublicKeyInfo: key, notBefore: X509Fixtures.start,
            notAfter: X509Fixtures.start + 60)
        builder.subjectAlternativeNames = names
        let extensions = try builder.extensions()
        return try #require(extensions.first).value
    }
}
