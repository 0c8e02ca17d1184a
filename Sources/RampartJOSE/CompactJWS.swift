import RampartCrypto
public import RampartRequestSigning

/// A JWS in the compact serialization (RFC 7515 section 7.1) carrying a JWT (RFC 7519), split and decoded but not
/// yet verified:
///
/// ```
/// BASE64URL(UTF8(JWS Protected Header)) '.' BASE64URL(JWS Payload) '.' BASE64URL(JWS Signature)
/// ```
///
/// The header and the payload must each be one JSON object (I-JSON: no duplicate member names, nothing after it);
/// the header's `alg` must be one of the caller's algorithms (never `none` or an HMAC), and a `crit` header is
/// refused (RFC 7515 section 4.1.11: Rampart understands no extension). The signature is checked later over
/// ``signingInput``, the first two parts exactly as received.
public struct CompactJWS {
    /// The longest token accepted, in bytes (DoS bound; an RS256 JWT with a 8,192-bit key and a generous payload
    /// fits).
    public static let maximumByteCount = 8 * 1024

    /// The `alg` header.
    public let algorithm: JSONWebAlgorithm
    /// The `kid` header, when present.
    public let keyID: String?
    /// The whole protected header.
    public let header: [String: JSONValue]
    /// The JWT claims set.
    public let claims: [String: JSONValue]
    /// `BASE64URL(header) '.' BASE64URL(payload)`, as received: what the signature covers.
    public let signingInput: [UInt8]
    /// The decoded signature.
    public let signature: [UInt8]

    /// Splits and decodes `token`.
    ///
    /// - Parameters:
    ///   - token: The compact JWS.
    ///   - algorithms: The algorithms the caller accepts.
    ///   - what: The token's name in messages (`the session JWT`).
    /// - Throws: ``JOSEError`` (`invalidToken`) for anything malformed or an algorithm outside `algorithms`.
    public init(_ token: String, algorithms: [JSONWebAlgorithm], what: String) throws {
        let error = { (reason: String) in JOSEError.invalidToken(reason) }
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumByteCount else {
            throw error("\(what) is \(bytes.count) bytes; at most \(Self.maximumByteCount) are accepted")
        }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw error(
                "\(what) is not a compact JWS: it needs three base64url parts separated by '.', it has \(parts.count)")
        }
        let names = ["header", "payload", "signature"]
        var decoded: [[UInt8]] = []
        for (part, name) in zip(parts, names) {
            guard !part.isEmpty, let value = Base64URL.decode(part, maximumByteCount: Self.maximumByteCount) else {
                throw error(
                    "\(what)'s \(name) is not unpadded base64url (RFC 7515 section 2: alphabet A-Z a-z 0-9 - _, no '=')"
                )
            }
            decoded.append(value)
        }
        func object(_ bytes: [UInt8], _ name: String) throws -> [String: JSONValue] {
            let value: JSONValue
            do {
                value = try JSONValue(parsing: bytes)
            } catch let failure as RequestSigningError {
                throw error("\(what)'s \(name) is not a JSON text (\(failure.reason))")
            }
            guard case .object(let members) = value else { throw error("\(what)'s \(name) is not a JSON object") }
            return members
        }
        let header = try object(decoded[0], "header")
        guard case .string(let name)? = header["alg"] else { throw error("\(what)'s header has no \"alg\" string") }
        guard let algorithm = JSONWebAlgorithm(name: name) else {
            let lower = name.lowercased()
            throw error(
                (lower == "none" || lower.hasPrefix("hs")
                    ? "\(what) names an unsigned or HMAC algorithm, which Rampart never accepts"
                    : "\(what) names an algorithm Rampart does not verify")
                    + "; accepted: " + algorithms.map(\.name).joined(separator: ", "))
        }
        guard algorithms.contains(algorithm) else {
            throw error(
                "\(what) is signed with \(algorithm), which is not configured; accepted: "
                    + algorithms.map(\.name).joined(separator: ", "))
        }
        guard header["crit"] == nil else {
            throw error("\(what)'s header has \"crit\"; Rampart understands no JWS extension (RFC 7515 4.1.11)")
        }
        switch header["kid"] {
        case nil: keyID = nil
        case .string(let kid)? where !kid.isEmpty && kid.utf8.count <= JSONWebKeySet.Limits.maximumMemberByteCount:
            keyID = kid
        default:
            throw error(
                "\(what)'s \"kid\" is not a string of 1 to \(JSONWebKeySet.Limits.maximumMemberByteCount) bytes")
        }
        self.algorithm = algorithm
        self.header = header
        self.claims = try object(decoded[1], "payload")
        self.signingInput = Array(bytes[..<(parts[0].count + 1 + parts[1].count)])
        self.signature = decoded[2]
    }
}

/// The registered claims (RFC 7519 section 4.1) as Rampart checks them, over a decoded claims set.
///
/// Every check throws ``JOSEError`` (`invalidToken`), except a past `exp`, which is `tokenExpired`.
public struct JWTClaims {
    /// The claims set.
    public let claims: [String: JSONValue]
    /// The token's name in messages (`the session JWT`).
    public let what: String

    /// The longest `sub` accepted, in UTF-8 bytes.
    public static let maximumSubjectByteCount = 256
    /// The most entries of an `aud` array.
    public static let maximumAudienceCount = 32

    /// Checks over `claims`.
    ///
    /// - Parameters:
    ///   - claims: The decoded claims set (``CompactJWS/claims``).
    ///   - what: The token's name in messages.
    public init(claims: [String: JSONValue], what: String) {
        self.claims = claims
        self.what = what
    }

    func error(_ reason: String) -> JOSEError { .invalidToken(reason) }

    /// The string claim `name`, which must be present.
    ///
    /// - Parameter name: The claim.
    /// - Returns: Its value.
    /// - Throws: ``JOSEError`` (`invalidToken`) when it is absent or not a string.
    public func string(_ name: String) throws -> String {
        guard let value = claims[name] else { throw error("\(what) has no \"\(name)\" claim") }
        guard case .string(let text) = value else { throw error("\(what)'s \"\(name)\" claim is not a string") }
        return text
    }

    func number(_ name: String) throws -> Double? {
        guard let value = claims[name] else { return nil }
        guard case .number(let number) = value else {
            throw error("\(what)'s \"\(name)\" claim is not a NumericDate (seconds since 1970)")
        }
        return number
    }

    /// `iss` equal to `issuer`, as bytes.
    ///
    /// - Parameter issuer: The expected issuer.
    /// - Throws: ``JOSEError`` (`invalidToken`).
    public func checkIssuer(_ issuer: String) throws {
        guard try string("iss").hasSameUTF8(as: issuer) else {
            throw error("\(what)'s issuer (\"iss\") is not the configured \"\(issuer)\"")
        }
    }

    /// `aud` a string equal to `audience`, or an array of strings containing it.
    ///
    /// - Parameter audience: The expected audience.
    /// - Throws: ``JOSEError`` (`invalidToken`).
    public func checkAudience(_ audience: String) throws {
        let values: [JSONValue]
        switch claims["aud"] {
        case nil: throw error("\(what) has no audience (\"aud\") claim; it must include \"\(audience)\"")
        case .string?: values = [claims["aud"] ?? .null]
        case .array(let array)?:
            guard array.count <= Self.maximumAudienceCount else {
                throw error("\(what)'s \"aud\" has more than \(Self.maximumAudienceCount) entries")
            }
            values = array
        default: throw error("\(what)'s \"aud\" is neither a string nor an array of strings")
        }
        var found = false
        for value in values {
            guard case .string(let text) = value else {
                throw error("\(what)'s \"aud\" array holds something that is not a string")
            }
            if text.hasSameUTF8(as: audience) { found = true }
        }
        guard found else { throw error("\(what)'s audience (\"aud\") does not include \"\(audience)\"") }
    }

    /// `exp` (required), `nbf` and `iat` (when present) against `now`, each with `leeway` seconds of clock skew.
    ///
    /// - Parameters:
    ///   - now: The current time, in seconds since 1970.
    ///   - leeway: The clock skew allowed, in seconds.
    /// - Returns: `exp` and `iat` (nil when absent).
    /// - Throws: ``JOSEError`` `tokenExpired` for a past `exp`, `invalidToken` for anything else.
    @discardableResult
    public func checkTimes(now: Double, leeway: Double) throws -> (expiresAt: Double, issuedAt: Double?) {
        guard let expiresAt = try number("exp") else {
            throw error("\(what) has no expiry (\"exp\") claim; Rampart accepts only tokens that expire")
        }
        // RFC 7519 section 4.1.4: the current time MUST be before the expiry.
        guard now < expiresAt + leeway else {
            throw JOSEError.tokenExpired(
                "\(what) expired \(Int(now - expiresAt)) seconds ago (leeway \(Int(leeway)) s)")
        }
        if let notBefore = try number("nbf"), now + leeway < notBefore {
            throw error("\(what) is not valid yet (\"nbf\" is \(Int(notBefore - now)) seconds ahead)")
        }
        let issuedAt = try number("iat")
        if let issuedAt, issuedAt > now + leeway {
            throw error(
                "\(what) was issued \(Int(issuedAt - now)) seconds in the future (\"iat\"); check the clocks")
        }
        return (expiresAt, issuedAt)
    }

    /// `sub`: a non-empty string of at most ``maximumSubjectByteCount`` bytes without NUL.
    ///
    /// - Returns: The subject.
    /// - Throws: ``JOSEError`` (`invalidToken`).
    public func subject() throws -> String {
        let subject = try string("sub")
        guard !subject.isEmpty, subject.utf8.count <= Self.maximumSubjectByteCount, !subject.utf8.contains(0) else {
            throw error(
                "\(what)'s subject (\"sub\") must be 1 to \(Self.maximumSubjectByteCount) bytes without NUL")
        }
        return subject
    }
}

extension CompactJWS: Sendable {}

extension JWTClaims: Sendable {}
