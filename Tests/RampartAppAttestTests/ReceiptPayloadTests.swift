import Foundation
import RampartX509
import Testing

@testable import RampartAppAttest

/// The receipt payload grammar, checked on payloads built here (the CMS layer is tested with real receipts).
struct ReceiptPayloadTests {
    static func attribute(_ type: Int, _ value: [UInt8], version: Int = 1) -> [UInt8] {
        var writer = DERWriter()
        writer.appendSequence { sequence in
            sequence.appendInteger(type)
            sequence.appendInteger(version)
            sequence.appendOctetString(value)
        }
        return writer.bytes
    }

    static func payload(_ attributes: [[UInt8]]) -> [UInt8] {
        var writer = DERWriter()
        writer.appendSetOf(attributes)
        return writer.bytes
    }

    static let required: [[UInt8]] = [
        attribute(2, Array("ABCDE12345.com.example.app".utf8)),
        attribute(3, [0x30, 0x00]),
        attribute(6, Array("RECEIPT".utf8)),
        attribute(12, Array("2024-01-02T03:04:05.678Z".utf8)),
    ]

    @Test("a minimal payload parses; optional fields are nil; unknown types are kept")
    func minimal() throws {
        let receipt = try Receipt(
            rawRepresentation: [1], payload: Self.payload(Self.required + [Self.attribute(99, [7])]))
        #expect(receipt.appID == "ABCDE12345.com.example.app")
        #expect(receipt.type == "RECEIPT")
        #expect(receipt.riskMetric == nil && receipt.notBefore == nil && receipt.expirationTime == nil)
        #expect(receipt.attributes.contains { $0.type == 99 && $0.value == [7] })
        let withMetric = try Receipt(
            rawRepresentation: [1],
            payload: Self.payload(Self.required + [Self.attribute(17, Array("5".utf8))])
        )
        #expect(withMetric.riskMetric == 5)
    }

    @Test(
        "malformed payloads throw malformedReceipt",
        arguments: [
            ("not DER", [UInt8]([0x31, 0x05, 0x00])),
            ("a SEQUENCE, not a SET", [0x30, 0x00]),
            ("an attribute that is not a SEQUENCE of three", payload([[0x02, 0x01, 0x01]])),
            (
                "an attribute value that is not an OCTET STRING",
                payload([[0x30, 0x06, 0x02, 0x01, 0x02, 0x02, 0x01, 0x01]])
            ),
            ("a repeated attribute type", payload(required + [attribute(2, [0x41])])),
            ("no app id", payload(Array(required.dropFirst()))),
            (
                "a creation time that is not RFC 3339",
                payload(Array(required.dropLast()) + [attribute(12, Array("yesterday".utf8))])
            ),
            ("a risk metric that is not a number", payload(required + [attribute(17, Array("high".utf8))])),
            (
                "a type that is not UTF-8",
                payload(Array(required.dropLast(2)) + [attribute(6, [0xC3, 0x28]), required[3]])
            ),
        ]
    )
    func malformed(_ name: String, _ payload: [UInt8]) {
        #expect(throws: AppAttestError.malformedReceipt(""), "\(name)") {
            try Receipt(rawRepresentation: [1], payload: payload)
        }
    }

    @Test("more attributes than the limit throw limitExceeded")
    func tooMany() {
        let many = (0...Receipt.maximumAttributeCount).map { Self.attribute(100 + $0, [0]) }
        #expect(throws: AppAttestError.limitExceeded("")) {
            try Receipt(rawRepresentation: [1], payload: Self.payload(many))
        }
    }
}
