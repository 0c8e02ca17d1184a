/// Why a well-formed Key Attestation chain was not trusted, or its key not accepted.
///
/// Failures compare by ``reason`` only. The ``message`` says what failed, what was expected and what to do; it never
/// holds key bytes or raw input (certificates are named by their index in the chain, the leaf being 0).
public struct KeyAttestationFailure: Hashable, CustomStringConvertible {
    /// A stable code naming the failed check; new codes are additive.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable, CaseIterable {
            case untrustedRoot
            case chainBroken
            case signatureInvalid
            case unsupportedSignatureAlgorithm
            case certificateNotAuthority
            case certificateExpired
            case certificateNotYetValid
            case unhandledCriticalExtension
            case certificateRevoked
            case certificateSuspended
            case attestationExtensionMissing
            case chainExtendedBelowAttestation
            case malformedKeyDescription
            case malformedProvisioningInfo
            case challengeMismatch
            case softwareKey
            case securityLevelTooLow
            case rootOfTrustMissing
            case bootStateUnverified
            case deviceUnlocked
            case originNotGenerated
            case purposeNotSign
            case patchLevelTooOld
            case applicationIDMissing
            case packageMismatch
            case signingDigestMismatch
            case unsupportedKeyType
        }

        let backing: Backing

        /// The chain's top certificate is not one of Google's attestation roots (matched by public key) nor an extra
        /// root the verifier was configured with, and no such root issued it.
        public static let untrustedRoot = Reason(backing: .untrustedRoot)
        /// A certificate's issuer is not the subject of the next certificate.
        public static let chainBroken = Reason(backing: .chainBroken)
        /// A certificate's signature does not verify under the next certificate's key.
        public static let signatureInvalid = Reason(backing: .signatureInvalid)
        /// A certificate is signed with an algorithm the verifier does not accept (RSA PKCS#1 v1.5 and ECDSA on P-256
        /// or P-384, with SHA-256, SHA-384 or SHA-512, are accepted).
        public static let unsupportedSignatureAlgorithm = Reason(backing: .unsupportedSignatureAlgorithm)
        /// A certificate that issues another is not a CA allowed to (basicConstraints cA, keyUsage keyCertSign, path
        /// length).
        public static let certificateNotAuthority = Reason(backing: .certificateNotAuthority)
        /// An intermediate or root certificate expired before the verification time.
        public static let certificateExpired = Reason(backing: .certificateExpired)
        /// An intermediate or root certificate is valid only after the verification time.
        public static let certificateNotYetValid = Reason(backing: .certificateNotYetValid)
        /// A certificate carries a critical extension the verifier does not process (RFC 5280 4.2).
        public static let unhandledCriticalExtension = Reason(backing: .unhandledCriticalExtension)
        /// A certificate's serial number is REVOKED in the revocation list.
        public static let certificateRevoked = Reason(backing: .certificateRevoked)
        /// A certificate's serial number is SUSPENDED in the revocation list and the policy does not allow that.
        public static let certificateSuspended = Reason(backing: .certificateSuspended)
        /// No certificate carries the attestation extension 1.3.6.1.4.1.11129.2.1.17.
        public static let attestationExtensionMissing = Reason(backing: .attestationExtensionMissing)
        /// A certificate follows (is issued below) the certificate holding the attestation extension nearest the
        /// root: somebody extended the chain, and any KeyDescription below is not the device's.
        public static let chainExtendedBelowAttestation = Reason(backing: .chainExtendedBelowAttestation)
        /// The attestation extension of a verified chain is not a KeyDescription Rampart can read strictly.
        public static let malformedKeyDescription = Reason(backing: .malformedKeyDescription)
        /// A certificate's provisioning-info extension 1.3.6.1.4.1.11129.2.1.30 is malformed.
        public static let malformedProvisioningInfo = Reason(backing: .malformedProvisioningInfo)
        /// The attestation challenge is not the one the server issued.
        public static let challengeMismatch = Reason(backing: .challengeMismatch)
        /// The attestation or KeyMint security level is SOFTWARE: the key is not in secure hardware.
        public static let softwareKey = Reason(backing: .softwareKey)
        /// The key lives in the TEE where the policy requires StrongBox.
        public static let securityLevelTooLow = Reason(backing: .securityLevelTooLow)
        /// The hardware-enforced list has no RootOfTrust, so the boot state cannot be known.
        public static let rootOfTrustMissing = Reason(backing: .rootOfTrustMissing)
        /// The RootOfTrust's verifiedBootState is not VERIFIED.
        public static let bootStateUnverified = Reason(backing: .bootStateUnverified)
        /// The RootOfTrust says the bootloader is unlocked.
        public static let deviceUnlocked = Reason(backing: .deviceUnlocked)
        /// The key was not generated in the secure hardware (origin is not GENERATED).
        public static let originNotGenerated = Reason(backing: .originNotGenerated)
        /// The key's hardware-enforced purposes do not include SIGN.
        public static let purposeNotSign = Reason(backing: .purposeNotSign)
        /// The hardware-enforced OS patch level is missing or older than the policy's minimum.
        public static let patchLevelTooOld = Reason(backing: .patchLevelTooOld)
        /// The policy names packages or signing digests, and the KeyDescription has no attestationApplicationId.
        public static let applicationIDMissing = Reason(backing: .applicationIDMissing)
        /// No package in attestationApplicationId is one the policy names.
        public static let packageMismatch = Reason(backing: .packageMismatch)
        /// No signing-certificate digest in attestationApplicationId is one the policy names.
        public static let signingDigestMismatch = Reason(backing: .signingDigestMismatch)
        /// The attested key is of a type Rampart does not verify request signatures with (requests are signed with
        /// ECDSA P-256; RSA and ML-DSA keys attest but cannot sign requests).
        public static let unsupportedKeyType = Reason(backing: .unsupportedKeyType)

        /// Every reason, for documentation and tests.
        public static var allReasons: [Reason] { Backing.allCases.map(Reason.init(backing:)) }

        /// The code's stable name, e.g. `challengeMismatch`.
        public var description: String { backing.rawValue }
    }

    /// The failed check.
    public let reason: Reason
    private let makeMessage: @Sendable () -> String

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - reason: The failed check.
    ///   - message: Builds the explanation on demand.
    public init(_ reason: Reason, message: @escaping @Sendable @autoclosure () -> String) {
        self.reason = reason
        self.makeMessage = message
    }

    /// What failed, what was expected and what to do.
    public var message: String { makeMessage() }

    /// `reason: message`.
    public var description: String { "\(reason): \(message)" }

    /// Compares reasons only.
    public static func == (lhs: KeyAttestationFailure, rhs: KeyAttestationFailure) -> Bool { lhs.reason == rhs.reason }

    /// Hashes the reason only.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
}

extension KeyAttestationFailure: Sendable {}
