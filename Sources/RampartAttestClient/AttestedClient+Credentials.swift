extension AttestedClient {
    /// Who is signed in, as the app knows them, and the header lines that authenticate them to the backend.
    ///
    /// ``user`` stays on the device: it chooses which App Attest key signs the request (one per user, since the
    /// server registers a key to the user who attested it) and which access token is used. The server takes the
    /// subject from ``headers`` only.
    public struct Credentials: Hashable {
        /// The app's own id of the signed-in user (any stable local string, e.g. the id the sign-in answered), or
        /// nil for one key whoever signs in.
        public var user: String?
        /// The app's authentication headers, e.g. `Authorization: Bearer <session token>`; a header of the same
        /// name given to a single request wins.
        public var headers: [HTTPField]

        /// Creates credentials.
        ///
        /// - Parameters:
        ///   - user: The app's id of the signed-in user, or nil.
        ///   - headers: The authentication headers.
        public init(user: String?, headers: [HTTPField]) {
            self.user = user
            self.headers = headers
        }
    }
}

extension AttestedClient.Credentials: Sendable {}

extension AttestedClient.Credentials: CustomStringConvertible, CustomDebugStringConvertible {
    /// The user and the header names, never their values (a session token is a bearer credential).
    public var description: String {
        "Credentials(user: \(user.map { "'\($0)'" } ?? "none"), headers: \(headers.map(\.name)))"
    }
    /// As ``description``.
    public var debugDescription: String { description }
}
