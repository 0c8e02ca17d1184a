/// The one error type of ``RampartCrypto``.
///
/// Errors compare by ``code`` only, so tests can write `#expect(throws: CryptoError.invalidKey)`-style checks against
/// the static codes while the thrown value still carries where and why it was raised. New codes are additive.
/// Comparison, hashing and both descriptions come from ``RampartError``.
public struct CryptoError: RampartError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidKey
            case invalidParameter
            case authenticationFailure
            case invalidEncoding
            case unsupportedAlgorithm
            case openSSLFailure
        }

        let backing: Backing

        /// A key had the wrong size, was not on its curve, or could not be decoded.
        public static let invalidKey = Code(backing: .invalidKey)
        /// A parameter (nonce size, output length, iteration count, …) was outside what the algorithm allows.
        public static let invalidParameter = Code(backing: .invalidParameter)
        /// An AEAD tag did not verify: the ciphertext, nonce, associated data or key is wrong.
        public static let authenticationFailure = Code(backing: .authenticationFailure)
        /// Bytes meant to hold a key, signature or text encoding were malformed.
        public static let invalidEncoding = Code(backing: .invalidEncoding)
        /// The algorithm or key type is not one Rampart supports.
        public static let unsupportedAlgorithm = Code(backing: .unsupportedAlgorithm)
        /// OpenSSL reported an internal failure; ``CryptoError/debugDescription`` holds its error queue.
        public static let openSSLFailure = Code(backing: .openSSLFailure)

        /// The code's stable name, e.g. `authenticationFailure`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do; never holds key bytes or raw input.
    public let reason: String
    /// Extra detail for logs (for example OpenSSL's error queue).
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

    /// A key had the wrong size, was not on its curve, or could not be decoded.
    public static func invalidKey(_ reason: String, file: String = #fileID, line: UInt = #line) -> CryptoError {
        CryptoError(code: .invalidKey, reason: reason, file: file, line: line)
    }

    /// A parameter was outside what the algorithm allows.
    public static func invalidParameter(_ reason: String, file: String = #fileID, line: UInt = #line) -> CryptoError {
        CryptoError(code: .invalidParameter, reason: reason, file: file, line: line)
    }

    /// An AEAD tag did not verify.
    public static func authenticationFailure(
        _ reason: String =
            "the authentication tag does not match: wrong key, nonce or associated data, or tampered data",
        file: String = #fileID,
        line: UInt = #line
    ) -> CryptoError {
        CryptoError(code: .authenticationFailure, reason: reason, file: file, line: line)
    }

    /// Bytes meant to hold a key, signature or encoding were malformed.
    public static func invalidEncoding(_ reason: String, file: String = #fileID, line: UInt = #line) -> CryptoError {
        CryptoError(code: .invalidEncoding, reason: reason, file: file, line: line)
    }

    /// The algorithm or key type is not supported.
    public static func unsupportedAlgorithm(
        _ reason: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> CryptoError {
        CryptoError(code: .unsupportedAlgorithm, reason: reason, file: file, line: line)
    }

    /// OpenSSL failed; `detail` carries its drained error queue.
    static func openSSLFailure(
        _ reason: String,
        detail: String,
        file: String = #fileID,
        line: UInt = #line
    ) -> CryptoError {
        CryptoError(code: .openSSLFailure, reason: reason, detail: detail, file: file, line: line)
    }
}

extension CryptoError: Sendable {}
