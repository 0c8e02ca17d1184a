import RampartRequestSigning

/// The challenge in the body of a `POST /v1/challenges` answer, `{"challenge":"…","expiresAt":"…"}`.
///
/// The service writes exactly that object, so it is read with one exact scan: the bytes must be
/// `{"challenge":"` C `","expiresAt":"` E `"}` where C and E hold printable ASCII other than `"` and `\`. Such a
/// text is always valid JSON (RFC 8259 §7: a string of unescaped characters) whose `challenge` member is C as
/// written. Any other text — whitespace, members in another order, escapes — goes through ``JSONValue``.
enum LoadChallengeBody {
    /// The challenge, or nil when the body is not a JSON object with a string `challenge` member.
    ///
    /// - Parameter body: The answer's body.
    /// - Returns: The challenge as issued.
    static func challenge(in body: [UInt8]) -> String? {
        if let challenge = exactChallenge(in: body) { return challenge }
        guard case .object(let fields) = try? JSONValue(parsing: body),
            case .string(let challenge)? = fields["challenge"]
        else { return nil }
        return challenge
    }

    private static let opening: StaticString = #"{"challenge":""#
    private static let middle: StaticString = #"","expiresAt":""#
    private static let closing: StaticString = #""}"#

    /// The exact scan; nil when the body has any other shape.
    static func exactChallenge(in body: [UInt8]) -> String? {
        body.withUnsafeBufferPointer { bytes -> String? in
            var index = 0
            func literal(_ text: StaticString) -> Bool {
                let count = text.utf8CodeUnitCount
                guard bytes.count - index >= count else { return false }
                let pattern = text.utf8Start
                for offset in 0..<count where bytes[index + offset] != pattern[offset] { return false }
                index += count
                return true
            }
            /// Skips printable ASCII other than `"` and `\`; returns how many bytes.
            func plain() -> Int {
                let start = index
                while index < bytes.count, bytes[index] >= 0x20, bytes[index] < 0x7F,
                    bytes[index] != UInt8(ascii: "\""),
                    bytes[index] != UInt8(ascii: "\\")
                {
                    index += 1
                }
                return index - start
            }
            guard literal(opening) else { return nil }
            let start = index
            guard plain() > 0 else { return nil }
            let end = index
            guard literal(middle) else { return nil }
            _ = plain()
            guard literal(closing), index == bytes.count else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }
}
