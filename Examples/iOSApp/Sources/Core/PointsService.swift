import Foundation
public import RampartAttestClient
import RampartRequestSigning
public import RampartSecretStore

/// The guide's scenario: the app registers its App Attest key once, then every use of points is a request signed
/// with an assertion over a one-time challenge and the exact payload, which the server checks before it spends.
public actor PointsService {
    /// What the server said about a use of points.
    public enum Outcome: Sendable, Hashable {
        /// Spent; the balance after it.
        case spent(balance: Int)
        /// Refused, with the server's error code (`insufficientPoints`, `invalidAssertion`, …).
        case refused(code: String, status: Int)
    }

    let client: AttestedClient
    /// The signed-in user, the App Attest subject.
    public let userID: String

    /// Creates the service for the signed-in user.
    ///
    /// - Parameters:
    ///   - transport: How requests reach the server (a pinned `URLSession` in the app).
    ///   - device: The App Attest device (`DeviceCheckAppAttestDevice()` in the app).
    ///   - secrets: Where the App Attest key id is kept (`KeychainStore()` in the app).
    ///   - userID: The signed-in user.
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore, userID: String
    ) {
        client = AttestedClient(transport: transport, device: device, secrets: secrets, subject: userID)
        self.userID = userID
    }

    /// Registers the device's App Attest key with the server, once per installation; later calls return the
    /// registered key id at once.
    ///
    /// - Returns: The key id.
    /// - Throws: `AttestedClientError` (`deviceUnsupported` on a device without App Attest: apply the server's
    ///   policy for unattested clients).
    @discardableResult
    public func register() async throws -> String {
        if let keyID = try? await client.registeredKeyID() { return keyID }
        return try await client.register()
    }

    /// Uses `amount` points with a signed request (`POST /v1/demo/points/use`); re-registers once when the server
    /// no longer knows the key (a reinstall, or `DCError.invalidKey`).
    ///
    /// - Parameter amount: Points to use, 1 or more.
    /// - Returns: The outcome.
    /// - Throws: `AttestedClientError` when no answer came back.
    public func use(_ amount: Int) async throws -> Outcome {
        let payload: JSONValue = .object(["userId": .string(userID), "amount": .number(Double(amount))])
        let answer = try await client.send("/v1/demo/points/use", payload: payload)
        guard answer.status == 200, let balance = answer.number("balance") else {
            return .refused(code: answer.errorCode ?? "unexpectedResponse", status: answer.status)
        }
        return .spent(balance: Int(balance))
    }
}
