public import Foundation
public import RampartKeyAttestation
import RampartX509

extension ServiceConfiguration {
    /// The `"android"` object of the configuration: the Key Attestation policy Android keys must meet, Google's
    /// revocation list, and extra roots for tests. Without it the service refuses Android keys
    /// (`androidNotConfigured`).
    ///
    /// ```json
    /// "android": {
    ///   "packageNames": ["com.example.app"],
    ///   "signingCertificateDigests": ["EDk47kU35Z6O55L2VFBPuDRvxrNG0LvEQV/DOfz8jsE="],
    ///   "minimumSecurityLevel": "tee", "allowUnverifiedBoot": false, "minimumOSPatchLevel": 202401,
    ///   "allowSuspendedCertificates": false,
    ///   "revocations": "/var/lib/rampart/attestation-status.json",
    ///   "extraRoots": []
    /// }
    /// ```
    ///
    /// The policy keys are those of `KeyAttestationPolicy` (docs/android.md); an unknown key is refused, so a
    /// misspelt one cannot turn a check off.
    public struct AndroidSettings: Hashable, Sendable {
        /// What an attested key must show.
        public var policy: KeyAttestationPolicy
        /// `revocations`: a file holding Google's attestation status list (JSON), read at start; nil: no
        /// revocation check.
        public var revocations: String?
        /// `extraRoots`: PEM files of roots trusted besides Google's (a test CA, `rampart device --android`'s
        /// simulator). Never in production.
        public var extraRoots: [String]

        /// The most extra roots accepted.
        public static let maximumExtraRoots = 8

        /// The keys of the `"android"` object.
        public static let keys = KeyAttestationPolicy.configurationKeys + ["revocations", "extraRoots"]

        /// Creates the settings.
        ///
        /// - Parameters:
        ///   - policy: The policy.
        ///   - revocations: The status list file, or nil.
        ///   - extraRoots: PEM files of extra roots.
        public init(policy: KeyAttestationPolicy, revocations: String? = nil, extraRoots: [String] = []) {
            self.policy = policy
            self.revocations = revocations
            self.extraRoots = extraRoots
        }
    }

    private struct AndroidKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads the `"android"` object.
    static func decodeAndroid(_ decoder: any Decoder) throws -> AndroidSettings {
        let container = try decoder.container(keyedBy: AndroidKey.self)
        if let unknown = container.allKeys.first(where: { !AndroidSettings.keys.contains($0.stringValue) }) {
            throw AttestServiceError.invalidConfiguration(
                "unknown configuration key 'android.\(unknown.stringValue.prefix(64))'; the keys are "
                    + AndroidSettings.keys.joined(separator: ", "))
        }
        func key(_ name: String) -> AndroidKey { AndroidKey(stringValue: name) }
        let digests = try (container.decodeIfPresent([String].self, forKey: key("signingCertificateDigests")) ?? [])
            .map { text in
                guard let bytes = Data(base64Encoded: text) else {
                    throw AttestServiceError.invalidConfiguration(
                        "android.signingCertificateDigests: an entry is not standard base64 of a SHA-256 digest")
                }
                return Array(bytes)
            }
        var level = KeyAttestationPolicy.MinimumSecurityLevel.tee
        if let name = try container.decodeIfPresent(String.self, forKey: key("minimumSecurityLevel")) {
            guard let parsed = KeyAttestationPolicy.MinimumSecurityLevel(rawValue: name) else {
                throw AttestServiceError.invalidConfiguration(
                    "android.minimumSecurityLevel must be \"tee\" or \"strongbox\" (software keys are always refused)")
            }
            level = parsed
        }
        let policy: KeyAttestationPolicy
        do {
            policy = try KeyAttestationPolicy(
                packageNames: container.decodeIfPresent([String].self, forKey: key("packageNames")) ?? [],
                signingCertificateDigests: digests, minimumSecurityLevel: level,
                allowUnverifiedBoot: container.decodeIfPresent(Bool.self, forKey: key("allowUnverifiedBoot")) ?? false,
                minimumOSPatchLevel: integer(
                    container, key("minimumOSPatchLevel"), name: "android.minimumOSPatchLevel"),
                allowSuspendedCertificates: container.decodeIfPresent(
                    Bool.self, forKey: key("allowSuspendedCertificates")) ?? false)
        } catch let error as KeyAttestationError {
            throw AttestServiceError.invalidConfiguration("android: \(error.reason)")
        }
        let roots = try container.decodeIfPresent([String].self, forKey: key("extraRoots")) ?? []
        guard roots.count <= AndroidSettings.maximumExtraRoots, roots.allSatisfy({ !$0.isEmpty }) else {
            throw AttestServiceError.invalidConfiguration(
                "android.extraRoots lists at most \(AndroidSettings.maximumExtraRoots) PEM files (test roots only)")
        }
        return AndroidSettings(
            policy: policy, revocations: try container.decodeIfPresent(String.self, forKey: key("revocations")),
            extraRoots: roots)
    }

    /// An integer-valued key, read as a number first so that `2.5` is named as the key's problem.
    private static func integer(
        _ container: KeyedDecodingContainer<AndroidKey>, _ key: AndroidKey, name: String
    ) throws
        -> Int?
    {
        guard let number = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard let value = Int(exactly: number) else {
            throw AttestServiceError.invalidConfiguration("'\(name)' must be a whole number, YYYYMM (got \(number))")
        }
        return value
    }

    /// Builds the Android Key Attestation verifier of ``android``: its policy, Google's roots and the extra roots,
    /// and the revocation list, both read now.
    ///
    /// - Parameter clock: The time the chain's CA certificates are checked at.
    /// - Returns: The verifier, or nil when the configuration has no `"android"` object.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the file that cannot be read.
    public func makeKeyAttestationVerifier(
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> KeyAttestationVerifier? {
        guard let android else { return nil }
        let roots = try android.extraRoots.map { path in
            do {
                return try Certificate(pemEncoded: try String(contentsOfFile: path, encoding: .utf8))
            } catch {
                throw AttestServiceError.invalidConfiguration(
                    "cannot read the android.extraRoots entry \(path); it must be one PEM certificate")
            }
        }
        var revocations: RevocationList?
        if let path = android.revocations {
            do {
                revocations = try RevocationList(contentsOfFile: path)
            } catch let error as KeyAttestationError {
                throw AttestServiceError.invalidConfiguration(
                    "android.revocations: \(error.reason); download Google's list from "
                        + "https://android.googleapis.com/attestation/status")
            }
        }
        do {
            return try KeyAttestationVerifier(
                policy: android.policy, extraRoots: roots, revocations: revocations, clock: clock)
        } catch let error as KeyAttestationError {
            throw AttestServiceError.invalidConfiguration("android.extraRoots: \(error.reason)")
        }
    }
}
