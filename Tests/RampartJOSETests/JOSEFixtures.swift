import Foundation
import RampartCrypto

/// JWKS documents and compact JWS made in the test process, signed with RampartCrypto's private keys.
enum JOSEFixtures {
    static let rsaKey: RSAPrivateKey = {
        guard let key = try? RSAPrivateKey(bitCount: 2048) else { fatalError("RSA key generation failed") }
        return key
    }()
    static let ecKey = ECPrivateKey(curve: .p256)

    /// Base64url as Foundation's standard base64 with the alphabet swapped and the padding dropped: an encoder
    /// independent of the one under test.
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

    /// The RSA key's `n` and `e`: the two INTEGERs inside its SubjectPublicKeyInfo's BIT STRING, without sign bytes.
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

    /// A compact JWS of `header` and `claims`, ES256-signed with ``ecKey``.
    static func es256(header: [String: any Sendable], claims: [String: any Sendable]) -> String {
        let input = base64URL(json(header)) + "." + base64URL(json(claims))
        let signature = (try? ecKey.rawSignature(for: Array(input.utf8), digest: .sha256)) ?? []
        return input + "." + base64URL(signature)
    }
}

/// Reads DER TLVs one after another (short lengths and the long form up to 4 bytes; fixture code for keys made here).
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
