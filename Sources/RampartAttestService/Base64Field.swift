import Foundation

/// Decoding of base64 request fields: standard or URL-safe alphabet, padded or not, nothing else.
enum Base64Field {
    /// Decodes `text`, the value of `field`.
    ///
    /// - Parameters:
    ///   - text: The field value.
    ///   - field: Its name, for the message.
    ///   - maximumByteCount: The largest decoded size accepted (a DoS bound).
    /// - Returns: The bytes.
    /// - Throws: ``AttestServiceError`` (`invalidBase64` or `invalidField`).
    static func decode(_ text: String, field: String, maximumByteCount: Int) throws -> [UInt8] {
        guard text.utf8.count <= (maximumByteCount / 3 + 1) * 4 else {
            throw AttestServiceError.invalidField("\(field) is longer than \(maximumByteCount) bytes")
        }
        // Byte by byte: '-' and '_' are ASCII, never part of a longer UTF-8 sequence (and mapping Characters, which
        // walks grapheme clusters, cost more than the decoding on the request path).
        var standard = text.utf8.map {
            $0 == UInt8(ascii: "-") ? UInt8(ascii: "+") : $0 == UInt8(ascii: "_") ? UInt8(ascii: "/") : $0
        }
        let remainder = standard.count % 4
        if remainder == 2 {
            standard += [UInt8(ascii: "="), UInt8(ascii: "=")]
        } else if remainder == 3 {
            standard.append(UInt8(ascii: "="))
        }
        guard !text.isEmpty, remainder != 1, let data = Data(base64Encoded: Data(standard)) else {
            throw AttestServiceError.invalidBase64(
                "\(field) is not base64 (standard or URL-safe alphabet, padding optional)")
        }
        return Array(data)
    }
}
