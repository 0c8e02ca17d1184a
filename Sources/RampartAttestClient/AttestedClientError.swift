/// The one error type of ``RampartAttestClient``.
///
/// A server's refusal of a protected request is not an error but a ``ServerAnswer``; these are the failures that
/// stop the client from getting an answer at all. Errors compare by ``code`` only.
public struct AttestedClientError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case deviceUnsupported
            case deviceFailure
            case transportFailure
            case unexpectedResponse
            case registrationRefused
            case secretStoreFailure
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

        /// The code's stable name.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What failed and what to do.
    public let reason: String

    init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// Compares codes only.
    public static func == (lhs: AttestedClientError, rhs: AttestedClientError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// App Attest is unavailable.
    public static func deviceUnsupported(_ reason: String) -> Self { Self(.deviceUnsupported, reason) }
    /// The device failed.
    public static func deviceFailure(_ reason: String) -> Self { Self(.deviceFailure, reason) }
    /// The transport failed.
    public static func transportFailure(_ reason: String) -> Self { Self(.transportFailure, reason) }
    /// The server's answer is not the API's.
    public static func unexpectedResponse(_ reason: String) -> Self { Self(.unexpectedResponse, reason) }
    /// The server refused the registration.
    public static func registrationRefused(_ reason: String) -> Self { Self(.registrationRefused, reason) }
    /// The secret store failed.
    public static func secretStoreFailure(_ reason: String) -> Self { Self(.secretStoreFailure, reason) }
}

extension AttestedClientError: Sendable {}
