import Foundation
public import RampartAttestClient

#if canImport(DeviceCheck)
import DeviceCheck
#else
import RampartAppleSimulation
#endif

/// ``AttestedClient``'s device over `DCAppAttestService.shared`: generate a key, attest it once, sign requests.
///
/// ```swift
/// let client = AttestedClient(
///     transport: URLSessionTransport(baseURL: api), device: DeviceCheckAppAttestDevice(),
///     secrets: KeychainStore(), headers: { [HTTPField(name: "Authorization", value: "Bearer \(token)")] })
/// ```
///
/// Failures are translated to ``AttestedClientError`` codes that the client acts on:
/// - `DCError.invalidKey` (a reinstall, a restore, a key the system invalidated) →
///   ``AttestedClientError/Code/invalidKey``: ``AttestedClient/send(_:_:headers:body:)`` generates and registers a
///   new key, then retries;
/// - `DCError.featureUnsupported` → ``AttestedClientError/Code/deviceUnsupported``: the caller applies its fallback
///   policy for devices without App Attest (the server decides what an unattested client may do);
/// - anything else (`serverUnavailable`, `unknownSystemFailure`, `invalidInput`) →
///   ``AttestedClientError/Code/deviceFailure``, to retry later with the same key.
///
/// Assertions for one key are generated one at a time, in call order.
///
/// - Important: On watchOS this type needs watchOS 9, where `DCAppAttestService` and `DCError` first exist
///   (`API_AVAILABLE(macos(11.0), ios(14.0), tvos(15.0), watchos(9.0))` in DeviceCheck's `DCAppAttestService.h` and
///   `DCError.h`); the package's other platform minimums (iOS 15, macOS 12, tvOS 15, visionOS 1) already cover it.
///   A watchOS 8 app checks `if #available(watchOS 9, *)` and otherwise treats App Attest as unsupported, as it does
///   when ``isSupported`` is false.
@available(watchOS 9, *)
public final class DeviceCheckAppAttestDevice: AppAttestDevice {
    private let serializer = KeySerializer()

    /// A device over the shared App Attest service.
    public init() {}

    /// Whether the device provides App Attest (`DCAppAttestService.isSupported`).
    public var isSupported: Bool { DCAppAttestService.shared.isSupported }

    /// Creates a key in the Secure Enclave (`generateKey()`).
    ///
    /// - Returns: The key id.
    /// - Throws: ``AttestedClientError`` (`deviceUnsupported`, `deviceFailure`).
    public func generateKey() async throws -> String {
        do {
            return try await DCAppAttestService.shared.generateKey()
        } catch {
            throw Self.translate(error, "generating an App Attest key")
        }
    }

    /// Asks Apple to attest the key (`attestKey(_:clientDataHash:)`).
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - clientDataHash: SHA-256 of the server's challenge.
    /// - Returns: The attestation object.
    /// - Throws: ``AttestedClientError`` (`invalidKey`, `deviceUnsupported`, `deviceFailure`).
    public func attestKey(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        do {
            return Array(try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: Data(clientDataHash)))
        } catch {
            throw Self.translate(error, "attesting the App Attest key")
        }
    }

    /// Signs with the key (`generateAssertion(_:clientDataHash:)`), after any earlier assertion for the same key.
    ///
    /// - Parameters:
    ///   - keyID: The key id.
    ///   - clientDataHash: SHA-256 of the request's client data.
    /// - Returns: The assertion.
    /// - Throws: ``AttestedClientError`` (`invalidKey`, `deviceUnsupported`, `deviceFailure`).
    public func generateAssertion(_ keyID: String, clientDataHash: [UInt8]) async throws -> [UInt8] {
        try await serializer.run(keyID) {
            do {
                return Array(
                    try await DCAppAttestService.shared.generateAssertion(keyID, clientDataHash: Data(clientDataHash)))
            } catch {
                throw Self.translate(error, "signing with the App Attest key")
            }
        }
    }

    /// The client error for a DeviceCheck failure.
    static func translate(_ error: any Error, _ operation: String) -> AttestedClientError {
        guard let error = error as? DCError else {
            return AttestedClientError.deviceFailure("\(operation) failed: \(error)", detail: "\(error)")
        }
        switch error.code {
        case .invalidKey:
            return AttestedClientError.invalidKey(
                "\(operation) failed: the device no longer has this key (DCError.invalidKey); generate and register a "
                    + "new one")
        case .featureUnsupported:
            return AttestedClientError.deviceUnsupported(
                "\(operation) failed: App Attest is not available on this device (DCError.featureUnsupported); apply "
                    + "the server's policy for unattested clients")
        case .serverUnavailable:
            return AttestedClientError.deviceFailure(
                "\(operation) failed: Apple's App Attest service could not be reached (DCError.serverUnavailable); "
                    + "try again later with the same key")
        default:
            return AttestedClientError.deviceFailure(
                "\(operation) failed (DCError code \(error.code.rawValue)); try again later", detail: "\(error)")
        }
    }
}

/// Runs work for one key at a time, in the order it was asked for.
actor KeySerializer {
    private var tails: [String: Task<Void, Never>] = [:]

    func run<T: Sendable>(_ key: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let previous = tails[key]
        let task = Task {
            await previous?.value
            return try await body()
        }
        tails[key] = Task { _ = try? await task.value }
        return try await task.value
    }
}

@available(watchOS 9, *)
extension DeviceCheckAppAttestDevice: Sendable {}
