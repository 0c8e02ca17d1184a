public import Foundation
public import RampartJOSE

/// The `jwt` subject source: verifies the app's own session JWT from `Authorization: Bearer …` against the
/// identity provider's JWKS and returns its `sub`, the subject every challenge, registration and check uses.
///
/// A token is accepted only when all of these hold, in this order:
///
/// 1. `Authorization` is `Bearer <token>` (scheme in any case, exactly one space; RFC 6750 section 2.1);
/// 2. the token is a compact JWS of three unpadded base64url parts whose header and payload are JSON objects without
///    duplicate members, at most 8 KiB (see ``JSONWebKeySet/Limits`` for the keys);
/// 3. its `alg` is one of the configured algorithms (`RS256`, `ES256`; `none` and HMAC can never be configured), and
///    it has no `crit` header;
/// 4. its `kid` names a key of the JWKS (a token without `kid` is accepted only when the JWKS has exactly one key),
///    and the key's type is the one `alg` needs;
/// 5. the signature verifies over the first two parts as received (RSASSA-PKCS1-v1_5 SHA-256, or ECDSA P-256 with a
///    64-byte `r ‖ s`);
/// 6. `iss` equals the configured issuer and `aud` is, or is an array including, the configured audience (as bytes);
/// 7. `exp` is present and not past, `nbf` and `iat` (when present) not in the future, each with the leeway;
/// 8. `sub` is a non-empty string of at most 256 bytes without NUL.
///
/// Every refusal is ``AttestServiceError/Code/invalidSession`` (HTTP 401) with a message naming the check; messages
/// never repeat the token's bytes.
///
/// The JWKS file is read at ``init(configuration:log:)`` and again, without a restart, when the identity provider
/// rotates its keys: when a token names a `kid` the keys in use lack (at most once per ``reloadInterval``, so forged
/// kids cannot turn every request into a file read), when the file's modification time, size or inode changed
/// (looked at at most once per interval), and on ``reloadKeySet()`` (`rampart serve` calls it on SIGHUP). Replace the
/// file atomically (write a temporary file, then rename it over the old one), or expect a half-written file to be
/// refused and read again once complete. Revocation fails closed: a file that holds no key for the configured
/// algorithms (`{"keys": []}`) leaves no key in use, and a file that stays unreadable for
/// `SessionKeyFile.maximumUnreadableSeconds` (5 minutes) drops the keys read from it before; until then they stay, and
/// the failure is logged once per version of the file as `sessionKeysKept`.
///
/// The verifier is a value whose copies share the keys; it is safe to use from many tasks at once.
public struct SessionTokenVerifier {
    /// The shortest time between reads of the JWKS file caused by unknown kids, and between looks at its
    /// modification time and size, in seconds (a DoS bound: forged kids cannot turn every request into a file read).
    public static let reloadInterval: TimeInterval = 1

    /// The configuration, as given.
    public let configuration: SessionTokenConfiguration
    /// The keys in use: the last usable version of ``SessionTokenConfiguration/jwksPath``.
    public var keySet: JSONWebKeySet { keys.keySet }
    let algorithms: [JSONWebAlgorithm]
    /// The file and the keys read from it, shared by every copy.
    let keys: SessionKeyFile

    /// Checks `configuration` and reads its JWKS file.
    ///
    /// - Parameters:
    ///   - configuration: The `jwt` subject source.
    ///   - log: Where reloads of the file are reported (`sessionKeysReloaded`, `sessionKeysKept`,
    ///     `sessionKeysEmpty`, `sessionKeysDropped`).
    ///   - metrics: Where they are counted (`rampart_session_key_events_total`, `rampart_session_keys_in_use`).
    ///   - clock: The time of SIGHUP and ``reloadKeySet()`` reads (token checks pass their own).
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the file or the setting at fault and what to
    ///   do.
    public init(
        configuration: SessionTokenConfiguration, log: ServiceLog = .disabled, metrics: ServiceMetrics? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        try self.init(configuration: configuration, log: log, metrics: metrics, clock: clock, readFile: Self.readJWKS)
    }

    /// Checks `configuration` and reads its JWKS file through `readFile` (a test hook that counts reads).
    ///
    /// - Parameters:
    ///   - configuration: The `jwt` subject source.
    ///   - log: Where reloads are reported.
    ///   - metrics: Where reloads are counted.
    ///   - clock: The time of explicit reloads.
    ///   - readFile: Returns the bytes of the file at a path, or throws ``AttestServiceError``.
    /// - Throws: As ``init(configuration:log:metrics:clock:)``.
    @_spi(Testing)
    public init(
        configuration: SessionTokenConfiguration, log: ServiceLog, metrics: ServiceMetrics? = nil,
        clock: @escaping @Sendable () -> Date = { Date() },
        readFile: @escaping @Sendable (String) throws -> [UInt8]
    ) throws {
        let algorithms = try Self.algorithms(of: configuration)
        let path = configuration.jwksPath
        let stamp = SessionKeyFile.stamp(of: path)
        // At start the file must hold a usable key (a mistake is refused then); a later version may hold none.
        let keySet = try Self.keySet(jsonEncoded: readFile(path), configuration: configuration, algorithms: algorithms)
        let keySetOf: @Sendable ([UInt8]) throws -> JSONWebKeySet = { bytes in
            try Self.keySet(reloaded: bytes, configuration: configuration, algorithms: algorithms)
        }
        self.configuration = configuration
        self.algorithms = algorithms
        keys = SessionKeyFile(
            path: path, keySet: keySet, stamp: stamp, log: log, metrics: metrics, clock: clock, readFile: readFile,
            keySetOf: keySetOf)
    }

    /// Checks `configuration` and uses `keySet` instead of reading ``SessionTokenConfiguration/jwksPath``.
    ///
    /// The verifier never reads the file: ``reloadKeySet()`` returns `keySet` unchanged.
    ///
    /// - Parameters:
    ///   - configuration: The issuer, audience, algorithms and leeway (its path is only used in messages).
    ///   - keySet: The identity provider's keys.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) for an invalid setting, or a key set with no key
    ///   for the configured algorithms.
    public init(configuration: SessionTokenConfiguration, keySet: JSONWebKeySet) throws {
        let algorithms = try Self.algorithms(of: configuration)
        try Self.checkUsable(keySet, configuration: configuration, algorithms: algorithms)
        self.configuration = configuration
        self.algorithms = algorithms
        keys = SessionKeyFile(fixed: keySet, path: configuration.jwksPath)
    }

    /// Reads the JWKS file again now and uses its keys from then on.
    ///
    /// `rampart serve` calls this on SIGHUP. The outcome is logged: `sessionKeysReloaded` with the keys read, or
    /// `sessionKeysKept` with the reason the file was not used.
    ///
    /// - Returns: The keys in use after the read.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the file and what is wrong with it when it
    ///   cannot be read or is not a usable JWKS; the keys in use stay.
    @discardableResult
    public func reloadKeySet() throws -> JSONWebKeySet { try keys.reload(trigger: .request) }

    /// The configured algorithms, after checking every setting.
    static func algorithms(of configuration: SessionTokenConfiguration) throws -> [JSONWebAlgorithm] {
        func invalid(_ reason: String) -> AttestServiceError { .invalidConfiguration("subject.jwt: " + reason) }
        guard !configuration.issuer.isEmpty, !configuration.issuer.utf8.contains(0) else {
            throw invalid("\"issuer\" must be the identity provider's non-empty iss value")
        }
        guard !configuration.audience.isEmpty, !configuration.audience.utf8.contains(0) else {
            throw invalid("\"audience\" must be the non-empty aud value your identity provider puts in session tokens")
        }
        guard !configuration.algorithms.isEmpty else {
            throw invalid("\"algorithms\" is empty; use [\"RS256\"], [\"ES256\"] or both")
        }
        var algorithms: [JSONWebAlgorithm] = []
        for name in configuration.algorithms {
            guard let algorithm = JSONWebAlgorithm(name: name) else {
                let lower = name.lowercased()
                throw invalid(
                    "\"algorithms\" names \"\(name)\"; "
                        + (lower == "none" || lower.hasPrefix("hs")
                            ? "unsigned and HMAC tokens are never accepted, because a public JWKS cannot key a MAC; "
                            : "")
                        + "only RS256 and ES256 are supported")
            }
            if !algorithms.contains(algorithm) { algorithms.append(algorithm) }
        }
        let leeway = configuration.leewaySeconds
        guard leeway >= 0, leeway <= SessionTokenConfiguration.maximumLeewaySeconds else {
            throw invalid(
                "\"leewaySeconds\" is \(leeway); use 0 to \(SessionTokenConfiguration.maximumLeewaySeconds)")
        }
        return algorithms
    }

    /// The key set of a JWKS file's bytes, checked as ``checkUsable(_:configuration:algorithms:)`` does.
    static func keySet(
        jsonEncoded bytes: [UInt8], configuration: SessionTokenConfiguration, algorithms: [JSONWebAlgorithm]
    ) throws -> JSONWebKeySet {
        let keySet: JSONWebKeySet
        do {
            keySet = try JSONWebKeySet(jsonEncoded: bytes)
        } catch let error as JOSEError {
            throw AttestServiceError.invalidConfiguration(
                "the JWKS file \(configuration.jwksPath) (subject.jwt.jwks) is not usable: \(error.reason); export "
                    + "your identity provider's JWKS (the document at its jwks_uri) to that file")
        }
        try checkUsable(keySet, configuration: configuration, algorithms: algorithms)
        return keySet
    }

    /// The keys of a later version of the JWKS file for the configured algorithms, possibly none; throws only for a
    /// file that is not a well-formed JWKS.
    static func keySet(
        reloaded bytes: [UInt8], configuration: SessionTokenConfiguration, algorithms: [JSONWebAlgorithm]
    ) throws -> JSONWebKeySet {
        let keySet: JSONWebKeySet
        do {
            keySet = try JSONWebKeySet(jsonEncoded: bytes, requiringKeys: false)
        } catch let error as JOSEError {
            throw AttestServiceError.invalidConfiguration(
                "the JWKS file \(configuration.jwksPath) (subject.jwt.jwks) is not usable: \(error.reason); export "
                    + "your identity provider's JWKS (the document at its jwks_uri) to that file")
        }
        let usable = keySet.keys.filter { algorithms.contains($0.algorithm) }
        // A subset of a set just read: as few keys, no kid twice.
        return usable.count == keySet.keys.count ? keySet : try JSONWebKeySet(keys: usable)
    }

    /// Refuses a key set with no key for the configured algorithms.
    static func checkUsable(
        _ keySet: JSONWebKeySet, configuration: SessionTokenConfiguration, algorithms: [JSONWebAlgorithm]
    ) throws {
        guard keySet.keys.contains(where: { algorithms.contains($0.algorithm) }) else {
            throw AttestServiceError.invalidConfiguration(
                "the JWKS file \(configuration.jwksPath) has no key for the configured algorithms ("
                    + algorithms.map(\.name).joined(separator: ", ") + "); it holds "
                    + keySet.keys.map(\.description).joined(separator: ", ")
                    + "; fix subject.jwt.algorithms or the file")
        }
    }

    /// Verifies the session JWT in an `Authorization` header and returns its subject.
    ///
    /// - Parameters:
    ///   - authorization: The `Authorization` header's value, or nil when the request has none.
    ///   - now: The current time (injected; the service passes its clock).
    /// - Returns: The token's `sub`.
    /// - Throws: ``AttestServiceError`` (`invalidSession`) naming the failed check.
    public func subject(authorization: String?, now: Date) throws -> String {
        guard let authorization else {
            throw Self.error(
                "the request has no Authorization header; send Authorization: Bearer <session JWT> from your sign-in")
        }
        return try subject(token: Self.bearerToken(authorization), now: now)
    }

    /// Verifies a session JWT (the compact JWS itself, without `Bearer`) and returns its subject.
    ///
    /// - Parameters:
    ///   - token: The compact JWS.
    ///   - now: The current time.
    /// - Returns: The token's `sub`.
    /// - Throws: ``AttestServiceError`` (`invalidSession`) naming the failed check.
    public func subject(token: String, now: Date) throws -> String {
        let what = "the session JWT"
        let jws: CompactJWS
        do {
            jws = try CompactJWS(token, algorithms: algorithms, what: what)
        } catch let failure as JOSEError {
            throw Self.error(failure.reason)
        }
        var keySet = keys.current(now: now)
        let key: JSONWebKey
        if let keyID = jws.keyID {
            var found = keySet.key(id: keyID)
            if found == nil, let reloaded = keys.reloadForUnknownKeyID(now: now) {
                keySet = reloaded
                found = reloaded.key(id: keyID)
            }
            guard let found else {
                throw Self.error(
                    "the session JWT's kid names no key of the JWKS file \(configuration.jwksPath); if the identity "
                        + "provider rotated its keys, write its new JWKS to that file (it is read again within a "
                        + "second of a change, or on SIGHUP)")
            }
            key = found
        } else {
            guard keySet.keys.count == 1, let only = keySet.keys.first else {
                throw Self.error(
                    "the session JWT has no kid, and the JWKS holds \(keySet.keys.count) keys; the identity provider "
                        + "must name its key in the token header")
            }
            key = only
        }
        guard key.algorithm == jws.algorithm else {
            throw Self.error("the session JWT is signed with \(jws.algorithm), but its key is a \(key.algorithm) key")
        }
        guard key.isValidSignature(jws.signature, for: jws.signingInput) else {
            throw Self.error("the session JWT's signature does not verify with \(key)")
        }
        let claims = JWTClaims(claims: jws.claims, what: what)
        do {
            try claims.checkIssuer(configuration.issuer)
            try claims.checkAudience(configuration.audience)
            try claims.checkTimes(now: now.timeIntervalSince1970, leeway: Double(configuration.leewaySeconds))
            return try claims.subject()
        } catch let failure as JOSEError {
            // An expired session is refused like any other: the app signs in again either way.
            throw Self.error(failure.reason)
        }
    }

    /// The token of `Bearer <token>`: the scheme in any case (RFC 7235 section 2.1), then exactly one space.
    static func bearerToken(_ authorization: String) throws -> String {
        let bytes = Array(authorization.utf8)
        guard bytes.count > 7, String(decoding: bytes[..<6], as: UTF8.self).lowercased() == "bearer",
            bytes[6] == UInt8(ascii: " "), bytes[7] != UInt8(ascii: " "), bytes[7] != UInt8(ascii: "\t")
        else {
            throw error("the Authorization header is not \"Bearer <session JWT>\" (one space, then the token)")
        }
        return String(decoding: bytes[7...], as: UTF8.self)
    }

    static func error(_ reason: String) -> AttestServiceError { .invalidSession(reason) }

    /// Reads a JWKS file, refusing one larger than ``JSONWebKeySet/Limits/maximumByteCount`` before reading more.
    ///
    /// - Parameter path: The file.
    /// - Returns: Its bytes.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the file and what to do.
    @_spi(Testing)
    public static func readJWKS(at path: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: path)
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw AttestServiceError.invalidConfiguration(
                "could not read the JWKS file \(path) (subject.jwt.jwks): \(error.localizedDescription); export your "
                    + "identity provider's JWKS (the document at its jwks_uri) to that path")
        }
        defer { try? handle.close() }
        let data: Data?
        do {
            data = try handle.read(upToCount: JSONWebKeySet.Limits.maximumByteCount + 1)
        } catch {
            throw AttestServiceError.invalidConfiguration(
                "could not read the JWKS file \(path) (subject.jwt.jwks): \(error.localizedDescription)")
        }
        let bytes = data.map { Array($0) } ?? []
        guard bytes.count <= JSONWebKeySet.Limits.maximumByteCount else {
            throw AttestServiceError.invalidConfiguration(
                "the JWKS file \(path) (subject.jwt.jwks) is larger than \(JSONWebKeySet.Limits.maximumByteCount) "
                    + "bytes; a JWKS holds a few public keys, check that the path names the JWKS")
        }
        return bytes
    }
}

extension SessionTokenVerifier: Sendable {}
