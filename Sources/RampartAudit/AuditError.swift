/// Why an audit could not run: the path, a limit, or a baseline file.
public struct AuditError: Error, Hashable, CustomStringConvertible {
    /// What failed.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String {
            case unreadablePath, tooManyFiles, invalidBaseline
        }
        let backing: Backing
        /// The path does not exist or cannot be read.
        public static let unreadablePath = Code(backing: .unreadablePath)
        /// The folder holds more files to audit than ``Auditor/maximumFileCount``.
        public static let tooManyFiles = Code(backing: .tooManyFiles)
        /// The baseline file is not a baseline `rampart audit --write-baseline` wrote.
        public static let invalidBaseline = Code(backing: .invalidBaseline)
        /// The code's name.
        public var description: String { backing.rawValue }
    }

    /// What failed.
    public let code: Code
    /// What was expected and what to do.
    public let reason: String
    let file: String
    let line: Int

    static func make(_ code: Code, _ reason: String, file: String = #fileID, line: Int = #line) -> AuditError {
        AuditError(code: code, reason: reason, file: file, line: line)
    }

    /// `code: reason`.
    public var description: String { "\(code): \(reason)" }

    /// Compares the codes only.
    ///
    /// - Parameters:
    ///   - lhs: One error.
    ///   - rhs: Another.
    /// - Returns: Whether the codes are equal.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    /// Hashes the code.
    ///
    /// - Parameter hasher: The hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

extension AuditError: Sendable {}
extension AuditError.Code {
    /// Every code.
    public static let all: [Self] = [.unreadablePath, .tooManyFiles, .invalidBaseline]
}
