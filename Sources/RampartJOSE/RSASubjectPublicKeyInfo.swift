import RampartX509

/// The RSA SubjectPublicKeyInfo for a JWK's `n` and `e`, written with RampartX509's DER writer, so that
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
    /// The SPKI DER for the positive integers `modulus` and `exponent` (big-endian magnitudes).
    ///
    /// - Parameters:
    ///   - modulus: `n`; callers bound it (at most 1,024 bytes here).
    ///   - exponent: `e`; at most a few bytes.
    /// - Returns: The DER bytes.
    static func der(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        var rsaKey = DERWriter()
        rsaKey.appendSequence { sequence in
            sequence.appendInteger(unsignedBigEndian: modulus)
            sequence.appendInteger(unsignedBigEndian: exponent)
        }
        var writer = DERWriter()
        writer.appendSequence { spki in
            spki.appendSequence { algorithm in
                algorithm.appendObjectIdentifier(.PublicKeyAlgorithm.rsaEncryption)
                algorithm.appendNull()
            }
            spki.appendBitString(rsaKey.bytes)
        }
        return writer.bytes
    }
}
