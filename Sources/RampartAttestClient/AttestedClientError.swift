/// The one error type of ``RampartAttestClient``.
///
/// A server's refusal of a protected request is not an error but a ``ServerAnswer``; these are the failures that
/// stop the client from getting an answer at all. Errors compare and hash by ``code`` only and print
/// `code: reason` (`RampartError`).
public struct AttestedClientError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case deviceUnsupported
            case deviceFailure
            case transportFailure
            case unexpectedResponse
            case registrationRefused
            case secretStoreFailure
            case invalidRequest
            case invalidKey
            case rateLimited
            case credentialsUnavailable
            case tokenRefused
        }

        let backing: Backing

        /// App Attest is not available on this device; fall back to the server's policy for unattested clients.
        public static let deviceUnsupported = Code(backing: .deviceUnsupported)
        /// The device could not generate, attest or sign with the key.
        public static let deviceFailure = Code(backing: .deviceFailure)
        /// The request did not reach the server or no answer came back.
        public static let transportFailure = Code(backing: .transportFailure)
        /// The server answered something that is not the API's JSON.
        public static let unexpectedResponse = Code(backing: .unexpectedResponse)
        /// The server refused to register the key (its `error` code is in the reason).
        public static let registrationRefused = Code(backing: .registrationRefused)
        /// The secret store holding the key id failed.
        public static let secretStoreFailure = Code(backing: .secretStoreFailure)
        /// The request cannot be signed as given: its method, target or challenge is empty, too long or holds a
        /// control character, or its target does not start with `/`. Nothing was sent.
        public static let invalidRequest = Code(backing: .invalidRequest)
        /// The device no longer has the key (`DCError.invalidKey`: the app was reinstalled or restored, or the key
        /// was invalidated); ``AttestedClient`` generates and registers a new key.
        public static let invalidKey = Code(backing: .invalidKey)
        /// The server kept answering 429 Too Many Requests past the client's retry budget, or asked to wait longer
        /// than the client waits (``AttestedClient/RetryPolicy``); try again later.
        public static let rateLimited = Code(backing: .rateLimited)
        /// The app's header provider (its own authentication to the backend, a session token) failed, so no
        /// request was sent; sign the user in again.
        public static let credentialsUnavailable = Code(backing: .credentialsUnavailable)
        /// `POST /v1/tokens` answered without a token (the service issues none, or refused the signed request; its
        /// code is in the reason and ``AttestedClientError/detail``).
        public static let tokenRefused = Code(backing: .tokenRefused)

        /// The code's stable name.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed and what to do.
    public let reason: String
    /// The underlying failure for logs (a transport error, a store error), or empty.
    public let detail: String
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(_ code: Code, _ reason: String, detail: String, file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// App Attest is unavailable.
    public static func deviceUnsupported(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.deviceUnsupported, reason, detail: detail, file: file, line: line)
    }

    /// The device failed.
    public static func deviceFailure(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.deviceFailure, reason, detail: detail, file: file, line: line)
    }

    /// The transport failed.
    public static func transportFailure(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.transportFailure, reason, detail: detail, file: file, line: line)
    }

    /// The server's answer is not the API's.
    public static func unexpectedResponse(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.unexpectedResponse, reason, detail: detail, file: file, line: line)
    }

    /// The server refused the registration.
    public static func registrationRefused(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.registrationRefused, reason, detail: detail, file: file, line: line)
    }

    /// The request cannot be signed as given.
    public static func invalidRequest(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.invalidRequest, reason, detail: detail, file: file, line: line)
    }

    /// The server's rate limit outlasted the retry budget.
    public static func rateLimited(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.rateLimited, reason, detail: detail, file: file, line: line)
    }

    /// The app's header provider failed.
    public static func credentialsUnavailable(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.credentialsUnavailable, reason, detail: detail, file: file, line: line)
    }

    /// The server issued no access token.
    public static func tokenRefused(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.tokenRefused, reason, detail: detail, file: file, line: line)
    }

    /// The device no longer has the key.
    public static func invalidKey(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.invalidKey, reason, detail: detail, file: file, line: line)
    }

    /// The secret store failed.
    public static func secretStoreFailure(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> Self {
        Self(.secretStoreFailure, reason, detail: detail, file: file, line: line)
    }
}

extension AttestedClientError: Sendable {}
