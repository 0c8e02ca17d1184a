import Foundation
import RampartKeyAttestation
import RampartX509
import TestSupport
import Testing

struct KeyDescriptionTests {
    @Test(
        "every vector chain's KeyDescription equals the reference verifier's JSON, field for field",
        arguments: AndroidChain.all)
    func matchesReference(chain: AndroidChain) throws {
        let leaf = try #require(try chain.chain().first)
        let value = try #require(leaf.extensions[oid: .KeyAttestation.keyDescription]?.value)
        let description = try KeyDescription(derEncoded: value)
        let encoded = try JSONEncoder().encode(description)
        let ours = try AndroidChain.parseJSON(encoded)
        let expected = try chain.expectedJSON()
        #expect(ours == expected, "\(chain.name): \(String(decoding: encoded, as: UTF8.self))")
    }

    @Test("a parsed KeyDescription serialises to exactly the bytes it was parsed from", arguments: AndroidChain.all)
    func roundTrip(chain: AndroidChain) throws {
        let leaf = try #require(try chain.chain().first)
        let value = try #require(leaf.extensions[oid: .KeyAttestation.keyDescription]?.value)
        #expect(try KeyDescription(derEncoded: value).derEncoded == value)
    }

    @Test("the allowWhileOnBody fixture parses its tag [506]")
    func allowWhileOnBody() throws {
        // RampartX509 refuses this certificate (its keyUsage BIT STRING keeps a trailing zero octet, which DER
        // forbids), so the extension is read from the DER tree: Certificate → TBSCertificate → [3] → Extensions.
        let pem = String(decoding: try Vectors.data("android-key-attestation/allow_while_on_body.pem"), as: UTF8.self)
        let certificate = try DER.parse(try PEMDocument(pemEncoded: pem).derBytes)
        let tbs = try #require(certificate.children.first)
        let wrapper = try #require(tbs.children.last { $0.identifier == .contextSpecific(3, isConstructed: true) })
        let extensions = try #require(wrapper.children.first?.children)
        let attestation = try #require(
            extensions.first { (try? $0.children.first?.objectIdentifierValue()) == .KeyAttestation.keyDescription })
        let value = try #require(attestation.children.last).octetStringValue()
        let description = try KeyDescription(derEncoded: value)
        let tags = description.softwareEnforced.tagNumbers + description.hardwareEnforced.tagNumbers
        #expect(tags.contains(506))
        #expect(description.derEncoded == value)
    }

    @Test("the invalid vectors are refused by the parser, each with its own explanation")
    func invalidVectors() throws {
        let cases = [
            ("invalid/malformed_rot_device_locked.pem", "BOOLEAN"),
            ("invalid/tags_not_in_ascending_order.pem", "ascending order"),
        ]
        for (path, mention) in cases {
            let leaf = try #require(try AndroidChain.certificates(path).first)
            let value = try #require(leaf.extensions[oid: .KeyAttestation.keyDescription]?.value)
            let error = try #require(throws: KeyAttestationError.self) { try KeyDescription(derEncoded: value) }
            #expect(error.code == .malformedKeyDescription, "\(path)")
            #expect(error.reason.contains(mention), "\(path): \(error.reason)")
        }
    }

    /// A minimal KeyDescription, with one element of the hardware list replaced by `hardware`.
    static func description(hardware: [UInt8], software: [UInt8] = [0x30, 0x00]) -> [UInt8] {
        var writer = DERWriter()
        writer.appendSequence { sequence in
            sequence.appendInteger(300)
            sequence.appendTLV(.enumerated, content: [1])
            sequence.appendInteger(300)
            sequence.appendTLV(.enumerated, content: [1])
            sequence.appendOctetString(Array("challenge".utf8))
            sequence.appendOctetString([])
            sequence.appendTLV(.sequence, content: software.dropFirst(2))
            sequence.appendTLV(.sequence, content: hardware)
        }
        return writer.bytes
    }

    static func tagged(_ tag: UInt32, _ body: (inout DERWriter) -> Void) -> [UInt8] {
        var writer = DERWriter()
        writer.appendConstructed(.contextSpecific(tag, isConstructed: true), body)
        return writer.bytes
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        let code: KeyAttestationError.Code
        let mention: String
        var testDescription: String { name }
    }

    static let malformed: [Malformed] = [
        Malformed(
            name: "unknown tag", bytes: description(hardware: tagged(9999) { $0.appendNull() }),
            code: .malformedKeyDescription, mention: "does not define"),
        Malformed(
            name: "repeated tag",
            bytes: description(hardware: tagged(2) { $0.appendInteger(3) } + tagged(2) { $0.appendInteger(3) }),
            code: .malformedKeyDescription, mention: "ascending order"),
        Malformed(
            name: "flag with a value", bytes: description(hardware: tagged(503) { $0.appendInteger(1) }),
            code: .malformedKeyDescription, mention: "should be NULL"),
        Malformed(
            name: "implicit tag", bytes: description(hardware: [0x82, 0x01, 0x03]),
            code: .malformedKeyDescription, mention: "EXPLICIT"),
        Malformed(
            name: "two values in one tag",
            bytes: description(
                hardware: tagged(2) {
                    $0.appendInteger(3)
                    $0.appendInteger(3)
                }),
            code: .malformedKeyDescription, mention: "exactly one value"),
        Malformed(
            name: "integer beyond 64 bits",
            bytes: description(
                hardware: tagged(3) { $0.appendInteger(unsignedBigEndian: [UInt8](repeating: 0x7F, count: 9)) }),
            code: .limitExceeded, mention: "64 bits"),
        Malformed(
            name: "unknown origin", bytes: description(hardware: tagged(702) { $0.appendInteger(9) }),
            code: .malformedKeyDescription, mention: "KeyOrigin"),
        Malformed(
            name: "set too large",
            bytes: description(
                hardware: tagged(1) { set in
                    set.appendConstructed(.set) {
                        for _ in 0...AuthorizationList.maximumSetCount { $0.appendInteger(2) }
                    }
                }),
            code: .limitExceeded, mention: "values"),
        Malformed(
            name: "identifier not UTF-8",
            bytes: description(hardware: tagged(710) { $0.appendOctetString([0xFF, 0xFE]) }),
            code: .malformedKeyDescription, mention: "UTF-8"),
        Malformed(
            name: "trailing bytes", bytes: description(hardware: []) + [0x00],
            code: .malformedKeyDescription, mention: "trailing"),
        Malformed(
            name: "too large", bytes: [UInt8](repeating: 0, count: KeyDescription.maximumByteCount + 1),
            code: .limitExceeded, mention: "larger"),
        Malformed(
            name: "root of trust without boot state",
            bytes: description(
                hardware: tagged(704) { root in
                    root.appendSequence {
                        $0.appendOctetString([0])
                        $0.appendBoolean(true)
                    }
                }),
            code: .malformedKeyDescription, mention: "verifiedBootState"),
    ]

    @Test("malformed KeyDescriptions are refused with the code and reason of what is wrong", arguments: malformed)
    func refusesMalformed(item: Malformed) {
        let error = #expect(throws: KeyAttestationError.self) { try KeyDescription(derEncoded: item.bytes) }
        #expect(error?.code == item.code, "\(error?.description ?? "")")
        #expect(error?.reason.contains(item.mention) == true, "\(error?.description ?? "")")
    }

    @Test("a well-formed minimal KeyDescription parses and round-trips")
    func minimal() throws {
        let bytes = Self.description(
            hardware: Self.tagged(2) { $0.appendInteger(3) } + Self.tagged(702) { $0.appendInteger(0) })
        let description = try KeyDescription(derEncoded: bytes)
        #expect(description.hardwareEnforced.algorithm == 3)
        #expect(description.hardwareEnforced.origin == .generated)
        #expect(description.derEncoded == bytes)
    }
}
