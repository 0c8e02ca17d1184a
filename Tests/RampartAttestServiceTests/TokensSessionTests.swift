import Foundation
@_spi(Testing) import RampartAttestService
import RampartCrypto
import RampartJOSE
import Synchronization
import TestSupport
import Testing

/// ``SessionTokenVerifier``: the `jwt` subject source, with every check's refusal asserted by code and message.
struct TokensSessionTests {
    typealias F = TokensFixtures

    static func writeJWKS(_ bytes: [UInt8]) throws -> String {
        let path = ScratchDirectory.uniquePath("jwks.json")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func verifier(
        keys: [[String: any Sendable]] = [F.rsaJWK(), F.ecJWK()], algorithms: [String] = ["RS256", "ES256"]
    ) throws -> SessionTokenVerifier {
        let path = try writeJWKS(F.jwks(keys))
        return try SessionTokenVerifier(
            configuration: SessionTokenConfiguration(
                jwksPath: path, issuer: F.issuer, audience: F.audience, algorithms: algorithms))
    }

    @Test("RS256 and ES256 session tokens give their sub; the scheme is case-insensitive")
    func accepts() throws {
        let verifier = try Self.verifier()
        #expect(try verifier.subject(authorization: "Bearer " + F.rs256(), now: F.now) == "user-42")
        #expect(try verifier.subject(authorization: "bearer " + F.es256(), now: F.now) == "user-42")
        #expect(try verifier.subject(authorization: "BEARER " + F.es256(), now: F.now) == "user-42")
        let array = F.es256(F.claims(["aud": ["other", F.audience]]))
        #expect(try verifier.subject(authorization: "Bearer " + array, now: F.now) == "user-42")
        let single = try Self.verifier(keys: [F.ecJWK(kid: nil)])
        #expect(try single.subject(authorization: "Bearer " + F.es256(kid: nil), now: F.now) == "user-42")
    }

    @Test("exp, nbf and iat are honoured with the leeway")
    func leeway() throws {
        let verifier = try Self.verifier()
        let now = F.now.timeIntervalSince1970
        let justExpired = F.es256(F.claims(["exp": now - 59]))
        #expect(try verifier.subject(authorization: "Bearer " + justExpired, now: F.now) == "user-42")
        let soon = F.es256(F.claims(["nbf": now + 59, "iat": now + 59]))
        #expect(try verifier.subject(authorization: "Bearer " + soon, now: F.now) == "user-42")
    }

    struct Bad: CustomTestStringConvertible, Sendable {
        let name: String
        let authorization: String?
        let expected: String
        var testDescription: String { name }
    }

    static var badTokens: [Bad] {
        let now = F.now.timeIntervalSince1970
        let good = F.es256()
        let parts = good.split(separator: ".").map(String.init)
        let header = F.base64URL(F.json(["alg": "ES256", "kid": "ec-1"]))
        func signed(header: [String: any Sendable], claims: [String: any Sendable] = F.claims()) -> String {
            "Bearer " + F.token(header: header, claims: claims)
        }
        func bearer(_ token: String) -> String { "Bearer " + token }
        return [
            Bad(name: "no header", authorization: nil, expected: "no Authorization header"),
            Bad(name: "Basic scheme", authorization: "Basic dXNlcjpwYXNz", expected: #"is not "Bearer <session JWT>""#),
            Bad(name: "two spaces", authorization: "Bearer  " + good, expected: #"is not "Bearer <session JWT>""#),
            Bad(name: "no token", authorization: "Bearer ", expected: #"is not "Bearer <session JWT>""#),
            Bad(name: "two parts", authorization: bearer(parts[0] + "." + parts[1]), expected: "three base64url parts"),
            Bad(name: "four parts", authorization: bearer(good + ".AA"), expected: "three base64url parts"),
            Bad(name: "padded signature", authorization: bearer(good + "="), expected: "signature is not unpadded"),
            Bad(
                name: "empty signature", authorization: bearer(parts[0] + "." + parts[1] + "."),
                expected: "signature is not unpadded"),
            Bad(
                name: "header not JSON", authorization: bearer(F.base64URL(Array("alg".utf8)) + "." + parts[1] + ".AA"),
                expected: "header is not a JSON text"),
            Bad(
                name: "duplicate claim",
                authorization: bearer(
                    header + "." + F.base64URL(Array(#"{"sub":"a","sub":"b"}"#.utf8)) + "." + parts[2]),
                expected: "payload is not a JSON text"),
            Bad(
                name: "payload not an object",
                authorization: bearer(header + "." + F.base64URL(Array("[]".utf8)) + ".AA"),
                expected: "payload is not a JSON object"),
            Bad(name: "alg none", authorization: signed(header: ["alg": "none"]), expected: "unsigned or HMAC"),
            Bad(name: "alg HS256", authorization: signed(header: ["alg": "HS256"]), expected: "unsigned or HMAC"),
            Bad(name: "alg RS384", authorization: signed(header: ["alg": "RS384"]), expected: "does not verify"),
            Bad(name: "no alg", authorization: signed(header: ["kid": "ec-1"]), expected: #"no "alg" string"#),
            Bad(
                name: "crit", authorization: signed(header: ["alg": "ES256", "kid": "ec-1", "crit": ["exp"]]),
                expected: #"has "crit""#),
            Bad(
                name: "kid a number", authorization: signed(header: ["alg": "ES256", "kid": 1]),
                expected: #""kid" is not"#),
            Bad(name: "unknown kid", authorization: bearer(F.es256(kid: "nope")), expected: "kid names no key"),
            Bad(
                name: "no kid, two keys", authorization: bearer(F.es256(kid: nil)),
                expected: "has no kid, and the JWKS holds 2"),
            Bad(
                name: "ES256 against the RSA key", authorization: bearer(F.es256(kid: "rsa-1")),
                expected: "signed with ES256, but its key is a RS256 key"),
            Bad(
                name: "altered payload",
                authorization: bearer(
                    parts[0] + "." + F.base64URL(F.json(F.claims(["sub": "admin"]))) + "." + parts[2]),
                expected: "signature does not verify"),
            Bad(
                name: "another key's signature",
                authorization: "Bearer "
                    + F.token(header: ["alg": "ES256", "kid": "ec-1"], claims: F.claims(), ecKey: F.otherECKey),
                expected: "signature does not verify"),
            Bad(
                name: "wrong issuer", authorization: bearer(F.es256(F.claims(["iss": "https://evil.example/"]))),
                expected: "issuer (\"iss\") is not the configured"),
            Bad(
                name: "issuer differing in normalization",
                authorization: bearer(F.es256(F.claims(["iss": "https://id.example.com/\u{0065}\u{0301}"]))),
                expected: "issuer (\"iss\") is not the configured"),
            Bad(
                name: "no issuer", authorization: bearer(F.es256(F.claims(removing: ["iss"]))),
                expected: #"no "iss" claim"#),
            Bad(
                name: "issuer a number", authorization: bearer(F.es256(F.claims(["iss": 5]))),
                expected: #""iss" claim is not a string"#),
            Bad(
                name: "wrong audience", authorization: bearer(F.es256(F.claims(["aud": "other"]))),
                expected: "does not include"),
            Bad(
                name: "audience array without ours", authorization: bearer(F.es256(F.claims(["aud": ["a", "b"]]))),
                expected: "does not include"),
            Bad(
                name: "audience array with a number", authorization: bearer(F.es256(F.claims(["aud": [1]]))),
                expected: "not a string"),
            Bad(
                name: "audience a number", authorization: bearer(F.es256(F.claims(["aud": 1]))),
                expected: "neither a string nor an array"),
            Bad(
                name: "no audience", authorization: bearer(F.es256(F.claims(removing: ["aud"]))),
                expected: "no audience"),
            Bad(name: "no exp", authorization: bearer(F.es256(F.claims(removing: ["exp"]))), expected: "no expiry"),
            Bad(
                name: "exp a string", authorization: bearer(F.es256(F.claims(["exp": "soon"]))), expected: "NumericDate"
            ),
            Bad(
                name: "expired", authorization: bearer(F.es256(F.claims(["exp": now - 61]))),
                expected: "expired 61 seconds ago"),
            Bad(
                name: "not yet valid", authorization: bearer(F.es256(F.claims(["nbf": now + 61]))),
                expected: "not valid yet"),
            Bad(
                name: "issued in the future", authorization: bearer(F.es256(F.claims(["iat": now + 61]))),
                expected: "in the future"),
            Bad(
                name: "no sub", authorization: bearer(F.es256(F.claims(removing: ["sub"]))),
                expected: #"no "sub" claim"#),
            Bad(
                name: "empty sub", authorization: bearer(F.es256(F.claims(["sub": ""]))),
                expected: "must be 1 to 256 bytes"),
            Bad(
                name: "long sub", authorization: bearer(F.es256(F.claims(["sub": String(repeating: "u", count: 257)]))),
                expected: "must be 1 to 256 bytes"),
            Bad(
                name: "sub with NUL", authorization: bearer(F.es256(F.claims(["sub": "a\u{0}b"]))),
                expected: "without NUL"),
            Bad(name: "sub a number", authorization: bearer(F.es256(F.claims(["sub": 42]))), expected: "not a string"),
            Bad(
                name: "too long",
                authorization: bearer(F.es256(F.claims(["pad": String(repeating: "p", count: 8000)]))),
                expected: "at most 8192 are accepted"),
        ]
    }

    @Test("every failed check is invalidSession naming the check", arguments: badTokens)
    func refusals(_ bad: Bad) throws {
        let verifier = try Self.verifier()
        let error = #expect(throws: AttestServiceError.self) {
            try verifier.subject(authorization: bad.authorization, now: F.now)
        }
        #expect(error?.code == .invalidSession)
        #expect(error?.reason.contains(bad.expected) == true, "\(error?.reason ?? "no error")")
    }

    @Test("an algorithm left out of the configuration is refused even with a valid signature")
    func algorithmNotConfigured() throws {
        let verifier = try Self.verifier(algorithms: ["RS256"])
        let error = #expect(throws: AttestServiceError.self) {
            try verifier.subject(authorization: "Bearer " + F.es256(), now: F.now)
        }
        #expect(error?.code == .invalidSession)
        #expect(error?.reason.contains("signed with ES256, which is not configured") == true)
    }

    struct BadConfiguration: CustomTestStringConvertible, Sendable {
        let name: String
        let algorithms: [String]
        let issuer: String
        let leeway: Int
        let expected: String
        var testDescription: String { name }
    }

    @Test(
        "an unusable configuration is invalidConfiguration saying what to do",
        arguments: [
            BadConfiguration(name: "HS256", algorithms: ["HS256"], issuer: "i", leeway: 60, expected: "never accepted"),
            BadConfiguration(name: "none", algorithms: ["none"], issuer: "i", leeway: 60, expected: "never accepted"),
            BadConfiguration(name: "PS256", algorithms: ["PS256"], issuer: "i", leeway: 60, expected: "only RS256"),
            BadConfiguration(name: "no algorithms", algorithms: [], issuer: "i", leeway: 60, expected: "is empty"),
            BadConfiguration(name: "empty issuer", algorithms: ["RS256"], issuer: "", leeway: 60, expected: "issuer"),
            BadConfiguration(
                name: "leeway too large", algorithms: ["RS256"], issuer: "i", leeway: 301, expected: "use 0 to 300"),
            BadConfiguration(
                name: "no key for the algorithm", algorithms: ["RS256"], issuer: "i", leeway: 60,
                expected: "no key for the configured algorithms"),
        ])
    func badConfiguration(_ bad: BadConfiguration) throws {
        let path = try Self.writeJWKS(F.jwks([F.ecJWK()]))
        let error = #expect(throws: AttestServiceError.self) {
            try SessionTokenVerifier(
                configuration: SessionTokenConfiguration(
                    jwksPath: path, issuer: bad.issuer, audience: "a", algorithms: bad.algorithms,
                    leewaySeconds: bad.leeway))
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains(bad.expected) == true, "\(error?.reason ?? "no error")")
    }

    @Test("a missing, oversized or malformed JWKS file is named, with what to do")
    func badFiles() throws {
        func refusal(_ path: String) -> AttestServiceError? {
            #expect(throws: AttestServiceError.self) {
                try SessionTokenVerifier(
                    configuration: SessionTokenConfiguration(jwksPath: path, issuer: "i", audience: "a"))
            }
        }
        let missing = ScratchDirectory.uniquePath("absent.json")
        let error = refusal(missing)
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains(missing) == true)
        #expect(error?.reason.contains("export your identity provider's JWKS") == true)
        let large = try Self.writeJWKS([UInt8](repeating: 0x20, count: JSONWebKeySet.Limits.maximumByteCount + 1))
        #expect(refusal(large)?.reason.contains("is larger than 65536 bytes") == true)
        let malformed = try Self.writeJWKS(Array(#"{"keys":[{"kty":"EC"}]}"#.utf8))
        let parse = refusal(malformed)
        #expect(parse?.reason.contains(malformed) == true)
        #expect(parse?.reason.contains(#"needs "crv""#) == true)
    }

    // MARK: Reloading the JWKS file

    /// What a reloading verifier did: its file reads and its log lines.
    final class Record: Sendable {
        let state = Mutex<(reads: Int, lines: [String])>((0, []))
        var reads: Int { state.withLock { $0.reads } }
        var lines: [String] { state.withLock { $0.lines } }
        func lines(_ event: String) -> [String] { lines.filter { $0.contains(#""event":"\#(event)""#) } }
    }

    /// A verifier over a fresh JWKS file holding `keys`, whose reads are counted and whose log lines are kept.
    static func reloading(
        _ keys: [[String: any Sendable]] = [F.ecJWK()], metrics: ServiceMetrics? = nil
    ) throws -> (verifier: SessionTokenVerifier, path: String, record: Record) {
        let path = try writeJWKS(F.jwks(keys))
        let record = Record()
        let verifier = try SessionTokenVerifier(
            configuration: SessionTokenConfiguration(jwksPath: path, issuer: F.issuer, audience: F.audience),
            log: ServiceLog(sink: { line in record.state.withLock { $0.lines.append(line) } }), metrics: metrics,
            clock: { F.now },
            readFile: { path in
                record.state.withLock { $0.reads += 1 }
                return try SessionTokenVerifier.readJWKS(at: path)
            })
        return (verifier, path, record)
    }

    /// Replaces the file the way a deployment should: a new file renamed over the old one.
    static func replace(_ path: String, with bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    static func at(_ seconds: Double) -> Date { F.now.addingTimeInterval(seconds) }

    /// An ES256 token whose kid is `ec-2`, signed with the other key.
    static let rotatedToken = F.token(
        header: ["alg": "ES256", "kid": "ec-2", "typ": "JWT"], claims: F.claims(), ecKey: F.otherECKey)
    static let rotatedKeys = F.jwks([F.ecJWK(), F.ecJWK(F.otherECKey, kid: "ec-2")])

    /// Expects `token` to be refused at `now` with invalidSession saying the kid names no key of the file at `path`.
    static func expectUnknownKid(
        _ verifier: SessionTokenVerifier, _ token: String, at now: Date, path: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let error = #expect(throws: AttestServiceError.self, sourceLocation: sourceLocation) {
            try verifier.subject(token: token, now: now)
        }
        #expect(error?.code == .invalidSession, sourceLocation: sourceLocation)
        #expect(
            error?.reason.contains("kid names no key of the JWKS file \(path)") == true,
            "\(error?.reason ?? "no error")", sourceLocation: sourceLocation)
    }

    @Test("a token with a new kid is accepted once the file is replaced, without a restart")
    func newKidAfterReplacement() throws {
        let (verifier, path, record) = try Self.reloading()
        #expect(record.reads == 1)
        #expect(try verifier.subject(token: F.es256(), now: Self.at(0)) == "user-42")
        try Self.replace(path, with: Self.rotatedKeys)
        #expect(try verifier.subject(token: Self.rotatedToken, now: Self.at(0.1)) == "user-42")
        #expect(record.reads == 2)
        #expect(verifier.keySet.keys.compactMap(\.keyID) == ["ec-1", "ec-2"])
        #expect(try verifier.subject(token: F.es256(), now: Self.at(0.2)) == "user-42")
        #expect(record.lines("sessionKeysReloaded").count == 1)
        #expect(record.lines("sessionKeysReloaded").first?.contains(#"read 2 keys (kid \"ec-1\", \"ec-2\")"#) == true)
    }

    @Test("unknown kids read the file at most once a second; a changed file is read within a second")
    func unknownKidRateLimit() throws {
        let (verifier, path, record) = try Self.reloading()
        Self.expectUnknownKid(verifier, F.es256(kid: "forged-1"), at: Self.at(0), path: path)
        #expect(record.reads == 2)
        try Self.replace(path, with: Self.rotatedKeys)
        // Within the same second: neither the second forged kid nor the real new one reads the file.
        Self.expectUnknownKid(verifier, F.es256(kid: "forged-2"), at: Self.at(0.5), path: path)
        Self.expectUnknownKid(verifier, Self.rotatedToken, at: Self.at(0.999), path: path)
        #expect(record.reads == 2)
        // A second later, the file's new stamp is noticed and the new key is in use.
        #expect(try verifier.subject(token: Self.rotatedToken, now: Self.at(1)) == "user-42")
        #expect(record.reads == 3)
        // An unchanged file is not read again for known kids, however often it is looked at.
        for second in 2...5 {
            #expect(try verifier.subject(token: F.es256(), now: Self.at(Double(second))) == "user-42")
        }
        #expect(record.reads == 3)
    }

    @Test("a key removed from the file stops verifying once the change is noticed")
    func removedKey() throws {
        let (verifier, path, record) = try Self.reloading([F.ecJWK(), F.ecJWK(F.otherECKey, kid: "ec-2")])
        #expect(try verifier.subject(token: F.es256(), now: Self.at(0)) == "user-42")
        try Self.replace(path, with: F.jwks([F.ecJWK(F.otherECKey, kid: "ec-2")]))
        #expect(try verifier.subject(token: F.es256(), now: Self.at(0.5)) == "user-42")
        Self.expectUnknownKid(verifier, F.es256(), at: Self.at(1), path: path)
        #expect(try verifier.subject(token: Self.rotatedToken, now: Self.at(1)) == "user-42")
        #expect(record.reads == 3)  // the start, the changed stamp, then the unknown kid
    }

    @Test("a corrupt or missing replacement keeps the old keys for a bounded time, and each version is logged once")
    func badReplacementKeepsKeys() throws {
        let (verifier, path, record) = try Self.reloading()
        #expect(try verifier.subject(token: F.es256(), now: Self.at(0)) == "user-42")
        try Self.replace(path, with: Array(#"{"keys":"#.utf8))
        #expect(try verifier.subject(token: F.es256(), now: Self.at(1)) == "user-42")
        #expect(record.reads == 2)
        let kept = record.lines("sessionKeysKept")
        #expect(kept.count == 1)
        #expect(kept.first?.contains(#""level":"warning""#) == true)
        #expect(kept.first?.contains(#"kept the 1 key (kid \"ec-1\") in use for at most 300 s"#) == true)
        #expect(kept.first?.contains("the JWKS file \(path) (subject.jwt.jwks) is not usable") == true)
        // The same bad version: not read again on a stamp check, read (rate limited) for an unknown kid, but the
        // failure is not logged again; the unknown kid is still refused naming the file.
        #expect(try verifier.subject(token: F.es256(), now: Self.at(2)) == "user-42")
        Self.expectUnknownKid(verifier, Self.rotatedToken, at: Self.at(3), path: path)
        #expect(record.reads == 3)
        #expect(record.lines("sessionKeysKept").count == 1)
        // No file at all: logged once, the old key still verifies within the bound (counted from the first failure).
        try FileManager.default.removeItem(atPath: path)
        #expect(try verifier.subject(token: F.es256(), now: Self.at(5)) == "user-42")
        #expect(try verifier.subject(token: F.es256(), now: Self.at(300)) == "user-42")
        let failures = record.lines("sessionKeysKept")
        #expect(failures.count == 2)
        #expect(failures.last?.contains("could not read the JWKS file \(path)") == true)
        #expect(verifier.keySet.keys.compactMap(\.keyID) == ["ec-1"])
        // Fixed: the new keys are in use and the recovery is logged.
        try Self.replace(path, with: Self.rotatedKeys)
        #expect(try verifier.subject(token: Self.rotatedToken, now: Self.at(301)) == "user-42")
        #expect(record.lines("sessionKeysReloaded").count == 1)
    }

    @Test("revocation fails closed: an empty key set or one without a usable key means no keys, at once")
    func emptyKeySetRevokes() throws {
        for replacement in [F.jwks([]), F.jwks([F.rsaJWK(extra: ["use": "enc"])])] {
            let metrics = ServiceMetrics()
            let (verifier, path, record) = try Self.reloading(metrics: metrics)
            #expect(try verifier.subject(token: F.es256(), now: Self.at(0)) == "user-42")
            try Self.replace(path, with: replacement)
            let error = #expect(throws: AttestServiceError.self) {
                try verifier.subject(token: F.es256(), now: Self.at(1))
            }
            #expect(error?.code == .invalidSession)
            #expect(verifier.keySet.keys.isEmpty)
            let emptied = record.lines("sessionKeysEmpty")
            #expect(emptied.count == 1)
            #expect(emptied.first?.contains("holds no key for the configured algorithms") == true)
            #expect(emptied.first?.contains(#""level":"warning""#) == true)
            #expect(metrics.prometheusText.contains("rampart_session_keys_in_use 0"))
            #expect(metrics.prometheusText.contains(#"rampart_session_key_events_total{event="emptied"} 1"#))
            // Keys published again verify again.
            try Self.replace(path, with: F.jwks([F.ecJWK()]))
            #expect(try verifier.subject(token: F.es256(), now: Self.at(2)) == "user-42")
            #expect(metrics.prometheusText.contains("rampart_session_keys_in_use 1"))
        }
    }

    @Test("a file that stays unreadable past 300 s drops the old keys: every token is refused until it reads again")
    func unreadableTooLongDropsKeys() throws {
        let metrics = ServiceMetrics()
        let token = F.es256(F.claims(["exp": F.now.timeIntervalSince1970 + 3600]))  // outlives the test's clock
        let (verifier, path, record) = try Self.reloading(metrics: metrics)
        #expect(try verifier.subject(token: token, now: Self.at(0)) == "user-42")
        try FileManager.default.removeItem(atPath: path)
        #expect(try verifier.subject(token: token, now: Self.at(10)) == "user-42")
        #expect(try verifier.subject(token: token, now: Self.at(309)) == "user-42")
        let error = #expect(throws: AttestServiceError.self) {
            try verifier.subject(token: token, now: Self.at(310))
        }
        #expect(error?.code == .invalidSession)
        #expect(verifier.keySet.keys.isEmpty)
        #expect(record.lines("sessionKeysDropped").count == 1)
        #expect(record.lines("sessionKeysDropped").first?.contains("has not been readable for 300 s") == true)
        // Still gone later: refused, and the drop is not logged again.
        #expect(throws: AttestServiceError.self) { try verifier.subject(token: token, now: Self.at(400)) }
        #expect(record.lines("sessionKeysDropped").count == 1)
        let text = metrics.prometheusText
        #expect(text.contains("rampart_session_keys_in_use 0"))
        #expect(text.contains(#"rampart_session_key_events_total{event="dropped"} 1"#))
        #expect(text.contains(#"rampart_session_key_events_total{event="kept"} 1"#))
        try Self.replace(path, with: F.jwks([F.ecJWK()]))
        #expect(try verifier.subject(token: token, now: Self.at(401)) == "user-42")
    }

    @Test("reloadKeySet reads the file now: new keys are returned, a bad file throws and keeps the old keys")
    func explicitReload() throws {
        let (verifier, path, record) = try Self.reloading()
        try Self.replace(path, with: Array("not json".utf8))
        let error = #expect(throws: AttestServiceError.self) { try verifier.reloadKeySet() }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains("the JWKS file \(path) (subject.jwt.jwks) is not usable") == true)
        #expect(try verifier.subject(token: F.es256(), now: Self.at(0)) == "user-42")
        try Self.replace(path, with: Self.rotatedKeys)
        #expect(try verifier.reloadKeySet().keys.compactMap(\.keyID) == ["ec-1", "ec-2"])
        #expect(try verifier.reloadKeySet().keys.count == 2)  // unchanged, but an explicit reload is always logged
        #expect(record.reads == 4)
        #expect(record.lines("sessionKeysKept").count == 1)
        #expect(record.lines("sessionKeysReloaded").count == 2)
        #expect(record.lines("sessionKeysReloaded").last?.contains("unchanged") == true)

        let fixed = try SessionTokenVerifier(
            configuration: SessionTokenConfiguration(jwksPath: "/nonexistent", issuer: F.issuer, audience: F.audience),
            keySet: JSONWebKeySet(jsonEncoded: F.jwks([F.ecJWK()])))
        #expect(try fixed.reloadKeySet().keys.compactMap(\.keyID) == ["ec-1"])
        Self.expectUnknownKid(fixed, Self.rotatedToken, at: Self.at(0), path: "/nonexistent")
    }

    @Test("copies of a verifier used from many tasks while the file changes share one key set")
    func concurrentUse() async throws {
        let (verifier, path, _) = try Self.reloading()
        let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                let copy = verifier
                group.addTask {
                    var count = 0
                    for step in 0..<200 {
                        let now = Self.at(Double(step) / 50 + Double(task) / 1000)
                        if (try? copy.subject(token: F.es256(), now: now)) == "user-42" { count += 1 }
                        _ = try? copy.subject(token: Self.rotatedToken, now: now)
                    }
                    return count
                }
            }
            for version in 0..<20 {
                try Self.replace(path, with: version.isMultiple(of: 2) ? Self.rotatedKeys : F.jwks([F.ecJWK()]))
            }
            return try await group.reduce(0, +)
        }
        // ec-1 is in every version of the file, so every check of it passed.
        #expect(accepted == 8 * 200)
        try Self.replace(path, with: Self.rotatedKeys)
        #expect(try verifier.reloadKeySet().keys.count == 2)
        #expect(try verifier.subject(token: Self.rotatedToken, now: Self.at(100)) == "user-42")
    }
}
