import Foundation
public import RampartCrypto

/// JWKs, JWKS documents and compact JWS made in the test process from RampartCrypto's private keys, for the JOSE
/// module's tests and the service's token tests. Its base64url is Foundation's base64 with the alphabet swapped and
/// the padding dropped: an encoder independent of the one under test.
public enum JOSETestKeys {
    /// The RSA key of ``rsaJWK(kid:extra:)`` and of RS256 tokens.
    public static let rsaKey: RSAPrivateKey = {
        guard let key = try? RSAPrivateKey(bitCount: 2048) else { fatalError("RSA key generation failed") }
        return key
    }()
    /// The P-256 key of ``ecJWK(_:kid:extra:)`` and of ES256 tokens.
    public static let ecKey = ECPrivateKey(curve: .p256)

    /// `bytes` in unpadded base64url.
    public static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    /// `object` as JSON with sorted keys.
    public static func json(_ object: [String: any Sendable]) -> [UInt8] {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { fatalError("not JSON-serialisable") }
        return Array(data)
    }

    /// The RSA key's `n` and `e`: the two INTEGERs inside its SubjectPublicKeyInfo's BIT STRING, without sign bytes.
    public static func rsaModulusAndExponent(_ key: RSAPublicKey) -> (n: [UInt8], e: [UInt8]) {
        var reader = TLVReader(bytes: key.derRepresentation)
        var spki = TLVReader(bytes: reader.next())
        _ = spki.next()  // AlgorithmIdentifier
        let bitString = spki.next()
        var rsaKey = TLVReader(bytes: Array(bitString.dropFirst()))
        var integers = TLVReader(bytes: rsaKey.next())
        let n = Array(integers.next().drop { $0 == 0 })
        let e = Array(integers.next().drop { $0 == 0 })
        return (n, e)
    }

    /// ``rsaKey``'s public JWK, with `extra` members merged over it.
    public static func rsaJWK(kid: String? = "rsa-1", extra: [String: any Sendable] = [:]) -> [String: any Sendable] {
        let (n, e) = rsaModulusAndExponent(rsaKey.publicKey)
        var jwk: [String: any Sendable] = ["kty": "RSA", "n": base64URL(n), "e": base64URL(e)]
        if let kid { jwk["kid"] = kid }
        return jwk.merging(extra) { $1 }
    }

    /// `key`'s public JWK, with `extra` members merged over it.
    public static func ecJWK(
        _ key: ECPrivateKey = ecKey, kid: String? = "ec-1", extra: [String: any Sendable] = [:]
    ) -> [String: any Sendable] {
        let point = key.publicKey.x963Representation
        var jwk: [String: any Sendable] = [
            "kty": "EC", "crv": "P-256", "x": base64URL(point[1..<33]), "y": base64URL(point[33..<65]),
        ]
        if let kid { jwk["kid"] = kid }
        return jwk.merging(extra) { $1 }
    }

    /// A JWKS document of `keys`.
    public static func jwks(_ keys: [[String: any Sendable]]) -> [UInt8] { json(["keys": keys]) }

    /// A compact JWS over `header` and `claims`, signed with RS256 (``rsaKey``) when `header["alg"]` says so and
    /// with ES256 (`ecKey`) otherwise, whatever else the header claims.
    public static func token(
        header: [String: any Sendable], claims: [String: any Sendable], ecKey: ECPrivateKey = ecKey
    ) -> String {
        let input = base64URL(json(header)) + "." + base64URL(json(claims))
        let signature: [UInt8]
        switch header["alg"] as? String {
        case "RS256":
            signature = (try? rsaKey.signature(for: Array(input.utf8), algorithm: .sha256WithRSAEncryption)) ?? []
        default: signature = (try? ecKey.rawSignature(for: Array(input.utf8), digest: .sha256)) ?? []
        }
        return input + "." + base64URL(signature)
    }
}

/// Reads DER TLVs one after another (short lengths and the long form up to 4 bytes): fixture code for keys and
/// signatures made in the test process, never for untrusted bytes.
public struct TLVReader {
    var bytes: [UInt8]
    var offset = 0

    /// A reader at the start of `bytes`.
    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The next TLV's contents, or empty past the end.
    public mutating func next() -> [UInt8] {
        guard offset + 2 <= bytes.count else { return [] }
        var length = Int(bytes[offset + 1])
        var header = 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            length = 0
            for index in 0..<count where offset + 2 + index < bytes.count {
                length = length << 8 | Int(bytes[offset + 2 + index])
            }
            header += count
        }
        let start = offset + header
        let end = min(start + length, bytes.count)
        offset = end
        return start <= end ? Array(bytes[start..<end]) : []
    }
}
