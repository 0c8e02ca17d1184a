/// The device side of App Attest, shaped like `DCAppAttestService`: generate a key, attest it once, sign requests.
///
/// On iOS an adapter forwards to `DCAppAttestService.shared`; on Linux (and in tests) ``SimulatedAppAttestDevice``
/// plays the device with RampartAppAttest's simulator. ``AttestedClient`` is written against this protocol only.
public protocol AppAttestDevice: Sendable {
    /// Whether App Attest is available (`DCAppAttestService.isSupported`).
    var isSupported: Bool { get }

    /// Creates a new hardware key and returns its id (base64 of SHA-256 of the public key).
    ///
    /// - Returns: The key id.
    /// - Throws: When the device cannot create keys.
    func generateKey() async throws -> String

    /// Asks Apple to attest the key, over `clientDataHash` (SHA-256 of the server's challenge).
    ///
    /// - Parameters:
    ///   - keyID: The key id from ``generateKey()``.
    ///   - clientDataHash: The hash to attest.
    /// - Returns: The CBOR attestation object.
    /// - Throws: When the key is unknown or attestation fails.
    func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8]

    /// Signs `clientDataHash` with the key, incrementing its counter.
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - clientDataHash: SHA-256 of the request's canonical client data.
    /// - Returns: The CBOR assertion.
    /// - Throws: When the key is unknown.
    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8]
}
