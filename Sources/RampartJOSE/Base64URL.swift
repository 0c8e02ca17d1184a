/// Strict base64url (RFC 4648 section 5) without padding, as JOSE uses it (RFC 7515 section 2, "Base64url Encoding").
///
/// Decoding refuses padding, the standard alphabet's `+` and `/`, whitespace, a length of 4k+1, and a last
/// character whose unused low bits are not zero, so every byte string has exactly one accepted encoding (a token or
/// a key cannot be re-spelled into a second form that still verifies).
///
/// This is Rampart's one strict base64url codec. The service's request fields are read more leniently on purpose
/// (standard or URL-safe alphabet, padding optional: the API's documented contract), and nothing else encodes
/// base64url.
public enum Base64URL {
    /// Encodes `bytes` as unpadded base64url.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: The text.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3F)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded base64url, or returns nil.
    ///
    /// - Parameters:
    ///   - text: The encoded bytes.
    ///   - maximumByteCount: The largest decoded size accepted (checked before any work; a DoS bound).
    /// - Returns: The bytes, or nil when `text` is not the one canonical unpadded base64url encoding of some bytes
    ///   of at most `maximumByteCount`.
    public static func decode(_ text: some Collection<UInt8>, maximumByteCount: Int) -> [UInt8]? {
        let count = text.count
        guard count % 4 != 1, count / 4 * 3 + max(count % 4 - 1, 0) <= maximumByteCount else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(count / 4 * 3 + 2)
        var buffer: UInt32 = 0
        var bits = 0
        for character in text {
            let value: UInt32
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = UInt32(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = UInt32(character - UInt8(ascii: "a")) + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt32(character - UInt8(ascii: "0")) + 52
            case UInt8(ascii: "-"): value = 62
            case UInt8(ascii: "_"): value = 63
            default: return nil
            }
            buffer = (buffer << 6) | value
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // The bits left over from the last character must be zero (RFC 4648 section 3.5: canonical encoding).
        guard buffer == 0 else { return nil }
        return output
    }

    /// Decodes a JOSE member, or throws `error(reason)`.
    ///
    /// - Parameters:
    ///   - text: The member's value.
    ///   - what: What it is, for the message (`the JWK member "n"`).
    ///   - maximumByteCount: The largest decoded size accepted.
    ///   - error: Makes the error to throw.
    /// - Returns: The bytes.
    /// - Throws: What `error` makes.
    static func decode(
        _ text: String, what: String, maximumByteCount: Int, error: (String) -> JOSEError
    ) throws -> [UInt8] {
        guard let bytes = decode(text.utf8, maximumByteCount: maximumByteCount) else {
            throw error(
                "\(what) is not unpadded base64url of at most \(maximumByteCount) bytes (RFC 7515 section 2: "
                    + "alphabet A-Z a-z 0-9 - _, no '=' padding, no whitespace)")
        }
        return bytes
    }
}
