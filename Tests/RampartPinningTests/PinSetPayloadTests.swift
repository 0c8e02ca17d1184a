import Foundation
import RampartCrypto
import RampartPinning
import Testing

/// Issue 32 item 6: a signed pin set's payload is read strictly (UTF-8 only, no byte-order mark, unique member names,
/// an integer version), so that no reader can take another meaning from the signed bytes.
struct PinSetPayloadTests {
    static let key = Ed25519PrivateKey()
    static let issued = Date(timeIntervalSince1970: 1_790_000_000)
    static var verifier: PinSetVerifier { PinSetVerifier(bundleID: "com.example.app", signers: [key.publicKey]) }

    /// The payload `SignedPinSet.sign` writes for version 5.
    static func payload() throws -> String {
        let configuration = try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test",
                caPins: [
                    try Pin(kind: .spkiSHA256, base64: pinA),
                    try Pin(kind: .spkiSHA256, base64: Data(repeating: 7, count: 32).base64EncodedString()),
                ])
        ])
        let envelope = try SignedPinSet.sign(
            configuration, bundleID: "com.example.app", version: 5, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(86400), key: key)
        let text = String(decoding: envelope, as: UTF8.self)
        let payload = try #require(text.range(of: "\n\n")).upperBound
        return String(text[payload...])
    }

    /// An envelope signed by the shipped key around any payload bytes.
    static func envelope(_ payload: [UInt8]) throws -> [UInt8] {
        let signature = try key.signature(for: SignedPinSet.signatureContext + payload)
        let header =
            "\(SignedPinSet.magic)\nkey-id: \(SignedPinSet.keyID(of: key.publicKey))\n"
            + "signature: \(Data(signature).base64EncodedString())\n\n"
        return Array(header.utf8) + payload
    }

    /// One way to bend the payload, and the words the refusal must hold.
    struct Case: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let edit: @Sendable (String) -> [UInt8]
        let refusal: String
    }

    static let cases: [Case] = [
        Case(
            testDescription: "a second version member",
            edit: { Array($0.replacingOccurrences(of: "{", with: "{\"version\":9,", options: .anchored).utf8) },
            refusal: "repeats a member name"),
        Case(
            testDescription: "a second version member spelled with an escape",
            edit: { Array($0.replacingOccurrences(of: "{", with: "{\"versi\\u006fn\":9,", options: .anchored).utf8) },
            refusal: "repeats a member name"),
        Case(
            testDescription: "UTF-16 little-endian",
            edit: { text in text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
            },
            refusal: "not UTF-8"),
        Case(
            testDescription: "a byte-order mark", edit: { [0xEF, 0xBB, 0xBF] + Array($0.utf8) },
            refusal: "byte-order mark"),
        Case(
            testDescription: "version true",
            edit: { Array($0.replacingOccurrences(of: "\"version\":5", with: "\"version\":true").utf8) },
            refusal: "version is not an integer"),
        Case(
            testDescription: "version 5.0",
            edit: { Array($0.replacingOccurrences(of: "\"version\":5", with: "\"version\":5.0").utf8) },
            refusal: "version is not an integer"),
        Case(
            testDescription: "version 1e2",
            edit: { Array($0.replacingOccurrences(of: "\"version\":5", with: "\"version\":1e2").utf8) },
            refusal: "version is not an integer"),
        Case(
            testDescription: "version \"5\"",
            edit: { Array($0.replacingOccurrences(of: "\"version\":5", with: "\"version\":\"5\"").utf8) },
            refusal: "version is not an integer"),
        Case(
            testDescription: "version 2^64",
            edit: {
                Array($0.replacingOccurrences(of: "\"version\":5", with: "\"version\":18446744073709551616").utf8)
            },
            refusal: "version is not an integer"),
        Case(
            testDescription: "a lone surrogate in the bundle id",
            edit: { Array($0.replacingOccurrences(of: "com.example.app", with: "com.example.app\\ud800").utf8) },
            refusal: "lone surrogate"),
        Case(testDescription: "bytes after the object", edit: { Array(($0 + " {}").utf8) }, refusal: "bytes follow"),
        Case(
            testDescription: "a raw control character in a string",
            edit: { Array($0.replacingOccurrences(of: "com.example.app", with: "com.example.app\u{01}").utf8) },
            refusal: "control character"),
        Case(
            testDescription: "nesting 17 deep",
            edit: {
                Array(
                    $0.replacingOccurrences(
                        of: "{",
                        with: "{\"x\":" + String(repeating: "[", count: 16) + String(repeating: "]", count: 16) + ",",
                        options: .anchored
                    ).utf8)
            },
            refusal: "nests deeper than 16"),
        Case(
            testDescription: "a top-level array", edit: { Array("[\($0)]".utf8) }, refusal: "top level is not an object"
        ),
    ]

    @Test("a payload bent away from strict JSON is refused as malformed, naming why", arguments: cases)
    func refused(_ testCase: Case) throws {
        let envelope = try Self.envelope(testCase.edit(try Self.payload()))
        let verdict = Self.verifier.verify(envelope, floor: 0, at: Self.issued)
        guard case .refuse(let refusal) = verdict else {
            Issue.record("adopted")
            return
        }
        #expect(refusal.reason == .malformed)
        #expect(refusal.message.contains(testCase.refusal), "\(refusal.message)")
    }

    @Test("the payload SignedPinSet.sign writes, and the same with whitespace and escapes, is adopted at version 5")
    func adopted() throws {
        let payload = try Self.payload()
        let spaced = payload.replacingOccurrences(of: ",", with: " ,\n\t").replacingOccurrences(
            of: "com.example.app", with: "com\\u002eexample.app")
        for text in [payload, " \(spaced)\r\n"] {
            guard
                case .adopt(let set) = Self.verifier.verify(
                    try Self.envelope(Array(text.utf8)), floor: 4, at: Self.issued)
            else {
                Issue.record("refused: \(text)")
                continue
            }
            #expect(set.version == 5)
            #expect(set.bundleID == "com.example.app")
        }
    }
}
