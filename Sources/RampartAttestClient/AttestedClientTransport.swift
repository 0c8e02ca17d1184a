public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// How ``AttestedClient`` reaches the server: one HTTP request at a time, any method, any headers.
public protocol AttestedClientTransport: Sendable {
    /// Sends one request and returns the answer, whatever its status.
    ///
    /// The transport must send ``TransportRequest/target`` exactly as given (no re-encoding of its path or query)
    /// and the body bytes unchanged: both are signed.
    ///
    /// - Parameter request: The request.
    /// - Returns: The status, headers and body.
    /// - Throws: ``AttestedClientError`` (`transportFailure`) when no answer came back.
    func send(_ request: TransportRequest) async throws -> TransportResponse
}

extension AttestedClientTransport {
    /// Sends a request with no header but `Content-Type: application/json` when there is a body.
    ///
    /// - Parameters:
    ///   - method: The method, e.g. `GET`.
    ///   - target: The request target, e.g. `/v1/demo/points/balance`.
    ///   - body: The body (empty for none).
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError`` (`transportFailure`).
    public func send(_ method: String, _ target: String, body: [UInt8]) async throws -> TransportResponse {
        try await send(
            TransportRequest(
                method: method, target: target,
                headers: body.isEmpty ? [] : [HTTPField(name: "Content-Type", value: "application/json")], body: body))
    }
}

/// One header line: a name and a value.
public struct HTTPField: Hashable {
    /// The name as written (compared case-insensitively by HTTP).
    public var name: String
    /// The value.
    public var value: String

    /// Creates a header line.
    ///
    /// - Parameters:
    ///   - name: The name.
    ///   - value: The value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// A request as the transport sends it.
public struct TransportRequest: Hashable {
    /// The method, upper case.
    public var method: String
    /// The request target as sent: path and query, percent-encoding untouched (it starts with `/`).
    public var target: String
    /// The header lines, in order.
    public var headers: [HTTPField]
    /// The body as sent (empty for none).
    public var body: [UInt8]

    /// Creates a request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request target.
    ///   - headers: The header lines.
    ///   - body: The body.
    public init(method: String, target: String, headers: [HTTPField] = [], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    /// The value of the first header named `name` (case-insensitive), if any.
    ///
    /// - Parameter name: The header name.
    /// - Returns: Its value.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// A server's raw answer.
public struct TransportResponse: Hashable {
    /// The HTTP status.
    public var status: Int
    /// The response headers, names lower-cased (a repeated header's values joined by `, `).
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// Creates an answer.
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - headers: The headers; names are lower-cased here.
    ///   - body: The body.
    public init(status: Int, headers: [String: String] = [:], body: [UInt8]) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            lowered[key] = lowered[key].map { "\($0), \(value)" } ?? value
        }
        self.headers = lowered
        self.body = body
    }
}

/// The transport over `URLSession` (FoundationNetworking on Linux).
///
/// - Important: Use `https://` in production. App Attest proves which app made a request; it does not hide the
///   request — that is TLS's job (see the guide's "HTTPS와 App Attest는 역할이 다르다").
public struct URLSessionTransport: AttestedClientTransport {
    /// The server's base URL, e.g. `https://api.example.com`; request targets replace its path.
    public let baseURL: URL
    let session: URLSession

    /// Creates a transport.
    ///
    /// - Parameters:
    ///   - baseURL: The server's base URL.
    ///   - session: The session to use; a fresh ephemeral one by default.
    public init(baseURL: URL, session: URLSession = URLSession(configuration: .ephemeral)) {
        self.baseURL = baseURL
        self.session = session
    }

    /// The `URLRequest` for `request`: the base URL's scheme, host and port with the target as given.
    ///
    /// - Parameter request: The request.
    /// - Returns: The `URLRequest`.
    /// - Throws: ``AttestedClientError`` (`invalidRequest`) when the target does not start with `/` or is not a
    ///   valid URL path and query.
    public func urlRequest(for request: TransportRequest) throws -> URLRequest {
        guard request.target.hasPrefix("/"), let url = URL(string: request.target, relativeTo: baseURL)?.absoluteURL
        else {
            throw AttestedClientError.invalidRequest(
                "'\(request.target)' is not a request target; pass the path and query, starting with '/', "
                    + "percent-encoded as it should be sent")
        }
        var urlRequest = URLRequest(url: url)
        urlRequest.httpMethod = request.method
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
            urlRequest.httpBody = Data(request.body)
        }
        return urlRequest
    }

    /// Sends one request.
    ///
    /// - Parameter request: The request.
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError`` (`transportFailure`, `invalidRequest`).
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        let urlRequest = try urlRequest(for: request)
        do {
            let (data, response) = try await session.data(for: urlRequest)
            guard let http = response as? HTTPURLResponse else {
                throw AttestedClientError.transportFailure("the answer from \(baseURL) is not HTTP")
            }
            return TransportResponse(status: http.statusCode, headers: Self.headers(of: http), body: Array(data))
        } catch let error as AttestedClientError {
            throw error
        } catch {
            throw AttestedClientError.transportFailure(
                "could not reach \(baseURL) (\(error.localizedDescription)); check the URL and that the server runs")
        }
    }

    /// The headers of an `HTTPURLResponse` as strings.
    ///
    /// - Parameter response: The response.
    /// - Returns: Name to value.
    static func headers(of response: HTTPURLResponse) -> [String: String] {
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            guard let name = name as? String else { continue }
            headers[name] = value as? String ?? "\(value)"
        }
        return headers
    }
}

extension HTTPField: Sendable {}

extension TransportRequest: Sendable {}

extension TransportResponse: Sendable {}
