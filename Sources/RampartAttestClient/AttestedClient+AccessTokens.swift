public import Foundation

extension AttestedClient {
    /// How long before its expiry an access token is replaced: a minute, or half its lifetime when that is
    /// shorter, so a token is never sent in its last moments (clock skew, a slow network).
    public static let accessTokenRefreshMargin: TimeInterval = 60

    /// The signed-in user's access token: the one kept from an earlier call until shortly before it expires
    /// (``AccessToken/refreshAt``), else a new one from a signed `POST /v1/tokens`.
    ///
    /// Tokens are kept in memory, one per user; concurrent calls for one user share one fetch. A new key
    /// (``forgetKey()``, `unknownKey`) drops the user's token.
    ///
    /// - Returns: The token, for `Rampart-Token` on routes under the `token` policy.
    /// - Throws: ``AttestedClientError`` (`tokenRefused` with the server's code when it issues none, and the
    ///   errors of ``send(_:_:headers:body:)``).
    public func accessToken() async throws -> AccessToken {
        try await accessToken(try await currentCredentials(for: "POST /v1/tokens"), refresh: false)
    }

    /// Fetches a new access token for the signed-in user now, replacing the kept one (after the server refused it).
    ///
    /// - Returns: The new token.
    /// - Throws: ``AttestedClientError``, as ``accessToken()``.
    @discardableResult
    public func refreshAccessToken() async throws -> AccessToken {
        try await accessToken(try await currentCredentials(for: "POST /v1/tokens"), refresh: true)
    }

    /// Drops the signed-in user's kept access token (at sign-out; the next ``accessToken()`` fetches one).
    ///
    /// - Throws: ``AttestedClientError`` (`credentialsUnavailable`).
    public func forgetAccessToken() async throws {
        accessTokens[slot(for: try await currentCredentials())] = nil
    }

    /// Sends a request with the signed-in user's access token in `Rampart-Token` instead of signing it, for
    /// routes under the `token` policy (frequent reads).
    ///
    /// When the server refuses the token (`tokenExpired`, `invalidToken`, or `wrongSubject` for a token of another
    /// user), the client fetches a new one and sends the request once more; 429s are waited out.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request target: path and query as sent.
    ///   - headers: Header lines of this request; they win over the credentials' headers.
    ///   - body: The body.
    /// - Returns: The server's answer.
    /// - Throws: ``AttestedClientError``, as ``accessToken()``.
    public func sendWithAccessToken(
        _ method: String, _ target: String, headers: [HTTPField] = [], body: [UInt8] = []
    ) async throws -> ServerAnswer {
        guard target.hasPrefix("/") else {
            throw AttestedClientError.invalidRequest(
                "the request target '\(target)' does not start with '/'; pass the path and query as sent")
        }
        let upper = method.uppercased()
        var refreshed = false
        while true {
            let credentials = try await currentCredentials(for: "\(upper) \(target)")
            let token = try await accessToken(credentials, refresh: refreshed)
            let request = TransportRequest(
                method: upper, target: target,
                headers: headers.filter { $0.name.lowercased() != Self.accessTokenHeader.lowercased() }
                    + [HTTPField(name: Self.accessTokenHeader, value: token.token)],
                body: body)
            let answer = try await exchange(request, credentials)
            guard !refreshed, answer.status == 401 || answer.status == 403,
                let code = answer.errorCode, ["tokenExpired", "invalidToken", "wrongSubject"].contains(code)
            else { return answer }
            refreshed = true
        }
    }

    /// The request header carrying an access token.
    static let accessTokenHeader = "Rampart-Token"

    /// The kept token of `credentials`' user while fresh (unless `refresh`), else a new one, one fetch at a time.
    func accessToken(_ credentials: Credentials, refresh: Bool) async throws -> AccessToken {
        let slot = slot(for: credentials)
        if !refresh, let kept = accessTokens[slot], kept.isFresh(at: clock()) { return kept }
        if let fetch = accessTokenFetches[slot] { return try await fetch.value }
        accessTokens[slot] = nil
        let fetch = Task { try await self.fetchAccessToken(credentials) }
        accessTokenFetches[slot] = fetch
        defer { accessTokenFetches[slot] = nil }
        let token = try await fetch.value
        accessTokens[slot] = token
        return token
    }

    /// `POST /v1/tokens` signed with the user's key (`{}` as `application/json`), read as an ``AccessToken``.
    private func fetchAccessToken(_ credentials: Credentials) async throws -> AccessToken {
        let answer = try await send(
            "POST", "/v1/tokens", headers: [HTTPField(name: "Content-Type", value: "application/json")],
            body: Array("{}".utf8), as: credentials)
        let received = clock()
        guard answer.status == 200 else {
            throw AttestedClientError.tokenRefused(
                "POST /v1/tokens answered \(answer.status) \(answer.errorCode ?? "")"
                    + (answer.message.map { ": \($0)" } ?? "")
                    + "; check that the service issues tokens (its \"tokens\" configuration) and the app's "
                    + "authentication",
                detail: answer.errorCode ?? "")
        }
        guard let token = answer.field("token"), !token.isEmpty, let expiryText = answer.field("expiresAt"),
            let expiresAt = Self.date(iso8601: expiryText)
        else {
            throw AttestedClientError.unexpectedResponse(
                "POST /v1/tokens answered 200 without a token and an ISO 8601 expiresAt; check the server URL")
        }
        // The server's expiry on the device's clock: the answer's Date says how far apart the clocks are.
        let serverNow = answer.header("Date").flatMap(RetryPolicy.date(http:)) ?? received
        let lifetime = expiresAt.timeIntervalSince(serverNow)
        guard lifetime > 0 else {
            throw AttestedClientError.unexpectedResponse(
                "POST /v1/tokens answered a token that expired at \(expiryText), before the answer's own Date; "
                    + "check the server's clock")
        }
        let margin = min(Self.accessTokenRefreshMargin, lifetime / 2)
        return AccessToken(
            token: token, expiresAt: expiresAt, refreshAt: received.addingTimeInterval(lifetime - margin))
    }

    /// An RFC 3339 date-time (`2026-12-01T12:00:00Z`, fractional seconds allowed).
    static func date(iso8601 text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}
