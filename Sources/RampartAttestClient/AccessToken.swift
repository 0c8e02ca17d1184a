public import Foundation

/// A short-lived Rampart access token from `POST /v1/tokens`, sent as `Rampart-Token` on routes under the `token`
/// policy (``AttestedClient/accessToken()``, ``AttestedClient/sendWithAccessToken(_:_:headers:body:)``).
///
/// It proves that a genuine app instance was attested recently for the signed-in user, not that a request was
/// signed: anyone holding it can replay it until it expires.
///
/// - Important: A bearer credential. Keep it in memory only, never log it; ``description`` leaves it out.
public struct AccessToken: Hashable {
    /// The compact JWS to send in `Rampart-Token`.
    public let token: String
    /// When the server says it expires (its `exp`), on the server's clock.
    public let expiresAt: Date
    /// When the client fetches a new one instead, on the device's clock: shortly before ``expiresAt``, corrected
    /// by the difference between the answer's `Date` header and the device's clock.
    public let refreshAt: Date

    /// Creates a token.
    ///
    /// - Parameters:
    ///   - token: The JWS.
    ///   - expiresAt: Its expiry, as the server gave it.
    ///   - refreshAt: When to replace it, on the device's clock.
    public init(token: String, expiresAt: Date, refreshAt: Date) {
        self.token = token
        self.expiresAt = expiresAt
        self.refreshAt = refreshAt
    }

    /// Whether the token is still worth sending at `now` (before ``refreshAt``).
    ///
    /// - Parameter now: The device's current time.
    /// - Returns: True until ``refreshAt``.
    public func isFresh(at now: Date) -> Bool { now < refreshAt }
}

extension AccessToken: Sendable {}

extension AccessToken: CustomStringConvertible, CustomDebugStringConvertible {
    /// The expiry, never the token.
    public var description: String { "AccessToken(expires \(expiresAt), refresh at \(refreshAt))" }
    /// As ``description``.
    public var debugDescription: String { description }
}
