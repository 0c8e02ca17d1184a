internal import Foundation

/// The one-block PEM codec keys use (RFC 7468): `-----BEGIN LABEL-----`, base64 lines, `-----END LABEL-----`.
///
/// Strict on purpose: exactly one block, optionally surrounded by whitespace; no RFC 1421 headers and no explanatory
/// text. (RampartX509's `PEMDocument` reads files of many blocks with text between them.)
enum PEMBlock {
    /// `PUBLIC KEY`: a SubjectPublicKeyInfo (RFC 7468 section 13).
    static let publicKeyLabel = "PUBLIC KEY"
    /// `PRIVATE KEY`: an unencrypted PKCS#8 PrivateKeyInfo (RFC 7468 section 10).
    static let privateKeyLabel = "PRIVATE KEY"
    /// The most PEM text a key import reads (DoS bound): four times the largest SPKI, as base64 with line breaks.
    static let maximumTextByteCount = 64 * 1024

    /// Wraps `der` in a block with 64-character lines.
    static func encode(_ der: [UInt8], label: String) -> String {
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN \(label)-----\n\(base64)\n-----END \(label)-----\n"
    }

    /// Decodes a single block labelled `label`.
    ///
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for anything but one well-formed block with that label.
    static func decode(_ text: String, label: String) throws -> [UInt8] {
        guard text.utf8.count <= maximumTextByteCount else {
            throw CryptoError.invalidEncoding("PEM key text is limited to \(maximumTextByteCount) bytes")
        }
        let lines = text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        let begin = "-----BEGIN \(label)-----"
        let end = "-----END \(label)-----"
        guard lines.count >= 3, lines.first == begin, lines.last == end else {
            throw CryptoError.invalidEncoding(
                "expected one PEM block '\(begin)' … '\(end)' and nothing else; convert the key with "
                    + "`openssl pkey` if it is in another format")
        }
        let body = lines.dropFirst().dropLast()
        guard body.allSatisfy({ !$0.hasPrefix("-----") && !$0.contains(":") }) else {
            throw CryptoError.invalidEncoding("the PEM \(label) block holds headers or a nested block")
        }
        guard let bytes = Data(base64Encoded: body.joined()), !bytes.isEmpty else {
            throw CryptoError.invalidEncoding("the body of the PEM \(label) block is not valid base64")
        }
        return Array(bytes)
    }
}
