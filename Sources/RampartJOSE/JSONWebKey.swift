public import RampartCrypto
import RampartRequestSigning

/// One public key of a JSON Web Key Set (RFC 7517), of a type Rampart verifies: RSA for `RS256` or EC P-256 for
/// `ES256`.
///
/// Keys come from ``JSONWebKeySet/init(jsonEncoded:)`` (a JWKS document) or ``init(_:keyID:)`` (a key Rampart signs
/// with, for publication). The signature check itself is RampartCrypto's: RSASSA-PKCS1-v1_5 with SHA-256 through
/// `RSAPublicKey`, raw `r ‖ s` ECDSA through `ECPublicKey.isValidRawSignature(_:for:digest:)`.
public struct JSONWebKey {
    enum Material {
        /// `n` and `e`, big-endian without leading zeros, as the document spelled them.
        case rsa(modulus: [UInt8], exponent: [UInt8], key: RSAPublicKey)
        /// The P-256 point's coordinates, 32 bytes each.
        case ec(x: [UInt8], y: [UInt8], key: ECPublicKey)
    }

    /// The `kid` member, when the key has one.
    public let keyID: String?
    /// The algorithm the key verifies: `RS256` for an RSA key, `ES256` for a P-256 key.
    public let algorithm: JSONWebAlgorithm
    /// Whether the document named the algorithm in an `alg` member (kept so the key serialises as it was read).
    public let declaresAlgorithm: Bool
    /// Whether the document had `"use": "sig"` (the only `use` a verification key may have).
    public let declaresSignatureUse: Bool
    let material: Material

    init(
        keyID: String?, algorithm: JSONWebAlgorithm, declaresAlgorithm: Bool, declaresSignatureUse: Bool,
        material: Material
    ) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.declaresAlgorithm = declaresAlgorithm
        self.declaresSignatureUse = declaresSignatureUse
        self.material = material
    }

    /// Wraps a P-256 key Rampart signs with, for publication with `"use": "sig"` and `"alg": "ES256"`.
    ///
    /// - Parameters:
    ///   - key: The public key; it must be on P-256.
    ///   - keyID: Its `kid`; nil for none.
    /// - Throws: ``JOSEError`` (`invalidKey`) for a key on another curve.
    public init(_ key: ECPublicKey, keyID: String?) throws {
        guard key.curve == .p256 else {
            throw JOSEError.invalidKey("ES256 needs a P-256 key; this one is on \(key.curve.rawValue)")
        }
        let point = key.x963Representation
        guard point.count == 65 else {
            throw JOSEError.invalidKey("the P-256 point is not 65 bytes uncompressed")
        }
        self.init(
            keyID: keyID, algorithm: .es256, declaresAlgorithm: true, declaresSignatureUse: true,
            material: .ec(x: Array(point[1..<33]), y: Array(point[33..<65]), key: key))
    }

    /// The key as RampartCrypto's `PublicKey`.
    public var publicKey: PublicKey {
        switch material {
        case .rsa(_, _, let key): PublicKey(key)
        case .ec(_, _, let key): PublicKey(key)
        }
    }

    /// Checks a JWS signature made with this key's ``algorithm``.
    ///
    /// - Parameters:
    ///   - signature: The decoded JWS signature: as long as the modulus for RS256, 64 bytes `r ‖ s` for ES256.
    ///   - signingInput: The JWS signing input as received, `BASE64URL(header) '.' BASE64URL(payload)`.
    /// - Returns: `true` when the signature is valid.
    public func isValidSignature(_ signature: [UInt8], for signingInput: [UInt8]) -> Bool {
        switch material {
        case .rsa(_, _, let key):
            key.isValidSignature(signature, for: signingInput, algorithm: .sha256WithRSAEncryption)
        case .ec(_, _, let key):
            signature.count == 64 && key.isValidRawSignature(signature, for: signingInput, digest: .sha256)
        }
    }

    /// The RFC 7638 JWK thumbprint: base64url of SHA-256 over the required members in canonical JSON.
    ///
    /// Rampart uses it as the `kid` of its own token keys.
    public var thumbprint: String {
        let required: [String: JSONValue] =
            switch material {
            case .rsa(let n, let e, _):
                ["e": .string(Base64URL.encode(e)), "kty": .string("RSA"), "n": .string(Base64URL.encode(n))]
            case .ec(let x, let y, _):
                [
                    "crv": .string("P-256"), "kty": .string("EC"), "x": .string(Base64URL.encode(x)),
                    "y": .string(Base64URL.encode(y)),
                ]
            }
        return Base64URL.encode(SHA256.hash(CanonicalJSON.canonicalBytes(of: .object(required))))
    }

    /// The key as a JWK object: the members it was read with (`kty`, `kid`, `use`, `alg`, and `n`/`e` or
    /// `crv`/`x`/`y`); any other member of the original is not kept.
    var jsonValue: JSONValue {
        var object: [String: JSONValue] = [:]
        switch material {
        case .rsa(let n, let e, _):
            object["kty"] = .string("RSA")
            object["n"] = .string(Base64URL.encode(n))
            object["e"] = .string(Base64URL.encode(e))
        case .ec(let x, let y, _):
            object["kty"] = .string("EC")
            object["crv"] = .string("P-256")
            object["x"] = .string(Base64URL.encode(x))
            object["y"] = .string(Base64URL.encode(y))
        }
        if let keyID { object["kid"] = .string(keyID) }
        if declaresSignatureUse { object["use"] = .string("sig") }
        if declaresAlgorithm { object["alg"] = .string(algorithm.name) }
        return .object(object)
    }
}

extension JSONWebKey: Sendable {}

extension JSONWebKey: CustomStringConvertible {
    /// `RS256 key "kid"` or `ES256 key without kid`.
    public var description: String {
        "\(algorithm) key " + (keyID.map { "\"\($0)\"" } ?? "without kid")
    }
}
