import Foundation
public import RampartSecretStore

/// The signed-in user's session, kept in the Keychain (``KeychainStore`` in the app): never in `UserDefaults` or a
/// file, and readable only on this device once it has been unlocked after a restart.
public struct SessionStore: Sendable {
    /// The signed-in user: who App Attest requests are for, and the `Authorization` value that authenticates them.
    public struct Session: Sendable, Hashable, CustomStringConvertible {
        /// The user's id as the app knows it: chooses the user's own App Attest key on a shared device.
        public let userID: String
        /// The `Authorization` header value the backend's authentication reads on every request: `Basic …` for the
        /// HTTP Basic stand-in of the docs' nginx and Caddy examples, `Bearer <session JWT>` for the `jwt` subject
        /// source or your own sign-in.
        public let authorization: String

        /// Creates a session.
        ///
        /// - Parameters:
        ///   - userID: The user id.
        ///   - authorization: The `Authorization` value.
        public init(userID: String, authorization: String) {
            self.userID = userID
            self.authorization = authorization
        }

        /// A session authenticated by a bearer token (a session JWT from your sign-in).
        ///
        /// - Parameters:
        ///   - userID: The user id.
        ///   - token: The token.
        /// - Returns: The session.
        public static func bearer(userID: String, token: String) -> Session {
            Session(userID: userID, authorization: "Bearer \(token)")
        }

        /// A session authenticated by HTTP Basic, the stand-in for your authentication in the docs' nginx and Caddy
        /// configurations (docs/examples/nginx.conf, Caddyfile).
        ///
        /// - Parameters:
        ///   - user: The user name.
        ///   - password: The password.
        /// - Returns: The session.
        public static func basic(user: String, password: String) -> Session {
            Session(userID: user, authorization: "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        }

        /// The user, never the credential.
        public var description: String { "Session(\(userID))" }
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
    /// - Parameter session: The session the sign-in gave.
    /// - Throws: The store's error.
    public func save(_ session: Session) async throws {
        // ThisDeviceOnly: the credential is not restored to another device from a backup.
        try await store.setSecret(
            Array(session.authorization.utf8), service: Self.service, account: session.userID,
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
            let authorization = try await store.secret(
                service: Self.service, account: String(decoding: user, as: UTF8.self))
        else { return nil }
        return Session(
            userID: String(decoding: user, as: UTF8.self), authorization: String(decoding: authorization, as: UTF8.self)
        )
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
