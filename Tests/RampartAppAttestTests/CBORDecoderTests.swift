import Foundation
import RampartAppAttest
import TestSupport
import Testing

/// One CBOR input and the error code it must raise.
struct CBORRejection: CustomTestStringConvertible, Sendable {
    let name: String
    let hex: String
    let code: AppAttestError.Code

    var testDescription: String { name }

    static let all: [CBORRejection] = [
        CBORRejection(name: "empty input", hex: "", code: .malformedCBOR),
        CBORRejection(name: "trailing byte", hex: "0000", code: .malformedCBOR),
        CBORRejection(name: "indefinite byte string", hex: "5f4101ff", code: .malformedCBOR),
        CBORRejection(name: "indefinite map", hex: "bf6161 01ff", code: .malformedCBOR),
        CBORRejection(name: "reserved additional information 28", hex: "1c", code: .malformedCBOR),
        CBORRejection(name: "one-byte argument below 24", hex: "1817", code: .malformedCBOR),
        CBORRejection(name: "two-byte argument below 256", hex: "1900ff", code: .malformedCBOR),
        CBORRejection(name: "four-byte argument below 65536", hex: "1a0000ffff", code: .malformedCBOR),
        CBORRejection(name: "eight-byte argument below 2^32", hex: "1b00000000ffffffff", code: .malformedCBOR),
        CBORRejection(name: "tag", hex: "c074323031332d30332d32315432303a30343a30305a", code: .malformedCBOR),
        CBORRejection(name: "half float", hex: "f93c00", code: .malformedCBOR),
        CBORRejection(name: "double float", hex: "fb3ff199999999999a", code: .malformedCBOR),
        CBORRejection(name: "undefined", hex: "f7", code: .malformedCBOR),
        CBORRejection(name: "duplicate map key", hex: "a2616101616102", code: .malformedCBOR),
        CBORRejection(name: "invalid UTF-8 text", hex: "62c328", code: .malformedCBOR),
        CBORRejection(name: "byte string longer than input", hex: "5a00010000 00", code: .malformedCBOR),
        CBORRejection(name: "array count larger than input", hex: "9a00010000", code: .malformedCBOR),
        CBORRejection(name: "huge length", hex: "5bffffffffffffffff", code: .malformedCBOR),
        CBORRejection(name: "truncated argument", hex: "19 01", code: .malformedCBOR),
        CBORRejection(name: "truncated map", hex: "a26161", code: .malformedCBOR),
        CBORRejection(name: "nesting deeper than 8", hex: "818181818181818100", code: .limitExceeded),
    ]
}

struct CBORDecoderTests {
    func decode(_ hex: String) throws -> CBORValue {
        try CBORDecoder().decode(Hex.decode(hex.replacingOccurrences(of: " ", with: "")) ?? [0xFF])
    }

    @Test("RFC 8949 Appendix A examples in the supported subset decode and re-encode to the same bytes")
    func appendixA() throws {
        let cases: [(String, CBORValue)] = [
            ("00", .unsignedInteger(0)),
            ("17", .unsignedInteger(23)),
            ("1818", .unsignedInteger(24)),
            ("1903e8", .unsignedInteger(1000)),
            ("1a000f4240", .unsignedInteger(1_000_000)),
            ("1b000000e8d4a51000", .unsignedInteger(1_000_000_000_000)),
            ("1bffffffffffffffff", .unsignedInteger(UInt64.max)),
            ("20", .negativeInteger(0)),
            ("3863", .negativeInteger(99)),
            ("f4", .boolean(false)),
            ("f5", .boolean(true)),
            ("f6", .null),
            ("40", .byteString([])),
            ("4401020304", .byteString([1, 2, 3, 4])),
            ("6161", .textString("a")),
            ("6449455446", .textString("IETF")),
            ("62c3bc", .textString("ü")),
            ("80", .array([])),
            ("83010203", .array([.unsignedInteger(1), .unsignedInteger(2), .unsignedInteger(3)])),
            ("a0", .map([])),
            (
                "a201020304",
                .map([
                    CBORMapEntry(.unsignedInteger(1), .unsignedInteger(2)),
                    CBORMapEntry(.unsignedInteger(3), .unsignedInteger(4)),
                ])
            ),
            (
                "a26161016162820203",
                .map([
                    CBORMapEntry(.textString("a"), .unsignedInteger(1)),
                    CBORMapEntry(.textString("b"), .array([.unsignedInteger(2), .unsignedInteger(3)])),
                ])
            ),
        ]
        for (hex, expected) in cases {
            let value = try decode(hex)
            #expect(value == expected, "\(hex)")
            #expect(Hex.encode(value.encoded) == hex, "\(hex)")
        }
    }

    @Test("malformed CBOR is rejected with its code", arguments: CBORRejection.all)
    func rejects(_ rejection: CBORRejection) {
        #expect(throws: AppAttestError(code: rejection.code)) { try decode(rejection.hex) }
    }

    @Test("inputs beyond the byte limit are refused before decoding")
    func byteLimit() {
        let decoder = CBORDecoder(limits: .init(maximumByteCount: 4, maximumDepth: 8, maximumItemCount: 10))
        #expect(throws: AppAttestError.limitExceeded("")) { try decoder.decode([0x45, 1, 2, 3, 4, 5]) }
    }

    @Test("inputs with more items than the limit are refused")
    func itemLimit() {
        let decoder = CBORDecoder(limits: .init(maximumByteCount: 1024, maximumDepth: 8, maximumItemCount: 3))
        #expect(throws: AppAttestError.limitExceeded("")) { try decoder.decode([0x83, 1, 2, 3]) }
        #expect(throws: Never.self) { try decoder.decode([0x82, 1, 2]) }
    }

    @Test("a prefix decode reports the item's length and leaves the rest")
    func prefix() throws {
        let (value, count) = try CBORDecoder().decodePrefix([0x82, 1, 2, 0xFF, 0xFF])
        #expect(value == .array([.unsignedInteger(1), .unsignedInteger(2)]))
        #expect(count == 3)
    }

    @Test("map and integer accessors")
    func accessors() throws {
        let value = try decode("a3 01 02 20 43010203 6161 6178")
        #expect(value[integerKey: 1]?.integerValue == 2)
        #expect(value[integerKey: -1]?.byteStringValue == [1, 2, 3])
        #expect(value["a"]?.textStringValue == "x")
        #expect(value["missing"] == nil)
        #expect(CBORValue.negativeInteger(UInt64.max).integerValue == nil)
    }
}

extension AppAttestError {
    /// An error with `code`, for `#expect(throws:)` (errors compare by code only).
    init(code: AppAttestError.Code) {
        self =
            switch code {
            case .malformedCBOR: .malformedCBOR("")
            case .limitExceeded: .limitExceeded("")
            case .malformedAuthenticatorData: .malformedAuthenticatorData("")
            case .malformedAttestationObject: .malformedAttestationObject("")
            case .unsupportedFormat: .unsupportedFormat("")
            case .malformedAssertion: .malformedAssertion("")
            case .malformedCertificate: .malformedCertificate("")
            case .malformedReceipt: .malformedReceipt("")
            default: .invalidArgument("")
            }
    }
}
