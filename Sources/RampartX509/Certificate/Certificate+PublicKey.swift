import RampartASN1

extension Certificate {
    /// The size of an RSA or RSA-PSS key's modulus in bits (without leading zero bits), or nil for other keys.
    ///
    /// Read from `RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }` (RFC 3279 2.3.1) in the
    /// SubjectPublicKeyInfo as received.
    public var rsaModulusBitCount: Int? {
        guard
            publicKeyAlgorithm == .PublicKeyAlgorithm.rsaEncryption
                || publicKeyAlgorithm == .PublicKeyAlgorithm.rsassaPSS,
            let spki = try? DER.parse(subjectPublicKeyInfoBytes), spki.children.count == 2,
            let bits = try? spki.children[1].bitStringValue(), bits.unusedBitCount == 0,
            let sequence = try? DER.parse(bits.bytes), sequence.identifier == .sequence,
            let modulus = sequence.children.first, modulus.identifier == .integer
        else { return nil }
        let magnitude = modulus.contentSlice.drop { $0 == 0 }
        guard let top = magnitude.first else { return nil }
        return (magnitude.count - 1) * 8 + (8 - top.leadingZeroBitCount)
    }

    /// A short description of a SubjectPublicKeyInfo's key: `RSA 2048`, `RSA-PSS 2048`, `EC P-256`, `Ed25519`, …
    ///
    /// ```
    /// SubjectPublicKeyInfo  ::=  SEQUENCE  {
    ///      algorithm            AlgorithmIdentifier,
    ///      subjectPublicKey     BIT STRING  }
    /// RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }   -- RFC 3279 2.3.1
    /// ECParameters ::= CHOICE { namedCurve OBJECT IDENTIFIER, ... }          -- RFC 5480 2.1.1
    /// ```
    /// Only the description is derived from the key; pins always hash the SPKI bytes as received.
    package static func describePublicKey(
        algorithm: ASN1ObjectIdentifier, parameters: ASN1Node?, key: [UInt8]
    ) -> String {
        switch algorithm {
        case .PublicKeyAlgorithm.rsaEncryption, .PublicKeyAlgorithm.rsassaPSS:
            let name = algorithm == .PublicKeyAlgorithm.rsaEncryption ? "RSA" : "RSA-PSS"
            guard let sequence = try? DER.parse(key), sequence.identifier == .sequence,
                let modulus = sequence.children.first, modulus.identifier == .integer
            else { return "\(name) (unreadable key)" }
            let magnitude = modulus.contentSlice.drop { $0 == 0 }
            guard let top = magnitude.first else { return "\(name) (unreadable key)" }
            return "\(name) \((magnitude.count - 1) * 8 + (8 - top.leadingZeroBitCount))"
        case .PublicKeyAlgorithm.ecPublicKey:
            guard let parameters else { return "EC (no curve)" }
            guard parameters.identifier == .objectIdentifier, let curve = try? parameters.objectIdentifierValue() else {
                return "EC (explicit parameters)"
            }
            switch curve {
            case .NamedCurve.p256: return "EC P-256"
            case .NamedCurve.p384: return "EC P-384"
            case .NamedCurve.p521: return "EC P-521"
            case .NamedCurve.secp256k1: return "EC secp256k1"
            default: return "EC \(ObjectNames.shortName(for: curve) ?? curve.dottedString)"
            }
        case .PublicKeyAlgorithm.ed25519: return "Ed25519"
        case .PublicKeyAlgorithm.ed448: return "Ed448"
        case .PublicKeyAlgorithm.x25519: return "X25519"
        case .PublicKeyAlgorithm.x448: return "X448"
        case .PublicKeyAlgorithm.dsa: return "DSA"
        default: return ObjectNames.shortName(for: algorithm) ?? algorithm.dottedString
        }
    }
}
