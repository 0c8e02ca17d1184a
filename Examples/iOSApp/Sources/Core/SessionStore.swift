import Foundation
public import RampartSecretStore

/// The signed-in user's session token, kept in the Keychain (``KeychainStore`` in the app): never in
/// `UserDefaults` or a file, and readable only on this device once it has been unlocked after a restart.
public struct SessionStore: Sendable {
    /// The signed-in user: who App Attest requests are for, and the token the backend gave at sign-in.
    public struct Session: Sendable, Hashable {
        /// The backend's user id.
        public let userID: String
        /// The backend's session token.
        public let token: String

        /// Creates a session.
        ///
        /// - Parameters:
        ///   - userID: The user id.
        ///   - token: The token.
        public init(userID: String, token: String) {
            self.userID = userID
            self.token = token
        }
    }

    /// The Keychain service the session is stored under.
    public static let service = "com.example.rampart.points.session"

    let store: any SecretStore

    /// Creates the store.
    ///
    /// - Parameter store: The secret store: `KeychainStore()` in the app.
    public init(store: any SecretStore) { self.store = store }

    /// Keeps a new session, replacing any previous one.
    ///
    /// - Parameter session: The session the backend issued.
    /// - Throws: The store's error.
    public func save(_ session: Session) async throws {
        // ThisDeviceOnly: the token is not restored to another device from a backup.
        try await store.setSecret(
            Array(session.token.utf8), service: Self.service, account: session.userID,
            accessibility: .afterFirstUnlockThisDeviceOnly)
        try await store.setSecret(
            Array(session.userID.utf8), service: Self.service, account: "current-user",
            accessibility: .afterFirstUnlockThisDeviceOnly)
    }

    /// The session kept by ``save(_:)``, or nil when signed out.
    ///
    /// - Returns: The session.
    /// - Throws: The store's error.
    public func load() async throws -> Session? {
        guard let user = try await store.secret(service: Self.service, account: "current-user"),
            let token = try await store.secret(service: Self.service, account: String(decoding: user, as: UTF8.self))
        else { return nil }
        return Session(userID: String(decoding: user, as: UTF8.self), token: String(decoding: token, as: UTF8.self))
    }

    /// Forgets the session (sign out).
    ///
    /// - Throws: The store's error.
    public func clear() async throws {
        if let session = try await load() {
            try await store.deleteSecret(service: Self.service, account: session.userID)
        }
        try await store.deleteSecret(service: Self.service, account: "current-user")
    }
}
