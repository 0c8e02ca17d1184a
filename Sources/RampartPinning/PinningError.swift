/// The one error type of ``RampartPinning``: a configuration could not be read or written.
///
/// A pin *mismatch* is not an error: it is a ``PinningDecision`` that refuses the connection. Errors compare by
/// ``code`` only; `description` never holds the configuration's raw text, ``detail`` may hold more for logs.
public struct PinningError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidConfiguration
            case invalidPin
            case unsupportedFormat
            case limitExceeded
        }

        let backing: Backing

        /// The configuration is not a well-formed Info.plist or Rampart JSON pin configuration.
        public static let invalidConfiguration = Code(backing: .invalidConfiguration)
        /// A pin is not the base64 of a 32-byte SHA-256 digest.
        public static let invalidPin = Code(backing: .invalidPin)
        /// The configuration uses something the target format cannot express (for example report-only mode in an
        /// Info.plist), or the input is in no format Rampart reads.
        public static let unsupportedFormat = Code(backing: .unsupportedFormat)
        /// The configuration is larger than the DoS limits allow.
        public static let limitExceeded = Code(backing: .limitExceeded)

        /// The code's stable name, e.g. `invalidPin`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// What went wrong and what to do.
    public let reason: String
    /// Extra detail for logs.
    public let detail: String
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(code: Code, reason: String, detail: String = "", file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// The configuration is malformed.
    public static func invalidConfiguration(
        _ reason: String,
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> PinningError {
        PinningError(code: .invalidConfiguration, reason: reason, detail: detail, file: file, line: line)
    }

    /// A pin is malformed.
    public static func invalidPin(_ reason: String, file: String = #fileID, line: UInt = #line) -> PinningError {
        PinningError(code: .invalidPin, reason: reason, file: file, line: line)
    }

    /// The format cannot express the configuration, or is unknown.
    public static func unsupportedFormat(_ reason: String, file: String = #fileID, line: UInt = #line) -> PinningError {
        PinningError(code: .unsupportedFormat, reason: reason, file: file, line: line)
    }

    /// A DoS limit was exceeded.
    public static func limitExceeded(_ reason: String, file: String = #fileID, line: UInt = #line) -> PinningError {
        PinningError(code: .limitExceeded, reason: reason, file: file, line: line)
    }
}

extension PinningError: Sendable {}
