/// The authenticator data of an App Attest attestation or assertion (WebAuthn section 6.1, as Apple uses it).
///
/// ```
/// rpIdHash (32) ‖ flags (1) ‖ signCount (4, big-endian)
///   ‖ [attested credential data: aaguid (16) ‖ credentialIdLength (2, big-endian) ‖ credentialId ‖ COSE_Key]
///   ‖ [extensions: a CBOR map]
/// ```
///
/// The parser is strict about every length and rejects trailing bytes, and tolerant of the quirks real devices show:
/// - iOS 27 attestations carry an extension map even when the ED flag (0x80) is clear;
/// - assertions set the AT flag (0x40) yet carry no attested credential data.
///
/// So attested credential data is read only in an attestation (``Context/attestation``), where it is required, and
/// any bytes after the fixed part (and the credential data) must be exactly one CBOR map with text keys.
public struct AuthenticatorData: Hashable {
    /// Which object the authenticator data came from, which decides whether credential data is read.
    public enum Context: Sendable, Hashable {
        /// From an attestation object: attested credential data is required.
        case attestation
        /// From an assertion: attested credential data is never read, whatever the AT flag says.
        case assertion
    }

    /// The flags byte.
    public struct Flags: OptionSet, Sendable, Hashable {
        /// The raw byte.
        public let rawValue: UInt8

        /// Wraps a raw flags byte.
        ///
        /// - Parameter rawValue: The byte.
        public init(rawValue: UInt8) { self.rawValue = rawValue }

        /// UP (0x01): user present.
        public static let userPresent = Flags(rawValue: 0x01)
        /// UV (0x04): user verified.
        public static let userVerified = Flags(rawValue: 0x04)
        /// AT (0x40): attested credential data included (set by App Attest on assertions too).
        public static let attestedCredentialData = Flags(rawValue: 0x40)
        /// ED (0x80): extension data included (clear on some iOS 27 attestations that carry extensions anyway).
        public static let extensionData = Flags(rawValue: 0x80)
    }

    /// The fixed part: 32 + 1 + 4 bytes.
    public static let fixedByteCount = 37
    /// The most bytes accepted (DoS bound): Apple's are 37 to about 240 bytes.
    public static let maximumByteCount = 4096
    /// The longest credential id accepted (WebAuthn caps it at 1023; App Attest's are 32).
    public static let maximumCredentialIDByteCount = 1023

    /// The bytes as received; signatures and nonces are computed over these.
    public let rawRepresentation: [UInt8]
    /// SHA-256 of the App ID (`TEAMID.bundle.id`).
    public let rpIDHash: [UInt8]
    /// The flags.
    public let flags: Flags
    /// The signature counter: 0 in an attestation, then increasing with each assertion.
    public let signCount: UInt32
    /// The attested credential data; present only in an attestation.
    public let attestedCredentialData: AttestedCredentialData?
    /// The extension map, if any bytes follow the fixed part and the credential data.
    public let extensions: AuthenticatorExtensions?

    /// Parses authenticator data.
    ///
    /// - Parameters:
    ///   - rawRepresentation: The bytes.
    ///   - context: Whether they came from an attestation or an assertion.
    /// - Throws: ``AppAttestError/Code/malformedAuthenticatorData`` for truncation, trailing bytes, a bad COSE key or
    ///   extension block; ``AppAttestError/Code/limitExceeded`` beyond ``maximumByteCount``.
    public init(rawRepresentation: [UInt8], context: Context) throws {
        guard rawRepresentation.count <= Self.maximumByteCount else {
            throw AppAttestError.limitExceeded(
                "authenticator data is \(rawRepresentation.count) bytes; at most \(Self.maximumByteCount) are accepted"
            )
        }
        guard rawRepresentation.count >= Self.fixedByteCount else {
            throw AppAttestError.malformedAuthenticatorData(
                "authenticator data is \(rawRepresentation.count) bytes; it needs at least \(Self.fixedByteCount)"
            )
        }
        var cursor = rawRepresentation[...]
        self.rawRepresentation = rawRepresentation
        self.rpIDHash = Array(cursor.prefix(32))
        cursor = cursor.dropFirst(32)
        self.flags = Flags(rawValue: cursor.first ?? 0)
        cursor = cursor.dropFirst()
        self.signCount = cursor.prefix(4).reduce(0) { $0 << 8 | UInt32($1) }
        cursor = cursor.dropFirst(4)

        switch context {
        case .attestation:
            guard flags.contains(.attestedCredentialData) else {
                throw AppAttestError.malformedAuthenticatorData(
                    "the attestation's authenticator data has the AT flag clear, so it carries no credential"
                )
            }
            let (credential, used) = try AttestedCredentialData.parse(cursor)
            self.attestedCredentialData = credential
            cursor = cursor.dropFirst(used)
        case .assertion:
            self.attestedCredentialData = nil
        }

        if cursor.isEmpty {
            guard !flags.contains(.extensionData) else {
                throw AppAttestError.malformedAuthenticatorData(
                    "the ED flag is set but no extension map follows"
                )
            }
            self.extensions = nil
        } else {
            self.extensions = try AuthenticatorExtensions(encoded: cursor)
        }
    }
}

/// The attested credential data of an attestation's authenticator data (WebAuthn section 6.5.1).
public struct AttestedCredentialData: Hashable {
    /// The 16-byte AAGUID: `appattestdevelop` or `appattest` followed by seven zero bytes.
    public let aaguid: [UInt8]
    /// The credential id: for App Attest, SHA-256 of the public key, equal to the key identifier.
    public let credentialID: [UInt8]
    /// The credential public key as an uncompressed X9.63 P-256 point (`04 ‖ X ‖ Y`), taken from the COSE key.
    public let publicKeyX963: [UInt8]

    /// Reads `aaguid ‖ L ‖ credentialId ‖ COSE_Key` from the front of `bytes`.
    static func parse(_ bytes: ArraySlice<UInt8>) throws -> (AttestedCredentialData, Int) {
        guard bytes.count >= 18 else {
            throw AppAttestError.malformedAuthenticatorData(
                "the attested credential data is truncated before the credential id length"
            )
        }
        var cursor = bytes
        let aaguid = Array(cursor.prefix(16))
        cursor = cursor.dropFirst(16)
        let length = cursor.prefix(2).reduce(0) { $0 << 8 | Int($1) }
        cursor = cursor.dropFirst(2)
        guard length > 0, length <= AuthenticatorData.maximumCredentialIDByteCount else {
            throw AppAttestError.malformedAuthenticatorData(
                "the credential id length is \(length); it must be 1...\(AuthenticatorData.maximumCredentialIDByteCount)"
            )
        }
        guard cursor.count >= length else {
            throw AppAttestError.malformedAuthenticatorData(
                "the credential id claims \(length) bytes but only \(cursor.count) remain"
            )
        }
        let credentialID = Array(cursor.prefix(length))
        cursor = cursor.dropFirst(length)
        let decoded: (value: CBORValue, byteCount: Int)
        do {
            decoded = try CBORDecoder().decodePrefix(cursor)
        } catch let error as AppAttestError {
            throw AppAttestError.malformedAuthenticatorData("the credential public key is not CBOR: \(error.reason)")
        }
        let point = try Self.p256Point(fromCOSEKey: decoded.value)
        let used = bytes.count - cursor.count + decoded.byteCount
        return (AttestedCredentialData(aaguid: aaguid, credentialID: credentialID, publicKeyX963: point), used)
    }

    /// Extracts the point of a COSE EC2 P-256 ES256 key (RFC 9053 section 7.1.1):
    /// `{1: 2 (kty EC2), 3: -7 (alg ES256), -1: 1 (crv P-256), -2: x (32 bytes), -3: y (32 bytes)}`.
    static func p256Point(fromCOSEKey key: CBORValue) throws -> [UInt8] {
        guard let entries = key.mapEntries, entries.count == 5 else {
            throw AppAttestError.malformedAuthenticatorData(
                "the credential public key is not a five-entry COSE EC2 key map"
            )
        }
        guard key[integerKey: 1]?.integerValue == 2, key[integerKey: 3]?.integerValue == -7,
            key[integerKey: -1]?.integerValue == 1
        else {
            throw AppAttestError.malformedAuthenticatorData(
                "the credential public key is not a COSE EC2 P-256 ES256 key (kty 2, alg -7, crv 1)"
            )
        }
        guard let x = key[integerKey: -2]?.byteStringValue, let y = key[integerKey: -3]?.byteStringValue,
            x.count == 32, y.count == 32
        else {
            throw AppAttestError.malformedAuthenticatorData(
                "the COSE key's x (-2) and y (-3) must be 32-byte strings"
            )
        }
        return [0x04] + x + y
    }

    /// The COSE key Apple encodes for a P-256 point, in Apple's entry order.
    ///
    /// - Parameter x963: The uncompressed point `04 ‖ X ‖ Y`.
    /// - Returns: The COSE key map.
    static func coseKey(x963: [UInt8]) -> CBORValue {
        .map([
            CBORMapEntry(.unsignedInteger(1), .unsignedInteger(2)),
            CBORMapEntry(.unsignedInteger(3), .negativeInteger(6)),
            CBORMapEntry(.negativeInteger(0), .unsignedInteger(1)),
            CBORMapEntry(.negativeInteger(1), .byteString(Array(x963.dropFirst().prefix(32)))),
            CBORMapEntry(.negativeInteger(2), .byteString(Array(x963.dropFirst(33).prefix(32)))),
        ])
    }
}

/// The extension map that iOS 27 appends to authenticator data, e.g.
/// `{"apple_bundle_version_01": "1314", "apple_validation_category_01": h'03000000'}`.
public struct AuthenticatorExtensions: Hashable {
    /// The entries in encoded order, keyed by text.
    public let entries: [(key: String, value: CBORValue)]

    /// The app's bundle version (`apple_bundle_version_01`), when present as text.
    public var bundleVersion: String? { self["apple_bundle_version_01"]?.textStringValue }

    /// Apple's validation category (`apple_validation_category_01`), when present as bytes.
    public var validationCategory: [UInt8]? { self["apple_validation_category_01"]?.byteStringValue }

    /// The value under `key`.
    ///
    /// - Parameter key: The extension identifier.
    /// - Returns: The value, or nil.
    public subscript(key: String) -> CBORValue? { entries.first { $0.key == key }?.value }

    init(entries: [(key: String, value: CBORValue)]) {
        self.entries = entries
    }

    /// Parses exactly one CBOR map with text keys.
    init(encoded: ArraySlice<UInt8>) throws {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(Array(encoded))
        } catch let error as AppAttestError {
            throw AppAttestError.malformedAuthenticatorData(
                "the bytes after the authenticator data's fixed part are not one CBOR map: \(error.reason)"
            )
        }
        guard let mapEntries = value.mapEntries else {
            throw AppAttestError.malformedAuthenticatorData("the authenticator data extensions are not a CBOR map")
        }
        var entries: [(key: String, value: CBORValue)] = []
        for entry in mapEntries {
            guard let key = entry.key.textStringValue else {
                throw AppAttestError.malformedAuthenticatorData("an authenticator data extension key is not text")
            }
            entries.append((key, entry.value))
        }
        self.entries = entries
    }

    /// The extension map as CBOR.
    var cborValue: CBORValue {
        .map(entries.map { CBORMapEntry(.textString($0.key), $0.value) })
    }

    /// Compares entries in order.
    public static func == (lhs: AuthenticatorExtensions, rhs: AuthenticatorExtensions) -> Bool {
        lhs.cborValue == rhs.cborValue
    }

    /// Hashes the entries.
    public func hash(into hasher: inout Hasher) { hasher.combine(cborValue) }
}

extension AuthenticatorData: Sendable {}

extension AttestedCredentialData: Sendable {}

extension AuthenticatorExtensions: Sendable {}
