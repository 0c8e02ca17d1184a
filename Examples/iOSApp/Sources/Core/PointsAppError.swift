/// The one error type of the example app's logic: what failed and what to do.
public struct PointsAppError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case signedOut
            case wrongCredentials
            case signInFailed
        }

        let backing: Backing

        /// Nobody is signed in; nothing was sent.
        public static let signedOut = Code(backing: .signedOut)
        /// The backend's authentication refused the user name and password (401 from the proxy).
        public static let wrongCredentials = Code(backing: .wrongCredentials)
        /// The sign-in check answered something else than 2xx or 401.
        public static let signInFailed = Code(backing: .signInFailed)

        /// The code's stable name.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure.
    public let code: Code
    /// What failed and what to do.
    public let reason: String

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// Compares codes only.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Nobody is signed in.
    static func signedOut() -> Self {
        Self(code: .signedOut, reason: "nobody is signed in; sign in first")
    }

    /// The credentials were refused.
    static func wrongCredentials(_ user: String) -> Self {
        Self(code: .wrongCredentials, reason: "the server refused the password for '\(user)'; check both and try again")
    }

    /// The sign-in check failed otherwise.
    static func signInFailed(_ reason: String) -> Self { Self(code: .signInFailed, reason: reason) }
}
