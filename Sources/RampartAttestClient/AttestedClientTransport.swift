public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// How ``AttestedClient`` reaches the server: one JSON `POST` or `GET` at a time.
public protocol AttestedClientTransport: Sendable {
    /// Sends one request and returns the answer, whatever its status.
    ///
    /// - Parameters:
    ///   - method: `POST` or `GET`.
    ///   - path: The path, e.g. `/v1/challenges`.
    ///   - body: The JSON body (empty for `GET`).
    /// - Returns: The status and body.
    /// - Throws: ``AttestedClientError`` (`transportFailure`) when no answer came back.
    func send(_ method: String, _ path: String, body: [UInt8]) async throws -> TransportResponse
}

/// A server's raw answer.
public struct TransportResponse: Hashable {
    /// The HTTP status.
    public var status: Int
    /// The body.
    public var body: [UInt8]

    /// Creates an answer.
    ///
    /// - Parameters:
    ///   - status: The status.
    ///   - body: The body.
    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// The transport over `URLSession` (FoundationNetworking on Linux).
///
/// - Important: Use `https://` in production. App Attest proves which app made a request; it does not hide the
///   request — that is TLS's job (see the guide's "HTTPS와 App Attest는 역할이 다르다").
public struct URLSessionTransport: AttestedClientTransport {
    /// The server's base URL, e.g. `https://api.example.com`.
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

    /// Sends one request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The path.
    ///   - body: The JSON body.
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError`` (`transportFailure`).
    public func send(_ method: String, _ path: String, body: [UInt8]) async throws -> TransportResponse {
        guard let url = URL(string: path, relativeTo: baseURL) else {
            throw AttestedClientError.transportFailure("'\(path)' is not a valid path")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        if !body.isEmpty || method == "POST" {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        do {
            let (data, response) = try await session.data(for: request)
            guard let http = response as? HTTPURLResponse else {
                throw AttestedClientError.transportFailure("the answer from \(baseURL) is not HTTP")
            }
            return TransportResponse(status: http.statusCode, body: Array(data))
        } catch let error as AttestedClientError {
            throw error
        } catch {
            throw AttestedClientError.transportFailure(
                "could not reach \(baseURL) (\(error.localizedDescription)); check the URL and that the server runs")
        }
    }
}

extension TransportResponse: Sendable {}
