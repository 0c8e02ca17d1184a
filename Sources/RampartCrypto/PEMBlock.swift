internal import RampartASN1

/// Keys as PEM (RFC 7468), over RampartASN1's one codec: exactly one block with the key's label, optionally surrounded
/// by whitespace; no RFC 1421 headers and no explanatory text.
enum PEMBlock {
    /// `PUBLIC KEY`: a SubjectPublicKeyInfo (RFC 7468 section 13).
    static let publicKeyLabel = "PUBLIC KEY"
    /// `PRIVATE KEY`: an unencrypted PKCS#8 PrivateKeyInfo (RFC 7468 section 10).
    static let privateKeyLabel = "PRIVATE KEY"
    /// The most PEM text a key import reads (DoS bound): four times the largest SPKI, as base64 with line breaks.
    static let maximumTextByteCount = 64 * 1024

    /// Wraps `der` in a block with 64-character lines.
    static func encode(_ der: [UInt8], label: String) -> String {
        PEMDocument(label: label, derBytes: der).pemString
    }

    /// Decodes a single block labelled `label`.
    ///
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for anything but one well-formed block with that label.
    static func decode(_ text: String, label: String) throws -> [UInt8] {
        do {
            return try PEMDocument(pemEncoded: text, label: label, maximumInputByteCount: maximumTextByteCount)
                .derBytes
        } catch let error as ASN1Error {
            throw CryptoError.invalidEncoding(
                "\(error.reason); convert the key with `openssl pkey` if it is in another format")
        }
    }
}
