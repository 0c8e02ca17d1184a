/// The one error type of ``RampartASN1``.
///
/// It has the shape of every Rampart module's error (RampartCrypto's `RampartError`, which this leaf module sits
/// below): a ``Code``, a ``reason`` sentence, log ``detail`` and the raising source location. Errors compare and hash
/// by ``code`` only; `description` is `code: reason` and never holds raw input.
public struct ASN1Error: Error, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidPEM
            case invalidDER
            case limitExceeded
        }

        let backing: Backing

        /// The text is not well-formed PEM (RFC 7468), or not the one block the caller asked for.
        public static let invalidPEM = Code(backing: .invalidPEM)
        /// The bytes are not strict DER (bad length, indefinite form, trailing bytes, non-minimal integer, …).
        public static let invalidDER = Code(backing: .invalidDER)
        /// An input exceeded a DoS limit of ``DER/Limits`` (nesting depth, input size) or of a value's size.
        public static let limitExceeded = Code(backing: .limitExceeded)

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

    /// Malformed PEM.
    public static func invalidPEM(_ reason: String, file: String = #fileID, line: UInt = #line) -> ASN1Error {
        ASN1Error(code: .invalidPEM, reason: reason, file: file, line: line)
    }

    /// Malformed DER.
    public static func invalidDER(_ reason: String, file: String = #fileID, line: UInt = #line) -> ASN1Error {
        ASN1Error(code: .invalidDER, reason: reason, file: file, line: line)
    }

    /// A DoS limit was exceeded.
    public static func limitExceeded(_ reason: String, file: String = #fileID, line: UInt = #line) -> ASN1Error {
        ASN1Error(code: .limitExceeded, reason: reason, file: file, line: line)
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// `ASN1Error.code: reason [detail] (file:line)`; the detail and its brackets are left out when it is empty.
    public var debugDescription: String {
        let extra = detail.isEmpty ? "" : " [\(detail)]"
        return "ASN1Error.\(code): \(reason)\(extra) (\(file):\(line))"
    }

    /// Compares codes only: where and why the errors were raised does not matter.
    ///
    /// - Parameters:
    ///   - lhs: An error.
    ///   - rhs: Another error.
    /// - Returns: Whether both have the same ``code``.
    public static func == (lhs: ASN1Error, rhs: ASN1Error) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with `==`.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension ASN1Error: Sendable {}
