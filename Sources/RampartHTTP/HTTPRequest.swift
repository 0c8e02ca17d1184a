/// One HTTP request as the router sees it: the method, the path without its query, the request target as sent,
/// lower-cased headers and the body (already capped by the server).
public struct HTTPRequest: Hashable {
    /// `GET`, `POST`, …
    public var method: String
    /// The path, e.g. `/v1/challenges`, without `?query`, percent-decoded by the server (a `%00` stays encoded).
    /// Routes match on it.
    public var path: String
    /// The request target exactly as the client sent it: path and query, percent-encoding untouched (RFC 9112 3.2).
    /// Signed requests cover these bytes (`docs/request-signature.md`).
    public var target: String
    /// Header values by lower-cased name; a field sent more than once holds its values joined by `, ` (RFC 9110
    /// 5.3).
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]
    /// The client's IP address as text, without a port (`192.0.2.1`, `2001:db8::1`), or nil when unknown (a request
    /// built in-process).
    ///
    /// This is the TCP peer: behind a reverse proxy it is the proxy's address.
    public var remoteAddress: String?

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The path; anything from `?` on is dropped.
    ///   - headers: Header values; names are lower-cased, and values of names that differ only in case are joined.
    ///   - body: The body.
    ///   - remoteAddress: The client's IP address, if known.
    ///   - target: The request target as sent; nil means `path` as given (query included).
    public init(
        method: String, path: String, headers: [String: String] = [:], body: [UInt8] = [], remoteAddress: String? = nil,
        target: String? = nil
    ) {
        self.method = method
        self.target = target ?? path
        self.path =
            path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            ?? path
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { "\($0), \($1)" })
        self.body = body
        self.remoteAddress = remoteAddress
    }
}

extension HTTPRequest {
    /// A request as the server read it: `decodedPath` already decoded (``RequestPath``) and header names already
    /// lower-cased, so nothing is done twice.
    init(
        method: String, decodedPath: String, target: String, lowercasedHeaders: [String: String], body: [UInt8],
        remoteAddress: String
    ) {
        self.method = method
        self.path = decodedPath
        self.target = target
        self.headers = lowercasedHeaders
        self.body = body
        self.remoteAddress = remoteAddress
    }
}

/// One HTTP response: status, headers and body.
public struct HTTPResponse: Hashable {
    /// The status code.
    public var status: Int
    /// Header values by name.
    public var headers: [String: String]
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - headers: Header values.
    ///   - body: The body.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as UTF-8 text (for tests and logs).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Anything that answers HTTP requests: the service's router, or a test double.
public protocol HTTPResponder: Sendable {
    /// Answers one request. Never throws: every failure is a response.
    ///
    /// - Parameter request: The request.
    /// - Returns: The response.
    func respond(to request: HTTPRequest) async -> HTTPResponse
}

extension HTTPRequest: Sendable {}

extension HTTPResponse: Sendable {}
