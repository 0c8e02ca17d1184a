public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

extension AttestedClient {
    /// The request target of a URL as it is sent: its percent-encoded path (`/` when empty) and query.
    ///
    /// - Parameter url: The request's URL.
    /// - Returns: The target, e.g. `/api/points/use?dry=1`.
    /// - Throws: ``AttestedClientError`` (`invalidRequest`) for a URL without a host.
    public static func requestTarget(of url: URL) throws -> String {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true), components.host != nil else {
            throw AttestedClientError.invalidRequest(
                "'\(url)' is not an absolute http(s) URL; sign a request for the backend's full URL")
        }
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        return components.percentEncodedQuery.map { "\(path)?\($0)" } ?? path
    }

    /// Signs a `URLRequest` for an app that sends requests itself: the returned request carries `Rampart-Key-Id`,
    /// `Rampart-Challenge`, `Rampart-Assertion` and `Content-Digest` over its method, URL path and query, and
    /// `httpBody`, plus the client's header provider's headers it does not already set.
    ///
    /// The challenge is the kept `Rampart-Next-Challenge` or a fresh one. Send requests signed with one key in the
    /// order they were signed, and hand each answer to ``keepNextChallenge(from:)``; ``send(_:_:headers:body:)``
    /// does all of that (and the retries) itself.
    ///
    /// - Parameter request: The request, with its final URL, method and body.
    /// - Returns: The signed request.
    /// - Throws: ``AttestedClientError`` (`invalidRequest` for a body stream, which cannot be digested before it is
    ///   sent, or a URL without a host; `deviceFailure`, …).
    public func signed(_ request: URLRequest) async throws -> URLRequest {
        guard let url = request.url else {
            throw AttestedClientError.invalidRequest("the URLRequest has no URL; set it before signing")
        }
        guard request.httpBodyStream == nil else {
            throw AttestedClientError.invalidRequest(
                "the URLRequest has a body stream; set httpBody instead, so its digest can be signed")
        }
        let target = try Self.requestTarget(of: url)
        let method = request.httpMethod ?? "GET"
        let credentials = try await currentCredentials(for: "\(method) \(target)")
        let key = try await registeredKeyID(credentials)
        let challenge = try await takeChallenge(for: key, fresh: false, credentials)
        let signedRequest = try await sign(
            method, target, headers: [], body: request.httpBody.map(Array.init) ?? [], keyID: key,
            challenge: challenge)
        var result = request
        result.httpMethod = signedRequest.method
        for field in signedRequest.signatureHeaders { result.setValue(field.value, forHTTPHeaderField: field.name) }
        for field in credentials.headers where result.value(forHTTPHeaderField: field.name) == nil {
            result.setValue(field.value, forHTTPHeaderField: field.name)
        }
        return result
    }

    /// Keeps the `Rampart-Next-Challenge` of an answer to a request made with ``signed(_:)``, for the next one.
    ///
    /// - Parameters:
    ///   - response: The answer.
    ///   - request: The signed request it answers (its `Rampart-Key-Id` names the key).
    public func keepNextChallenge(from response: HTTPURLResponse, to request: URLRequest) {
        guard let key = request.value(forHTTPHeaderField: "Rampart-Key-Id"),
            let next = response.value(forHTTPHeaderField: ServerAnswer.nextChallengeHeader)
        else { return }
        keepNextChallenge(next, for: key)
    }
}
