/// The one error type of ``RampartJOSE``: a JWKS, a JWK or a compact JWS that the strict rules refuse.
///
/// Errors compare by ``code`` only. ``reason`` names the member or part at fault and what was expected; it never
/// holds a token or key bytes. A service maps these to its own errors (an unusable JWKS is a configuration error, a
/// refused token a 401).
public struct JOSEError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidKeySet
            case invalidKey
            case invalidToken
            case tokenExpired
        }

        let backing: Backing

        /// A JWKS document, or one of its keys, breaks RFC 7517 or RFC 7518 section 6, or a limit of
        /// ``JSONWebKeySet/Limits``.
        public static let invalidKeySet = Code(backing: .invalidKeySet)
        /// A key cannot be published as a JWK (``JSONWebKey/init(_:keyID:)`` with a key on another curve).
        public static let invalidKey = Code(backing: .invalidKey)
        /// A compact JWS is malformed, names an algorithm the caller does not accept, or a claim check failed.
        public static let invalidToken = Code(backing: .invalidToken)
        /// A JWT's `exp` has passed (beyond the leeway); every other check of its times is ``invalidToken``.
        public static let tokenExpired = Code(backing: .tokenExpired)

        /// The code's stable name.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong, in words a developer can act on.
    public let reason: String
    /// Extra detail for logs.
    public let detail: String
    /// The raising source file.
    public let file: String
    /// The raising source line.
    public let line: UInt

    init(code: Code, reason: String, detail: String = "", file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// A JWKS or one of its keys is refused.
    public static func invalidKeySet(_ reason: String, file: String = #fileID, line: UInt = #line) -> JOSEError {
        JOSEError(code: .invalidKeySet, reason: reason, file: file, line: line)
    }

    /// A key cannot be a JWK.
    public static func invalidKey(_ reason: String, file: String = #fileID, line: UInt = #line) -> JOSEError {
        JOSEError(code: .invalidKey, reason: reason, file: file, line: line)
    }

    /// A token is refused.
    public static func invalidToken(_ reason: String, file: String = #fileID, line: UInt = #line) -> JOSEError {
        JOSEError(code: .invalidToken, reason: reason, file: file, line: line)
    }

    /// A token has expired.
    public static func tokenExpired(_ reason: String, file: String = #fileID, line: UInt = #line) -> JOSEError {
        JOSEError(code: .tokenExpired, reason: reason, file: file, line: line)
    }
}

extension JOSEError: Sendable {}
