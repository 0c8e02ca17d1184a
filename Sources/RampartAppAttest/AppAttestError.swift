/// The one error type of ``RampartAppAttest``: thrown for malformed or unsupported input.
///
/// Well-formed input that fails a security check is not an error: verifiers return an ``AttestationVerdict``,
/// ``AssertionVerdict`` or ``ReceiptVerdict`` carrying a reason code instead. Errors compare by ``code`` only, so tests
/// can write `#expect(throws: AppAttestError.malformedCBOR)`-style checks while the thrown value still carries where and
/// why it was raised. New codes are additive.
public struct AppAttestError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case malformedCBOR
            case limitExceeded
            case malformedAuthenticatorData
            case malformedAttestationObject
            case unsupportedFormat
            case malformedAssertion
            case malformedCertificate
            case malformedReceipt
            case invalidArgument
            case openSSLFailure
        }

        let backing: Backing

        /// The bytes are not the strict CBOR subset App Attest uses (RFC 8949 with definite lengths, shortest
        /// arguments, unique map keys and no trailing bytes).
        public static let malformedCBOR = Code(backing: .malformedCBOR)
        /// The input is larger, deeper or has more items than the named limits allow (a denial-of-service bound).
        public static let limitExceeded = Code(backing: .limitExceeded)
        /// The authenticator data is truncated, has trailing bytes or a malformed credential or extension block.
        public static let malformedAuthenticatorData = Code(backing: .malformedAuthenticatorData)
        /// The attestation object lacks `fmt`, `attStmt`, `authData`, `x5c` or `receipt`, or one has the wrong type.
        public static let malformedAttestationObject = Code(backing: .malformedAttestationObject)
        /// The attestation statement format is not `apple-appattest`.
        public static let unsupportedFormat = Code(backing: .unsupportedFormat)
        /// The assertion is not a CBOR map of `signature` and `authenticatorData` byte strings.
        public static let malformedAssertion = Code(backing: .malformedAssertion)
        /// A certificate in `x5c`, or its nonce extension, could not be parsed.
        public static let malformedCertificate = Code(backing: .malformedCertificate)
        /// The receipt is not a CMS SignedData holding App Attest receipt attributes.
        public static let malformedReceipt = Code(backing: .malformedReceipt)
        /// A configuration value or argument (key identifier, team id, public key, hash length) is unusable.
        public static let invalidArgument = Code(backing: .invalidArgument)
        /// OpenSSL reported an internal failure; ``AppAttestError/debugDescription`` holds its error queue.
        public static let openSSLFailure = Code(backing: .openSSLFailure)

        /// The code's stable name, e.g. `malformedCBOR`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do; never holds key bytes or raw input.
    public let reason: String
    /// Extra detail for logs (for example OpenSSL's error queue or a byte offset).
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

    /// The bytes are not strict CBOR.
    public static func malformedCBOR(_ reason: String, file: String = #fileID, line: UInt = #line) -> AppAttestError {
        AppAttestError(code: .malformedCBOR, reason: reason, file: file, line: line)
    }

    /// A named size, depth or count limit was exceeded.
    public static func limitExceeded(_ reason: String, file: String = #fileID, line: UInt = #line) -> AppAttestError {
        AppAttestError(code: .limitExceeded, reason: reason, file: file, line: line)
    }

    /// The authenticator data is malformed.
    public static func malformedAuthenticatorData(
        _ reason: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .malformedAuthenticatorData, reason: reason, file: file, line: line)
    }

    /// The attestation object is malformed.
    public static func malformedAttestationObject(
        _ reason: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .malformedAttestationObject, reason: reason, file: file, line: line)
    }

    /// The attestation statement format is not `apple-appattest`.
    public static func unsupportedFormat(
        _ reason: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .unsupportedFormat, reason: reason, file: file, line: line)
    }

    /// The assertion is malformed.
    public static func malformedAssertion(
        _ reason: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .malformedAssertion, reason: reason, file: file, line: line)
    }

    /// A certificate or one of its extensions is malformed.
    public static func malformedCertificate(
        _ reason: String,
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .malformedCertificate, reason: reason, detail: detail, file: file, line: line)
    }

    /// The receipt is malformed.
    public static func malformedReceipt(
        _ reason: String,
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .malformedReceipt, reason: reason, detail: detail, file: file, line: line)
    }

    /// An argument or configuration value is unusable.
    public static func invalidArgument(
        _ reason: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .invalidArgument, reason: reason, file: file, line: line)
    }

    /// OpenSSL failed; `detail` carries its drained error queue.
    static func openSSLFailure(
        _ reason: String,
        detail: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> AppAttestError {
        AppAttestError(code: .openSSLFailure, reason: reason, detail: detail, file: file, line: line)
    }
}

extension AppAttestError: Sendable {}
