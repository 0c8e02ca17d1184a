/// Which platform's hardware attested a registered key, and so how its requests are signed.
///
/// An App Attest key (`ios`) signs each request with an assertion (`Rampart-Assertion`: CBOR, with a counter the
/// service advances); an Android Keystore key (`android`, registered with a Key Attestation chain) signs with a plain
/// ECDSA P-256 signature (`Rampart-Signature`), and has no counter: its single-use challenges are the replay guard.
public enum KeyPlatform: String, Hashable, Sendable, CaseIterable {
    /// App Attest (iOS, iPadOS, macOS, visionOS).
    case ios
    /// Android Key Attestation.
    case android
}
