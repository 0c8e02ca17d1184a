internal import RampartASN1

/// Recognises the SubjectPublicKeyInfo shapes on Rampart's hot paths (named-curve EC and Ed25519 keys) so they can be
/// imported from their key bytes with `EVP_PKEY_fromdata`, several times faster than OpenSSL's generic `d2i_PUBKEY`
/// decoder. Anything else (RSA, RSA-PSS, Ed448, explicit curves, unusual encodings) is left to `d2i_PUBKEY`.
///
/// The structure is read, never rebuilt from a header table:
/// ```
/// SubjectPublicKeyInfo ::= SEQUENCE { algorithm AlgorithmIdentifier, subjectPublicKey BIT STRING }
/// AlgorithmIdentifier  ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }
/// ECParameters         ::= CHOICE { namedCurve OBJECT IDENTIFIER, ... }       -- RFC 5480 section 2.1.1
/// id-Ed25519: parameters absent                                               -- RFC 8410 section 3
/// ```
/// Call only on bytes that passed ``requireStrictDER(_:)``; it still bounds-checks every step and never traps.
enum SPKIShape: Equatable {
    /// Whether `point` is an X9.63 uncompressed or compressed point for `curve` (RFC 5480 section 2.2 allows only
    /// those two; OpenSSL would also take the point at infinity and the hybrid form).
    static func isAllowedPointForm(_ point: [UInt8], curve: ECCurve) -> Bool {
        guard let prefix = point.first else { return false }
        let n = curve.coordinateByteCount
        return (prefix == 4 && point.count == 1 + 2 * n) || ((prefix == 2 || prefix == 3) && point.count == 1 + n)
    }

    case ec(ECCurve, point: [UInt8])
    case ed25519([UInt8])

    private static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    private static let ed25519: [UInt8] = [0x2B, 0x65, 0x70]
    /// Everything of an Ed25519 SubjectPublicKeyInfo before its 32-byte key (RFC 8410 section 4: `SEQUENCE {
    /// SEQUENCE { OID 1.3.101.112 } BIT STRING (0 unused bits) }`).
    static let ed25519Prefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]
    private static let curves: [([UInt8], ECCurve)] = [
        ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07], .p256),
        ([0x2B, 0x81, 0x04, 0x00, 0x22], .p384),
        ([0x2B, 0x81, 0x04, 0x00, 0x23], .p521),
    ]

    /// Whether the `subjectPublicKey` BIT STRING declares unused bits. Every key type Rampart reads is a whole number
    /// of octets, and OpenSSL would silently ignore the count, so such encodings are refused.
    static func declaresUnusedBits(_ der: [UInt8]) -> Bool {
        guard let top = elements(der, in: 0..<der.count), top.count == 1,
            let spki = elements(der, in: top[0].content), spki.count == 2, spki[1].tag == 0x03,
            let first = spki[1].content.first
        else { return false }
        return der[first] != 0
    }

    static func recognise(_ der: [UInt8]) -> SPKIShape? {
        guard let top = elements(der, in: 0..<der.count), top.count == 1, top[0].tag == 0x30,
            let spki = elements(der, in: top[0].content), spki.count == 2,
            spki[0].tag == 0x30, spki[1].tag == 0x03,
            let algorithm = elements(der, in: spki[0].content), let first = algorithm.first, first.tag == 0x06,
            spki[1].content.count >= 2, der[spki[1].content.lowerBound] == 0
        else { return nil }
        let key = Array(der[(spki[1].content.lowerBound + 1)..<spki[1].content.upperBound])
        let oid = Array(der[first.content])
        if oid == ecPublicKey, algorithm.count == 2, algorithm[1].tag == 0x06 {
            let curveOID = Array(der[algorithm[1].content])
            guard let curve = curves.first(where: { $0.0 == curveOID })?.1 else { return nil }
            return .ec(curve, point: key)
        }
        if oid == ed25519, algorithm.count == 1 { return .ed25519(key) }
        return nil
    }

    /// Splits `range` of `bytes` into consecutive TLVs (tag, content range); nil if they do not fill it exactly.
    private static func elements(_ bytes: [UInt8], in range: Range<Int>) -> [(tag: UInt8, content: Range<Int>)]? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        var found: [(tag: UInt8, content: Range<Int>)] = []
        var cursor = range.lowerBound
        while cursor < range.upperBound {
            guard range.upperBound - cursor >= 2, found.count < 4 else { return nil }
            let tag = bytes[cursor]
            var length = Int(bytes[cursor + 1])
            var start = cursor + 2
            if length >= 0x80 {
                let count = length & 0x7F
                guard count >= 1, count <= 2, range.upperBound - start >= count else { return nil }
                length = 0
                for offset in 0..<count { length = length << 8 | Int(bytes[start + offset]) }
                start += count
            }
            guard length <= range.upperBound - start else { return nil }
            found.append((tag, start..<(start + length)))
            cursor = start + length
        }
        return found
    }
}

/// Throws unless `der` is exactly one strict DER value of the kind keys and signatures use, before the bytes reach a
/// decoder (OpenSSL's) that accepts some BER forms: indefinite lengths, non-minimal lengths and integers.
///
/// RampartASN1's one DER reader checks the rules, with ``DER/Limits/key`` (16 levels, low tag numbers only, only
/// SEQUENCE and SET constructed).
///
/// - Parameter der: The encoding.
/// - Throws: ``CryptoError/Code/invalidKey`` naming the first rule broken.
func requireStrictDER(_ der: [UInt8]) throws {
    do {
        _ = try DER.parse(der, limits: .key)
    } catch let error as ASN1Error {
        throw CryptoError.invalidKey("not strict DER: \(error.reason)")
    }
}
