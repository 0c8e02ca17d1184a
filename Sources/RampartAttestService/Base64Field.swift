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
        var standard = String(text.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        let remainder = standard.utf8.count % 4
        if remainder == 2 { standard += "==" } else if remainder == 3 { standard += "=" }
        guard !text.isEmpty, remainder != 1, let data = Data(base64Encoded: standard) else {
            throw AttestServiceError.invalidBase64(
                "\(field) is not base64 (standard or URL-safe alphabet, padding optional)")
        }
        return Array(data)
    }

    /// Encodes bytes as unpadded base64url.
    static func urlEncoded(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
