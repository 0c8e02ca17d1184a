import RampartASN1

/// The one error type of ``RampartX509``.
///
/// Errors compare by ``code`` only. `description` never holds raw input; ``detail`` may.
public struct X509Error: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidDER
            case invalidPEM
            case invalidCertificate
            case unsupported
            case limitExceeded
        }

        let backing: Backing

        /// The bytes are not strict DER (bad length, indefinite form, trailing bytes, non-minimal integer, …).
        public static let invalidDER = Code(backing: .invalidDER)
        /// The text is not well-formed PEM.
        public static let invalidPEM = Code(backing: .invalidPEM)
        /// The DER is well-formed but is not a valid X.509 certificate (wrong structure or values).
        public static let invalidCertificate = Code(backing: .invalidCertificate)
        /// A feature Rampart does not implement.
        public static let unsupported = Code(backing: .unsupported)
        /// An input exceeded a DoS limit (nesting depth, length, element count).
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

    /// The same failure in this module's type, for errors of RampartASN1's DER and PEM readers: `invalidDER`,
    /// `invalidPEM` and `limitExceeded` keep their code, reason, detail and raising location.
    ///
    /// - Parameter error: The reader's error.
    init(_ error: ASN1Error) {
        let code: Code =
            switch error.code {
            case .invalidPEM: .invalidPEM
            case .limitExceeded: .limitExceeded
            default: .invalidDER
            }
        self.init(code: code, reason: error.reason, detail: error.detail, file: error.file, line: error.line)
    }

    /// Malformed DER.
    public static func invalidDER(_ reason: String, file: String = #fileID, line: UInt = #line) -> X509Error {
        X509Error(code: .invalidDER, reason: reason, file: file, line: line)
    }

    /// Malformed PEM.
    public static func invalidPEM(_ reason: String, file: String = #fileID, line: UInt = #line) -> X509Error {
        X509Error(code: .invalidPEM, reason: reason, file: file, line: line)
    }

    /// Not a valid certificate.
    public static func invalidCertificate(_ reason: String, file: String = #fileID, line: UInt = #line) -> X509Error {
        X509Error(code: .invalidCertificate, reason: reason, file: file, line: line)
    }

    /// Not supported.
    public static func unsupported(_ reason: String, file: String = #fileID, line: UInt = #line) -> X509Error {
        X509Error(code: .unsupported, reason: reason, file: file, line: line)
    }

    /// A DoS limit was exceeded.
    public static func limitExceeded(_ reason: String, file: String = #fileID, line: UInt = #line) -> X509Error {
        X509Error(code: .limitExceeded, reason: reason, file: file, line: line)
    }
}

extension X509Error: Sendable {}
