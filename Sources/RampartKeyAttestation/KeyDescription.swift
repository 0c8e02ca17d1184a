public import RampartX509

/// What the secure hardware says about an attested key: the value of the attestation extension
/// (OID 1.3.6.1.4.1.11129.2.1.17) of an Android Key Attestation certificate.
///
/// ```
/// KeyDescription ::= SEQUENCE {
///     attestationVersion         INTEGER,
///     attestationSecurityLevel   SecurityLevel,
///     keyMintVersion             INTEGER,
///     keyMintSecurityLevel       SecurityLevel,
///     attestationChallenge       OCTET_STRING,
///     uniqueId                   OCTET_STRING,
///     softwareEnforced           AuthorizationList,
///     hardwareEnforced           AuthorizationList,
/// }
/// ```
/// (source.android.com, "Key and ID attestation", attestation extension schema; `keyMintVersion` was
/// `keymasterVersion` before KeyMint.)
///
/// Parsing uses RampartASN1's strict DER reader (minimal lengths and integers, DER booleans, no trailing bytes) and
/// checks the grammar with named limits; it never traps. ``serialize(into:)`` writes the same bytes back for any
/// value it accepted.
///
/// - Important: A KeyDescription means something only inside a chain verified to Google's roots, and only the one
///   in the certificate nearest the root: use ``KeyAttestationVerifier``, not this parser, to decide anything.
public struct KeyDescription: Hashable, Sendable {
    /// The most bytes the extension value may have (DoS bound; real ones are under 1 KiB).
    public static let maximumByteCount = 32 << 10
    /// The longest attestation challenge KeyMint accepts, in bytes.
    public static let maximumChallengeByteCount = 128
    /// The longest unique id, in bytes (KeyMint makes 16).
    public static let maximumUniqueIDByteCount = 64

    /// The attestation format version (3, 4, 100, 200, 300, 400, 500, …).
    public var attestationVersion: Int64
    /// Where the attestation was made.
    public var attestationSecurityLevel: SecurityLevel
    /// The KeyMint (or Keymaster) version.
    public var keyMintVersion: Int64
    /// Where the key lives.
    public var keyMintSecurityLevel: SecurityLevel
    /// The challenge the app passed to `setAttestationChallenge`, as bytes.
    public var attestationChallenge: [UInt8]
    /// The unique id (empty unless the app asked for one).
    public var uniqueID: [UInt8]
    /// Properties the Android OS enforces (trust them only as far as the OS: see ``RootOfTrust``).
    public var softwareEnforced: AuthorizationList
    /// Properties the secure hardware enforces.
    public var hardwareEnforced: AuthorizationList

    /// Creates a description (for simulators and tests).
    ///
    /// - Parameters:
    ///   - attestationVersion: The attestation version.
    ///   - attestationSecurityLevel: Where the attestation was made.
    ///   - keyMintVersion: The KeyMint version.
    ///   - keyMintSecurityLevel: Where the key lives.
    ///   - attestationChallenge: The challenge.
    ///   - uniqueID: The unique id.
    ///   - softwareEnforced: The OS-enforced list.
    ///   - hardwareEnforced: The hardware-enforced list.
    public init(
        attestationVersion: Int64, attestationSecurityLevel: SecurityLevel, keyMintVersion: Int64,
        keyMintSecurityLevel: SecurityLevel, attestationChallenge: [UInt8], uniqueID: [UInt8] = [],
        softwareEnforced: AuthorizationList, hardwareEnforced: AuthorizationList
    ) {
        self.attestationVersion = attestationVersion
        self.attestationSecurityLevel = attestationSecurityLevel
        self.keyMintVersion = keyMintVersion
        self.keyMintSecurityLevel = keyMintSecurityLevel
        self.attestationChallenge = attestationChallenge
        self.uniqueID = uniqueID
        self.softwareEnforced = softwareEnforced
        self.hardwareEnforced = hardwareEnforced
    }

    /// Parses the attestation extension's value.
    ///
    /// - Parameter derEncoded: The DER inside the extension's OCTET STRING, with nothing after it.
    /// - Throws: ``KeyAttestationError``: `malformedKeyDescription` for anything outside strict DER or the grammar
    ///   (a tag out of order or unknown, a value of the wrong type, an unknown security level, boot state or
    ///   origin, text that is not UTF-8), `limitExceeded` beyond the named limits.
    public init(derEncoded: [UInt8]) throws {
        guard derEncoded.count <= Self.maximumByteCount else {
            throw KeyAttestationError.limitExceeded("the KeyDescription is larger than \(Self.maximumByteCount) bytes")
        }
        let node = try DERValue.parse(derEncoded, "the KeyDescription")
        guard node.identifier == .sequence else {
            throw KeyAttestationError.malformedKeyDescription("the KeyDescription should be a SEQUENCE")
        }
        var reader = DERCursor(node, "the KeyDescription")
        attestationVersion = try DERValue.int64(reader.next(.integer, "attestationVersion"), "attestationVersion")
        attestationSecurityLevel = try Self.securityLevel(
            reader.next(.enumerated, "attestationSecurityLevel"), "attestationSecurityLevel")
        keyMintVersion = try DERValue.int64(reader.next(.integer, "keyMintVersion"), "keyMintVersion")
        keyMintSecurityLevel = try Self.securityLevel(
            reader.next(.enumerated, "keyMintSecurityLevel"), "keyMintSecurityLevel")
        attestationChallenge = try DERValue.octets(
            reader.next(.octetString, "attestationChallenge"), "attestationChallenge",
            limit: Self.maximumChallengeByteCount)
        uniqueID = try DERValue.octets(
            reader.next(.octetString, "uniqueId"), "uniqueId", limit: Self.maximumUniqueIDByteCount)
        softwareEnforced = try AuthorizationList(node: reader.next(.sequence, "softwareEnforced"), "softwareEnforced")
        hardwareEnforced = try AuthorizationList(node: reader.next(.sequence, "hardwareEnforced"), "hardwareEnforced")
        try reader.finish()
    }

    private static func securityLevel(_ node: ASN1Node, _ what: String) throws -> SecurityLevel {
        let raw = try DERValue.int64(node, what, identifier: .enumerated)
        guard let level = Int(exactly: raw).flatMap(SecurityLevel.init(rawValue:)) else {
            throw KeyAttestationError.malformedKeyDescription("\(what) is \(raw), not a SecurityLevel (0 to 2)")
        }
        return level
    }

    /// Writes the KeyDescription as DER (what the attestation extension's OCTET STRING holds).
    ///
    /// - Parameter writer: The writer.
    public func serialize(into writer: inout DERWriter) {
        writer.appendSequence { sequence in
            sequence.appendInt64(attestationVersion)
            sequence.appendEnumerated(attestationSecurityLevel.rawValue)
            sequence.appendInt64(keyMintVersion)
            sequence.appendEnumerated(keyMintSecurityLevel.rawValue)
            sequence.appendOctetString(attestationChallenge)
            sequence.appendOctetString(uniqueID)
            softwareEnforced.serialize(into: &sequence)
            hardwareEnforced.serialize(into: &sequence)
        }
    }

    /// The DER of ``serialize(into:)``.
    public var derEncoded: [UInt8] {
        var writer = DERWriter()
        serialize(into: &writer)
        return writer.bytes
    }

    /// The list that holds `attestationApplicationId`: the OS puts it in ``softwareEnforced``.
    public var attestationApplicationID: AttestationApplicationID? {
        softwareEnforced.attestationApplicationID ?? hardwareEnforced.attestationApplicationID
    }
}
