import Foundation
public import RampartAttestClient
import RampartRequestSigning
public import RampartSecretStore

/// The backend guide's API (docs/protecting-your-backend.md, docs/examples/rampart.json) as the app calls it,
/// through the proxy that authenticates the user and asks Rampart about every request:
///
/// - `POST /api/points/use` (policy `require-assertion`): a request signed with the user's App Attest key over its
///   method, path, a one-time challenge and its exact body;
/// - `GET /api/feed/today` (policy `token`): the short-lived access token of `POST /v1/tokens` in `Rampart-Token`.
///
/// The backend knows who is calling from the app's own authentication (the session's `Authorization`), never from a
/// field the app fills in. On a shared device each user signs with their own key (``AttestedClient/Credentials``).
public actor PointsService {
    /// What the API said.
    public enum Outcome: Sendable, Hashable {
        /// Allowed through and answered by the API: its status, and the user the gateway told it about
        /// (`Rampart-Subject`, which the example's echo API, docs/examples/upstream.py, returns).
        case allowed(status: Int, subject: String?)
        /// Refused by the proxy, Rampart or the API, with the code (`Rampart-Error` or the body's `error`).
        case refused(code: String, status: Int)
    }

    /// The request target of the protected write.
    public static let useTarget = "/api/points/use"
    /// The request target of the token-policy read.
    public static let feedTarget = "/api/feed/today"

    let client: AttestedClient
    let device: any AppAttestDevice

    /// Creates the service.
    ///
    /// - Parameters:
    ///   - transport: How requests reach the proxy (a pinned `URLSession` in the app).
    ///   - device: The App Attest device (`DeviceCheckAppAttestDevice()` in the app).
    ///   - secrets: Where the App Attest key ids are kept (`KeychainStore()` in the app).
    ///   - sessions: The signed-in session, whose `Authorization` authenticates every request.
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        sessions: SessionStore
    ) {
        self.device = device
        client = AttestedClient(
            transport: transport, device: device, secrets: secrets, account: "points",
            credentials: {
                guard let session = try await sessions.load() else { throw PointsAppError.signedOut() }
                return .init(
                    user: session.userID, headers: [HTTPField(name: "Authorization", value: session.authorization)])
            })
    }

    /// Whether this device has App Attest (`DCAppAttestService.isSupported`: false in the iOS Simulator and on
    /// devices without a Secure Enclave).
    public var isAppAttestSupported: Bool { device.isSupported }

    /// Registers the signed-in user's App Attest key with the server, once per user on this device; later calls
    /// return the registered key id at once.
    ///
    /// - Returns: The key id.
    /// - Throws: `AttestedClientError` (`deviceUnsupported` without App Attest).
    @discardableResult
    public func register() async throws -> String {
        try await client.registeredKeyID()
    }

    /// Uses `amount` points with a signed request; the client re-registers once when the server no longer knows
    /// the key, and retries once with a fresh challenge when the kept one was used or expired.
    ///
    /// - Parameter amount: Points to use, 1 or more.
    /// - Returns: The outcome.
    /// - Throws: `AttestedClientError` when no answer came back (`credentialsUnavailable` when signed out).
    public func use(_ amount: Int) async throws -> Outcome {
        Self.outcome(
            try await client.send("POST", Self.useTarget, json: .object(["amount": .number(Double(amount))])))
    }

    /// Reads today's feed with the access token, fetched (a signed `POST /v1/tokens`) and kept until shortly
    /// before it expires.
    ///
    /// - Returns: The outcome.
    /// - Throws: `AttestedClientError` (`tokenRefused` when the service issues no tokens).
    public func feed() async throws -> Outcome {
        Self.outcome(try await client.sendWithAccessToken("GET", Self.feedTarget))
    }

    /// Forgets the signed-in user's access token (at sign-out); their App Attest key stays registered.
    ///
    /// - Throws: `AttestedClientError`.
    public func signOut() async throws {
        try await client.forgetAccessToken()
    }

    static func outcome(_ answer: ServerAnswer) -> Outcome {
        guard (200..<300).contains(answer.status) else {
            return .refused(code: answer.errorCode ?? "HTTP \(answer.status)", status: answer.status)
        }
        guard case .object(let fields)? = answer.json, case .object(let headers)? = fields["headers"],
            case .string(let subject)? = headers["rampart-subject"]
        else { return .allowed(status: answer.status, subject: nil) }
        return .allowed(status: answer.status, subject: subject)
    }
}
