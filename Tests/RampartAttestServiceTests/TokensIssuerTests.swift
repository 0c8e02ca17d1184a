import Foundation
import RampartAttestService
import RampartCrypto
import RampartJOSE
import TestSupport
import Testing

/// ``AccessTokenIssuer``: issue and verify, every refusal by code, rotation with overlap, keys shared through the
/// store and kept across restarts, and the reload rate limit.
struct TokensIssuerTests {
    typealias F = TokensFixtures
    static let keyID = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
    static let configuration = TokenConfiguration(audience: "ABCDE12345.com.example.app")
    static let t0 = F.now

    static func issuer(
        path: String = temporarySQLitePath(), configuration: TokenConfiguration = configuration
    ) throws -> AccessTokenIssuer {
        try AccessTokenIssuer(configuration: configuration, store: SQLiteAttestationStore(path: path))
    }

    static func decodeSegment(_ text: Substring) -> [String: Any] {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        return object
    }

    @Test("an issued token verifies, with the documented header and claims")
    func roundTrip() async throws {
        let issuer = try Self.issuer()
        let issued = try await issuer.issue(
            subject: "user-42", keyID: Self.keyID, environment: "production", now: Self.t0)
        #expect(issued.expiresAt == Self.t0.addingTimeInterval(900))
        #expect(!issued.description.contains(issued.token))
        let parts = issued.token.split(separator: ".")
        #expect(parts.count == 3)
        let header = Self.decodeSegment(parts[0])
        #expect(header.keys.sorted() == ["alg", "kid", "typ"])
        #expect(header["alg"] as? String == "ES256" && header["typ"] as? String == "JWT")
        let payload = Self.decodeSegment(parts[1])
        #expect(payload.keys.sorted() == ["aud", "environment", "exp", "iat", "iss", "jti", "keyId", "sub"])
        #expect(payload["iss"] as? String == "rampart")
        #expect(payload["aud"] as? String == "ABCDE12345.com.example.app")
        #expect(payload["keyId"] as? String == Self.keyID)
        #expect((payload["jti"] as? String)?.count == 22)
        let claims = try await issuer.verify(issued.token, now: Self.t0.addingTimeInterval(10))
        #expect(claims == issued.claims)
        #expect(claims.subject == "user-42" && claims.environment == "production")
        #expect(claims.signingKeyID == header["kid"] as? String)
        let second = try await issuer.issue(
            subject: "user-42", keyID: Self.keyID, environment: "production", now: Self.t0)
        #expect(second.claims.tokenID != issued.claims.tokenID)
    }

    @Test("a token is refused as tokenExpired once past exp and the leeway")
    func expiry() async throws {
        let issuer = try Self.issuer()
        let issued = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "development", now: Self.t0)
        _ = try await issuer.verify(issued.token, now: Self.t0.addingTimeInterval(900 + 59))
        let error = await #expect(throws: AttestServiceError.self) {
            try await issuer.verify(issued.token, now: Self.t0.addingTimeInterval(900 + 60))
        }
        #expect(error?.code == .tokenExpired)
        #expect(error?.reason.contains("POST /v1/tokens") == true)
    }

    static func refusal(
        _ issuer: AccessTokenIssuer, _ token: String, now: Date = t0, code: AttestServiceError.Code = .invalidToken,
        _ expected: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: AttestServiceError.self, sourceLocation: sourceLocation) {
            try await issuer.verify(token, now: now)
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
        #expect(
            error?.reason.contains(expected) == true, "\(error?.reason ?? "no error")", sourceLocation: sourceLocation)
    }

    @Test("altered, foreign, other-issuer, other-audience and other-algorithm tokens are invalidToken")
    func refusals() async throws {
        let path = temporarySQLitePath()
        let issuer = try Self.issuer(path: path)
        let token = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: Self.t0)
            .token
        let parts = token.split(separator: ".").map(String.init)
        var claims = Self.decodeSegment(Substring(parts[1]))
        claims["sub"] = "admin"
        let altered = parts[0] + "." + F.base64URL(F.json(claims.mapValues { "\($0)" })) + "." + parts[2]
        await Self.refusal(issuer, altered, "signature does not verify")
        await Self.refusal(
            issuer, parts[0] + "." + parts[1] + "." + F.base64URL([UInt8](repeating: 1, count: 64)),
            "signature does not verify")
        await Self.refusal(issuer, String(token.dropLast()), "signature")

        let foreign = try Self.issuer()
        let foreignToken = try await foreign.issue(
            subject: "u", keyID: Self.keyID, environment: "production", now: Self.t0)
        await Self.refusal(issuer, foreignToken.token, "kid names no signing key")

        let kid = try #require(Self.decodeSegment(Substring(parts[0]))["kid"] as? String)
        let forged = F.token(
            header: ["alg": "ES256", "kid": kid, "typ": "JWT"],
            claims: Self.decodeSegment(Substring(parts[1])).mapValues { "\($0)" },
            ecKey: F.otherECKey)
        await Self.refusal(issuer, forged, "signature does not verify")

        let otherIssuer = try Self.issuer(
            path: path, configuration: TokenConfiguration(issuer: "someone", audience: Self.configuration.audience))
        await Self.refusal(otherIssuer, token, "issuer (\"iss\") is not the configured \"someone\"")
        let otherAudience = try Self.issuer(path: path, configuration: TokenConfiguration(audience: "X.other"))
        await Self.refusal(otherAudience, token, "audience (\"aud\") is not \"X.other\"")

        await Self.refusal(issuer, F.rs256(kid: kid), "signed with RS256, which is not configured")
        await Self.refusal(issuer, F.token(header: ["alg": "none", "kid": kid], claims: [:]), "unsigned or HMAC")
        await Self.refusal(issuer, F.token(header: ["alg": "HS256", "kid": kid], claims: [:]), "unsigned or HMAC")
        await Self.refusal(issuer, "not a token", "three base64url parts")
    }

    /// A token signed with the store's own current key, so the claim checks behind the signature are reached.
    static func signedByStore(
        path: String, header: [String: any Sendable]? = nil, claims: [String: any Sendable]
    ) async throws -> String {
        let store = try SQLiteAttestationStore(path: path)
        let records = try await store.transaction { try $0.tokenSigningKeys() }
        await store.close()
        let record = try #require(records.last)
        let key = try ECPrivateKey(pkcs8DERRepresentation: record.privateKey)
        return F.token(
            header: header ?? ["alg": "ES256", "kid": record.keyID, "typ": "JWT"], claims: claims, ecKey: key)
    }

    @Test("claims behind a valid signature are still checked")
    func claimChecks() async throws {
        let path = temporarySQLitePath()
        let issuer = try Self.issuer(path: path)
        _ = try await issuer.jwks(now: Self.t0)
        let iat = Self.t0.timeIntervalSince1970
        let good: [String: any Sendable] = [
            "iss": "rampart", "aud": Self.configuration.audience, "sub": "u", "iat": iat, "exp": iat + 900,
            "jti": F.base64URL(SecureRandom.bytes(count: 16)), "keyId": Self.keyID, "environment": "production",
        ]
        _ = try await issuer.verify(try await Self.signedByStore(path: path, claims: good), now: Self.t0)
        func with(_ name: String, _ value: (any Sendable)?) -> [String: any Sendable] {
            var claims = good
            claims[name] = value
            return claims
        }
        let cases: [([String: any Sendable], String)] = [
            (with("exp", iat + 2000), "lives longer than the configured 900 seconds"),
            (with("iat", nil), #"no "iat" claim"#),
            (with("jti", "short"), #""jti" is not 16 or more"#),
            (with("jti", nil), #"no "jti" claim"#),
            (with("keyId", "not base64!"), #""keyId" is not an App Attest key id"#),
            (with("environment", "staging"), #""environment" is not production or development"#),
            (with("platform", "windows"), #""platform" is not ios or android"#),
            (with("platform", 1), #""platform" is not ios or android"#),
            (with("aud", [Self.configuration.audience]), "audience"),
            (with("sub", ""), "must be 1 to 256 bytes"),
        ]
        for (claims, expected) in cases {
            await Self.refusal(issuer, try await Self.signedByStore(path: path, claims: claims), expected)
        }
        let store = try SQLiteAttestationStore(path: path)
        let kid = try #require(try await store.transaction { try $0.tokenSigningKeys() }.last?.keyID)
        await store.close()
        let noType = try await Self.signedByStore(path: path, header: ["alg": "ES256", "kid": kid], claims: good)
        await Self.refusal(issuer, noType, #"no "typ": "JWT""#)
        let noKid = try await Self.signedByStore(path: path, header: ["alg": "ES256", "typ": "JWT"], claims: good)
        await Self.refusal(issuer, noKid, #"has no "kid""#)
    }

    static func publishedKeyIDs(_ issuer: AccessTokenIssuer, at date: Date) async throws -> [String] {
        let set = try JSONWebKeySet(jsonEncoded: try await issuer.jwks(now: date))
        return set.keys.compactMap(\.keyID)
    }

    @Test("keys rotate: the old key stays published until its last token expires, then is dropped")
    func rotation() async throws {
        let path = temporarySQLitePath()
        let issuer = try Self.issuer(path: path)
        let rotation = Double(Self.configuration.rotationSeconds)
        let slotStart = (Self.t0.timeIntervalSince1970 / rotation).rounded(.down) * rotation
        let first = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: Self.t0)
        let kidA = first.claims.signingKeyID
        let set = try JSONWebKeySet(jsonEncoded: try await issuer.jwks(now: Self.t0))
        #expect(set.keys.map(\.keyID) == [kidA])
        #expect(set.keys.first?.thumbprint == kidA)
        #expect(set.keys.first?.declaresAlgorithm == true && set.keys.first?.declaresSignatureUse == true)

        let lastOfA = Date(timeIntervalSince1970: slotStart + rotation - 1)
        let late = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: lastOfA)
        #expect(late.claims.signingKeyID == kidA)

        let nextSlot = Date(timeIntervalSince1970: slotStart + rotation)
        let second = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: nextSlot)
        let kidB = second.claims.signingKeyID
        #expect(kidB != kidA)
        #expect(try await Self.publishedKeyIDs(issuer, at: nextSlot) == [kidA, kidB])
        _ = try await issuer.verify(late.token, now: nextSlot.addingTimeInterval(800))

        // A's publication ends at the end of its period + lifetime + leeway, whenever it was made.
        let endOfA = Date(timeIntervalSince1970: slotStart + rotation + 900 + 60)
        #expect(try await Self.publishedKeyIDs(issuer, at: endOfA.addingTimeInterval(-1)) == [kidA, kidB])
        #expect(try await Self.publishedKeyIDs(issuer, at: endOfA) == [kidB])
        let store = try SQLiteAttestationStore(path: path)
        #expect(try await store.transaction { try $0.tokenSigningKeys() }.map(\.keyID) == [kidB])
        await store.close()
    }

    /// The start of the rotation period `date` falls in, in seconds since 1970.
    static func slotStart(_ date: Date, configuration: TokenConfiguration = configuration) -> Double {
        let rotation = Double(configuration.rotationSeconds)
        return (date.timeIntervalSince1970 / rotation).rounded(.down) * rotation
    }

    @Test("the pre-publication window is a quarter of the rotation period")
    func prePublicationWindow() {
        #expect(Self.configuration.prePublicationSeconds == 21_600)
        #expect(TokenConfiguration(audience: "a", rotationSeconds: 3_600).prePublicationSeconds == 900)
        #expect(TokenConfiguration(audience: "a", rotationSeconds: 3_601).prePublicationSeconds == 900)
    }

    @Test("the next key is published a window before its period, never signs before it, then signs with the same kid")
    func nextKeyIsPublishedBeforeItSigns() async throws {
        let path = temporarySQLitePath()
        let issuer = try Self.issuer(path: path)
        let rotation = Double(Self.configuration.rotationSeconds)
        let window = Double(Self.configuration.prePublicationSeconds)
        let nextStart = Self.slotStart(Self.t0) + rotation
        let beforeWindow = Date(timeIntervalSince1970: nextStart - window - 0.001)
        let current = try await issuer.issue(
            subject: "u", keyID: Self.keyID, environment: "production", now: beforeWindow)
        let kidA = current.claims.signingKeyID
        #expect(try await Self.publishedKeyIDs(issuer, at: beforeWindow) == [kidA])
        let store = try SQLiteAttestationStore(path: path)
        #expect(try await store.transaction { try $0.tokenSigningKeys() }.count == 1)

        let windowOpens = Date(timeIntervalSince1970: nextStart - window)
        let published = try await Self.publishedKeyIDs(issuer, at: windowOpens)
        #expect(published.count == 2 && published.first == kidA)
        let kidB = try #require(published.last)
        #expect(kidB != kidA)
        let records = try await store.transaction { try $0.tokenSigningKeys() }
        #expect(records.first { $0.keyID == kidB }?.slot == Int64(nextStart / rotation))
        await store.close()

        // In the window, up to the last instant of the period, the current key signs.
        for offset in [-window, -window / 2, -1, -0.001] {
            let now = Date(timeIntervalSince1970: nextStart + offset)
            let issued = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: now)
            #expect(issued.claims.signingKeyID == kidA, "at \(offset) s")
            #expect(try await Self.publishedKeyIDs(issuer, at: now) == [kidA, kidB])
        }
        // Another process (a fresh issuer on the same database) sees the same two keys.
        let other = try Self.issuer(path: path)
        #expect(try await Self.publishedKeyIDs(other, at: windowOpens) == [kidA, kidB])

        // From the period's first instant the pre-published key signs, and verifies everywhere.
        let boundary = Date(timeIntervalSince1970: nextStart)
        let fromB = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: boundary)
        #expect(fromB.claims.signingKeyID == kidB)
        #expect(
            try await other.issue(subject: "v", keyID: Self.keyID, environment: "production", now: boundary)
                .claims.signingKeyID == kidB)
        #expect(try await other.verify(fromB.token, now: boundary).signingKeyID == kidB)
        #expect(try await Self.publishedKeyIDs(issuer, at: boundary) == [kidA, kidB])
    }

    @Test("a token signed at the end of a period verifies until exp + leeway, and its key is dropped right after")
    func lastTokenOfAPeriod() async throws {
        let path = temporarySQLitePath()
        let issuer = try Self.issuer(path: path)
        let rotation = Double(Self.configuration.rotationSeconds)
        let periodEnd = Self.slotStart(Self.t0) + rotation
        _ = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: Self.t0)
        let last = try await issuer.issue(
            subject: "u", keyID: Self.keyID, environment: "production",
            now: Date(timeIntervalSince1970: periodEnd - 0.001))
        let kidA = last.claims.signingKeyID
        let expiry = last.expiresAt.timeIntervalSince1970
        #expect(expiry == periodEnd - 1 + 900)

        let justValid = Date(timeIntervalSince1970: expiry + 60 - 0.001)
        #expect(try await issuer.verify(last.token, now: justValid).signingKeyID == kidA)
        #expect(try await Self.publishedKeyIDs(issuer, at: justValid).first == kidA)
        await Self.refusal(
            issuer, last.token, now: Date(timeIntervalSince1970: expiry + 60), code: .tokenExpired, "expired")

        // Publication ends at the period's end + lifetime + leeway; the store deletes the key at that instant.
        let publicationEnd = periodEnd + 900 + 60
        let stillPublished = Date(timeIntervalSince1970: publicationEnd - 0.001)
        #expect(try await Self.publishedKeyIDs(issuer, at: stillPublished).first == kidA)
        let retired = Date(timeIntervalSince1970: publicationEnd)
        let published = try await Self.publishedKeyIDs(issuer, at: retired)
        #expect(!published.contains(kidA) && published.count == 1)
        let store = try SQLiteAttestationStore(path: path)
        #expect(try await store.transaction { try $0.tokenSigningKeys() }.map(\.keyID) == published)
        await store.close()
        await Self.refusal(issuer, last.token, now: retired, "kid names no signing key")
    }

    @Test("a key made under another rotationSeconds is published for one period from its creation, and never signs")
    func keyFromAnotherRotation() async throws {
        let path = temporarySQLitePath()
        let store = try SQLiteAttestationStore(path: path)
        let made = Self.t0.addingTimeInterval(-100)
        // Made by an hourly issuer: its slot counts hours, which under a daily rotation names a period in 2260.
        let hourlyKey = TokenSigningKeyRecord(
            keyID: "hourly", createdAt: made, slot: Int64(made.timeIntervalSince1970 / 3_600),
            privateKey: ECPrivateKey(curve: .p256).pkcs8DERRepresentation)
        #expect(try await store.transaction { try $0.insertTokenSigningKey(hourlyKey) })
        await store.close()
        let issuer = try Self.issuer(path: path)
        let issued = try await issuer.issue(subject: "u", keyID: Self.keyID, environment: "production", now: Self.t0)
        #expect(issued.claims.signingKeyID != "hourly")
        // Ordered by the start of publication: the daily key's window opened before the hourly key was made.
        #expect(try await Self.publishedKeyIDs(issuer, at: Self.t0) == [issued.claims.signingKeyID, "hourly"])
        // Published until its creation + rotation + window + lifetime + leeway (a day + 6 h + 960 s), then deleted.
        let end = made.addingTimeInterval(86_400 + 21_600 + 960)
        #expect(try await Self.publishedKeyIDs(issuer, at: end.addingTimeInterval(-0.001)).contains("hourly"))
        #expect(try await Self.publishedKeyIDs(issuer, at: end).contains("hourly") == false)
        let reopened = try SQLiteAttestationStore(path: path)
        #expect(try await reopened.transaction { try $0.tokenSigningKeys() }.contains { $0.keyID == "hourly" } == false)
        await reopened.close()
    }

    @Test("processes sharing a database sign with one key, and a restart keeps it")
    func shared() async throws {
        let path = temporarySQLitePath()
        let one = try Self.issuer(path: path)
        let two = try Self.issuer(path: path)
        let fromOne = try await one.issue(subject: "u", keyID: Self.keyID, environment: "production", now: Self.t0)
        let fromTwo = try await two.issue(subject: "v", keyID: Self.keyID, environment: "production", now: Self.t0)
        #expect(fromOne.claims.signingKeyID == fromTwo.claims.signingKeyID)
        #expect(try await two.verify(fromOne.token, now: Self.t0).subject == "u")
        #expect(try await one.verify(fromTwo.token, now: Self.t0).subject == "v")
        let restarted = try Self.issuer(path: path)
        #expect(try await restarted.verify(fromOne.token, now: Self.t0).subject == "u")
        let again = try await restarted.issue(subject: "w", keyID: Self.keyID, environment: "production", now: Self.t0)
        #expect(again.claims.signingKeyID == fromOne.claims.signingKeyID)
    }

    /// Two issuers on one store, the verifier's keys loaded at `t0`, the start of the next rotation period, and a
    /// token naming a kid no issuer made.
    static func reloadFixture() async throws -> (
        verifier: AccessTokenIssuer, signer: AccessTokenIssuer, nextSlot: Double, forged: String
    ) {
        let path = temporarySQLitePath()
        let verifier = try Self.issuer(path: path)
        let signer = try Self.issuer(path: path)
        _ = try await verifier.jwks(now: Self.t0)
        let rotation = Double(Self.configuration.rotationSeconds)
        let nextSlot = ((Self.t0.timeIntervalSince1970 / rotation).rounded(.down) + 1) * rotation
        let forged = F.token(header: ["alg": "ES256", "kid": "forged", "typ": "JWT"], claims: [:])
        return (verifier, signer, nextSlot, forged)
    }

    @Test("an unknown kid reloads the keys from the store at most once a second")
    func reloadRateLimit() async throws {
        let (verifier, signer, nextSlot, forged) = try await Self.reloadFixture()
        await Self.refusal(verifier, forged, now: Date(timeIntervalSince1970: nextSlot), "kid names no signing key")
        let token = try await signer.issue(
            subject: "u", keyID: Self.keyID, environment: "production", now: Date(timeIntervalSince1970: nextSlot + 0.1)
        ).token
        await Self.refusal(
            verifier, token, now: Date(timeIntervalSince1970: nextSlot + 0.5), "kid names no signing key")
        #expect(try await verifier.verify(token, now: Date(timeIntervalSince1970: nextSlot + 1)).subject == "u")
    }

    @Test("a clock stepped back does not stop unknown kids from reloading the keys until it catches up")
    func reloadAfterClockStepBack() async throws {
        let (verifier, signer, nextSlot, forged) = try await Self.reloadFixture()
        // A reload at a clock 100 s ahead, then the clock is stepped back to just after the period's start.
        await Self.refusal(
            verifier, forged, now: Date(timeIntervalSince1970: nextSlot + 100), "kid names no signing key")
        let token = try await signer.issue(
            subject: "u", keyID: Self.keyID, environment: "production", now: Date(timeIntervalSince1970: nextSlot + 0.5)
        ).token
        #expect(try await verifier.verify(token, now: Date(timeIntervalSince1970: nextSlot + 1)).subject == "u")
    }

    @Test("bad arguments are invalidField, a bad configuration invalidConfiguration, a corrupt key storeFailure")
    func argumentsAndConfiguration() async throws {
        let issuer = try Self.issuer()
        for (subject, keyID, environment) in [
            ("", Self.keyID, "production"), ("a\u{0}", Self.keyID, "production"), ("u", "not base64", "production"),
            ("u", Self.keyID, "staging"),
        ] {
            let error = await #expect(throws: AttestServiceError.self) {
                try await issuer.issue(subject: subject, keyID: keyID, environment: environment, now: Self.t0)
            }
            #expect(error?.code == .invalidField)
        }
        for (configuration, expected) in [
            (TokenConfiguration(audience: "a", lifetimeSeconds: 10), #""lifetimeSeconds" is 10"#),
            (TokenConfiguration(audience: "a", lifetimeSeconds: 7200, rotationSeconds: 3600), "longer than"),
            (TokenConfiguration(audience: ""), #""audience" must be"#),
            (TokenConfiguration(audience: "a", leewaySeconds: -1), #""leewaySeconds" is -1"#),
        ] {
            let error = #expect(throws: AttestServiceError.self) {
                try AccessTokenIssuer(configuration: configuration, store: SQLiteAttestationStore(path: ":memory:"))
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.reason.contains(expected) == true, "\(error?.reason ?? "")")
        }
        #expect(TokenConfiguration.defaultAudience(teamID: "T", bundleID: "b.c") == "T.b.c")

        let path = temporarySQLitePath()
        let store = try SQLiteAttestationStore(path: path)
        let rotation = Int64(Self.configuration.rotationSeconds)
        let slot = Int64(Self.t0.timeIntervalSince1970) / rotation
        let record = TokenSigningKeyRecord(keyID: "bad", createdAt: Self.t0, slot: slot, privateKey: [1, 2, 3])
        #expect(try await store.transaction { try $0.insertTokenSigningKey(record) })
        #expect(!record.description.contains("[1, 2, 3]"))
        let corrupt = try AccessTokenIssuer(configuration: Self.configuration, store: store)
        let error = await #expect(throws: AttestServiceError.self) { try await corrupt.jwks(now: Self.t0) }
        #expect(error?.code == .storeFailure)
        #expect(error?.reason.contains("delete its row") == true)
    }
}
