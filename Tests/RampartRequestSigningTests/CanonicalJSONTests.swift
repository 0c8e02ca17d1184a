import Foundation
import RampartCrypto
import RampartRequestSigning
import TestSupport
import Testing

struct CanonicalJSONTests {
    func canonical(_ text: String) throws -> String {
        String(decoding: try CanonicalJSON.canonicalize(Array(text.utf8)), as: UTF8.self)
    }

    @Test("RFC 8785 section 3.2.2 example: whitespace, numbers, escapes and literals")
    func rfcMainExample() throws {
        let input = #"""
            {
              "numbers": [333333333.33333329, 1E30, 4.50,
                          2e-3, 0.000000000000000000000000001],
              "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
              "literals": [null, true, false]
            }
            """#
        let expected =
            #"{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"#
            + #""string":"€$\u000f\nA'B\"\\\\\"/"}"#
        #expect(try canonical(input) == expected)
    }

    @Test("RFC 8785 section 3.2.3 example: members sort by UTF-16 code units")
    func rfcSortingExample() throws {
        let input = #"""
            {
              "\u20ac": "Euro Sign",
              "\r": "Carriage Return",
              "\ufb33": "Hebrew Letter Dalet With Dagesh",
              "1": "One",
              "\ud83d\ude00": "Emoji: Grinning Face",
              "\u0080": "Control",
              "\u00f6": "Latin Small Letter O With Diaeresis"
            }
            """#
        let expected =
            "{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u{80}\":\"Control\","
            + "\"\u{F6}\":\"Latin Small Letter O With Diaeresis\",\"\u{20AC}\":\"Euro Sign\","
            + "\"\u{1F600}\":\"Emoji: Grinning Face\",\"\u{FB33}\":\"Hebrew Letter Dalet With Dagesh\"}"
        #expect(try canonical(input) == expected)
    }

    @Test("RFC 8785 Appendix B number serialization samples")
    func rfcNumberSamples() throws {
        let samples: [(String, String)] = [
            ("0000000000000000", "0"),
            ("8000000000000000", "0"),
            ("0000000000000001", "5e-324"),
            ("8000000000000001", "-5e-324"),
            ("7fefffffffffffff", "1.7976931348623157e+308"),
            ("ffefffffffffffff", "-1.7976931348623157e+308"),
            ("4340000000000000", "9007199254740992"),
            ("c340000000000000", "-9007199254740992"),
            ("4430000000000000", "295147905179352830000"),
            ("44b52d02c7e14af5", "9.999999999999997e+22"),
            ("44b52d02c7e14af6", "1e+23"),
            ("44b52d02c7e14af7", "1.0000000000000001e+23"),
            ("444b1ae4d6e2ef4e", "999999999999999700000"),
            ("444b1ae4d6e2ef4f", "999999999999999900000"),
            ("444b1ae4d6e2ef50", "1e+21"),
            ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
            ("3eb0c6f7a0b5ed8d", "0.000001"),
            ("41b3de4355555553", "333333333.3333332"),
            ("41b3de4355555554", "333333333.33333325"),
            ("41b3de4355555555", "333333333.3333333"),
            ("41b3de4355555556", "333333333.3333334"),
            ("41b3de4355555557", "333333333.33333343"),
            ("becbf647612f3696", "-0.0000033333333333333333"),
            ("43143ff3c1cb0959", "1424953923781206.2"),
        ]
        for (hex, expected) in samples {
            let bits = try #require(UInt64(hex, radix: 16))
            let value = Double(bitPattern: bits)
            #expect(CanonicalJSON.numberString(value) == expected, "\(hex)")
            // The canonical text parses back to the same double.
            #expect(try canonical(expected) == expected, "\(hex)")
        }
    }

    @Test("key order, whitespace, number spelling and Unicode escapes do not change the canonical bytes")
    func invariance() throws {
        let spellings = [
            #"{"amount":1000,"userId":"user_123","note":"é"}"#,
            "{\n  \"userId\" : \"user_123\",\n  \"amount\" : 1000.0, \"note\": \"\\u00e9\"\n}",
            #"{"note":"\u00E9","amount":1e3,"userId":"user\u005f123"}"#,
            #"  {"amount":10.00E2,"note":"é","userId":"user_123"}  "#,
        ]
        let outputs = try spellings.map { try canonical($0) }
        #expect(Set(outputs).count == 1)
        #expect(outputs.first == #"{"amount":1000,"note":"é","userId":"user_123"}"#)
    }

    @Test("the request client data is the canonical {challenge, payload} and its hash is SHA-256 of it")
    func requestClientData() throws {
        let payload = Array(#"{ "userId": "user_123", "action": "point_use", "amount": 1000 }"#.utf8)
        let data = try RequestCanonicalization.clientData(challenge: "d4f7", payloadJSON: payload)
        #expect(
            String(decoding: data, as: UTF8.self)
                == #"{"challenge":"d4f7","payload":{"action":"point_use","amount":1000,"userId":"user_123"}}"#
        )
        let value = try JSONValue(parsing: payload)
        #expect(RequestCanonicalization.clientDataHash(challenge: "d4f7", payload: value) == SHA256.hash(data))
        #expect(throws: RequestSigningError.malformedJSON("")) {
            try RequestCanonicalization.clientData(challenge: "c", payloadJSON: Array("[1]".utf8))
        }
    }

    @Test("control characters are escaped as RFC 8785 requires")
    func controlEscapes() throws {
        #expect(
            try canonical(#"["\u0008\u0009\u000a\u000c\u000d\u0001\u001f\u007f"]"#)
                == "[\"\\b\\t\\n\\f\\r\\u0001\\u001f\u{7f}\"]")
    }

    @Test(
        "text that is not I-JSON is rejected with malformedJSON",
        arguments: [
            #"{"a":1,"a":2}"#, #"["\ud800"]"#, #"["\udc00"]"#, #"["\ud800\u0041"]"#, "[1e400]", "[-1e400]", "[01]",
            "[1.]", "[.5]", "[1e]", "[+1]", "[NaN]", "[Infinity]", "{\"a\":1,}", "[1,]", "[1] 2", "\"\u{01}\"", "",
            "{", "[\"\\x\"]", "tru", "[\"\\u12G4\"]", "{1:2}", #"{"\u00e9":1,"e\u0301":2}"#,
        ]
    )
    func rejects(_ text: String) {
        #expect(throws: RequestSigningError.malformedJSON("")) { try canonical(text) }
    }

    @Test("invalid UTF-8 is rejected")
    func invalidUTF8() {
        #expect(throws: RequestSigningError.malformedJSON("")) {
            try CanonicalJSON.canonicalize([0x22, 0xC3, 0x28, 0x22])
        }
    }

    @Test("nesting beyond the depth limit and oversized input are refused with limitExceeded")
    func limits() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: RequestSigningError.limitExceeded("")) { try canonical(deep) }
        let big = [UInt8](repeating: 0x20, count: JSONValue.Limits.maximumByteCount + 1)
        #expect(throws: RequestSigningError.limitExceeded("")) { try CanonicalJSON.canonicalize(big) }
    }

    @Test(
        "exact numbers: a number whose canonical form is another number is inexactNumber",
        arguments: [
            "1234567890123456789", "1234567890123456850", "1234567890123456800", "9007199254740992",
            "-9007199254740992", "1e-400", "-1e-400", "0.1e-330", "333333333.33333329",
            "0.30000000000000001", "4.9e-324", "1.00000000000000001", "12345678901234567890e-10", "2e18",
            "-1.5e20", "1000000000000000000000", "1.2345678901234568e18",
        ]
    )
    func inexact(_ number: String) {
        #expect(throws: RequestSigningError.inexactNumber("")) {
            try JSONValue(parsing: Array("{\"payload\":{\"toAccount\":\(number)}}".utf8), numbers: .exact)
        }
        // The nearest-double reading of RFC 8785's examples still takes every one of them.
        #expect(throws: Never.self) { try JSONValue(parsing: Array("[\(number)]".utf8)) }
    }

    @Test(
        "exact numbers: every number a double holds exactly is accepted, in any spelling",
        arguments: [
            "0", "0.0", "0e10", "1", "1.0", "1.50", "1E2", "100e-2", "9007199254740991", "-9007199254740991",
            "0.1", "0.30000000000000004", "1e300", "5e-324", "-5e-324",
            "1.7976931348623157e308", "-0", "-0.0", "-0e5", "0.000001", "123456.789e3", "1e+30", "4.50", "2e-3", "2e53",
            "1e21",
        ]
    )
    func exact(_ number: String) throws {
        let exact = try JSONValue(parsing: Array("[\(number)]".utf8), numbers: .exact)
        #expect(exact == (try JSONValue(parsing: Array("[\(number)]".utf8))))
    }

    @Test("an inexact number's error names its place in the document, not its value")
    func inexactPlace() throws {
        let text = #"{"payload":{"transfers":[{"toAccount":1234567890123456789}]}}"#
        let error = try #require(throws: RequestSigningError.self) {
            try JSONValue(parsing: Array(text.utf8), numbers: .exact)
        }
        #expect(error.code == .inexactNumber)
        #expect(error.reason.contains("'payload.transfers[0].toAccount'"))
        #expect(!error.reason.contains("1234567890123456789"))
    }

    @Test("request client data reads the payload exactly, so two different payloads never share a signature")
    func clientDataExact() throws {
        #expect(throws: RequestSigningError.inexactNumber("")) {
            try RequestCanonicalization.clientData(challenge: "c", payloadJSON: Array(#"{"fee":1e-400}"#.utf8))
        }
        let data = try RequestCanonicalization.clientData(
            challenge: "c", payloadJSON: Array(#"{"toAccount":9007199254740991}"#.utf8))
        #expect(String(decoding: data, as: UTF8.self) == #"{"challenge":"c","payload":{"toAccount":9007199254740991}}"#)
    }
}
