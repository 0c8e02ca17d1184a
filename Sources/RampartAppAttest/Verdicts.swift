/// The outcome of verifying a well-formed attestation object.
public enum AttestationVerdict: Sendable {
    /// Every check passed; store the public key, counter 0 and receipt under the key identifier.
    case valid(VerifiedAttestation)
    /// A check failed; the key must not be registered.
    case invalid(AppAttestFailure)

    /// The verified attestation, or nil.
    public var attestation: VerifiedAttestation? {
        if case .valid(let attestation) = self { return attestation }
        return nil
    }

    /// The failure, or nil.
    public var failure: AppAttestFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }
}

/// The outcome of verifying a well-formed assertion.
public enum AssertionVerdict: Sendable {
    /// Every check passed; store ``VerifiedAssertion/counter`` as the key's new counter.
    case valid(VerifiedAssertion)
    /// A check failed; the request must be refused.
    case invalid(AppAttestFailure)

    /// The verified assertion, or nil.
    public var assertion: VerifiedAssertion? {
        if case .valid(let assertion) = self { return assertion }
        return nil
    }

    /// The failure, or nil.
    public var failure: AppAttestFailure? {
        if case .invalid(let failure) = self { return failure }
        return nil
    }
}

/// What a valid assertion establishes.
public struct VerifiedAssertion: Sendable, Hashable {
    /// The assertion's counter; the server stores it so the next assertion must exceed it.
    public let counter: UInt32
    /// The assertion's authenticator data (including any iOS 27 extension map).
    public let authenticatorData: AuthenticatorData
}
