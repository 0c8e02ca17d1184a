import Foundation
public import RampartAttestClient
public import RampartSecretStore

/// What the app's one screen shows and does, in plain Swift (the SwiftUI view only draws ``Screen`` and calls these
/// methods), so it is compiled and tested on Linux against a running proxy and `rampart serve`.
public actor PointsModel {
    /// What the screen shows.
    public struct Screen: Sendable, Hashable {
        /// The signed-in user, or nil.
        public var user: String?
        /// One line about the last thing that happened.
        public var status: String
        /// Whether the signed requests can be made: signed in, on a device with App Attest.
        public var canSign: Bool
    }

    let transport: any AttestedClientTransport
    let sessions: SessionStore
    let service: PointsService
    private(set) var screen = Screen(user: nil, status: "Signed out", canSign: false)

    /// Creates the model.
    ///
    /// - Parameters:
    ///   - transport: How requests reach the proxy.
    ///   - device: The App Attest device.
    ///   - secrets: The secret store (the Keychain): the session and the key ids.
    public init(transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore) {
        self.transport = transport
        sessions = SessionStore(store: secrets)
        service = PointsService(transport: transport, device: device, secrets: secrets, sessions: sessions)
    }

    /// The message shown where App Attest is unavailable.
    public static let unsupportedMessage =
        "App Attest is unavailable on this device (always so in the iOS Simulator): signed requests are not sent; "
        + "run the app on an iPhone or iPad"

    /// At launch: the session kept in the Keychain, if any.
    ///
    /// - Returns: The screen.
    public func restore() async -> Screen {
        guard let session = try? await sessions.load() else { return screen }
        return await signedIn(session, registering: false)
    }

    /// Signs in with the proxy's HTTP Basic stand-in, keeps the session in the Keychain, and registers the user's
    /// App Attest key (once per user on this device).
    ///
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password.
    /// - Returns: The screen.
    public func signIn(user: String, password: String) async -> Screen {
        do {
            let session = try await SignIn.basic(user: user, password: password, transport: transport)
            try await sessions.save(session)
            return await signedIn(session, registering: true)
        } catch {
            screen = Screen(user: nil, status: "Sign-in failed: \(Self.text(error))", canSign: false)
            return screen
        }
    }

    /// Signs out: forgets the session and the user's access token (the user's App Attest key stays registered for
    /// their next sign-in).
    ///
    /// - Returns: The screen.
    public func signOut() async -> Screen {
        try? await service.signOut()
        try? await sessions.clear()
        screen = Screen(user: nil, status: "Signed out", canSign: false)
        return screen
    }

    /// Uses points with a signed request.
    ///
    /// - Parameter amount: The points.
    /// - Returns: The screen.
    public func use(_ amount: Int) async -> Screen {
        await report("Use \(amount) points") { try await $0.use(amount) }
    }

    /// Reads the feed with the access token.
    ///
    /// - Returns: The screen.
    public func readFeed() async -> Screen {
        await report("Feed") { try await $0.feed() }
    }

    private func signedIn(_ session: SessionStore.Session, registering: Bool) async -> Screen {
        guard await service.isAppAttestSupported else {
            screen = Screen(user: session.userID, status: Self.unsupportedMessage, canSign: false)
            return screen
        }
        screen = Screen(user: session.userID, status: "Signed in as \(session.userID)", canSign: true)
        guard registering else { return screen }
        do {
            try await service.register()
            screen.status = "Signed in as \(session.userID); App Attest key registered"
        } catch {
            screen.status = "Signed in as \(session.userID); registration failed: \(Self.text(error))"
        }
        return screen
    }

    private func report(
        _ action: String, _ call: (PointsService) async throws -> PointsService.Outcome
    ) async -> Screen {
        guard screen.canSign else {
            screen.status = screen.user == nil ? "Sign in first" : Self.unsupportedMessage
            return screen
        }
        do {
            switch try await call(service) {
            case .allowed(let status, let subject):
                screen.status = "\(action): \(status), the API was told the user is \(subject ?? "unknown")"
            case .refused(let code, let status):
                screen.status = "\(action): refused, \(status) \(code)"
            }
        } catch {
            screen.status = "\(action): no answer: \(Self.text(error))"
        }
        return screen
    }

    /// An error's reason, without the noise of its type.
    static func text(_ error: any Error) -> String {
        if let error = error as? AttestedClientError { return error.reason }
        if let error = error as? PointsAppError { return error.reason }
        return "\(error)"
    }
}
