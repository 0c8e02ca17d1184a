import Foundation
import RampartCrypto
import RampartJOSE
import TestSupport
import Testing

/// ``CompactJWS`` and ``JWTClaims``: which refusal each malformed token or failed claim check gets.
struct CompactJWSTests {
    typealias F = JOSETestKeys

    static let now = 1_800_000_000.0

    static func claims(_ overrides: [String: any Sendable] = [:]) -> [String: any Sendable] {
        let base: [String: any Sendable] = [
            "iss": "https://id.example/", "aud": "app", "sub": "user-1", "iat": now - 10, "exp": now + 300,
        ]
        return base.merging(overrides) { $1 }
    }

    @Test("a well-formed ES256 token splits into header, claims, signing input and a signature that verifies")
    func accepted() throws {
        let token = F.token(header: ["alg": "ES256", "kid": "ec-1"], claims: Self.claims())
        let jws = try CompactJWS(token, algorithms: JSONWebAlgorithm.all, what: "the token")
        #expect(jws.algorithm == .es256)
        #expect(jws.keyID == "ec-1")
        let parts = token.split(separator: ".")
        #expect(jws.signingInput == Array((parts[0] + "." + parts[1]).utf8))
        let key = try JSONWebKey(F.ecKey.publicKey, keyID: "ec-1")
        #expect(key.isValidSignature(jws.signature, for: jws.signingInput))
        let claims = JWTClaims(claims: jws.claims, what: "the token")
        try claims.checkIssuer("https://id.example/")
        try claims.checkAudience("app")
        let times = try claims.checkTimes(now: Self.now, leeway: 0)
        #expect(times.expiresAt == Self.now + 300)
        #expect(try claims.subject() == "user-1")
    }

    @Test(
        "a malformed token, or one naming an algorithm not accepted, is invalidToken saying why",
        arguments: [
            ("a.b", "it has 2"),
            ("..", "header is not unpadded base64url"),
            ("e30.e30.AA=", "signature is not unpadded base64url"),
            ("W10.e30.AA", "header is not a JSON object"),
            ("e30.e30.AA", #"header has no "alg" string"#),
            (F.base64URL(Array(#"{"alg":"none"}"#.utf8)) + ".e30.AA", "unsigned or HMAC"),
            (F.base64URL(Array(#"{"alg":"HS256"}"#.utf8)) + ".e30.AA", "unsigned or HMAC"),
            (F.base64URL(Array(#"{"alg":"PS256"}"#.utf8)) + ".e30.AA", "does not verify"),
            (F.base64URL(Array(#"{"alg":"RS256"}"#.utf8)) + ".e30.AA", "RS256, which is not configured"),
            (F.base64URL(Array(#"{"alg":"ES256","crit":["x"]}"#.utf8)) + ".e30.AA", #"has "crit""#),
            (F.base64URL(Array(#"{"alg":"ES256","kid":""}"#.utf8)) + ".e30.AA", #""kid" is not a string"#),
            (F.base64URL(Array(#"{"alg":"ES256","alg":"ES256"}"#.utf8)) + ".e30.AA", "not a JSON text"),
            (String(repeating: "A", count: CompactJWS.maximumByteCount + 1), "at most 8192 are accepted"),
        ])
    func malformed(token: String, expected: String) {
        let error = #expect(throws: JOSEError.self) {
            try CompactJWS(token, algorithms: [.es256], what: "the token")
        }
        #expect(error?.code == .invalidToken)
        #expect(error?.reason.contains(expected) == true, "\(error?.reason ?? "no error")")
    }

    @Test("a past exp is tokenExpired; every other failed claim check is invalidToken")
    func claimChecks() throws {
        func check(_ overrides: [String: any Sendable], removing: String? = nil) -> JOSEError? {
            var values = Self.claims(overrides)
            if let removing { values[removing] = nil }
            let token = F.token(header: ["alg": "ES256"], claims: values)
            #expect(throws: Never.self) { try CompactJWS(token, algorithms: [.es256], what: "t") }
            guard let jws = try? CompactJWS(token, algorithms: [.es256], what: "t") else { return nil }
            let claims = JWTClaims(claims: jws.claims, what: "t")
            do {
                try claims.checkIssuer("https://id.example/")
                try claims.checkAudience("app")
                try claims.checkTimes(now: Self.now, leeway: 30)
                _ = try claims.subject()
                return nil
            } catch let error as JOSEError {
                return error
            } catch {
                return nil
            }
        }
        #expect(check([:]) == nil)
        #expect(check(["exp": Self.now - 31])?.code == .tokenExpired)
        #expect(check(["exp": Self.now - 29]) == nil)
        #expect(check([:], removing: "exp")?.code == .invalidToken)
        #expect(check(["nbf": Self.now + 31])?.code == .invalidToken)
        #expect(check(["iat": Self.now + 31])?.code == .invalidToken)
        #expect(check(["iss": "https://other.example/"])?.code == .invalidToken)
        #expect(check(["aud": ["x", "app"]]) == nil)
        #expect(check(["aud": ["x"]])?.code == .invalidToken)
        #expect(
            check(["aud": Array(repeating: "app", count: JWTClaims.maximumAudienceCount + 1)])?.code == .invalidToken)
        #expect(check(["sub": ""])?.code == .invalidToken)
        #expect(
            check(["sub": String(repeating: "s", count: JWTClaims.maximumSubjectByteCount + 1)])?.code == .invalidToken)
        #expect(check(["exp": "soon"])?.reason.contains("NumericDate") == true)
    }
}
