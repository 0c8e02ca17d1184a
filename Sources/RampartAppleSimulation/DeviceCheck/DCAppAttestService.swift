public import Foundation
public import RampartAppAttest
import Synchronization

// https://developer.apple.com/documentation/devicecheck/dcappattestservice
/// A service that you use to validate the instance of your app running on a device (Apple:
/// `class DCAppAttestService`), played by RampartAppAttest's ``AppAttestSimulator``.
///
/// Calls go to ``SimulatedAppAttest/current``; with none bound, the feature is unsupported (as on a simulator or a Mac
/// without the Secure Enclave).
///
/// Availability as DeviceCheck.framework/Headers/DCAppAttestService.h of the iOS 18 SDK declares it:
/// `API_AVAILABLE(macos(11.0), ios(14.0), tvos(15.0), watchos(9.0))`.
@available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, *)
public final class DCAppAttestService: Sendable {
    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/shared
    /// The shared App Attest service that you use to validate your app (Apple: `class var shared:
    /// DCAppAttestService { get }`).
    public static let shared = DCAppAttestService()

    init() {}

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/issupported
    /// A Boolean value that indicates whether a particular device provides the App Attest service (Apple:
    /// `var isSupported: Bool { get }`).
    public var isSupported: Bool { SimulatedAppAttest.current?.isSupported ?? false }

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/generatekey(completionhandler:)
    /// Creates a new cryptographic key for use with the App Attest service (Apple: `func generateKey(completionHandler:
    /// @escaping @Sendable (String?, (any Error)?) -> Void)`).
    ///
    /// - Parameter completionHandler: Receives the key identifier, or a `DCError`.
    public func generateKey(completionHandler: @escaping @Sendable (String?, (any Error)?) -> Void) {
        do { completionHandler(try generateKeyNow(), nil) } catch { completionHandler(nil, error) }
    }

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/generatekey(completionhandler:)
    /// The async form (Apple: `func generateKey() async throws -> String`).
    ///
    /// - Returns: The key identifier (base64 of SHA-256 of the public key).
    /// - Throws: `DCError` `featureUnsupported`.
    public func generateKey() async throws -> String { try generateKeyNow() }

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/attestkey(_:clientdatahash:completionhandler:)
    /// Asks Apple to attest to the validity of a generated cryptographic key (Apple: `func attestKey(_ keyId: String,
    /// clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void)`).
    ///
    /// - Parameters:
    ///   - keyId: The identifier from ``generateKey()``.
    ///   - clientDataHash: SHA-256 of data that embeds the server's challenge.
    ///   - completionHandler: Receives the attestation object, or a `DCError`.
    public func attestKey(
        _ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) {
        do { completionHandler(try attestNow(keyId, clientDataHash), nil) } catch { completionHandler(nil, error) }
    }

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/attestkey(_:clientdatahash:completionhandler:)
    /// The async form (Apple: `func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data`).
    ///
    /// - Parameters:
    ///   - keyId: The key identifier.
    ///   - clientDataHash: The hash to attest.
    /// - Returns: The attestation object.
    /// - Throws: `DCError` `invalidKey` (also for a key that has already signed an assertion: the header allows
    ///   attesting again only before the key is used), `invalidInput` or `featureUnsupported`.
    public func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try attestNow(keyId, clientDataHash)
    }

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/generateassertion(_:clientdatahash:completionhandler:)
    /// Creates a block of data that demonstrates the legitimacy of an instance of your app running on a device
    /// (Apple: `func generateAssertion(_ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable
    /// (Data?, (any Error)?) -> Void)`).
    ///
    /// - Parameters:
    ///   - keyId: The key identifier.
    ///   - clientDataHash: SHA-256 of the request's client data.
    ///   - completionHandler: Receives the assertion, or a `DCError`.
    public func generateAssertion(
        _ keyId: String, clientDataHash: Data, completionHandler: @escaping @Sendable (Data?, (any Error)?) -> Void
    ) {
        do { completionHandler(try assertNow(keyId, clientDataHash), nil) } catch { completionHandler(nil, error) }
    }

    // https://developer.apple.com/documentation/devicecheck/dcappattestservice/generateassertion(_:clientdatahash:completionhandler:)
    /// The async form (Apple: `func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data`).
    ///
    /// - Parameters:
    ///   - keyId: The key identifier.
    ///   - clientDataHash: The hash to sign.
    /// - Returns: The assertion; the key's counter goes up by one.
    /// - Throws: `DCError` `invalidKey`, `invalidInput` or `featureUnsupported`.
    public func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data {
        try assertNow(keyId, clientDataHash)
    }

    private func simulation() throws -> SimulatedAppAttest {
        guard let simulation = SimulatedAppAttest.current, simulation.isSupported else {
            throw DCError(.featureUnsupported)
        }
        return simulation
    }

    private func generateKeyNow() throws -> String { try simulation().generateKey() }

    private func attestNow(_ keyId: String, _ hash: Data) throws -> Data {
        try Data(simulation().attestKey(keyId, clientDataHash: Array(hash)))
    }

    private func assertNow(_ keyId: String, _ hash: Data) throws -> Data {
        try Data(simulation().generateAssertion(keyId, clientDataHash: Array(hash)))
    }
}

/// The device and Apple CA behind the simulated ``DCAppAttestService``, with test hooks: make the feature
/// unsupported, invalidate a key.
@_spi(Testing)
public final class SimulatedAppAttest: Sendable {
    /// The simulation ``DCAppAttestService/shared`` uses; task-local, so parallel tests each bind their own.
    @TaskLocal public static var current: SimulatedAppAttest?

    /// The simulated Apple CA: a server trusts its ``AppAttestSimulator/rootCertificate``.
    public let simulator: AppAttestSimulator
    /// The team id the simulated app is signed with.
    public let teamID: String
    /// The simulated app's bundle id.
    public let bundleID: String
    /// The App Attest environment (the `com.apple.developer.devicecheck.appattest-environment` entitlement).
    public let environment: AppAttestEnvironment
    private let state = Mutex<(supported: Bool, keys: [String: SimulatedDevice], invalid: Set<String>)>(
        (true, [:], []))
    /// Keys that have signed an assertion: DCAppAttestService.h allows attesting a key again only "provided that the
    /// key has not been used for generating assertions" (iPhoneOS16.1.sdk, DeviceCheck.framework/Headers).
    private let asserted = Mutex<Set<String>>([])

    /// A simulated device for one app, with a new CA.
    ///
    /// - Parameters:
    ///   - simulator: The CA; share its root with the server.
    ///   - teamID: The team id.
    ///   - bundleID: The bundle id.
    ///   - environment: The environment.
    public init(
        simulator: AppAttestSimulator, teamID: String, bundleID: String,
        environment: AppAttestEnvironment = .development
    ) {
        self.simulator = simulator
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
    }

    /// A simulated device whose CA is kept in `directory` (created there when missing), so `rampart serve --root
    /// DIR/root.pem` trusts its attestations across runs.
    ///
    /// - Parameters:
    ///   - directory: The CA's folder.
    ///   - teamID: The team id.
    ///   - bundleID: The bundle id.
    ///   - environment: The environment.
    /// - Throws: RampartAppAttest's error when the folder cannot be read or written.
    public convenience init(
        keptIn directory: URL, teamID: String, bundleID: String, environment: AppAttestEnvironment = .development
    ) throws {
        self.init(
            simulator: try AppAttestSimulator(keptIn: directory), teamID: teamID, bundleID: bundleID,
            environment: environment)
    }

    /// Whether App Attest is available; set to false to play a device without it (`DCError.featureUnsupported`).
    public var isSupported: Bool {
        get { state.withLock { $0.supported } }
        set { state.withLock { $0.supported = newValue } }
    }

    /// Makes the next use of `keyID` fail with `DCError.invalidKey`, as after a reinstall or a restore.
    ///
    /// - Parameter keyID: The key identifier.
    public func invalidateKey(_ keyID: String) {
        state.withLock { _ = $0.invalid.insert(keyID) }
    }

    /// The counter a key's next assertion will carry minus one (what the server last saw, when all went through).
    ///
    /// - Parameter keyID: The key identifier.
    /// - Returns: The counter, or nil for an unknown key.
    public func counter(of keyID: String) -> UInt32? { state.withLock { $0.keys[keyID]?.counter } }

    func generateKey() -> String {
        let device = SimulatedDevice(teamID: teamID, bundleID: bundleID, environment: environment)
        let keyID = Data(device.keyID).base64EncodedString()
        state.withLock { $0.keys[keyID] = device }
        return keyID
    }

    private func usableKey(
        _ keyID: String, _ hash: [UInt8], in state: (Bool, [String: SimulatedDevice], Set<String>)
    )
        throws -> SimulatedDevice
    {
        guard !state.2.contains(keyID), let device = state.1[keyID] else { throw DCError(.invalidKey) }
        guard !hash.isEmpty else { throw DCError(.invalidInput) }
        return device
    }

    func attestKey(_ keyID: String, clientDataHash: [UInt8]) throws -> [UInt8] {
        let device = try state.withLock { try usableKey(keyID, clientDataHash, in: $0) }
        // A key that has signed cannot be attested again (the header's rule); DCError.invalidKey is "a failed attempt
        // to use the App Attest key" (DCError.h), so an app that wants a fresh attestation generates a new key.
        guard !asserted.withLock({ $0.contains(keyID) }) else { throw DCError(.invalidKey) }
        do {
            return try simulator.attestKey(of: device, clientDataHash: clientDataHash)
        } catch {
            throw DCError(.unknownSystemFailure)
        }
    }

    func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) throws -> [UInt8] {
        try state.withLock { state in
            var device = try usableKey(keyID, clientDataHash, in: state)
            do {
                let assertion = try device.generateAssertion(clientDataHash: clientDataHash)
                state.keys[keyID] = device
                asserted.withLock { _ = $0.insert(keyID) }
                return assertion
            } catch {
                throw DCError(.unknownSystemFailure)
            }
        }
    }
}
