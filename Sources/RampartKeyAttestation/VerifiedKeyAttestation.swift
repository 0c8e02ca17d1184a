import Foundation
public import RampartCrypto
public import RampartX509

/// What a valid Key Attestation chain establishes about its key.
public struct VerifiedKeyAttestation: Sendable {
    /// The KeyDescription of the attestation certificate (the chain's leaf).
    public let keyDescription: KeyDescription
    /// The chain as received, leaf first.
    public let certificateChain: [Certificate]
    /// The leaf's SubjectPublicKeyInfo (DER), as received: the attested key.
    public let publicKeyInfo: [UInt8]
    /// The key id: SHA-256 of ``publicKeyInfo``.
    public let keyID: [UInt8]
    /// A short description of the key: `EC P-256`, `RSA 2048`, `ML-DSA-65`, …
    public let keyType: String
    /// Which root anchored the chain: `Google RSA-4096 root`, `Google Key Attestation CA1 (ECDSA P-384)` or
    /// `extra root N` (N counting from 0 in the configured order).
    public let anchor: String
    /// The provisioning-info extensions of the chain, by certificate index (RKP chains carry one).
    public let provisioningInfo: [Int: ProvisioningInfo]
    /// Whether attestationApplicationId can be believed: the RootOfTrust says the boot was VERIFIED and the
    /// bootloader locked. False only when the policy allowed an unverified boot.
    public let isApplicationIDTrustworthy: Bool
    /// Whether the key may sign Rampart requests, and why not.
    public let requestSigningKey: RequestSigningKey
}

/// Whether an attested key can sign Rampart requests (`Rampart-Signature`: ECDSA P-256 with SHA-256).
public enum RequestSigningKey: Sendable {
    /// The key is ECDSA P-256: store it and verify request signatures with it.
    case usable(ECPublicKey)
    /// The key attested but cannot sign requests; the failure's reason is ``KeyAttestationFailure/Reason/unsupportedKeyType``.
    case refused(KeyAttestationFailure)

    /// The key, when usable.
    public var key: ECPublicKey? {
        if case .usable(let key) = self { return key }
        return nil
    }

    /// The refusal, when the key cannot sign requests.
    public var refusal: KeyAttestationFailure? {
        if case .refused(let failure) = self { return failure }
        return nil
    }
}

/// The outcome of verifying a well-formed Key Attestation chain.
public enum KeyAttestationVerdict: Sendable {
    /// Every check passed.
    case valid(VerifiedKeyAttestation)
    /// A check failed; the key must not be registered.
    case invalid(KeyAttestationFailure)

    /// The verified attestation, or nil.
    public var attestation: VerifiedKeyAttestation? {
        if case .valid(let attestation) = self { return attestation }
        return nil
    }

    /// The failure, or nil.
    public var failure: KeyAttestationFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }
}
