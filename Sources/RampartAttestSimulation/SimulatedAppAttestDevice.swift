import Foundation
public import RampartAppAttest
public import RampartAttestClient
import Synchronization

/// App Attest played by RampartAppAttest's simulator: how ``AttestedClient`` runs on Linux and in tests.
///
/// Each generated key is a `SimulatedDevice` (its own P-256 key and counter); attestations are signed by the
/// simulator's test CA, so the server must trust ``AppAttestSimulator/rootCertificate`` (`rampart serve --root`).
///
/// - Warning: A test device. A production server keeps Apple's root and never accepts these objects.
public final class SimulatedAppAttestDevice: AppAttestDevice {
    /// The simulated Apple CA.
    public let simulator: AppAttestSimulator
    /// The team id the simulated app is signed with.
    public let teamID: String
    /// The simulated app's bundle id.
    public let bundleID: String
    /// The environment the keys are made in.
    public let environment: AppAttestEnvironment
    private let devices = Mutex<[String: SimulatedDevice]>([:])

    /// Creates a simulated device for one app.
    ///
    /// - Parameters:
    ///   - simulator: The simulated CA (share it with the server's root).
    ///   - teamID: The team id; a different one plays a re-signed (tampered) app.
    ///   - bundleID: The bundle id.
    ///   - environment: The environment.
    public init(
        simulator: AppAttestSimulator, teamID: String, bundleID: String, environment: AppAttestEnvironment
    ) {
        self.simulator = simulator
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
    }

    /// Adds a key made elsewhere (a saved device restored by a tool), replacing one with the same id.
    ///
    /// - Parameter device: The simulated key.
    /// - Returns: Its key id (standard base64).
    @discardableResult
    public func add(_ device: SimulatedDevice) -> String {
        let keyID = Data(device.keyID).base64EncodedString()
        devices.withLock { $0[keyID] = device }
        return keyID
    }

    /// The simulated key with this id, with its current counter (to save it).
    ///
    /// - Parameter keyID: The key id (standard base64).
    /// - Returns: The key, or nil when this device has none with that id.
    public func device(for keyID: String) -> SimulatedDevice? { devices.withLock { $0[keyID] } }

    /// Always true.
    public var isSupported: Bool { true }

    /// Generates a simulated key.
    ///
    /// - Returns: Its key id (base64).
    /// - Throws: When the simulator cannot make a key.
    public func generateKey() async throws -> String {
        let device = SimulatedDevice(teamID: teamID, bundleID: bundleID, environment: environment)
        let keyID = Data(device.keyID).base64EncodedString()
        devices.withLock { $0[keyID] = device }
        return keyID
    }

    /// Attests a simulated key.
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - clientDataHash: The hash to attest.
    /// - Returns: The attestation object.
    /// - Throws: ``AttestedClientError`` (`invalidKey`, as `DCError.invalidKey`) for an unknown key id.
    public func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        guard let device = devices.withLock({ $0[keyID] }) else {
            throw AttestedClientError.invalidKey(
                "no simulated key has this id (DCError.invalidKey); generate and attest a new key")
        }
        return try simulator.attestKey(of: device, clientDataHash: clientDataHash)
    }

    /// Signs with a simulated key, advancing its counter.
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - clientDataHash: The hash to sign.
    /// - Returns: The assertion.
    /// - Throws: ``AttestedClientError`` (`invalidKey`, as `DCError.invalidKey`) for an unknown key id.
    public func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        try devices.withLock { devices in
            guard var device = devices[keyID] else {
                throw AttestedClientError.invalidKey(
                    "no simulated key has this id (DCError.invalidKey); generate and attest a new key")
            }
            let assertion = try device.generateAssertion(clientDataHash: clientDataHash)
            devices[keyID] = device
            return assertion
        }
    }
}
