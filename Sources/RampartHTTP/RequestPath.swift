/// The path the router matches on, from a request target as sent.
package enum RequestPath {
    /// The target's path (before any `?`), with each `%HH` decoded (RFC 3986 2.1); `%` not followed by two hex
    /// digits stays as sent.
    ///
    /// When decoding would give a NUL byte or bytes that are not UTF-8, the path stays as sent: the `%` then makes
    /// the router refuse it like any other stray character (`invalidBase64` for a key id, `notFound` elsewhere),
    /// and two different targets never decode to the same text (`/v1/keys/<id>%00junk` is not `/v1/keys/<id>`).
    package static func decoded(_ target: String) -> String {
        let raw = target.utf8.prefix { $0 != UInt8(ascii: "?") }
        guard raw.contains(UInt8(ascii: "%")) else { return String(Substring(raw)) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%"), let high = raw.index(index, offsetBy: 1, limitedBy: raw.endIndex),
                high < raw.endIndex, let low = raw.index(high, offsetBy: 1, limitedBy: raw.endIndex),
                low < raw.endIndex,
                let first = hexValue(raw[high]), let second = hexValue(raw[low])
            {
                bytes.append(first << 4 | second)
                index = raw.index(after: low)
            } else {
                bytes.append(byte)
                index = raw.index(after: index)
            }
        }
        guard !bytes.contains(0), let text = String(validating: bytes, as: UTF8.self) else {
            return String(Substring(raw))
        }
        return text
    }

    /// The value of the hex digit `byte` (either case), or nil.
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
