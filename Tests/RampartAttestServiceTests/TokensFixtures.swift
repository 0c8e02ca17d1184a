import Foundation
import RampartCrypto

/// Session JWTs and JWKS documents made in the test process, signed with RampartCrypto's private keys, for the
/// `Tokens*Tests` suites (the interop suite checks the same paths against PyJWT and the openssl CLI).
enum TokensFixtures {
    static let rsaKey: RSAPrivateKey = {
        guard let key = try? RSAPrivateKey(bitCount: 2048) else { fatalError("RSA key generation failed") }
        return key
    }()
    static let ecKey = ECPrivateKey(curve: .p256)
    static let otherECKey = ECPrivateKey(curve: .p256)
    static let issuer = "https://id.example.com/"
    static let audience = "rampart-test"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func json(_ object: [String: any Sendable]) -> [UInt8] {
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        else { fatalError("not JSON-serialisable") }
        return Array(data)
    }

    /// The RSA key's `n` and `e`, read from its SubjectPublicKeyInfo DER.
    static func rsaModulusAndExponent(_ key: RSAPublicKey) -> (n: [UInt8], e: [UInt8]) {
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

    static func rsaJWK(kid: String? = "rsa-1", extra: [String: any Sendable] = [:]) -> [String: any Sendable] {
        let (n, e) = rsaModulusAndExponent(rsaKey.publicKey)
        var jwk: [String: any Sendable] = ["kty": "RSA", "n": base64URL(n), "e": base64URL(e)]
        if let kid { jwk["kid"] = kid }
        return jwk.merging(extra) { $1 }
    }

    static func ecJWK(
        _ key: ECPrivateKey = ecKey, kid: String? = "ec-1", extra: [String: any Sendable] = [:]
    ) -> [String: any Sendable] {
        let point = key.publicKey.x963Representation
        var jwk: [String: any Sendable] = [
            "kty": "EC", "crv": "P-256", "x": base64URL(point[1..<33]), "y": base64URL(point[33..<65]),
        ]
        if let kid { jwk["kid"] = kid }
        return jwk.merging(extra) { $1 }
    }

    static func jwks(_ keys: [[String: any Sendable]]) -> [UInt8] { json(["keys": keys]) }

    static func claims(_ overrides: [String: any Sendable] = [:], removing: [String] = []) -> [String: any Sendable] {
        var claims: [String: any Sendable] = [
            "iss": issuer, "aud": audience, "sub": "user-42", "iat": now.timeIntervalSince1970 - 10,
            "exp": now.timeIntervalSince1970 + 300,
        ]
        for name in removing { claims[name] = nil }
        return claims.merging(overrides) { $1 }
    }

    /// A compact JWS over `header` and `claims`, signed with RS256 or ES256 as `header["alg"]` says.
    static func token(
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

    static func rs256(_ claims: [String: any Sendable] = claims(), kid: String? = "rsa-1") -> String {
        var header: [String: any Sendable] = ["alg": "RS256", "typ": "JWT"]
        if let kid { header["kid"] = kid }
        return token(header: header, claims: claims)
    }

    static func es256(_ claims: [String: any Sendable] = claims(), kid: String? = "ec-1") -> String {
        var header: [String: any Sendable] = ["alg": "ES256", "typ": "JWT"]
        if let kid { header["kid"] = kid }
        return token(header: header, claims: claims)
    }
}

/// Reads DER TLVs one after another (test fixture code; short lengths and long form up to 4 bytes).
struct TLVReader {
    var bytes: [UInt8]
    var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func next() -> [UInt8] {
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
