/// The one error type of ``RampartAttestService``: malformed requests, missing records, store and server failures.
///
/// A well-formed request that the service does not trust (a used challenge, a bad signature, an unknown key) is not
/// an error but a ``Refusal``. Errors compare by ``code`` only; ``code``'s description is the stable `error` string
/// the HTTP API returns. ``description`` never holds request bytes, challenges, assertions or keys.
public struct AttestServiceError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable, CaseIterable {
            case invalidJSON
            case missingField
            case invalidField
            case invalidBase64
            case bodyTooLarge
            case lengthRequired
            case notFound
            case methodNotAllowed
            case keyNotFound
            case rateLimited
            case storeFailure
            case invalidConfiguration
            case serverFailure
            case malformedRequest
            case headersTooLarge
            case requestTimeout
            case invalidTarget
            case endpointRemoved
            case invalidSession
            case invalidToken
            case tokenExpired
            case crossOriginRequest
            case unsupportedMediaType
        }

        let backing: Backing

        /// The body is not a JSON object (syntax error, wrong top-level type, trailing bytes).
        public static let invalidJSON = Code(backing: .invalidJSON)
        /// A required field is absent.
        public static let missingField = Code(backing: .missingField)
        /// A field has the wrong type, is empty, or exceeds its limit.
        public static let invalidField = Code(backing: .invalidField)
        /// A field meant to hold base64 (standard or URL-safe) does not.
        public static let invalidBase64 = Code(backing: .invalidBase64)
        /// The body is larger than the configured cap; it was not read.
        public static let bodyTooLarge = Code(backing: .bodyTooLarge)
        /// The body did not announce its length (chunked); send `Content-Length`.
        public static let lengthRequired = Code(backing: .lengthRequired)
        /// No route has this path.
        public static let notFound = Code(backing: .notFound)
        /// The path exists but not with this method.
        public static let methodNotAllowed = Code(backing: .methodNotAllowed)
        /// `GET /v1/keys/{keyId}` named a key that is not registered.
        public static let keyNotFound = Code(backing: .keyNotFound)
        /// The client exceeded a request limit (challenge issuance, unauthenticated failures); retry after
        /// ``AttestServiceError/retryAfterSeconds``.
        public static let rateLimited = Code(backing: .rateLimited)
        /// The database failed or is unreachable; nothing was acknowledged.
        public static let storeFailure = Code(backing: .storeFailure)
        /// The configuration file or a flag is invalid.
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// The HTTP server could not start (address in use, bad listen address).
        public static let serverFailure = Code(backing: .serverFailure)
        /// The request is not well-framed HTTP/1.1 (a bare LF, an obs-fold, two Content-Lengths, …): 400.
        public static let malformedRequest = Code(backing: .malformedRequest)
        /// The request head is over the server's cap: 431.
        public static let headersTooLarge = Code(backing: .headersTooLarge)
        /// The request did not arrive whole within the server's time: 408.
        public static let requestTimeout = Code(backing: .requestTimeout)
        /// A request target whose path servers read differently (a dot segment, `//`, an encoded `/`, `\` or
        /// control character, a malformed escape), or one that is not origin-form: 400.
        public static let invalidTarget = Code(backing: .invalidTarget)
        /// The route was removed (`POST /v1/assertions`): 410, with what replaces it.
        public static let endpointRemoved = Code(backing: .endpointRemoved)
        /// The session JWT in `Authorization` (the `jwt` subject source) is absent, malformed, signed by no key of the
        /// configured JWKS, or fails a claim check (issuer, audience, expiry, subject): 401. Sign in again.
        public static let invalidSession = Code(backing: .invalidSession)
        /// The Rampart access token is malformed, altered, signed by an unknown key, or for another issuer or
        /// audience: 401. Fetch a new one with `POST /v1/tokens`.
        public static let invalidToken = Code(backing: .invalidToken)
        /// The Rampart access token has expired: 401. Fetch a new one with `POST /v1/tokens`.
        public static let tokenExpired = Code(backing: .tokenExpired)

        /// A request to the internal listener that a browser could have sent for a web page (it carries `Origin`,
        /// or names a `Host` that is neither loopback nor one of `adminHosts`: DNS rebinding): 403.
        public static let crossOriginRequest = Code(backing: .crossOriginRequest)
        /// A `POST` to the internal listener without `Content-Type: application/json` (a browser sends `text/plain`
        /// and form bodies across sites without asking): 415.
        public static let unsupportedMediaType = Code(backing: .unsupportedMediaType)

        /// The code's stable name, e.g. `invalidBase64`: the `error` field of an HTTP error body.
        public var description: String { backing.rawValue }

        /// Every code, for the OpenAPI check.
        static var allCases: [Code] { Backing.allCases.map { Code(backing: $0) } }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed and what to do; safe to return to a client.
    public let reason: String
    /// Extra detail for logs (a database message); never returned to a client.
    public let detail: String
    /// For ``Code/rateLimited``: whole seconds until the request may succeed (the `Retry-After` header); else 0.
    public let retryAfterSeconds: Int
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(code: Code, reason: String, detail: String = "", retryAfterSeconds: Int = 0, file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = detail
        self.retryAfterSeconds = retryAfterSeconds
        self.file = file
        self.line = line
    }

    /// The body is not a JSON object.
    public static func invalidJSON(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidJSON, reason: reason, file: file, line: line)
    }

    /// A required field is absent.
    public static func missingField(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .missingField, reason: reason, file: file, line: line)
    }

    /// A field has the wrong type, is empty, or is too long.
    public static func invalidField(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidField, reason: reason, file: file, line: line)
    }

    /// A field is not base64.
    public static func invalidBase64(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidBase64, reason: reason, file: file, line: line)
    }

    /// The body exceeds the cap.
    public static func bodyTooLarge(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .bodyTooLarge, reason: reason, file: file, line: line)
    }

    /// The body has no `Content-Length`.
    public static func lengthRequired(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .lengthRequired, reason: reason, file: file, line: line)
    }

    /// No such route.
    public static func notFound(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .notFound, reason: reason, file: file, line: line)
    }

    /// Wrong method for the route.
    public static func methodNotAllowed(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .methodNotAllowed, reason: reason, file: file, line: line)
    }

    /// The key is not registered.
    public static func keyNotFound(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .keyNotFound, reason: reason, file: file, line: line)
    }

    /// A request limit was reached.
    ///
    /// - Parameters:
    ///   - reason: Which limit, and what to do.
    ///   - retryAfterSeconds: When to retry (at least 1).
    ///   - file: The raising file.
    ///   - line: The raising line.
    /// - Returns: The error.
    public static func rateLimited(
        _ reason: String, retryAfterSeconds: Int, file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(code: .rateLimited, reason: reason, retryAfterSeconds: max(retryAfterSeconds, 1), file: file, line: line)
    }

    /// The store failed; `detail` holds the database's message for logs.
    public static func storeFailure(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(code: .storeFailure, reason: reason, detail: detail, file: file, line: line)
    }

    /// The request target cannot be matched to a route safely.
    public static func invalidTarget(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidTarget, reason: reason, file: file, line: line)
    }

    /// The route was removed.
    public static func endpointRemoved(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .endpointRemoved, reason: reason, file: file, line: line)
    }

    /// The session JWT is absent or not acceptable.
    public static func invalidSession(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidSession, reason: reason, file: file, line: line)
    }

    /// The access token is not acceptable.
    public static func invalidToken(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidToken, reason: reason, file: file, line: line)
    }

    /// The access token has expired.
    public static func tokenExpired(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .tokenExpired, reason: reason, file: file, line: line)
    }

    /// A browser's request reached the internal listener.
    public static func crossOriginRequest(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .crossOriginRequest, reason: reason, file: file, line: line)
    }

    /// A `POST` to the internal listener is not JSON.
    public static func unsupportedMediaType(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .unsupportedMediaType, reason: reason, file: file, line: line)
    }

    /// The configuration is invalid.
    public static func invalidConfiguration(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidConfiguration, reason: reason, file: file, line: line)
    }

    /// The server could not start.
    public static func serverFailure(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .serverFailure, reason: reason, file: file, line: line)
    }
}

extension AttestServiceError: Sendable {}
