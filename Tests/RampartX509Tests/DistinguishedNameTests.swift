import Foundation
import RampartCrypto
import RampartX509
import TestSupport
import Testing

/// One name and how OpenSSL 3 prints it with `-nameopt oneline,-space_eq`.
struct NameCase: CustomTestStringConvertible, Sendable {
    let name: String
    let relativeNames: [[DistinguishedName.Attribute]]
    let expected: String
    /// Whether OpenSSL accepts a certificate with this name at all (it refuses some non-string value types).
    let opensslParses: Bool
    var testDescription: String { name }

    init(
        _ name: String, _ relativeNames: [[DistinguishedName.Attribute]], _ expected: String, opensslParses: Bool = true
    ) {
        self.name = name
        self.relativeNames = relativeNames
        self.expected = expected
        self.opensslParses = opensslParses
    }

    static func cn(_ value: String) -> [[DistinguishedName.Attribute]] {
        [[DistinguishedName.Attribute(.NameAttribute.commonName, value)]]
    }

    static func typed(_ identifier: ASN1Identifier, _ content: [UInt8]) -> [[DistinguishedName.Attribute]] {
        [
            [
                DistinguishedName.Attribute(
                    type: .NameAttribute.commonName, valueIdentifier: identifier, valueContent: content)
            ]
        ]
    }
}

struct DistinguishedNameTests {
    static let cases: [NameCase] = [
        NameCase(
            "plain",
            [
                [.init(.NameAttribute.countryName, "GB")], [.init(.NameAttribute.organizationName, "Sectigo Limited")],
                [.init(.NameAttribute.commonName, "Sectigo Public Server Authentication CA DV E36")],
            ], "C=GB, O=Sectigo Limited, CN=Sectigo Public Server Authentication CA DV E36"),
        NameCase("comma", NameCase.cn("Acme, Inc."), "CN=\"Acme, Inc.\""),
        NameCase("plus", NameCase.cn("a+b"), "CN=\"a+b\""),
        NameCase("semicolon and angles", NameCase.cn("a;b<c>d"), "CN=\"a;b<c>d\""),
        NameCase("double quote", NameCase.cn("say \"hi\""), "CN=say \\\"hi\\\""),
        NameCase("quote inside quotes", NameCase.cn("x, \"y\""), "CN=\"x, \\\"y\\\"\""),
        NameCase("backslash", NameCase.cn("back\\slash"), "CN=back\\\\slash"),
        NameCase("leading space", NameCase.cn(" lead"), "CN=\" lead\""),
        NameCase("trailing space", NameCase.cn("trail "), "CN=\"trail \""),
        NameCase("single space", NameCase.cn(" "), "CN=\" \""),
        NameCase("inner space", NameCase.cn("a b"), "CN=a b"),
        NameCase("leading hash", NameCase.cn("#tag"), "CN=\"#tag\""),
        NameCase("lone hash", NameCase.cn("#"), "CN=#"),
        NameCase("inner hash and equals", NameCase.cn("a#b=c"), "CN=a#b=c"),
        NameCase("empty", NameCase.cn(""), "CN="),
        NameCase("UTF-8", NameCase.cn("Zürich"), "CN=Z\\C3\\BCrich"),
        NameCase("emoji", NameCase.cn("😀"), "CN=\\F0\\9F\\98\\80"),
        NameCase("control and DEL", NameCase.cn("a\u{01}b\u{7F}c\td"), "CN=a\\01b\\7Fc\\09d"),
        NameCase(
            "BMPString", NameCase.typed(.bmpString, [0x00, 0x41, 0x00, 0xE9, 0x4E, 0x2D]), "CN=A\\C3\\A9\\E4\\B8\\AD"),
        NameCase(
            "UniversalString", NameCase.typed(.universalString, [0, 0, 0, 0x41, 0, 1, 0xF6, 0x00]),
            "CN=A\\F0\\9F\\98\\80"),
        NameCase("Latin-1 PrintableString", NameCase.typed(.printableString, [0x41, 0xE9]), "CN=A\\C3\\A9"),
        NameCase("IA5String", NameCase.typed(.ia5String, Array("a,b".utf8)), "CN=\"a,b\""),
        NameCase("TeletexString", NameCase.typed(.teletexString, Array("T61".utf8)), "CN=T61"),
        NameCase(
            "multi-valued RDN",
            [
                [.init(.NameAttribute.organizationName, "Org"), .init(.NameAttribute.organizationalUnitName, "Unit")],
                [.init(.NameAttribute.commonName, "x")],
            ], "O=Org + OU=Unit, CN=x"),
        NameCase(
            "other short names",
            [
                [.init(.NameAttribute.domainComponent, "com")], [.init(.NameAttribute.userID, "u1")],
                [
                    .init(
                        type: .NameAttribute.emailAddress, valueIdentifier: .ia5String,
                        valueContent: Array("a@b.c".utf8))
                ],
                [.init(.NameAttribute.serialNumber, "42")], [.init(.NameAttribute.stateOrProvinceName, "ST")],
                [.init(.NameAttribute.localityName, "L")], [.init(.NameAttribute.streetAddress, "1 Road")],
            ], "DC=com, UID=u1, emailAddress=a@b.c, serialNumber=42, ST=ST, L=L, street=1 Road"),
        NameCase("unknown attribute type", [[.init("1.3.6.1.4.1.99999.1", "v")]], "1.3.6.1.4.1.99999.1=v"),
        NameCase("SEQUENCE value", NameCase.typed(.sequence, [0x05, 0x00]), "CN=#30020500"),
        NameCase(
            "OCTET STRING value", NameCase.typed(.octetString, [0x01, 0xAB]), "CN=#040201AB", opensslParses: false),
        NameCase("VisibleString", NameCase.typed(.visibleString, Array("vis".utf8)), "CN=vis", opensslParses: false),
    ]

    @Test("names print as openssl x509 -nameopt oneline,-space_eq does", arguments: cases)
    func printing(_ nameCase: NameCase) throws {
        let name = try DistinguishedName(nameCase.relativeNames.map(DistinguishedName.RelativeDistinguishedName.init))
        #expect(name.description == nameCase.expected)
        // Round trip: the DER parses back to an equal name with the same text.
        let again = try DistinguishedName(derEncoded: name.derBytes)
        #expect(again == name && again.derBytes == name.derBytes && again.description == nameCase.expected)
    }

    @Test(
        "the printed names equal the openssl CLI's, in certificates the builder signs",
        .enabled(if: OpenSSLCLI.available, "the openssl command-line tool is not installed"))
    func againstOpenSSL() throws {
        let key = ECPrivateKey(curve: .p256)
        for nameCase in Self.cases {
            let name = try DistinguishedName(
                nameCase.relativeNames.map(DistinguishedName.RelativeDistinguishedName.init))
            let certificate = try CertificateBuilder(
                subject: name, issuer: name, publicKey: key.publicKey, notBefore: X509Fixtures.start,
                notAfter: X509Fixtures.start + 60
            ).sign(with: key)
            let result = try OpenSSLCLI.run(
                ["x509", "-noout", "-subject", "-nameopt", "oneline,-space_eq"], input: Data(certificate.pemString.utf8)
            )
            if nameCase.opensslParses {
                #expect(
                    String(decoding: result.output, as: UTF8.self) == "subject=\(nameCase.expected)\n",
                    "\(nameCase.name)")
            } else {
                #expect(result.status != 0, "\(nameCase.name)")
            }
        }
    }

    @Test("commonName is the last CN; stringValue decodes the string types")
    func accessors() throws {
        let name = try DistinguishedName(attributes: [
            .init(.NameAttribute.commonName, "first"), .init(.NameAttribute.organizationName, "o"),
            .init(.NameAttribute.commonName, "last"),
        ])
        #expect(name.commonName == "last")
        #expect(try DistinguishedName([]).commonName == nil)
        let bmp = DistinguishedName.Attribute(
            type: .NameAttribute.commonName, valueIdentifier: .bmpString, valueContent: [0, 0xE9])
        #expect(bmp.stringValue == "é")
        let latin = DistinguishedName.Attribute(
            type: .NameAttribute.commonName, valueIdentifier: .printableString, valueContent: [0xE9])
        #expect(latin.stringValue == "é")
        let octets = DistinguishedName.Attribute(
            type: .NameAttribute.commonName, valueIdentifier: .octetString, valueContent: [1])
        #expect(octets.stringValue == nil)
        #expect(DistinguishedName.Attribute(.NameAttribute.countryName, "GB").valueIdentifier == .printableString)
    }

    @Test("an RDN with no attribute cannot be built")
    func emptyRDN() {
        #expect(throws: X509Error.invalidCertificate("")) {
            try DistinguishedName([DistinguishedName.RelativeDistinguishedName([])])
        }
    }
}
