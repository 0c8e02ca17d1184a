public import RampartRequestSigning

/// A server's answer, with its error code read from the body or the `Rampart-Error` header.
public struct ServerAnswer: Hashable {
    /// The header carrying a refusal's code on gateway answers (nginx's `auth_request` passes no body).
    public static let errorHeader = "Rampart-Error"
    /// The header carrying the challenge for the next signed request.
    public static let nextChallengeHeader = "Rampart-Next-Challenge"

    /// The HTTP status.
    public let status: Int
    /// The response headers, names lower-cased.
    public let headers: [String: String]
    /// The raw body.
    public let body: [UInt8]
    /// The body as JSON, when it is JSON.
    public let json: JSONValue?

    /// Wraps a transport answer.
    ///
    /// - Parameter response: The raw answer.
    public init(_ response: TransportResponse) {
        status = response.status
        headers = response.headers
        body = response.body
        json = try? JSONValue(parsing: response.body)
    }

    /// The refusal's code, e.g. `challengeUsed`: the body's `error`, else the `Rampart-Error` header.
    public var errorCode: String? { field("error") ?? header(Self.errorHeader) }

    /// The `message` of an error body.
    public var message: String? { field("message") }

    /// The `Rampart-Next-Challenge` header: the challenge the next signed request may use.
    public var nextChallenge: String? { header(Self.nextChallengeHeader) }

    /// A response header (case-insensitive name).
    ///
    /// - Parameter name: The header name.
    /// - Returns: Its value.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// A string field of the JSON body.
    ///
    /// - Parameter name: The field.
    /// - Returns: Its value when it is a string.
    public func field(_ name: String) -> String? {
        guard case .object(let fields)? = json, case .string(let value)? = fields[name] else { return nil }
        return value
    }

    /// A number field of the JSON body.
    ///
    /// - Parameter name: The field.
    /// - Returns: Its value when it is a number.
    public func number(_ name: String) -> Double? {
        guard case .object(let fields)? = json, case .number(let value)? = fields[name] else { return nil }
        return value
    }
}

extension ServerAnswer: Sendable {}
