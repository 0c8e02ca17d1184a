import RampartASN1
import Testing

struct PEMTests {
    @Test("PEM round-trips and ignores text between blocks")
    func roundTrip() throws {
        let document = PEMDocument(label: "CERTIFICATE", derBytes: Array(0..<200))
        let text = "subject=CN=x\n" + document.pemString + "junk\n" + document.pemString
        let parsed = try PEMDocument.parseAll(text)
        #expect(parsed == [document, document])
        #expect(try PEMDocument(pemEncoded: document.pemString) == document)
    }

    @Test(
        "malformed PEM is invalidPEM",
        arguments: [
            "-----BEGIN CERTIFICATE-----\nAAAA\n",
            "-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n",
            "-----END CERTIFICATE-----\n",
            "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
            "-----BEGIN A-----\n-----BEGIN B-----\n",
        ])
    func malformed(text: String) {
        #expect(throws: ASN1Error.invalidPEM("")) { try PEMDocument.parseAll(text) }
    }
}

struct PEMRejectionTests {
    static let block = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"

    @Test(
        "every PEM rejection path is invalidPEM, and the message never quotes a malformed label",
        arguments: [
            ("-----BEGIN CERT\u{1}IFICATE-----\nAAAA\n-----END CERT\u{1}IFICATE-----\n", "malformed label"),
            ("-----BEGIN  CERTIFICATE-----\nAAAA\n-----END  CERTIFICATE-----\n", "malformed label"),
            ("-----BEGIN CERTIFICATE -----\nAAAA\n-----END CERTIFICATE -----\n", "malformed label"),
            ("-----BEGIN -----\nAAAA\n-----END -----\n", "malformed label"),
            ("-----BEGIN \(String(repeating: "A", count: 65))-----\n", "malformed label"),
            ("-----BEGIN CERTIFICATE-----\nProc-Type: 4,ENCRYPTED\nAAAA\n-----END CERTIFICATE-----\n", "headers"),
            ("-----BEGIN CERTIFICATE-----\n-----END CERTIFICATE-----\n", "not valid base64"),
            ("-----BEGIN CERTIFICATE-----\nAAA\n-----END CERTIFICATE-----\n", "not valid base64"),
            ("-----BEGIN A-----\n-----BEGIN B-----\n", "inside another"),
            ("-----END CERTIFICATE-----\n", "without a BEGIN"),
            ("-----BEGIN CERTIFICATE-----\nAAAA\n-----END PRIVATE KEY-----\n", "closed by"),
            ("-----BEGIN CERTIFICATE-----\nAAAA\n", "no END line"),
        ])
    func rejected(text: String, reason: String) throws {
        let error = try #require(throws: ASN1Error.self) { try PEMDocument.parseAll(text) }
        #expect(error.code == .invalidPEM)
        #expect(error.reason.contains(reason), "\(error.reason)")
        #expect(!error.description.contains("\u{1}"))
    }

    @Test("labels with single inner spaces or hyphens, CRLF and CR line ends, and indented lines are accepted")
    func accepted() throws {
        let documents = try PEMDocument.parseAll(
            "-----BEGIN EC PRIVATE KEY-----\r\n  AAAA  \r\n-----END EC PRIVATE KEY-----\r-----BEGIN X-Y-----\rAA\rAA\r-----END X-Y-----"
        )
        #expect(documents.map(\.label) == ["EC PRIVATE KEY", "X-Y"])
        #expect(documents.map(\.derBytes) == [[0, 0, 0], [0, 0, 0]])
    }

    @Test("more than maximumDocumentCount blocks, or more than maximumInputByteCount bytes, is invalidPEM")
    func limits() {
        let many = String(repeating: Self.block, count: PEMDocument.maximumDocumentCount + 1)
        #expect(throws: ASN1Error.invalidPEM("")) { try PEMDocument.parseAll(many) }
        let huge = String(repeating: "x", count: PEMDocument.maximumInputByteCount + 1)
        #expect(throws: ASN1Error.invalidPEM("")) { try PEMDocument.parseAll(huge) }
    }

    @Test("PEMDocument(pemEncoded:) wants exactly one block")
    func exactlyOne() {
        #expect(throws: ASN1Error.invalidPEM("")) { try PEMDocument(pemEncoded: "no blocks") }
        #expect(throws: ASN1Error.invalidPEM("")) { try PEMDocument(pemEncoded: Self.block + Self.block) }
    }
}

struct PEMKeyTextTests {
    static let key = PEMDocument(label: "PUBLIC KEY", derBytes: Array(0..<91))

    @Test("one block with the expected label, surrounded only by whitespace, is read")
    func accepted() throws {
        let text = Self.key.pemString
        #expect(try PEMDocument(pemEncoded: text, label: "PUBLIC KEY", maximumInputByteCount: 4096) == Self.key)
        let padded = "\n  " + text + "\n\n\t"
        #expect(try PEMDocument(pemEncoded: padded, label: "PUBLIC KEY", maximumInputByteCount: 4096) == Self.key)
    }

    @Test(
        "anything but exactly one block with the expected label and nothing else is invalidPEM saying why",
        arguments: [
            ("", "found none"),
            ("subject=CN=x\n" + key.pemString, "text outside the PEM block"),
            (key.pemString + "junk\n", "text outside the PEM block"),
            (key.pemString + key.pemString, "found 'PUBLIC KEY', 'PUBLIC KEY'"),
            (PEMDocument(label: "CERTIFICATE", derBytes: [1]).pemString, "found 'CERTIFICATE'"),
            ("-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\nAAAA\n-----END PUBLIC KEY-----", "headers"),
            ("-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----", "not valid base64"),
            ("-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----", "not valid base64"),
            (String(repeating: "A", count: 4097), "larger than 4096 bytes"),
        ])
    func refused(text: String, reason: String) throws {
        let error = try #require(throws: ASN1Error.self) {
            try PEMDocument(pemEncoded: text, label: "PUBLIC KEY", maximumInputByteCount: 4096)
        }
        #expect(error.code == .invalidPEM)
        #expect(error.reason.contains(reason), "\(error.reason)")
        #expect(error.reason.contains("expected one PEM block '-----BEGIN PUBLIC KEY-----'"), "\(error.reason)")
    }

    @Test("errors compare by code only and print code: reason")
    func errorShape() {
        #expect(ASN1Error.invalidPEM("a") == ASN1Error.invalidPEM("b"))
        #expect(ASN1Error.invalidPEM("a").hashValue == ASN1Error.invalidPEM("b").hashValue)
        #expect(ASN1Error.invalidPEM("a reason").description == "invalidPEM: a reason")
        #expect(ASN1Error.invalidPEM("r").debugDescription.hasPrefix("ASN1Error.invalidPEM: r ("))
    }
}
