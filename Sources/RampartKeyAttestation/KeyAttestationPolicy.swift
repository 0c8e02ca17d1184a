import Foundation

/// What an attested Android key must show to be accepted, beyond a chain to Google's roots and the challenge.
///
/// The same fields, with the same camelCase names, make the `"android": {…}` object of a JSON configuration:
///
/// ```json
/// {
///   "packageNames": ["com.example.app"],
///   "signingCertificateDigests": ["EDk47kU35Z6O55L2VFBPuDRvxrNG0LvEQV/DOfz8jsE="],
///   "minimumSecurityLevel": "tee",
///   "allowUnverifiedBoot": false,
///   "minimumOSPatchLevel": 202401,
///   "allowSuspendedCertificates": false
/// }
/// ```
///
/// Every key is optional except that the service should name its app; an unknown key is an error, so a misspelt
/// one cannot silently turn a check off. The key's origin must be GENERATED and its hardware-enforced purposes must
/// include SIGN: those are not configurable. See <doc:ConfiguringThePolicy>.
public struct KeyAttestationPolicy: Hashable, Sendable {
    /// The security level a key must at least have. Software keys are always refused.
    public enum MinimumSecurityLevel: String, Hashable, Sendable, Codable, CaseIterable {
        /// A trusted execution environment or StrongBox (`"tee"`).
        case tee
        /// StrongBox only (`"strongbox"`).
        case strongbox

        /// The lowest ``SecurityLevel`` accepted.
        public var securityLevel: SecurityLevel { self == .tee ? .trustedEnvironment : .strongBox }
    }

    /// `packageNames`: the app's package names; a key passes when its attestationApplicationId lists one of them.
    ///
    /// - Warning: Empty means the package is not checked: any app on any device can then register a key.
    public var packageNames: [String]
    /// `signingCertificateDigests`: SHA-256 digests (32 bytes; base64 in JSON) of the app's signing certificates; a
    /// key passes when its attestationApplicationId lists one of them.
    ///
    /// - Warning: Empty means the signer is not checked: a repackaged app with your package name passes.
    public var signingCertificateDigests: [[UInt8]]
    /// `minimumSecurityLevel`: `tee` (default) or `strongbox`.
    public var minimumSecurityLevel: MinimumSecurityLevel
    /// `allowUnverifiedBoot`: accept an unlocked bootloader or a boot state other than VERIFIED (test devices and
    /// development builds). Off by default. The package and digests are still compared, but an unverified OS could
    /// have written them: ``VerifiedKeyAttestation/isApplicationIDTrustworthy`` says so.
    public var allowUnverifiedBoot: Bool
    /// `minimumOSPatchLevel`: the oldest hardware-enforced OS patch level accepted, `YYYYMM` (e.g. 202401); nil for
    /// no minimum.
    public var minimumOSPatchLevel: Int?
    /// `allowSuspendedCertificates`: accept certificates the revocation list marks SUSPENDED. REVOKED ones are
    /// always refused. Off by default.
    public var allowSuspendedCertificates: Bool

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - packageNames: The package names accepted.
    ///   - signingCertificateDigests: The signing-certificate SHA-256 digests accepted.
    ///   - minimumSecurityLevel: The lowest security level accepted.
    ///   - allowUnverifiedBoot: Whether an unlocked or unverified boot is accepted.
    ///   - minimumOSPatchLevel: The oldest OS patch level accepted (`YYYYMM`), or nil.
    ///   - allowSuspendedCertificates: Whether SUSPENDED certificates are accepted.
    /// - Throws: ``KeyAttestationError/Code/malformedPolicy`` when a digest is not 32 bytes, a package name is empty
    ///   or the patch level is not `YYYYMM`.
    public init(
        packageNames: [String] = [], signingCertificateDigests: [[UInt8]] = [],
        minimumSecurityLevel: MinimumSecurityLevel = .tee, allowUnverifiedBoot: Bool = false,
        minimumOSPatchLevel: Int? = nil, allowSuspendedCertificates: Bool = false
    ) throws {
        guard packageNames.allSatisfy({ !$0.isEmpty }) else {
            throw KeyAttestationError.malformedPolicy("packageNames holds an empty name")
        }
        guard signingCertificateDigests.allSatisfy({ $0.count == 32 }) else {
            throw KeyAttestationError.malformedPolicy(
                "each of signingCertificateDigests must be a SHA-256 digest (32 bytes, base64 in JSON); "
                    + "compute it with `apksigner verify --print-certs` or `keytool -list -v` (SHA-256)")
        }
        if let level = minimumOSPatchLevel {
            guard (190_001...999_912).contains(level), (1...12).contains(level % 100) else {
                throw KeyAttestationError.malformedPolicy(
                    "minimumOSPatchLevel must be YYYYMM, e.g. 202401; got \(level)")
            }
        }
        self.packageNames = packageNames
        self.signingCertificateDigests = signingCertificateDigests
        self.minimumSecurityLevel = minimumSecurityLevel
        self.allowUnverifiedBoot = allowUnverifiedBoot
        self.minimumOSPatchLevel = minimumOSPatchLevel
        self.allowSuspendedCertificates = allowSuspendedCertificates
    }

    /// The configuration keys, in the order documented.
    public static let configurationKeys = [
        "packageNames", "signingCertificateDigests", "minimumSecurityLevel", "allowUnverifiedBoot",
        "minimumOSPatchLevel", "allowSuspendedCertificates",
    ]
}

extension KeyAttestationPolicy: Codable {
    /// Reads the policy from its JSON object; unknown keys are refused.
    ///
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a wrong type, ``KeyAttestationError/Code/malformedPolicy`` for an unknown key
    ///   or an unusable value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        if let unknown = container.allKeys.first(where: { !Self.configurationKeys.contains($0.stringValue) }) {
            throw KeyAttestationError.malformedPolicy(
                "unknown Android policy key '\(unknown.stringValue.prefix(64))'; the keys are "
                    + Self.configurationKeys.joined(separator: ", "))
        }
        let digests = try container.decodeIfPresent([String].self, forKey: "signingCertificateDigests") ?? []
        try self.init(
            packageNames: container.decodeIfPresent([String].self, forKey: "packageNames") ?? [],
            signingCertificateDigests: try digests.map { text in
                guard let bytes = Data(base64Encoded: text) else {
                    throw KeyAttestationError.malformedPolicy(
                        "a signingCertificateDigests entry is not standard base64")
                }
                return Array(bytes)
            },
            minimumSecurityLevel: container.decodeIfPresent(MinimumSecurityLevel.self, forKey: "minimumSecurityLevel")
                ?? .tee,
            allowUnverifiedBoot: container.decodeIfPresent(Bool.self, forKey: "allowUnverifiedBoot") ?? false,
            minimumOSPatchLevel: container.decodeIfPresent(Int.self, forKey: "minimumOSPatchLevel"),
            allowSuspendedCertificates: container.decodeIfPresent(Bool.self, forKey: "allowSuspendedCertificates")
                ?? false)
    }

    /// Writes the policy as its JSON object (digests in base64).
    ///
    /// - Parameter encoder: The encoder.
    /// - Throws: The encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(packageNames, forKey: "packageNames")
        try container.encode(
            signingCertificateDigests.map { Data($0).base64EncodedString() }, forKey: "signingCertificateDigests")
        try container.encode(minimumSecurityLevel, forKey: "minimumSecurityLevel")
        try container.encode(allowUnverifiedBoot, forKey: "allowUnverifiedBoot")
        try container.encodeIfPresent(minimumOSPatchLevel, forKey: "minimumOSPatchLevel")
        try container.encode(allowSuspendedCertificates, forKey: "allowSuspendedCertificates")
    }
}
