public import RampartAttestClient

/// Signing in against the docs' proxies (docs/examples/nginx.conf and Caddyfile), where HTTP Basic stands in for
/// the backend's authentication: the proxy checks the user name and password on every request and sets the trusted
/// `X-User-Id` that Rampart and the API read.
///
/// There is no sign-in route to call, so the app checks the credentials with one request to the open route
/// `GET /api/health` (policy `open` in docs/examples/rampart.json): the proxy answers 401 when they are wrong.
/// With your own sign-in (a session JWT for the `jwt` subject source), make a
/// ``SessionStore/Session/bearer(userID:token:)`` from its answer instead.
public enum SignIn {
    /// The open route the credentials are checked with.
    public static let checkTarget = "/api/health"

    /// Checks `user` and `password` with the proxy and returns the session to keep.
    ///
    /// - Parameters:
    ///   - user: The user name.
    ///   - password: The password.
    ///   - transport: How requests reach the proxy.
    /// - Returns: The session.
    /// - Throws: ``PointsAppError`` (`wrongCredentials` on 401, `signInFailed` otherwise), or `AttestedClientError`
    ///   (`transportFailure`) when the proxy cannot be reached.
    public static func basic(
        user: String, password: String, transport: any AttestedClientTransport
    ) async throws -> SessionStore.Session {
        let session = SessionStore.Session.basic(user: user, password: password)
        let answer = try await transport.send(
            TransportRequest(
                method: "GET", target: checkTarget,
                headers: [HTTPField(name: "Authorization", value: session.authorization)]))
        switch answer.status {
        case 200..<300: return session
        case 401: throw PointsAppError.wrongCredentials(user)
        default:
            throw PointsAppError.signInFailed(
                "GET \(checkTarget) answered \(answer.status) instead of 200 or 401; check RampartAPIBaseURL "
                    + "(the proxy's address) and that the proxy and rampart serve run")
        }
    }
}
