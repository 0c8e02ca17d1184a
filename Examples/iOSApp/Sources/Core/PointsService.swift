import Foundation
public import RampartAttestClient
import RampartRequestSigning
public import RampartSecretStore

/// The guide's scenario: the app registers its App Attest key once, then every use of points is a request signed
/// with an assertion over its method, path, a one-time challenge and its exact body, which the backend checks
/// before it spends. The backend knows who is spending from the app's own sign-in (the session token sent in
/// `Authorization`), never from a field the app fills in.
public actor PointsService {
    /// What the server said about a use of points.
    public enum Outcome: Sendable, Hashable {
        /// Spent; the balance after it.
        case spent(balance: Int)
        /// Refused, with the server's error code (`insufficientPoints`, `invalidAssertion`, …).
        case refused(code: String, status: Int)
    }

    /// Thrown by the header provider when nobody is signed in: no request is sent.
    public struct SignedOut: Error, Sendable {}

    let client: AttestedClient

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - transport: How requests reach the server (a pinned `URLSession` in the app).
    ///   - device: The App Attest device (`DeviceCheckAppAttestDevice()` in the app).
    ///   - secrets: Where the App Attest key id is kept (`KeychainStore()` in the app).
    ///   - sessions: The signed-in session, whose token authenticates every request.
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        sessions: SessionStore
    ) {
        client = AttestedClient(
            transport: transport, device: device, secrets: secrets, account: "points",
            headers: {
                guard let session = try await sessions.load() else { throw SignedOut() }
                return [HTTPField(name: "Authorization", value: "Bearer \(session.token)")]
            })
    }

    /// Registers the device's App Attest key with the server, once per installation; later calls return the
    /// registered key id at once.
    ///
    /// - Returns: The key id.
    /// - Throws: `AttestedClientError` (`deviceUnsupported` on a device without App Attest: apply the server's
    ///   policy for unattested clients).
    @discardableResult
    public func register() async throws -> String {
        try await client.registeredKeyID()
    }

    /// Uses `amount` points with a signed request (`POST /v1/demo/points/use`); the client re-registers once when
    /// the server no longer knows the key (a reinstall, or `DCError.invalidKey`) and retries once with a fresh
    /// challenge when the kept one was used or expired.
    ///
    /// - Parameter amount: Points to use, 1 or more.
    /// - Returns: The outcome.
    /// - Throws: `AttestedClientError` when no answer came back (`credentialsUnavailable` when signed out).
    public func use(_ amount: Int) async throws -> Outcome {
        let answer = try await client.send(
            "POST", "/v1/demo/points/use", json: .object(["amount": .number(Double(amount))]))
        guard answer.status == 200, let balance = answer.number("balance") else {
            return .refused(code: answer.errorCode ?? "unexpectedResponse", status: answer.status)
        }
        return .spent(balance: Int(balance))
    }
}
