import Foundation
import RampartCrypto
import RampartJOSE
import TestSupport
import Testing

/// ``JSONWebKeySet``: RFC 7517 documents with RS256 and ES256 keys, the skip rules, every refusal and limit, and the
/// round trip to JSON.
struct JSONWebKeySetTests {
    typealias F = JOSETestKeys

    @Test("an RSA and a P-256 key are read with kid, use and alg, and verify their own signatures")
    func readsBothTypes() throws {
        let set = try JSONWebKeySet(
            jsonEncoded: F.jwks([
                F.rsaJWK(extra: ["use": "sig", "alg": "RS256"]), F.ecJWK(extra: ["use": "sig", "alg": "ES256"]),
            ]))
        #expect(set.keys.count == 2)
        #expect(set.skippedKeys.isEmpty)
        let rsa = try #require(set.key(id: "rsa-1"))
        #expect(rsa.algorithm == .rs256)
        #expect(rsa.publicKey.kind == .rsa)
        #expect(rsa.publicKey.derRepresentation == F.rsaKey.publicKey.derRepresentation)
        let ec = try #require(set.key(id: "ec-1"))
        #expect(ec.algorithm == .es256)
        #expect(ec.publicKey.derRepresentation == F.ecKey.publicKey.derRepresentation)
        let message = Array("signed".utf8)
        #expect(ec.isValidSignature(try F.ecKey.rawSignature(for: message, digest: .sha256), for: message))
        #expect(
            rsa.isValidSignature(
                try F.rsaKey.signature(for: message, algorithm: .sha256WithRSAEncryption), for: message))
        #expect(set.key(id: "missing") == nil)
    }

    @Test("the canonical JSON round-trips byte for byte, and a publication set reads back")
    func roundTrip() throws {
        let set = try JSONWebKeySet(
            jsonEncoded: F.jwks([F.rsaJWK(extra: ["use": "sig"]), F.ecJWK(kid: nil, extra: ["alg": "ES256"])]))
        let encoded = set.jsonEncoded
        let reread = try JSONWebKeySet(jsonEncoded: encoded)
        #expect(reread.jsonEncoded == encoded)
        #expect(F.jwks([F.rsaJWK(extra: ["use": "sig"]), F.ecJWK(kid: nil, extra: ["alg": "ES256"])]) == encoded)
        let published = try JSONWebKeySet(keys: [try JSONWebKey(F.ecKey.publicKey, keyID: "k1")])
        let text = String(decoding: published.jsonEncoded, as: UTF8.self)
        #expect(text.contains(#""alg":"ES256""#) && text.contains(#""use":"sig""#) && text.contains(#""kid":"k1""#))
        #expect(try JSONWebKeySet(jsonEncoded: published.jsonEncoded).jsonEncoded == published.jsonEncoded)
    }

    @Test("the RFC 7638 thumbprint of the RFC's own example key")
    func thumbprint() throws {
        // RFC 7638 section 3.1: the thumbprint of this RSA key is NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs.
        let n =
            "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        let set = try JSONWebKeySet(jsonEncoded: F.jwks([["kty": "RSA", "n": n, "e": "AQAB", "alg": "RS256"]]))
        #expect(set.keys.first?.thumbprint == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test("keys of other types, curves, algorithms or uses are skipped, saying why, when a usable key remains")
    func skips() throws {
        let set = try JSONWebKeySet(
            jsonEncoded: F.jwks([
                ["kty": "OKP", "crv": "Ed25519", "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo", "kid": "okp"],
                F.rsaJWK(kid: "enc", extra: ["use": "enc"]), F.rsaJWK(kid: "pss", extra: ["alg": "PS256"]),
                ["kty": "EC", "crv": "P-384", "x": "AA", "y": "AA", "kid": "p384"], F.ecJWK(),
            ]))
        #expect(set.keys.map(\.keyID) == ["ec-1"])
        #expect(set.skippedKeys.count == 4)
        #expect(set.skippedKeys[0].contains(#"kty "OKP" is not RSA or EC"#))
        #expect(set.skippedKeys[1].contains(#"use is "enc""#))
        #expect(set.skippedKeys[2].contains(#"alg "PS256""#))
        #expect(set.skippedKeys[3].contains(#"curve "P-384""#))
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        let name: String
        let document: [UInt8]
        let expected: String
        var testDescription: String { name }
    }

    /// `value` with its last base64url character's unused low bits set (a second spelling of the same bytes).
    static func nonCanonical(_ value: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        guard let last = value.last, let index = alphabet.firstIndex(of: last) else { return value }
        return String(value.dropLast()) + String(alphabet[index | 1])
    }

    static var badDocuments: [Bad] {
        let rsa = F.rsaJWK()
        let ec = F.ecJWK()
        let n = rsa["n"] as? String ?? ""
        let x = ec["x"] as? String ?? ""
        return [
            Bad(name: "not JSON", document: Array("keys".utf8), expected: "is not a JSON text"),
            Bad(
                name: "duplicate member", document: Array(#"{"keys":[],"keys":[]}"#.utf8),
                expected: "duplicate object key"),
            Bad(name: "trailing bytes", document: F.jwks([ec]) + Array("x".utf8), expected: "after the JSON value"),
            Bad(name: "not an object", document: Array("[]".utf8), expected: "is not a JSON object"),
            Bad(name: "no keys", document: Array(#"{"key":[]}"#.utf8), expected: #"has no "keys" member"#),
            Bad(name: "keys not an array", document: Array(#"{"keys":{}}"#.utf8), expected: "is not an array"),
            Bad(name: "empty", document: Array(#"{"keys":[]}"#.utf8), expected: "holds no keys"),
            Bad(name: "entry not an object", document: Array(#"{"keys":[1]}"#.utf8), expected: "key 1 is not a JSON"),
            Bad(
                name: "only unusable keys", document: F.jwks([F.rsaJWK(extra: ["use": "enc"])]),
                expected: "holds no RS256 or ES256 signature key"),
            Bad(
                name: "too large", document: Array(repeating: 0x20, count: JSONWebKeySet.Limits.maximumByteCount + 1),
                expected: "at most 65536 are accepted"),
            Bad(
                name: "too many keys",
                document: F.jwks((0...JSONWebKeySet.Limits.maximumKeyCount).map { F.ecJWK(kid: "k\($0)") }),
                expected: "holds 33 keys"),
            Bad(
                name: "duplicate kid", document: F.jwks([ec, F.rsaJWK(kid: "ec-1")]), expected: #"share the kid "ec-1""#
            ),
            Bad(name: "no kty", document: F.jwks([["kid": "a"]]), expected: #"has no "kty""#),
            Bad(name: "kty not a string", document: F.jwks([["kty": 1]]), expected: #""kty" is not a string"#),
            Bad(name: "empty kid", document: F.jwks([F.ecJWK(kid: "")]), expected: #""kid" is empty"#),
            Bad(
                name: "long kid", document: F.jwks([F.ecJWK(kid: String(repeating: "k", count: 257))]),
                expected: #""kid" is longer than 256 bytes"#),
            Bad(
                name: "private member d", document: F.jwks([F.ecJWK(extra: ["d": "AAAA"])]),
                expected: #"private member "d""#),
            Bad(
                name: "alg contradicts kty", document: F.jwks([F.rsaJWK(extra: ["alg": "ES256"])]),
                expected: "\"alg\" is ES256 but the key is kty RSA"),
            Bad(
                name: "ES256 on P-384", document: F.jwks([F.ecJWK(extra: ["crv": "P-384", "alg": "ES256"])]),
                expected: #"not P-256"#),
            Bad(name: "use not a string", document: F.jwks([F.ecJWK(extra: ["use": 1])]), expected: #""use" is not"#),
            Bad(name: "RSA without e", document: F.jwks([F.rsaJWK(extra: ["e": ""])]), expected: #""e" is empty"#),
            Bad(
                name: "n padded", document: F.jwks([F.rsaJWK(extra: ["n": n + "="])]),
                expected: "is not unpadded base64url"),
            Bad(
                name: "n in the standard alphabet", document: F.jwks([F.rsaJWK(extra: ["n": "+" + n.dropFirst()])]),
                expected: "is not unpadded base64url"),
            Bad(
                name: "n with a leading zero byte", document: F.jwks([F.rsaJWK(extra: ["n": "AAAA" + n])]),
                expected: "leading zero byte"),
            Bad(
                name: "1024-bit modulus", document: F.jwks([F.rsaJWK(extra: ["n": String(n.prefix(172))])]),
                expected: "at least 2048 are required"),
            Bad(name: "even e", document: F.jwks([F.rsaJWK(extra: ["e": "AQAA"])]), expected: "not an odd exponent"),
            Bad(
                name: "x of 31 bytes",
                document: F.jwks([F.ecJWK(extra: ["x": F.base64URL([UInt8](repeating: 7, count: 31))])]),
                expected: "is 31 bytes"),
            Bad(
                name: "x with non-zero padding bits", document: F.jwks([F.ecJWK(extra: ["x": nonCanonical(x)])]),
                expected: "is not unpadded base64url"),
            Bad(
                name: "a point off the curve",
                document: F.jwks([F.ecJWK(extra: ["y": F.base64URL([UInt8](repeating: 1, count: 32))])]),
                expected: "not a point on P-256"),
        ]
    }

    @Test("a malformed or unsafe document is invalidKeySet naming what is wrong", arguments: badDocuments)
    func refusals(_ bad: Bad) {
        let error = #expect(throws: JOSEError.self) { try JSONWebKeySet(jsonEncoded: bad.document) }
        #expect(error?.code == .invalidKeySet)
        #expect(error?.reason.contains(bad.expected) == true, "\(error?.reason ?? "no error")")
    }

    @Test("a publication set refuses repeated kids")
    func publicationDuplicates() throws {
        let key = try JSONWebKey(F.ecKey.publicKey, keyID: "same")
        let error = #expect(throws: JOSEError.self) { try JSONWebKeySet(keys: [key, key]) }
        #expect(error?.code == .invalidKeySet)
        let p384 = ECPrivateKey(curve: .p384).publicKey
        let keyError = #expect(throws: JOSEError.self) { try JSONWebKey(p384, keyID: nil) }
        #expect(keyError?.code == .invalidKey)
    }
}
