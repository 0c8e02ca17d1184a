import RampartX509
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
        #expect(throws: X509Error.invalidPEM("")) { try PEMDocument.parseAll(text) }
    }
}
