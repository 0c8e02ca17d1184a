/// The App Attest checks the service relies on, as a plug-in: ``RampartAppAttest``'s `AppAttestVerifier` in
/// production, configured with the team id, bundle id, environment and root (see ``AppAttestVerifierAdapter``).
///
/// The service owns the state (challenges, keys, counters); the verifier owns the cryptography and Apple's rules.
public protocol AppAttestVerifying: Sendable {
    /// Verifies an attestation object for `keyID` made over `clientDataHash`.
    ///
    /// - Parameters:
    ///   - attestationObject: The CBOR object from `attestKey`.
    ///   - keyID: The key id the app sent (SHA-256 of the public key).
    ///   - clientDataHash: SHA-256 of the challenge string.
    /// - Returns: The key to store, or a refusal naming the failed check.
    /// - Throws: ``AttestServiceError`` (`invalidField`) when the object is malformed.
    func verifyAttestation(
        _ attestationObject: [UInt8], keyID: [UInt8], clientDataHash: [UInt8]
    ) throws
        -> AttestationCheck

    /// Verifies an assertion against a stored key.
    ///
    /// - Parameters:
    ///   - assertion: The CBOR assertion from `generateAssertion`.
    ///   - clientDataHash: SHA-256 of the canonical client data.
    ///   - publicKey: The stored X9.63 public key.
    ///   - previousCounter: The counter the assertion's must exceed. ``AttestationService`` passes 0 and compares
    ///     with the stored counter itself, to tell the genuine app's reordered requests from replays.
    /// - Returns: The new counter, or a refusal naming the failed check, saying whether the signature verified.
    /// - Throws: ``AttestServiceError`` (`invalidField`) when the assertion is malformed.
    func verifyAssertion(
        _ assertion: [UInt8], clientDataHash: [UInt8], publicKey: [UInt8], previousCounter: UInt32
    )
        throws -> AssertionCheck
}

/// The outcome of an attestation check.
public enum AttestationCheck: Hashable {
    /// Store this key (counter 0).
    case valid(publicKey: [UInt8], environment: String, receipt: [UInt8])
    /// Do not register the key.
    case invalid(Refusal)
}

/// The outcome of an assertion check.
public enum AssertionCheck: Hashable {
    /// The assertion verified; its counter must now be stored.
    case valid(counter: UInt32)
    /// Refuse the request: the signature does not verify under the stored key, so the request proves nothing about
    /// who holds the key and must not change the key's state.
    case invalid(Refusal)
    /// Refuse the request although its signature verified under the stored key (another app's rpIdHash, a counter
    /// that did not grow): evidence that involves the key's private key, which raises the key's risk.
    case invalidSigned(Refusal)
}

extension AttestationCheck: Sendable {}

extension AssertionCheck: Sendable {}
