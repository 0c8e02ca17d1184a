import Foundation
import RampartCrypto
import TestSupport

/// Session JWTs made in the test process for the `Tokens*Tests` suites (the interop suite checks the same paths
/// against PyJWT and the openssl CLI): TestSupport's JWKs and tokens, with a session's issuer, audience and claims.
typealias TokensFixtures = JOSETestKeys

extension JOSETestKeys {
    static let otherECKey = ECPrivateKey(curve: .p256)
    static let issuer = "https://id.example.com/"
    static let audience = "rampart-test"
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func claims(_ overrides: [String: any Sendable] = [:], removing: [String] = []) -> [String: any Sendable] {
        var claims: [String: any Sendable] = [
            "iss": issuer, "aud": audience, "sub": "user-42", "iat": now.timeIntervalSince1970 - 10,
            "exp": now.timeIntervalSince1970 + 300,
        ]
        for name in removing { claims[name] = nil }
        return claims.merging(overrides) { $1 }
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
