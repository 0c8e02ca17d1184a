import Foundation
import Testing

@testable import RampartAttestService

/// The hand-written response bodies against `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`, `.iso8601`):
/// the same JSON for strings that need escaping, non-ASCII text, nil members and dates.
struct JSONObjectWriterTests {
    static let tricky: [String] = [
        "", "plain", "quote \" inside", "back\\slash", "\\\"", "slash / and </script>", "line\nfeed\r\ttab",
        "\u{0}\u{1}\u{8}\u{b}\u{c}\u{1f}\u{7f}", "caf\u{e9} \u{65}\u{301} \u{1F600}", "sep\u{2028}para\u{2029}end",
        "\u{FEFF}bom", "日本語",
    ]

    static let dates: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_796_130_977),
        Date(timeIntervalSince1970: 1_796_130_977.999), Date(timeIntervalSince1970: 951_782_400),
        Date(timeIntervalSince1970: 4_102_444_799),
    ]

    func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return Array(try encoder.encode(value))
    }

    /// Both byte strings parse, to equal values.
    func expectSameJSON(_ handWritten: [UInt8], _ reference: [UInt8]) throws {
        let mine = try JSONSerialization.jsonObject(with: Data(handWritten)) as? NSDictionary
        let theirs = try JSONSerialization.jsonObject(with: Data(reference)) as? NSDictionary
        #expect(mine != nil)
        #expect(mine == theirs, "\(String(decoding: handWritten, as: UTF8.self))")
    }

    @Test("an error body is the JSON JSONEncoder writes", arguments: tricky)
    func errorBody(_ text: String) throws {
        let body = HTTPResponseError.ErrorBody(error: text, message: "message: " + text)
        try expectSameJSON(body.jsonBytes, try encoded(body))
    }

    @Test("a string is escaped as RFC 8259 requires")
    func escaping() {
        var bytes: [UInt8] = []
        JSONObjectWriter.appendString("a\"b\\c/\u{1}\n\u{2028}é", to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "\"a\\\"b\\\\c/\\u0001\\n\u{2028}é\"")
    }

    @Test("a challenge body is the JSON JSONEncoder writes, dates included", arguments: dates)
    func challengeBody(_ date: Date) throws {
        let body = ServiceRouter.ChallengeBody(challenge: "v1.abc+/=\u{7f}", expiresAt: date)
        try expectSameJSON(body.jsonBytes, try encoded(body))
        #expect(body.jsonBytes == (try encoded(body)))
    }

    @Test("an allow verdict is the JSON JSONEncoder writes, with and without its optional members")
    func verifyBody() throws {
        var allowance = GatewayAllowance(policy: .requireAssertion, subject: "user \"1\"\u{2028}")
        let bare = ServiceRouter.VerifyBody(allowance)
        try expectSameJSON(bare.jsonBytes, try encoded(bare))
        allowance.keyID = "a2V5/+=="
        allowance.counter = UInt32.max
        allowance.environment = "production"
        allowance.verifiedDigest = "sha-256=:abc/def=:"
        allowance.nextChallenge = "next\\challenge"
        allowance.nextChallengeExpiresAt = Self.dates[2]
        allowance.limitedRefusal = "counterReplay"
        let body = ServiceRouter.VerifyBody(allowance)
        try expectSameJSON(body.jsonBytes, try encoded(body))
        #expect(body.jsonBytes == (try encoded(body)))
        let open = ServiceRouter.VerifyBody(GatewayAllowance(policy: .open, subject: nil))
        #expect(open.jsonBytes == (try encoded(open)))
    }

    @Test("the health body is the JSON JSONEncoder writes")
    func healthBody() throws {
        #expect(JSONBody.healthy == (try encoded(["status": "ok"])))
    }
}
