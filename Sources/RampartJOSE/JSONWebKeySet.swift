import RampartCrypto
import RampartRequestSigning

/// A JSON Web Key Set (RFC 7517 section 5): the public keys a session JWT may be signed with, or the keys Rampart
/// publishes for its own access tokens.
///
/// ```
/// { "keys": [ { "kty": "RSA", "kid": "2024-a", "use": "sig", "alg": "RS256", "n": "…", "e": "AQAB" },
///             { "kty": "EC", "kid": "2024-b", "crv": "P-256", "x": "…", "y": "…" } ] }
/// ```
///
/// Reading a document (``init(jsonEncoded:)``) follows RFC 7517 and RFC 7518 section 6 strictly, within ``Limits``:
///
/// - the document is one JSON object (I-JSON: no duplicate member names, nothing after it) with a `keys` array;
/// - `kty: "RSA"` keys need `n` and `e` (RFC 7518 section 6.3.1: unpadded base64url of the big-endian integer with
///   no leading zero byte), a modulus of 2,048 to 8,192 bits, and verify `RS256`;
/// - `kty: "EC"` keys with `crv: "P-256"` need `x` and `y`, 32 bytes each (RFC 7518 section 6.2.1), a point on the
///   curve, and verify `ES256`;
/// - `kid` (optional) is a non-empty string of at most 256 bytes, and no two keys share one;
/// - `use`, when present, must be `sig` for the key to be used; `alg`, when present, must be the key type's
///   algorithm. A key whose `alg` contradicts its type (`"ES256"` on an RSA key), or that holds private members
///   (`d`, `p`, `q`, `dp`, `dq`, `qi`, `oth`, `k`), makes the whole document an error;
/// - keys of other types (`OKP`, `oct`), other curves, other algorithms (`PS256`) or another `use` (`enc`) are
///   skipped, and listed in ``skippedKeys``, as long as one usable key remains; a document with none is an error.
///
/// ``jsonEncoded`` writes the usable keys back, in RFC 8785 canonical JSON, with the members they were read with.
public struct JSONWebKeySet {
    /// Named denial-of-service bounds for ``init(jsonEncoded:)``, checked before the work they bound.
    public enum Limits {
        /// The largest document: 64 KiB, room for 32 RSA-8192 keys.
        public static let maximumByteCount = 64 * 1024
        /// The most members of `keys`, usable or not.
        public static let maximumKeyCount = 32
        /// The longest `kid`, `kty`, `use`, `alg` or `crv`, in UTF-8 bytes.
        public static let maximumMemberByteCount = 256
        /// The smallest RSA modulus accepted (NIST SP 800-131A; RampartCrypto verifies nothing smaller).
        public static let minimumRSAModulusBitCount = 2048
        /// The largest RSA modulus accepted (verification cost grows with the square of the size).
        public static let maximumRSAModulusBitCount = 8192
        /// The longest RSA public exponent, in bytes.
        public static let maximumRSAExponentByteCount = 8
    }

    /// The usable keys, in document order.
    public let keys: [JSONWebKey]
    /// Why each skipped member of `keys` was skipped (`key 2 ("enc-1"): use is "enc", not "sig"`).
    public let skippedKeys: [String]

    /// A set of keys, for publication.
    ///
    /// - Parameter keys: The keys; no two may share a `kid`, and there may be at most ``Limits/maximumKeyCount``.
    /// - Throws: ``JOSEError`` (`invalidKeySet`) for a repeated `kid` or too many keys.
    public init(keys: [JSONWebKey]) throws {
        guard keys.count <= Limits.maximumKeyCount else {
            throw JOSEError.invalidKeySet(
                "a JWKS holds at most \(Limits.maximumKeyCount) keys; this one has \(keys.count)")
        }
        try Self.refuseDuplicateKeyIDs(keys.compactMap(\.keyID))
        self.keys = keys
        self.skippedKeys = []
    }

    /// Reads a JWKS document.
    ///
    /// - Parameter jsonEncoded: The document's bytes.
    /// - Throws: ``JOSEError`` (`invalidKeySet`) naming the key and member at fault, for anything the rules above
    ///   refuse.
    public init(jsonEncoded: [UInt8]) throws {
        try self.init(jsonEncoded: jsonEncoded, requiringKeys: true)
    }

    /// The set with no keys: what a session-key file that holds none, or stayed unreadable too long, leaves in use.
    public static let empty = JSONWebKeySet(checkedKeys: [])

    private init(checkedKeys: [JSONWebKey]) {
        keys = checkedKeys
        skippedKeys = []
    }

    /// Reads a JWKS document; with `requiringKeys` false, a well-formed document without a usable key is an empty
    /// set instead of an error (an identity provider that withdrew every key).
    ///
    /// - Parameters:
    ///   - jsonEncoded: The document's bytes.
    ///   - requiringKeys: Whether a document without a usable key is refused.
    /// - Throws: ``JOSEError`` (`invalidKeySet`), as ``init(jsonEncoded:)``.
    public init(jsonEncoded: [UInt8], requiringKeys: Bool) throws {
        guard jsonEncoded.count <= Limits.maximumByteCount else {
            throw Self.error(
                "the JWKS is \(jsonEncoded.count) bytes; at most \(Limits.maximumByteCount) are accepted")
        }
        let root: JSONValue
        do {
            root = try JSONValue(parsing: jsonEncoded)
        } catch let error as RequestSigningError {
            throw Self.error("the JWKS is not a JSON text: \(error.reason)")
        }
        guard case .object(let members) = root else { throw Self.error("the JWKS is not a JSON object") }
        guard let keysValue = members["keys"] else {
            throw Self.error("the JWKS has no \"keys\" member (RFC 7517 section 5: {\"keys\": [ … ]})")
        }
        guard case .array(let entries) = keysValue else { throw Self.error("the JWKS's \"keys\" is not an array") }
        guard entries.count <= Limits.maximumKeyCount else {
            throw Self.error("the JWKS holds \(entries.count) keys; at most \(Limits.maximumKeyCount) are accepted")
        }
        var keys: [JSONWebKey] = []
        var skipped: [String] = []
        var keyIDs: [String] = []
        for (index, entry) in entries.enumerated() {
            guard case .object(let object) = entry else { throw Self.error("key \(index + 1) is not a JSON object") }
            let reader = MemberReader(object: object, index: index)
            if let keyID = try reader.keyID() { keyIDs.append(keyID) }
            switch try reader.key() {
            case .usable(let key): keys.append(key)
            case .skipped(let reason): skipped.append(reason)
            }
        }
        try Self.refuseDuplicateKeyIDs(keyIDs)
        guard !keys.isEmpty || !requiringKeys else {
            throw Self.error(
                entries.isEmpty
                    ? "the JWKS holds no keys"
                    : "the JWKS holds no RS256 or ES256 signature key (" + skipped.joined(separator: "; ") + ")")
        }
        self.keys = keys
        self.skippedKeys = skipped
    }

    /// The usable keys as a JWKS document in RFC 8785 canonical JSON (sorted members, no whitespace).
    public var jsonEncoded: [UInt8] {
        CanonicalJSON.canonicalBytes(of: .object(["keys": .array(keys.map(\.jsonValue))]))
    }

    /// The key whose `kid` is `keyID`, compared as bytes.
    ///
    /// - Parameter keyID: The `kid`.
    /// - Returns: The key, or nil.
    public func key(id keyID: String) -> JSONWebKey? {
        keys.first { $0.keyID?.hasSameUTF8(as: keyID) == true }
    }

    static func error(_ reason: String) -> JOSEError { .invalidKeySet(reason) }

    private static func refuseDuplicateKeyIDs(_ keyIDs: [String]) throws {
        var seen: Set<[UInt8]> = []
        for keyID in keyIDs where !seen.insert(Array(keyID.utf8)).inserted {
            throw error("two keys of the JWKS share the kid \"\(keyID)\"; each kid must name one key")
        }
    }
}

extension JSONWebKeySet: Sendable {}

/// Reads one member of `keys`.
private struct MemberReader {
    enum Outcome {
        case usable(JSONWebKey)
        case skipped(String)
    }

    let object: [String: JSONValue]
    let index: Int

    static let privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"]

    var name: String {
        if case .string(let keyID)? = object["kid"], keyID.utf8.count <= JSONWebKeySet.Limits.maximumMemberByteCount {
            return "key \(index + 1) (\"\(keyID)\")"
        }
        return "key \(index + 1)"
    }

    func error(_ reason: String) -> JOSEError { JSONWebKeySet.error("\(name): \(reason)") }

    /// A short string member, or nil when absent.
    func string(
        _ member: String, maximumByteCount: Int = JSONWebKeySet.Limits.maximumMemberByteCount
    ) throws
        -> String?
    {
        guard let value = object[member] else { return nil }
        guard case .string(let text) = value else { throw error("\"\(member)\" is not a string") }
        guard !text.isEmpty else { throw error("\"\(member)\" is empty") }
        guard text.utf8.count <= maximumByteCount else {
            throw error("\"\(member)\" is longer than \(maximumByteCount) bytes")
        }
        return text
    }

    func required(_ member: String, for type: String, maximumByteCount: Int) throws -> String {
        guard let text = try string(member, maximumByteCount: maximumByteCount) else {
            throw error("an \(type) key needs \"\(member)\" (RFC 7518 section 6)")
        }
        return text
    }

    func keyID() throws -> String? { try string("kid") }

    func key() throws -> Outcome {
        guard let type = try string("kty") else { throw error("has no \"kty\" (RFC 7517 section 4.1)") }
        for member in Self.privateMembers where object[member] != nil {
            throw error(
                "holds the private member \"\(member)\"; a JWKS must publish public keys only (remove the private "
                    + "key from the file, and replace it: it has been exposed)")
        }
        let keyID = try string("kid")
        let use = try string("use")
        let algorithmName = try string("alg")
        let isRSA = type.hasSameUTF8(as: "RSA")
        let isEC = type.hasSameUTF8(as: "EC")
        guard isRSA || isEC else { return .skipped("\(name): kty \"\(type)\" is not RSA or EC") }
        let expected: JSONWebAlgorithm = isRSA ? .rs256 : .es256
        if let algorithmName {
            if let named = JSONWebAlgorithm(name: algorithmName), named != expected {
                throw error("\"alg\" is \(named) but the key is kty \(type), which verifies \(expected)")
            }
            if JSONWebAlgorithm(name: algorithmName) == nil {
                return .skipped("\(name): alg \"\(algorithmName)\" is not RS256 or ES256")
            }
        }
        if let use, !use.hasSameUTF8(as: "sig") { return .skipped("\(name): use is \"\(use)\", not \"sig\"") }
        let material: JSONWebKey.Material
        if isRSA {
            material = try rsa()
        } else {
            let curve = try required("crv", for: "EC", maximumByteCount: JSONWebKeySet.Limits.maximumMemberByteCount)
            guard curve.hasSameUTF8(as: "P-256") else {
                if algorithmName != nil { throw error("\"alg\" is ES256 but \"crv\" is \"\(curve)\", not P-256") }
                return .skipped("\(name): curve \"\(curve)\" is not P-256")
            }
            material = try ec()
        }
        return .usable(
            JSONWebKey(
                keyID: keyID, algorithm: expected, declaresAlgorithm: algorithmName != nil,
                declaresSignatureUse: use != nil, material: material))
    }

    func rsa() throws -> JSONWebKey.Material {
        let limits = JSONWebKeySet.Limits.self
        let modulusBytes = limits.maximumRSAModulusBitCount / 8
        let n = try Base64URL.decode(
            required("n", for: "RSA", maximumByteCount: (modulusBytes + 2) / 3 * 4), what: "\(name)'s \"n\"",
            maximumByteCount: modulusBytes, error: JSONWebKeySet.error)
        let e = try Base64URL.decode(
            required("e", for: "RSA", maximumByteCount: 16), what: "\(name)'s \"e\"",
            maximumByteCount: limits.maximumRSAExponentByteCount, error: JSONWebKeySet.error)
        guard let top = n.first, top != 0 else {
            throw error("\"n\" has a leading zero byte or is empty; RFC 7518 section 6.3.1.1 requires the minimal form")
        }
        let bits = (n.count - 1) * 8 + (8 - top.leadingZeroBitCount)
        guard bits >= limits.minimumRSAModulusBitCount else {
            throw error(
                "the RSA modulus has \(bits) bits; at least \(limits.minimumRSAModulusBitCount) are required")
        }
        guard let eTop = e.first, eTop != 0 else {
            throw error("\"e\" has a leading zero byte or is empty; RFC 7518 section 6.3.1.2 requires the minimal form")
        }
        guard let last = e.last, last & 1 == 1, e.count > 1 || eTop >= 3 else {
            throw error("\"e\" is not an odd exponent of at least 3")
        }
        do {
            let key = try RSAPublicKey(derRepresentation: RSASubjectPublicKeyInfo.der(modulus: n, exponent: e))
            return .rsa(modulus: n, exponent: e, key: key)
        } catch let failure as CryptoError {
            throw error("\"n\" and \"e\" are not an RSA public key (\(failure.reason))")
        }
    }

    func ec() throws -> JSONWebKey.Material {
        var coordinates: [[UInt8]] = []
        for member in ["x", "y"] {
            let bytes = try Base64URL.decode(
                required(member, for: "EC", maximumByteCount: 64), what: "\(name)'s \"\(member)\"",
                maximumByteCount: 32, error: JSONWebKeySet.error)
            guard bytes.count == 32 else {
                throw error(
                    "\"\(member)\" is \(bytes.count) bytes; a P-256 coordinate is exactly 32 (RFC 7518 6.2.1.2)")
            }
            coordinates.append(bytes)
        }
        do {
            let key = try ECPublicKey(x963Representation: [0x04] + coordinates[0] + coordinates[1], curve: .p256)
            return .ec(x: coordinates[0], y: coordinates[1], key: key)
        } catch let failure as CryptoError {
            throw error("\"x\" and \"y\" are not a point on P-256 (\(failure.reason))")
        }
    }
}
