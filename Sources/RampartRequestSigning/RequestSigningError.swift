/// The one error type of ``RampartRequestSigning``: JSON that is not I-JSON, or cannot be signed exactly.
///
/// Errors compare by ``code`` only (`RampartError`), so tests can write
/// `#expect(throws: RequestSigningError.malformedJSON(""))`. New codes are additive.
public struct RequestSigningError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case malformedJSON
            case inexactNumber
            case limitExceeded
            case invalidHeader
        }

        let backing: Backing

        /// The text is not I-JSON (RFC 7493): bad syntax, invalid UTF-8, a duplicate key, a lone surrogate, trailing
        /// text, or a number that does not fit a double.
        public static let malformedJSON = Code(backing: .malformedJSON)
        /// A JSON number that an IEEE 754 double cannot hold exactly, read under ``JSONValue/NumberPolicy/exact``: an
        /// integer beyond ±(2^53−1), a value that underflows to zero, or more significant digits than the double
        /// keeps. Its RFC 8785 canonical form would be another number, so two different payloads could
        /// share one signature.
        public static let inexactNumber = Code(backing: .inexactNumber)
        /// The text is larger or nests deeper than ``JSONValue/Limits`` allow (a denial-of-service bound).
        public static let limitExceeded = Code(backing: .limitExceeded)
        /// A part of a signed request (``RequestSignature``) is malformed: a `Content-Digest` not in the one accepted
        /// form, or a method, target or challenge that is empty, too long or holds a control character.
        public static let invalidHeader = Code(backing: .invalidHeader)

        /// The code's stable name, e.g. `malformedJSON`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do; names places in the document, never its values.
    public let reason: String
    /// Extra detail for logs, or empty.
    public let detail: String
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(code: Code, reason: String, file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = ""
        self.file = file
        self.line = line
    }

    /// The text is not I-JSON.
    public static func malformedJSON(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .malformedJSON, reason: reason, file: file, line: line)
    }

    /// A number cannot be held exactly by a double.
    public static func inexactNumber(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .inexactNumber, reason: reason, file: file, line: line)
    }

    /// A part of a signed request is malformed.
    public static func invalidHeader(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .invalidHeader, reason: reason, file: file, line: line)
    }

    /// A size or depth limit was exceeded.
    public static func limitExceeded(_ reason: String, file: String = #fileID, line: UInt = #line) -> Self {
        Self(code: .limitExceeded, reason: reason, file: file, line: line)
    }
}

extension RequestSigningError: Sendable {}
