/// The one error type of ``RampartTLS``.
///
/// Errors compare by ``code`` only, so tests can match `TLSError.Code.timedOut`-style codes while the thrown value still
/// carries where and why it was raised. New codes are additive. `description` names the endpoint the caller asked for,
/// never bytes the server sent; the OpenSSL error queue goes in ``detail``.
public struct TLSError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case invalidEndpoint
            case resolutionFailed
            case connectionFailed
            case timedOut
            case handshakeFailed
            case noCertificate
        }

        let backing: Backing

        /// The `HOST[:PORT]` text, host name or server name is malformed.
        public static let invalidEndpoint = Code(backing: .invalidEndpoint)
        /// The host name did not resolve to any address.
        public static let resolutionFailed = Code(backing: .resolutionFailed)
        /// Every resolved address refused or reset the TCP connection.
        public static let connectionFailed = Code(backing: .connectionFailed)
        /// The TCP connection or the TLS handshake did not finish within the timeout.
        public static let timedOut = Code(backing: .timedOut)
        /// The TLS handshake failed (not TLS, no common protocol version or cipher, alert from the server, …).
        public static let handshakeFailed = Code(backing: .handshakeFailed)
        /// The handshake finished but the server presented no certificate.
        public static let noCertificate = Code(backing: .noCertificate)

        /// The code's stable name, e.g. `timedOut`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do.
    public let reason: String
    /// Extra detail for logs (for example OpenSSL's error queue or `errno` text).
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

    /// A malformed endpoint or server name.
    public static func invalidEndpoint(_ reason: String, file: String = #fileID, line: UInt = #line) -> TLSError {
        TLSError(code: .invalidEndpoint, reason: reason, file: file, line: line)
    }

    /// The host did not resolve.
    public static func resolutionFailed(
        _ reason: String,
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> TLSError {
        TLSError(code: .resolutionFailed, reason: reason, detail: detail, file: file, line: line)
    }

    /// No address accepted the TCP connection.
    public static func connectionFailed(
        _ reason: String,
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> TLSError {
        TLSError(code: .connectionFailed, reason: reason, detail: detail, file: file, line: line)
    }

    /// The connection or handshake exceeded the timeout.
    public static func timedOut(_ reason: String, file: String = #fileID, line: UInt = #line) -> TLSError {
        TLSError(code: .timedOut, reason: reason, file: file, line: line)
    }

    /// The TLS handshake failed.
    public static func handshakeFailed(
        _ reason: String,
        detail: String = "",
        file: String = #fileID,
        line: UInt = #line
    ) -> TLSError {
        TLSError(code: .handshakeFailed, reason: reason, detail: detail, file: file, line: line)
    }

    /// The server presented no certificate.
    public static func noCertificate(_ reason: String, file: String = #fileID, line: UInt = #line) -> TLSError {
        TLSError(code: .noCertificate, reason: reason, file: file, line: line)
    }
}

extension TLSError: Sendable {}
