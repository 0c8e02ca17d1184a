/// What a valid attestation establishes: the key to store, with everything Apple attested about it.
public struct VerifiedAttestation: Sendable, Hashable {
    /// The key identifier, SHA-256 of ``publicKeyX963``.
    public let keyID: [UInt8]
    /// The credential public key, an uncompressed P-256 point (`04 ‖ X ‖ Y`); store it to verify assertions.
    public let publicKeyX963: [UInt8]
    /// The counter to store: always 0 for an attestation.
    public let counter: UInt32
    /// The environment the key lives in.
    public let environment: AppAttestEnvironment
    /// Apple's receipt, to store and later exchange for a fraud-metric receipt (see ``Receipt``).
    public let receipt: [UInt8]
    /// The authenticator data, including the iOS 27 extension map when present.
    public let authenticatorData: AuthenticatorData
    /// The nonce the credential certificate attests: SHA-256(authData ‖ clientDataHash).
    public let nonce: [UInt8]
    /// The certificate chain as received in `x5c` (DER), credential certificate first.
    public let certificateChain: [[UInt8]]

    /// The iOS 27 extension map of the authenticator data, if any.
    public var extensions: AuthenticatorExtensions? { authenticatorData.extensions }
}
