import Foundation
import RampartASN1
import Testing

/// Bytes from hex digits, or nil for an odd count or a non-hex digit (this leaf's tests link nothing else).
func hexBytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var bytes: [UInt8] = []
    for index in stride(from: 0, to: digits.count, by: 2) {
        guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else {
            return nil
        }
        bytes.append(byte)
    }
    return bytes
}

/// The App Attest nonce extension's identifier, which RampartX509 names `ASN1ObjectIdentifier.AppAttest.nonce`.
let appAttestNonce: ASN1ObjectIdentifier = "1.2.840.113635.100.8.2"

/// One malformed encoding and the error it must raise.
struct DERRejection: CustomTestStringConvertible, Sendable {
    let name: String
    let hex: String
    let code: ASN1Error.Code
    let reason: String
    var testDescription: String { name }
}

struct DERTests {
    static let rejections: [DERRejection] = [
        DERRejection(name: "empty input", hex: "", code: .invalidDER, reason: "ends inside an identifier"),
        DERRejection(name: "no length", hex: "30", code: .invalidDER, reason: "ends inside a length"),
        DERRejection(name: "truncated content", hex: "0403aabb", code: .invalidDER, reason: "claims 3"),
        DERRejection(name: "trailing bytes", hex: "050000", code: .invalidDER, reason: "1 trailing bytes"),
        DERRejection(name: "indefinite length", hex: "30800000", code: .invalidDER, reason: "indefinite"),
        DERRejection(name: "end-of-contents", hex: "0000", code: .invalidDER, reason: "end-of-contents"),
        DERRejection(name: "reserved length 0xFF", hex: "04ff", code: .invalidDER, reason: "0xFF"),
        DERRejection(name: "long form below 128", hex: "04810100", code: .invalidDER, reason: "fits the short form"),
        DERRejection(name: "length leading zero", hex: "0482000100", code: .invalidDER, reason: "leading zero octet"),
        DERRejection(name: "five length octets", hex: "04850000000001", code: .invalidDER, reason: "5 octets"),
        DERRejection(name: "low tag in high form", hex: "1f0500", code: .invalidDER, reason: "high-tag-number form"),
        DERRejection(name: "high tag padded", hex: "1f801f00", code: .invalidDER, reason: "leading 0x80"),
        DERRejection(name: "high tag too big", hex: "1f818080808000", code: .invalidDER, reason: "32 bits"),
        DERRejection(name: "high tag truncated", hex: "1f81", code: .invalidDER, reason: "high tag number"),
        DERRejection(name: "primitive SEQUENCE", hex: "1000", code: .invalidDER, reason: "primitive form"),
        DERRejection(name: "constructed OCTET STRING", hex: "2400", code: .invalidDER, reason: "constructed form"),
        DERRejection(name: "BOOLEAN 0x01", hex: "010101", code: .invalidDER, reason: "0x00 or 0xFF"),
        DERRejection(name: "BOOLEAN two octets", hex: "0102ffff", code: .invalidDER, reason: "0x00 or 0xFF"),
        DERRejection(name: "empty INTEGER", hex: "0200", code: .invalidDER, reason: "no content octets"),
        DERRejection(name: "INTEGER leading zero", hex: "02020001", code: .invalidDER, reason: "minimum number"),
        DERRejection(name: "INTEGER leading 0xFF", hex: "0202ff80", code: .invalidDER, reason: "minimum number"),
        DERRejection(name: "ENUMERATED leading zero", hex: "0a020001", code: .invalidDER, reason: "minimum number"),
        DERRejection(name: "empty BIT STRING", hex: "0300", code: .invalidDER, reason: "unused-bits octet"),
        DERRejection(name: "BIT STRING 8 unused", hex: "030208ff", code: .invalidDER, reason: "unused-bits octet"),
        DERRejection(name: "BIT STRING unused no bits", hex: "030101", code: .invalidDER, reason: "empty BIT STRING"),
        DERRejection(name: "BIT STRING nonzero padding", hex: "030201ff", code: .invalidDER, reason: "not zero"),
        DERRejection(name: "NULL with content", hex: "050100", code: .invalidDER, reason: "NULL has contents"),
        DERRejection(name: "empty OID", hex: "0600", code: .invalidDER, reason: "no content octets"),
        DERRejection(name: "OID truncated arc", hex: "06022a86", code: .invalidDER, reason: "ends inside"),
        DERRejection(name: "OID padded arc", hex: "06032a8001", code: .invalidDER, reason: "leading 0x80"),
        DERRejection(name: "bad child", hex: "3003020200", code: .invalidDER, reason: "claims 2"),
        DERRejection(name: "child overruns parent", hex: "30020401aa", code: .invalidDER, reason: "only 0 remain"),
    ]

    @Test("every malformed encoding is refused with its code", arguments: rejections)
    func rejection(_ rejection: DERRejection) throws {
        let bytes = try #require(hexBytes(rejection.hex))
        let error = try #require(throws: ASN1Error.self) { try DER.parse(bytes) }
        #expect(error.code == rejection.code)
        #expect(error.reason.contains(rejection.reason), "\(error.reason)")
    }

    @Test("nesting deeper than DER.maximumDepth is limitExceeded; exactly the limit parses")
    func depthLimit() throws {
        func nested(_ depth: Int) -> [UInt8] {
            var bytes: [UInt8] = [0x05, 0x00]
            for _ in 1..<depth {
                var writer = DERWriter()
                writer.appendTLV(.sequence, content: bytes)
                bytes = writer.bytes
            }
            return bytes
        }
        _ = try DER.parse(nested(DER.maximumDepth))
        #expect(throws: ASN1Error.limitExceeded("")) { try DER.parse(nested(DER.maximumDepth + 1)) }
    }

    @Test("input larger than DER.maximumInputByteCount is limitExceeded before parsing")
    func sizeLimit() {
        let bytes = [UInt8](repeating: 0, count: DER.maximumInputByteCount + 1)
        #expect(throws: ASN1Error.limitExceeded("")) { try DER.parse(bytes) }
    }

    @Test("OIDs longer than maximumEncodedByteCount are limitExceeded")
    func oidLimit() throws {
        var content = [UInt8](repeating: 0x81, count: ASN1ObjectIdentifier.maximumEncodedByteCount)
        content.append(0x01)
        var writer = DERWriter()
        writer.appendTLV(.objectIdentifier, content: content)
        #expect(throws: ASN1Error.limitExceeded("")) { try DER.parse(writer.bytes) }
    }

    @Test("the writer's output parses back, and re-serialising the tree gives the same bytes")
    func writerRoundTrip() throws {
        var writer = DERWriter()
        try writer.appendSequence { sequence in
            sequence.appendBoolean(true)
            sequence.appendBoolean(false)
            for value in [0, 1, -1, 127, 128, -128, -129, 255, 256, Int.max, Int.min] { sequence.appendInteger(value) }
            sequence.appendInteger(unsignedBigEndian: [0x00, 0x00, 0x80, 0x01])
            sequence.appendInteger(unsignedBigEndian: [])
            sequence.appendNull()
            sequence.appendOctetString([UInt8](repeating: 7, count: 300))
            sequence.appendBitString([0xFF], unusedBitCount: 3)
            sequence.appendBitString([])
            sequence.appendObjectIdentifier(appAttestNonce)
            sequence.appendUTF8String("Zürich")
            sequence.appendPrintableString("GB")
            sequence.appendIA5String("a@b.c")
            try sequence.appendTime(Date(timeIntervalSince1970: 0))
            try sequence.appendTime(Date(timeIntervalSince1970: 4_102_444_800))
            try sequence.appendGeneralizedTime(Date(timeIntervalSince1970: 1_700_000_000.75))
            sequence.appendExplicit(tag: 3) { $0.appendInteger(5) }
            sequence.appendImplicit(tag: 2, content: Array("x".utf8))
            sequence.appendSetOf([[0x05, 0x00], [0x02, 0x01, 0x01], [0x02, 0x01, 0x00]])
            sequence.appendTLV(ASN1Identifier(tagClass: .private, tagNumber: 1000, isConstructed: false), content: [1])
            try sequence.appendRawTLV([0x04, 0x01, 0x09])
        }
        let node = try DER.parse(writer.bytes)
        var again = DERWriter()
        node.serialize(into: &again)
        #expect(again.bytes == writer.bytes)
        #expect(node.encodedBytes == writer.bytes)

        let children = node.children
        #expect(try children[0].booleanValue() == true)
        #expect(try children[1].booleanValue() == false)
        let integers = try children[2...12].map { try $0.integerValue() }
        #expect(integers == [0, 1, -1, 127, 128, -128, -129, 255, 256, Int.max, Int.min])
        #expect(try children[13].integerBytes() == [0x00, 0x80, 0x01])
        #expect(try children[14].integerBytes() == [0x00])
        #expect(try children[16].octetStringValue().count == 300)
        let bits = try children[17].bitStringValue()
        #expect(bits.bytes == [0xF8] && bits.unusedBitCount == 3)
        #expect(try children[19].objectIdentifierValue() == appAttestNonce)
        #expect(children[22].identifier == .ia5String)
        #expect(try ASN1Time.date(from: children[23]) == Date(timeIntervalSince1970: 0))
        #expect(children[23].contentBytes == Array("700101000000Z".utf8))
        #expect(children[24].identifier == .generalizedTime)
        #expect(children[24].contentBytes == Array("21000101000000Z".utf8))
        #expect(children[25].contentBytes == Array("20231114221320Z".utf8))
        // SET OF components come out sorted (X.690 11.6).
        #expect(children[28].contentBytes == [0x02, 0x01, 0x00, 0x02, 0x01, 0x01, 0x05, 0x00])
        #expect(children[29].identifier.tagNumber == 1000)
    }

    @Test("appendRawTLV refuses bytes that are not exactly one DER element")
    func rawTLVChecked() {
        var writer = DERWriter()
        #expect(throws: ASN1Error.invalidDER("")) { try writer.appendRawTLV([0x05, 0x00, 0x05, 0x00]) }
        #expect(writer.bytes.isEmpty)
    }

    @Test("typed accessors refuse the wrong tag")
    func accessorTags() throws {
        let null = try DER.parse([0x05, 0x00])
        #expect(throws: ASN1Error.invalidDER("")) { try null.integerValue() }
        #expect(throws: ASN1Error.invalidDER("")) { try null.booleanValue() }
        #expect(throws: ASN1Error.invalidDER("")) { try null.octetStringValue() }
        #expect(throws: ASN1Error.invalidDER("")) { try null.bitStringValue() }
        #expect(throws: ASN1Error.invalidDER("")) { try null.objectIdentifierValue() }
        #expect(throws: ASN1Error.invalidDER("")) { try null.integerBytes() }
        let big = try DER.parse([0x02, 0x09, 0x01, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(throws: ASN1Error.limitExceeded("")) { try big.integerValue() }
    }

    @Test(
        "dotted OIDs round-trip through DER, including arcs beyond 64 bits",
        arguments: [
            "1.2.840.113635.100.8.2", "2.5.29.19", "0.9.2342.19200300.100.1.25", "2.999.3", "1.39",
            "2.25.329800735698586629295641978511506172918", "2.100000000000000000000",
        ])
    func oidRoundTrip(dotted: String) throws {
        if dotted.split(separator: ".").allSatisfy({ UInt64($0) != nil }) {
            let identifier = try ASN1ObjectIdentifier(dotted)
            #expect(identifier.dottedString == dotted)
            var writer = DERWriter()
            writer.appendObjectIdentifier(identifier)
            #expect(try DER.parse(writer.bytes).objectIdentifierValue() == identifier)
        } else {
            // Arcs beyond 64 bits cannot be written from text here, but decode exactly.
            #expect(throws: ASN1Error.invalidDER("")) { try ASN1ObjectIdentifier(dotted) }
        }
    }

    @Test("a UUID OID (2.25, 128-bit arc) decodes to exact decimal")
    func bigArc() throws {
        // 2.25.329800735698586629295641978511506172918 as DER content.
        let content = try #require(hexBytes("6983f09da7ebcfdee0c7a1a7b2c0948cc8f9d776"))
        var writer = DERWriter()
        writer.appendTLV(.objectIdentifier, content: content)
        let identifier = try DER.parse(writer.bytes).objectIdentifierValue()
        #expect(identifier.dottedString == "2.25.329800735698586629295641978511506172918")
    }

    @Test(
        "malformed dotted OIDs are invalidDER",
        arguments: [
            "", "1", "3.1", "1.40", "1..2", "1.2.", "01.2", "1.2.x", "1.-2", "1.2.99999999999999999999999",
            "2.18446744073709551615",
        ])
    func badDotted(dotted: String) {
        #expect(throws: ASN1Error.invalidDER("")) { try ASN1ObjectIdentifier(dotted) }
    }

    struct TimeCase: CustomTestStringConvertible, Sendable {
        let identifier: ASN1Identifier
        let text: String
        let unix: Int?
        var testDescription: String { "\(identifier) \(text)" }
    }

    @Test(
        "UTCTime and GeneralizedTime follow RFC 5280 4.1.2.5 strictly",
        arguments: [
            TimeCase(identifier: .utcTime, text: "491231235959Z", unix: 2_524_607_999),
            TimeCase(identifier: .utcTime, text: "500101000000Z", unix: -631_152_000),
            TimeCase(identifier: .utcTime, text: "240229120000Z", unix: 1_709_208_000),
            TimeCase(identifier: .generalizedTime, text: "20500101000000Z", unix: 2_524_608_000),
            TimeCase(identifier: .generalizedTime, text: "00010101000000Z", unix: -62_135_596_800),
            TimeCase(identifier: .generalizedTime, text: "99991231235959Z", unix: 253_402_300_799),
            TimeCase(identifier: .utcTime, text: "230229120000Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "231301000000Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "231200000000Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "231231240000Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "231231236000Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "231231235960Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "2312312359Z", unix: nil),
            TimeCase(identifier: .utcTime, text: "231231235959+0100", unix: nil),
            TimeCase(identifier: .utcTime, text: "231231235959", unix: nil),
            TimeCase(identifier: .utcTime, text: "23123123595aZ", unix: nil),
            TimeCase(identifier: .generalizedTime, text: "20231231235959.5Z", unix: nil),
            TimeCase(identifier: .generalizedTime, text: "00000101000000Z", unix: nil),
            TimeCase(identifier: .generalizedTime, text: "202312312359Z", unix: nil),
            TimeCase(identifier: .octetString, text: "231231235959Z", unix: nil),
        ])
    func times(_ time: TimeCase) throws {
        var writer = DERWriter()
        writer.appendTLV(time.identifier, content: Array(time.text.utf8))
        let node = try DER.parse(writer.bytes)
        if let unix = time.unix {
            #expect(try ASN1Time.date(from: node) == Date(timeIntervalSince1970: TimeInterval(unix)))
        } else {
            #expect(throws: ASN1Error.invalidDER("")) { try ASN1Time.date(from: node) }
        }
    }

    @Test("appendTime refuses dates outside years 1 to 9999")
    func timeRange() {
        var writer = DERWriter()
        #expect(throws: ASN1Error.invalidDER("")) { try writer.appendTime(Date(timeIntervalSince1970: 1e12)) }
        #expect(throws: ASN1Error.invalidDER("")) { try writer.appendGeneralizedTime(.distantPast) }
    }

    /// The rules keys add to the certificate setting (StrictDER's, which RampartCrypto used before this reader), and
    /// the rules certificates' reader had that keys now get too.
    static let keyRejections: [DERRejection] = [
        DERRejection(name: "high tag number", hex: "9f1f0100", code: .invalidDER, reason: "high-tag-number identifier"),
        DERRejection(
            name: "high tag, low number", hex: "1f0500", code: .invalidDER, reason: "high-tag-number identifier"),
        DERRejection(name: "constructed EXTERNAL", hex: "2800", code: .invalidDER, reason: "only SEQUENCE and SET"),
        DERRejection(name: "constructed EMBEDDED PDV", hex: "2b00", code: .invalidDER, reason: "only SEQUENCE and SET"),
        DERRejection(name: "constructed CHARACTER STRING", hex: "3d00", code: .invalidDER, reason: "only SEQUENCE"),
        DERRejection(name: "constructed BIT STRING", hex: "2300", code: .invalidDER, reason: "constructed form"),
        DERRejection(name: "end-of-contents", hex: "0000", code: .invalidDER, reason: "end-of-contents"),
        DERRejection(name: "primitive SEQUENCE", hex: "1000", code: .invalidDER, reason: "primitive form"),
        DERRejection(name: "primitive SET", hex: "1100", code: .invalidDER, reason: "primitive form"),
        DERRejection(name: "ENUMERATED leading zero", hex: "0a020001", code: .invalidDER, reason: "minimum number"),
        DERRejection(name: "indefinite length", hex: "30800000", code: .invalidDER, reason: "indefinite"),
        DERRejection(name: "trailing bytes", hex: "050000", code: .invalidDER, reason: "1 trailing bytes"),
    ]

    @Test(
        "DER.Limits.key refuses what keys never use, and every rule of the certificate setting",
        arguments: keyRejections)
    func keyRejection(_ rejection: DERRejection) throws {
        let bytes = try #require(hexBytes(rejection.hex))
        let error = try #require(throws: ASN1Error.self) { try DER.parse(bytes, limits: .key) }
        #expect(error.code == rejection.code)
        #expect(error.reason.contains(rejection.reason), "\(error.reason)")
    }

    @Test("the certificate setting accepts high tag numbers and constructed EXTERNAL, which keys refuse")
    func certificateProfile() throws {
        _ = try DER.parse(#require(hexBytes("9f1f0100")))
        _ = try DER.parse(#require(hexBytes("2800")))
        #expect(DER.Limits.certificate.maximumDepth == DER.maximumDepth)
        #expect(DER.Limits.certificate.maximumInputByteCount == DER.maximumInputByteCount)
    }

    @Test("DER.Limits.key: 16 levels parse and 17 are limitExceeded; inputs above 1 MiB are limitExceeded")
    func keyLimits() throws {
        func nested(_ depth: Int) -> [UInt8] {
            (1..<depth).reduce([0x05, 0x00]) { inner, _ in
                var writer = DERWriter()
                writer.appendTLV(.sequence, content: inner)
                return writer.bytes
            }
        }
        #expect(DER.Limits.key.maximumDepth == 16)
        _ = try DER.parse(nested(16), limits: .key)
        #expect(throws: ASN1Error.limitExceeded("")) { try DER.parse(nested(17), limits: .key) }
        let large = [UInt8](repeating: 0, count: DER.Limits.key.maximumInputByteCount + 1)
        #expect(throws: ASN1Error.limitExceeded("")) { try DER.parse(large, limits: .key) }
    }
}
