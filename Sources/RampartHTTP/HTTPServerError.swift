/// The one error type of ``RampartHTTP``: the server could not start.
///
/// Errors compare by ``code`` only; ``reason`` says what failed and what to do.
public struct HTTPServerError: Error, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case serverFailure
        }

        let backing: Backing

        /// The address is invalid or in use, the server is already running, or the event loop could not start.
        public static let serverFailure = Code(backing: .serverFailure)

        /// The code's stable name.
        public var description: String { backing.rawValue }
    }

    /// The stable code.
    public let code: Code
    /// What failed and what to do.
    public let reason: String
    let file: String
    let line: Int

    /// A ``Code/serverFailure``.
    ///
    /// - Parameters:
    ///   - reason: What failed and what to do.
    ///   - file: Where it was thrown.
    ///   - line: Where it was thrown.
    /// - Returns: The error.
    public static func serverFailure(_ reason: String, file: String = #fileID, line: Int = #line) -> HTTPServerError {
        HTTPServerError(code: .serverFailure, reason: reason, file: file, line: line)
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// Compares codes only.
    public static func == (lhs: HTTPServerError, rhs: HTTPServerError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension HTTPServerError: Sendable {}
