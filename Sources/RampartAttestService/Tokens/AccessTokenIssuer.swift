public import Foundation
import RampartCrypto
import RampartJOSE
import RampartRequestSigning

/// Issues and verifies Rampart's access tokens: short-lived ES256 JWTs for "attest once, then tokens" (see
/// <doc:Tokens>).
///
/// A token's header is `{"alg":"ES256","kid":…,"typ":"JWT"}` and its claims are `iss`, `aud`, `sub`, `iat`, `exp`,
/// `jti` (16 random bytes), `keyId` (the App Attest key id, standard base64) and `environment`.
///
/// Signing keys are P-256 keys kept in the store's `rampart_token_keys` table, so every process on one database
/// signs with the same key and verifies every other's tokens, and keys survive restarts. Time is cut into periods of
/// ``TokenConfiguration/rotationSeconds``, and the table lets one key exist per period. A period's key is made ahead
/// of it: the first process to need a key within ``TokenConfiguration/prePublicationSeconds`` of the period's start
/// makes it (or, after an idle spell, the first one in the period), and ``jwks()`` publishes it from the start of
/// that window, so verifiers that cache the JWKS hold it before it signs. A key signs during its own period only,
/// stays published until no token it signed can verify (the end of its period plus the lifetime and the leeway),
/// and is then deleted. Keys are cached in memory; a token naming an unknown `kid` reloads them from the store at
/// most once a second.
///
/// - Important: With challenge sealing keys configured, the signing keys are stored sealed under a key derived from
///   them (`TokenKeySealing`), so a reader of the database cannot mint tokens. Without them, anyone who can read the
///   `rampart_token_keys` table (the database file, a replica, a backup) can mint tokens for any subject: protect
///   the database like a signing key (`rampart serve` warns at start).
public actor AccessTokenIssuer {
    /// The configuration.
    public let configuration: TokenConfiguration
    let store: any AttestationStore
    let clock: @Sendable () -> Date
    /// When keys are made, sign, are published and are deleted, from the configuration.
    let schedule: TokenKeySchedule

    /// A signing key loaded from the store.
    struct LoadedKey {
        let record: TokenSigningKeyRecord
        let privateKey: ECPrivateKey
        let publicKey: JSONWebKey
    }

    /// The keys loaded from the store, oldest first.
    var keys: [LoadedKey] = []
    /// When an unknown kid last caused a reload (rate limit: once a second).
    var lastMissReload: Date?
    /// The keys that seal signing keys at rest; nil: they are stored plain.
    let sealingKeys: ChallengeSealingKeys?
    /// Why stored keys could not be opened at the last reload (shown when no current key is usable).
    var unopened: [String] = []

    /// The shortest time between reloads caused by unknown kids, in seconds (a DoS bound: forged kids cannot turn
    /// every request into a database query).
    public static let reloadInterval: TimeInterval = 1

    /// Creates an issuer over `store`.
    ///
    /// - Parameters:
    ///   - configuration: Issuer, audience, lifetime, rotation and leeway; checked with
    ///     ``TokenConfiguration/validate()``.
    ///   - store: Where signing keys are kept (shared by every process on the database).
    ///   - sealingKeys: The challenge sealing keys, under which signing keys are sealed at rest; nil: stored plain.
    ///   - clock: The current time, for the methods that take none.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) for an invalid configuration.
    public init(
        configuration: TokenConfiguration, store: any AttestationStore, sealingKeys: ChallengeSealingKeys? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try configuration.validate()
        self.sealingKeys = sealingKeys
        self.configuration = configuration
        self.store = store
        self.clock = clock
        self.schedule = TokenKeySchedule(configuration)
    }

    // MARK: Issuing

    /// Issues a token for the subject and App Attest key of a verified signed request, at the clock's time.
    ///
    /// - Parameters:
    ///   - subject: The key's subject (1 to 256 bytes, no NUL).
    ///   - keyID: The App Attest key id, standard base64.
    ///   - environment: `production` or `development`.
    ///   - platform: The platform of the key (the `platform` claim), when known.
    /// - Returns: The token and its expiry.
    /// - Throws: ``AttestServiceError``: `invalidField` for a bad argument, `storeFailure` when the keys cannot be
    ///   loaded or stored.
    public func issue(
        subject: String, keyID: String, environment: String, platform: KeyPlatform? = nil
    ) async throws -> IssuedToken {
        try await issue(subject: subject, keyID: keyID, environment: environment, platform: platform, now: clock())
    }

    /// Issues a token at `now`.
    ///
    /// - Parameters:
    ///   - subject: The key's subject.
    ///   - keyID: The App Attest key id, standard base64.
    ///   - environment: `production` or `development`.
    ///   - platform: The platform of the key (the `platform` claim), when known.
    ///   - now: The issue time.
    /// - Returns: The token and its expiry.
    /// - Throws: As ``issue(subject:keyID:environment:platform:)``.
    public func issue(
        subject: String, keyID: String, environment: String, platform: KeyPlatform? = nil, now: Date
    ) async throws -> IssuedToken {
        guard !subject.isEmpty, subject.utf8.count <= JWTClaims.maximumSubjectByteCount, !subject.utf8.contains(0)
        else {
            throw AttestServiceError.invalidField(
                "a token subject must be 1 to \(JWTClaims.maximumSubjectByteCount) bytes without NUL")
        }
        guard Self.isKeyID(keyID) else {
            throw AttestServiceError.invalidField("a token's keyId must be an App Attest key id in standard base64")
        }
        guard Self.environments.contains(environment) else {
            throw AttestServiceError.invalidField("a token's environment must be production or development")
        }
        let key = try await signingKey(now: now)
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        let expiresAt = issuedAt + Double(configuration.lifetimeSeconds)
        let tokenID = Base64URL.encode(SecureRandom.bytes(count: 16))
        let kid = key.record.keyID
        let header: JSONValue = .object(["alg": .string("ES256"), "kid": .string(kid), "typ": .string("JWT")])
        var payloadClaims: [String: JSONValue] = [
            "iss": .string(configuration.issuer), "aud": .string(configuration.audience), "sub": .string(subject),
            "iat": .number(issuedAt), "exp": .number(expiresAt), "jti": .string(tokenID), "keyId": .string(keyID),
            "environment": .string(environment),
        ]
        if let platform { payloadClaims["platform"] = .string(platform.rawValue) }
        let payload: JSONValue = .object(payloadClaims)
        let signingInput =
            Base64URL.encode(CanonicalJSON.canonicalBytes(of: header)) + "."
            + Base64URL.encode(CanonicalJSON.canonicalBytes(of: payload))
        let signature: [UInt8]
        do {
            signature = try key.privateKey.rawSignature(for: Array(signingInput.utf8), digest: .sha256)
        } catch let error as CryptoError {
            throw AttestServiceError.storeFailure(
                "the token signing key \(kid) could not sign; nothing was issued", detail: "\(error)")
        }
        let claims = AccessTokenClaims(
            issuer: configuration.issuer, audience: configuration.audience, subject: subject,
            issuedAt: Date(timeIntervalSince1970: issuedAt), expiresAt: Date(timeIntervalSince1970: expiresAt),
            tokenID: tokenID, keyID: keyID, environment: environment, signingKeyID: kid, platform: platform)
        return IssuedToken(
            token: signingInput + "." + Base64URL.encode(signature), expiresAt: claims.expiresAt, claims: claims)
    }

    // MARK: Verifying

    /// Verifies an access token at the clock's time.
    ///
    /// - Parameter token: The compact JWS (the `Rampart-Token` header's value).
    /// - Returns: Its claims.
    /// - Throws: ``AttestServiceError``: `tokenExpired` for a token past its `exp` (and the leeway), `invalidToken`
    ///   for anything else (malformed, altered, another algorithm than ES256, an unknown or foreign key, another
    ///   issuer or audience), `storeFailure` when the keys cannot be reloaded.
    public func verify(_ token: String) async throws -> AccessTokenClaims {
        try await verify(token, now: clock())
    }

    /// Verifies an access token at `now`.
    ///
    /// - Parameters:
    ///   - token: The compact JWS.
    ///   - now: The current time.
    /// - Returns: Its claims.
    /// - Throws: As ``verify(_:)``.
    public func verify(_ token: String, now: Date) async throws -> AccessTokenClaims {
        let what = "the access token"
        let invalid = { (reason: String) in AttestServiceError.invalidToken(reason) }
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token, algorithms: [.es256], what: what)
        } catch let failure as JOSEError {
            throw invalid(failure.reason)
        }
        guard case .string(let type)? = jws.header["typ"], type.hasSameUTF8(as: "JWT") else {
            throw invalid("\(what)'s header has no \"typ\": \"JWT\"; it was not issued by Rampart")
        }
        guard let kid = jws.keyID else { throw invalid("\(what)'s header has no \"kid\"") }
        var key = keys.first { $0.record.keyID.hasSameUTF8(as: kid) }
        if key == nil, now.isReloadDue(every: Self.reloadInterval, since: lastMissReload) {
            lastMissReload = now
            try await reload(now: now, creating: false)
            key = keys.first { $0.record.keyID.hasSameUTF8(as: kid) }
        }
        guard let key, schedule.isPublished(key.record, at: now) else {
            throw invalid(
                "\(what)'s kid names no signing key of this service (a foreign key, or one retired long ago); fetch "
                    + "a new token with POST /v1/tokens")
        }
        guard key.publicKey.isValidSignature(jws.signature, for: jws.signingInput) else {
            throw invalid("\(what)'s signature does not verify; it was altered or not issued by this service")
        }
        let claims = JWTClaims(claims: jws.claims, what: what)
        do {
            try claims.checkIssuer(configuration.issuer)
            guard case .string(let audience)? = jws.claims["aud"], audience.hasSameUTF8(as: configuration.audience)
            else { throw invalid("\(what)'s audience (\"aud\") is not \"\(configuration.audience)\"") }
            let times = try claims.checkTimes(
                now: now.timeIntervalSince1970, leeway: Double(configuration.leewaySeconds))
            guard let issuedAt = times.issuedAt else { throw invalid("\(what) has no \"iat\" claim") }
            guard times.expiresAt - issuedAt <= Double(configuration.lifetimeSeconds) else {
                throw invalid("\(what) lives longer than the configured \(configuration.lifetimeSeconds) seconds")
            }
            let subject = try claims.subject()
            let tokenID = try claims.string("jti")
            guard Base64URL.decode(tokenID.utf8, maximumByteCount: 64).map({ $0.count >= 16 }) == true else {
                throw invalid("\(what)'s \"jti\" is not 16 or more random bytes in base64url")
            }
            let keyID = try claims.string("keyId")
            guard Self.isKeyID(keyID) else { throw invalid("\(what)'s \"keyId\" is not an App Attest key id") }
            let environment = try claims.string("environment")
            guard Self.environments.contains(environment) else {
                throw invalid("\(what)'s \"environment\" is not production or development")
            }
            var platform: KeyPlatform?
            if let value = jws.claims["platform"] {
                guard case .string(let name) = value, let known = KeyPlatform(rawValue: name) else {
                    throw invalid("\(what)'s \"platform\" is not ios or android")
                }
                platform = known
            }
            return AccessTokenClaims(
                issuer: configuration.issuer, audience: audience, subject: subject,
                issuedAt: Date(timeIntervalSince1970: issuedAt),
                expiresAt: Date(timeIntervalSince1970: times.expiresAt),
                tokenID: tokenID, keyID: keyID, environment: environment, signingKeyID: kid, platform: platform)
        } catch let failure as JOSEError where failure.code == .tokenExpired {
            throw AttestServiceError.tokenExpired(failure.reason + "; fetch a new one with POST /v1/tokens")
        } catch let failure as JOSEError {
            throw invalid(failure.reason)
        }
    }

    // MARK: Publishing

    /// The JWKS document at the clock's time: the signing key, the retired keys whose tokens may still be valid, and
    /// in the pre-publication window the next period's key.
    ///
    /// - Returns: `{"keys":[…]}` in canonical JSON: each key with `kty`, `crv`, `x`, `y`, `kid`, `use: sig`,
    ///   `alg: ES256`, oldest (earliest signing period) first, at most ``JSONWebKeySet/Limits/maximumKeyCount``.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    public func jwks() async throws -> [UInt8] { try await jwks(now: clock()) }

    /// The JWKS document at `now`.
    ///
    /// - Parameter now: The current time.
    /// - Returns: The document.
    /// - Throws: ``AttestServiceError`` (`storeFailure`).
    public func jwks(now: Date) async throws -> [UInt8] {
        _ = try await signingKey(now: now)
        let published = keys.filter { schedule.isPublished($0.record, at: now) }.map(\.publicKey)
        return try JSONWebKeySet(keys: Array(published.suffix(JSONWebKeySet.Limits.maximumKeyCount))).jsonEncoded
    }

    // MARK: Keys

    static let environments: Set<String> = ["production", "development"]

    /// A standard-base64 key id of 1 to 64 bytes.
    static func isKeyID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 88 && Data(base64Encoded: text).map { (1...64).contains($0.count) } == true
    }

    /// The key for the current rotation period, made (or loaded from another process) when needed; in the
    /// pre-publication window, the next period's key is made too.
    func signingKey(now: Date) async throws -> LoadedKey {
        let current = schedule.slot(at: now)
        // The store is visited when a cached key is retired (to delete it) or, in the window, the next key is missing.
        if let key = keys.last(where: { $0.record.slot == current }),
            !keys.contains(where: { schedule.isRetired($0.record, at: now) }),
            !schedule.isNextKeyDue(at: now) || keys.contains(where: { $0.record.slot == current + 1 })
        {
            return key
        }
        try await reload(now: now, creating: true)
        guard let key = keys.last(where: { $0.record.slot == current }) else {
            throw AttestServiceError.storeFailure(
                "no token signing key could be stored for the current rotation period; nothing was issued"
                    + (unopened.isEmpty ? "" : " (" + unopened.joined(separator: "; ") + ")"))
        }
        return key
    }

    /// Reloads the keys from the store; with `creating`, first deletes the retired keys and makes the current
    /// period's key, and in the pre-publication window the next period's, where no process has.
    func reload(now: Date, creating: Bool) async throws {
        let schedule = schedule
        let sealingKeys = sealingKeys
        let current = schedule.slot(at: now)
        let due = schedule.isNextKeyDue(at: now) ? [current, current + 1] : [current]
        let records = try await store.transaction { transaction -> [TokenSigningKeyRecord] in
            let existing = try transaction.tokenSigningKeys()
            guard creating else { return existing }
            // Exactly the keys `isPublished` will never accept again; one statement each (there are one or two).
            let retired = existing.filter { schedule.isRetired($0, at: now) }
            for record in retired { _ = try transaction.deleteTokenSigningKey(keyID: record.keyID) }
            let missing = due.filter { slot in !existing.contains { $0.slot == slot } }
            guard !retired.isEmpty || !missing.isEmpty else { return existing }
            for slot in missing {
                let privateKey = ECPrivateKey(curve: .p256)
                let kid = try JSONWebKey(privateKey.publicKey, keyID: nil).thumbprint
                let pkcs8 = privateKey.pkcs8DERRepresentation
                let stored = try sealingKeys.map { try TokenKeySealing.seal(pkcs8, keyID: kid, with: $0) } ?? pkcs8
                let record = TokenSigningKeyRecord(keyID: kid, createdAt: now, slot: slot, privateKey: stored)
                _ = try transaction.insertTokenSigningKey(record)
            }
            return try transaction.tokenSigningKeys()
        }
        var loaded: [LoadedKey] = []
        var unopened: [String] = []
        for record in records {
            if let cached = keys.first(where: { $0.record == record }) {
                loaded.append(cached)
                continue
            }
            // A key that cannot be opened (its sealing key is no longer listed) verifies nothing and signs nothing;
            // the others stay usable, and the reason is shown if the current period has no usable key.
            let pkcs8: [UInt8]
            do {
                pkcs8 = try TokenKeySealing.open(record.privateKey, keyID: record.keyID, with: sealingKeys)
            } catch let error as AttestServiceError {
                unopened.append(error.reason)
                continue
            }
            do {
                let privateKey = try ECPrivateKey(pkcs8DERRepresentation: pkcs8)
                guard privateKey.curve == .p256 else { throw CryptoError.invalidKey("not P-256") }
                let publicKey = try JSONWebKey(privateKey.publicKey, keyID: record.keyID)
                loaded.append(LoadedKey(record: record, privateKey: privateKey, publicKey: publicKey))
            } catch {
                throw AttestServiceError.storeFailure(
                    "the stored token signing key \(record.keyID) is not a P-256 PKCS#8 key; delete its row from "
                        + "rampart_token_keys (tokens it signed will be refused)")
            }
        }
        self.unopened = unopened
        // Oldest first: by the start of publication, which orders the keys by signing period (keys made in one
        // transaction share a creation time).
        keys = loaded.sorted {
            let (first, second) = (schedule.publication(of: $0.record), schedule.publication(of: $1.record))
            return first.lowerBound != second.lowerBound
                ? first.lowerBound < second.lowerBound : $0.record.keyID < $1.record.keyID
        }
    }
}
