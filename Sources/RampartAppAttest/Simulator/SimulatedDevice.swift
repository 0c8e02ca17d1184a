public import RampartCrypto

/// One simulated app instance: an App Attest key pair for one App ID and environment, and its counter.
///
/// Like `DCAppAttestService`, a device generates a P-256 key, has it attested once (by an ``AppAttestSimulator``,
/// which plays Apple), then signs each protected request with ``generateAssertion(clientDataHash:)``, whose counter
/// increases by one every time.
public struct SimulatedDevice: Sendable {
    /// The team identifier of the app.
    public let teamID: String
    /// The bundle identifier of the app.
    public let bundleID: String
    /// The environment the key lives in.
    public let environment: AppAttestEnvironment
    let privateKey: ECPrivateKey
    /// The counter of the last assertion (0 right after attestation).
    public private(set) var counter: UInt32 = 0

    /// Generates a fresh key for an app.
    ///
    /// - Parameters:
    ///   - teamID: The team identifier.
    ///   - bundleID: The bundle identifier.
    ///   - environment: The environment, which decides the AAGUID.
    public init(teamID: String, bundleID: String, environment: AppAttestEnvironment) {
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
        self.privateKey = ECPrivateKey(curve: .p256)
    }

    /// Restores a kept key (a tool's saved device): its private key and the counter of its last assertion.
    ///
    /// - Warning: `privateKeyPEM` is the key that proves this simulated device; keep it as a secret (mode 0600).
    ///
    /// - Parameters:
    ///   - teamID: The team identifier.
    ///   - bundleID: The bundle identifier.
    ///   - environment: The environment.
    ///   - privateKeyPEM: The P-256 private key, PKCS#8 PEM (``privateKeyPEM``).
    ///   - counter: The counter of the last assertion made with it.
    /// - Throws: ``AppAttestError/Code/invalidArgument`` when the key is not a P-256 private key.
    public init(
        teamID: String, bundleID: String, environment: AppAttestEnvironment, privateKeyPEM: String, counter: UInt32
    ) throws {
        let key: ECPrivateKey
        do {
            key = try ECPrivateKey(pemRepresentation: privateKeyPEM)
        } catch {
            throw AppAttestError.invalidArgument("the simulated device's key is not a PKCS#8 EC private key: \(error)")
        }
        guard key.publicKey.x963Representation.count == 65 else {
            throw AppAttestError.invalidArgument("the simulated device's key is not a P-256 key")
        }
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
        self.privateKey = key
        self.counter = counter
    }

    /// The private key, PKCS#8 PEM, to keep the device between runs (``init(teamID:bundleID:environment:privateKeyPEM:counter:)``).
    public var privateKeyPEM: String { privateKey.pemRepresentation }

    /// The App ID, `TEAMID.bundle.id`.
    public var appID: String { "\(teamID).\(bundleID)" }

    /// The public key.
    public var publicKey: ECPublicKey { privateKey.publicKey }

    /// The public key as an uncompressed X9.63 point.
    public var publicKeyX963: [UInt8] { privateKey.publicKey.x963Representation }

    /// The key identifier: SHA-256 of the X9.63 public key (what `generateKey` returns, base64-encoded).
    public var keyID: [UInt8] { SHA256.hash(publicKeyX963) }

    /// Makes an assertion over `clientDataHash` in Apple's format, with the next counter value.
    ///
    /// `{"signature": DER ECDSA over SHA-256(nonce), "authenticatorData": rpIdHash ‖ flags 0x40 ‖ counter}` where
    /// `nonce = SHA-256(authenticatorData ‖ clientDataHash)`.
    ///
    /// - Parameter clientDataHash: SHA-256 of the request's client data.
    /// - Returns: The CBOR assertion.
    /// - Throws: ``AppAttestError/Code/openSSLFailure`` if signing fails, ``AppAttestError/Code/invalidArgument`` once
    ///   the counter would wrap.
    public mutating func generateAssertion(clientDataHash: [UInt8]) throws -> [UInt8] {
        guard counter < UInt32.max else {
            throw AppAttestError.invalidArgument("the simulated key's counter is exhausted; attest a new key")
        }
        counter += 1
        var authData = SHA256.hash(Array(appID.utf8))
        authData.append(AuthenticatorData.Flags.attestedCredentialData.rawValue)
        authData += withUnsafeBytes(of: counter.bigEndian, Array.init)
        return try Self.assertion(authData: authData, clientDataHash: clientDataHash, key: privateKey)
    }

    static func assertion(authData: [UInt8], clientDataHash: [UInt8], key: ECPrivateKey) throws -> [UInt8] {
        let nonce = SHA256.hash(authData + clientDataHash)
        let signature: [UInt8]
        do {
            signature = try key.signature(for: nonce, digest: .sha256)
        } catch {
            throw AppAttestError.openSSLFailure("signing the assertion failed", detail: String(describing: error))
        }
        return CBORValue.map([
            CBORMapEntry(.textString("signature"), .byteString(signature)),
            CBORMapEntry(.textString("authenticatorData"), .byteString(authData)),
        ]).encoded
    }
}
