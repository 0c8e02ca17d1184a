/// DER encoding (not parsing, not crypto) of an RSA SubjectPublicKeyInfo from a JWK's `n` and `e`, so that
/// RampartCrypto's `RSAPublicKey(derRepresentation:)` imports and checks the key.
///
/// ```
/// SubjectPublicKeyInfo ::= SEQUENCE {                       -- RFC 5280 section 4.1
///     algorithm         AlgorithmIdentifier,                -- rsaEncryption (1.2.840.113549.1.1.1), NULL
///     subjectPublicKey  BIT STRING }                        -- no unused bits, holding:
/// RSAPublicKey ::= SEQUENCE {                               -- RFC 8017 appendix A.1.1
///     modulus           INTEGER,  -- n
///     publicExponent    INTEGER } -- e
/// ```
enum RSASubjectPublicKeyInfo {
    /// `SEQUENCE { OID rsaEncryption, NULL }`.
    static let algorithmIdentifier: [UInt8] = [
        0x30, 0x0D, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00,
    ]

    /// The SPKI DER for the positive integers `modulus` and `exponent` (big-endian, no leading zero byte).
    ///
    /// - Parameters:
    ///   - modulus: `n`; callers bound it (at most 1,024 bytes here).
    ///   - exponent: `e`; at most a few bytes.
    /// - Returns: The DER bytes.
    static func der(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let rsaKey = tlv(0x30, integer(modulus) + integer(exponent))
        return tlv(0x30, algorithmIdentifier + tlv(0x03, [0x00] + rsaKey))
    }

    /// A DER INTEGER for a non-negative big-endian magnitude: a 0x00 in front when the top bit is set.
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        let content = (magnitude.first.map { $0 & 0x80 != 0 } ?? true) ? [0x00] + magnitude : magnitude
        return tlv(0x02, content)
    }

    /// Tag, definite minimal length, content (X.690 section 8.1.3).
    static func tlv(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        var length = content.count
        var lengthBytes: [UInt8] = []
        if length < 0x80 {
            lengthBytes = [UInt8(length)]
        } else {
            while length > 0 {
                lengthBytes.insert(UInt8(length & 0xFF), at: 0)
                length >>= 8
            }
            lengthBytes.insert(0x80 | UInt8(lengthBytes.count), at: 0)
        }
        return [tag] + lengthBytes + content
    }
}
