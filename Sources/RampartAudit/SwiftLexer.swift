/// A lexer for Swift source that never traps: it splits any bytes into tokens that cover the input exactly, and
/// reports the constructs it could not finish (an unterminated string or comment) as ``SwiftLexer/Problem``s.
///
/// It knows what the audit rules need to tell code from text: string literals (single-line, multi-line `"""`, raw
/// `#"…"#` with any number of `#`), interpolation `\( … )` (lexed as code, nested to any depth up to
/// ``SwiftLexer/maximumNestingDepth``), line and nested block comments, and the `#if`/`#elseif`/`#else`/`#endif`
/// blocks, so that each token knows whether it is compiled only under `#if DEBUG`.
///
/// The grammar followed is The Swift Programming Language, "Lexical Structure" (string literals, comments,
/// identifiers) and "Statements › Compiler Control Statements" (conditional compilation blocks). Regular-expression
/// literals are not recognised: `/` is lexed as an operator.
public enum SwiftLexer {
    /// The largest source the lexer accepts, in bytes (DoS bound: a file larger than this is reported, not lexed).
    public static let maximumInputSize = 8 << 20
    /// The deepest nesting of interpolations and strings (DoS bound on the mode stack).
    public static let maximumNestingDepth = 64
    /// The deepest nesting of `#if` blocks tracked (deeper blocks are still lexed, and counted).
    public static let maximumDirectiveDepth = 64

    /// Something the lexer could not finish, with where it started.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// What went wrong.
        public struct Code: Hashable, Sendable, CustomStringConvertible {
            enum Backing: String {
                case unterminatedString, unterminatedBlockComment, unterminatedInterpolation
                case unbalancedDirective, unterminatedDirective, nestingTooDeep, inputTooLarge
            }
            let backing: Backing
            /// A string literal without its closing quote (a single-line string ends at the line's end).
            public static let unterminatedString = Code(backing: .unterminatedString)
            /// A `/*` without its matching `*/`.
            public static let unterminatedBlockComment = Code(backing: .unterminatedBlockComment)
            /// A `\(` inside a string without its closing `)`.
            public static let unterminatedInterpolation = Code(backing: .unterminatedInterpolation)
            /// An `#else`, `#elseif` or `#endif` with no `#if` open.
            public static let unbalancedDirective = Code(backing: .unbalancedDirective)
            /// An `#if` without its `#endif` at the end of the input.
            public static let unterminatedDirective = Code(backing: .unterminatedDirective)
            /// Strings and interpolations nested deeper than ``SwiftLexer/maximumNestingDepth``.
            public static let nestingTooDeep = Code(backing: .nestingTooDeep)
            /// An input larger than ``SwiftLexer/maximumInputSize``.
            public static let inputTooLarge = Code(backing: .inputTooLarge)
            /// The code's name, e.g. `unterminatedString`.
            public var description: String { backing.rawValue }
        }

        /// What went wrong.
        public let code: Code
        /// The 1-based line where the unfinished construct starts.
        public let line: Int
        /// The 1-based column (in Unicode scalars) where it starts.
        public let column: Int

        /// `line:column: code`.
        public var description: String { "\(line):\(column): \(code)" }
    }

    /// The tokens of a source and the problems met while lexing it.
    public struct Result: Sendable {
        /// The tokens, in order; their ranges are contiguous and cover the whole input.
        public let tokens: [SwiftToken]
        /// What could not be finished; empty for well-formed source.
        public let problems: [Problem]
    }

    /// Lexes `source`.
    ///
    /// Never traps and never throws: malformed input gives tokens that still cover every byte, plus problems.
    ///
    /// - Parameter source: The UTF-8 bytes of a Swift file.
    /// - Returns: The tokens and problems.
    public static func tokenize(_ source: [UInt8]) -> Result {
        guard source.count <= maximumInputSize else {
            let whole = SwiftToken(kind: .unknown, range: 0..<source.count, line: 1, column: 1, isDebugOnly: false)
            return Result(tokens: [whole], problems: [Problem(code: .inputTooLarge, line: 1, column: 1)])
        }
        var lexer = Lexer(bytes: source)
        lexer.run()
        return Result(tokens: lexer.tokens, problems: lexer.problems)
    }
}

extension SwiftLexer.Problem.Code {
    /// Every code, for tests and documentation.
    public static let all: [Self] = [
        .unterminatedString, .unterminatedBlockComment, .unterminatedInterpolation, .unbalancedDirective,
        .unterminatedDirective, .nestingTooDeep, .inputTooLarge,
    ]
}

/// The lexer's state: a position, the line/column bookkeeping, a stack of open strings and interpolations, and
/// the stack of `#if` blocks.
private struct Lexer {
    let bytes: [UInt8]
    var position = 0
    var line = 1
    var column = 1
    /// The continuation bytes still expected by the UTF-8 sequence being read.
    var pendingContinuations = 0
    var tokens: [SwiftToken] = []
    var problems: [SwiftLexer.Problem] = []

    /// An open string (its delimiter) or an open interpolation (its parenthesis depth and where it opened).
    enum Mode {
        case string(hashes: Int, multiline: Bool, line: Int, column: Int)
        case interpolation(depth: Int, line: Int, column: Int)
    }
    var modes: [Mode] = []

    /// One open `#if` block: whether the branch being read is compiled only in debug builds, whether the block's
    /// condition names DEBUG at all, and how it names it.
    struct Conditional {
        var branchIsDebug: Bool
        let elseIsDebug: Bool
        let line: Int
        let column: Int
    }
    var conditionals: [Conditional] = []
    var untrackedDepth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isDebugOnly: Bool { conditionals.contains { $0.branchIsDebug } }

    func peek(_ offset: Int = 0) -> UInt8? {
        let index = position + offset
        return index >= 0 && index < bytes.count ? bytes[index] : nil
    }

    /// Advances one byte, keeping line and column (columns count Unicode scalars, so the continuation bytes of a
    /// UTF-8 sequence do not advance them, but a stray continuation byte does; `\r\n` is one line break).
    mutating func advance() {
        guard position < bytes.count else { return }
        let byte = bytes[position]
        position += 1
        if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && peek() != UInt8(ascii: "\n")) {
            line += 1
            column = 1
            pendingContinuations = 0
        } else if byte & 0xC0 == 0x80, pendingContinuations > 0 {
            pendingContinuations -= 1
        } else {
            column += 1
            switch byte {
            case 0xC0...0xDF: pendingContinuations = 1
            case 0xE0...0xEF: pendingContinuations = 2
            case 0xF0...0xF7: pendingContinuations = 3
            default: pendingContinuations = 0
            }
        }
    }

    mutating func advance(_ count: Int) { for _ in 0..<count { advance() } }

    mutating func emit(_ kind: SwiftToken.Kind, from start: Int, line startLine: Int, column startColumn: Int) {
        guard position > start else { return }
        tokens.append(
            SwiftToken(
                kind: kind, range: start..<position, line: startLine, column: startColumn, isDebugOnly: isDebugOnly))
    }

    mutating func problem(_ code: SwiftLexer.Problem.Code, line: Int, column: Int) {
        problems.append(SwiftLexer.Problem(code: code, line: line, column: column))
    }

    mutating func run() {
        while position < bytes.count {
            if case .string(let hashes, let multiline, let line, let column)? = modes.last {
                lexStringContent(hashes: hashes, multiline: multiline, openLine: line, openColumn: column)
            } else {
                lexCode()
            }
        }
        for mode in modes.reversed() {
            switch mode {
            case .string(_, _, let line, let column): problem(.unterminatedString, line: line, column: column)
            case .interpolation(_, let line, let column):
                problem(.unterminatedInterpolation, line: line, column: column)
            }
        }
        for conditional in conditionals.reversed() {
            problem(.unterminatedDirective, line: conditional.line, column: conditional.column)
        }
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$") || byte >= 0x80
    }

    static func isIdentifierContinue(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (byte >= 0x30 && byte <= 0x39)
    }

    static func isOperator(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "!"),
            UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"),
            UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "~"), UInt8(ascii: "?"), UInt8(ascii: "."):
            true
        default: false
        }
    }

    /// One token of code (or the closing parenthesis of an interpolation).
    mutating func lexCode() {
        let start = position
        let startLine = line
        let startColumn = column
        guard let byte = peek() else { return }
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
            while let next = peek(),
                next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") || next == UInt8(ascii: "\n")
                    || next == UInt8(ascii: "\r") || next == 0x0B || next == 0x0C
            {
                advance()
            }
            emit(.whitespace, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
            while let next = peek(), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") { advance() }
            emit(.lineComment, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
            lexBlockComment()
        case UInt8(ascii: "\""):
            openString(hashes: 0)
        case UInt8(ascii: "#"):
            var hashes = 0
            while peek(hashes) == UInt8(ascii: "#") { hashes += 1 }
            if peek(hashes) == UInt8(ascii: "\"") {
                openString(hashes: hashes)
            } else if hashes == 1, let next = peek(1), Self.isIdentifierStart(next) {
                advance()
                while let next = peek(), Self.isIdentifierContinue(next) { advance() }
                lexPoundKeyword(from: start, line: startLine, column: startColumn)
            } else {
                advance()
                emit(.punctuation, from: start, line: startLine, column: startColumn)
            }
        case UInt8(ascii: "`"):
            advance()
            while let next = peek(), next != UInt8(ascii: "`"), next != UInt8(ascii: "\n") { advance() }
            if peek() == UInt8(ascii: "`") { advance() }
            emit(.identifier, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "("):
            advance()
            if case .interpolation(let depth, let line, let column)? = modes.last {
                modes[modes.count - 1] = .interpolation(depth: depth + 1, line: line, column: column)
            }
            emit(.punctuation, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: ")"):
            advance()
            if case .interpolation(let depth, let line, let column)? = modes.last {
                if depth == 0 {
                    modes.removeLast()
                    emit(.interpolationEnd, from: start, line: startLine, column: startColumn)
                    return
                }
                modes[modes.count - 1] = .interpolation(depth: depth - 1, line: line, column: column)
            }
            emit(.punctuation, from: start, line: startLine, column: startColumn)
        case 0x30...0x39:
            while let next = peek() {
                if Self.isIdentifierContinue(next) {
                    let isExponent =
                        next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || next == UInt8(ascii: "p")
                        || next == UInt8(ascii: "P")
                    advance()
                    if isExponent, let sign = peek(), sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+"),
                        let digit = peek(1), digit >= 0x30 && digit <= 0x39
                    {
                        advance()
                    }
                } else if next == UInt8(ascii: "."), let digit = peek(1), digit >= 0x30 && digit <= 0x39 {
                    advance()
                } else {
                    break
                }
            }
            emit(.number, from: start, line: startLine, column: startColumn)
        default:
            if Self.isIdentifierStart(byte) {
                while let next = peek(), Self.isIdentifierContinue(next) { advance() }
                emit(.identifier, from: start, line: startLine, column: startColumn)
            } else if Self.isOperator(byte) {
                advance()
                while let next = peek(), Self.isOperator(next) {
                    if next == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "/") || peek(1) == UInt8(ascii: "*") {
                        break
                    }
                    advance()
                }
                emit(.operator, from: start, line: startLine, column: startColumn)
            } else if byte < 0x80 {
                advance()
                emit(.punctuation, from: start, line: startLine, column: startColumn)
            } else {
                advance()
                emit(.unknown, from: start, line: startLine, column: startColumn)
            }
        }
    }

    /// A `/* … */` comment, nested comments included.
    mutating func lexBlockComment() {
        let start = position
        let startLine = line
        let startColumn = column
        var depth = 0
        while position < bytes.count {
            if peek() == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                depth += 1
                advance(2)
            } else if peek() == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                depth -= 1
                advance(2)
                if depth == 0 { break }
            } else {
                advance()
            }
        }
        if depth > 0 { problem(.unterminatedBlockComment, line: startLine, column: startColumn) }
        emit(.blockComment, from: start, line: startLine, column: startColumn)
    }

    /// The opening delimiter of a string: `hashes` `#`, then `"` or `"""`.
    mutating func openString(hashes: Int) {
        let start = position
        let startLine = line
        let startColumn = column
        let multiline =
            peek(hashes) == UInt8(ascii: "\"") && peek(hashes + 1) == UInt8(ascii: "\"")
            && peek(hashes + 2) == UInt8(ascii: "\"")
        advance(hashes + (multiline ? 3 : 1))
        guard modes.count < SwiftLexer.maximumNestingDepth else {
            // Too deep: the rest of the input is one unknown token, reported once.
            problem(.nestingTooDeep, line: startLine, column: startColumn)
            while position < bytes.count { advance() }
            emit(.unknown, from: start, line: startLine, column: startColumn)
            modes.removeAll()
            return
        }
        emit(.stringOpen, from: start, line: startLine, column: startColumn)
        modes.append(.string(hashes: hashes, multiline: multiline, line: startLine, column: startColumn))
    }

    /// Whether the closing delimiter of the open string starts at the current position.
    func closesString(hashes: Int, multiline: Bool) -> Int? {
        let quotes = multiline ? 3 : 1
        for index in 0..<quotes where peek(index) != UInt8(ascii: "\"") { return nil }
        for index in 0..<hashes where peek(quotes + index) != UInt8(ascii: "#") { return nil }
        return quotes + hashes
    }

    /// The text of the open string up to its end, an interpolation, or (for a single-line string) the line's end.
    mutating func lexStringContent(hashes: Int, multiline: Bool, openLine: Int, openColumn: Int) {
        let start = position
        let startLine = line
        let startColumn = column
        while let byte = peek() {
            if let length = closesString(hashes: hashes, multiline: multiline) {
                emit(.stringSegment, from: start, line: startLine, column: startColumn)
                let closeStart = position
                let closeLine = line
                let closeColumn = column
                advance(length)
                modes.removeLast()
                emit(.stringClose, from: closeStart, line: closeLine, column: closeColumn)
                return
            }
            if !multiline, byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                // A single-line string cannot span lines: report it and go on lexing the next line as code.
                emit(.stringSegment, from: start, line: startLine, column: startColumn)
                modes.removeLast()
                problem(.unterminatedString, line: openLine, column: openColumn)
                return
            }
            if byte == UInt8(ascii: "\\") {
                var marks = 0
                while marks < hashes, peek(1 + marks) == UInt8(ascii: "#") { marks += 1 }
                if marks == hashes {
                    if peek(1 + hashes) == UInt8(ascii: "(") {
                        emit(.stringSegment, from: start, line: startLine, column: startColumn)
                        let openStart = position
                        let interpolationLine = line
                        let interpolationColumn = column
                        advance(hashes + 2)
                        guard modes.count < SwiftLexer.maximumNestingDepth else {
                            problem(.nestingTooDeep, line: interpolationLine, column: interpolationColumn)
                            while position < bytes.count { advance() }
                            emit(.unknown, from: openStart, line: interpolationLine, column: interpolationColumn)
                            modes.removeAll()
                            return
                        }
                        emit(.interpolationStart, from: openStart, line: interpolationLine, column: interpolationColumn)
                        modes.append(.interpolation(depth: 0, line: interpolationLine, column: interpolationColumn))
                        return
                    }
                    // An escape: skip the backslash, the hashes and the escaped character (not a line break, so a
                    // single-line string still ends at its line).
                    advance(1 + hashes)
                    if let escaped = peek(), escaped != UInt8(ascii: "\n"), escaped != UInt8(ascii: "\r") {
                        advance()
                    }
                    continue
                }
            }
            advance()
        }
        emit(.stringSegment, from: start, line: startLine, column: startColumn)
    }

    /// `#if`, `#elseif`, `#else`, `#endif` (tracked) or another `#word` such as `#available` or `#selector`.
    mutating func lexPoundKeyword(from start: Int, line startLine: Int, column startColumn: Int) {
        let word = String(decoding: bytes[(start + 1)..<position], as: UTF8.self)
        switch word {
        case "if":
            let condition = restOfLine()
            let debug = Self.debugSense(of: condition)
            if conditionals.count < SwiftLexer.maximumDirectiveDepth {
                conditionals.append(
                    Conditional(
                        branchIsDebug: debug == true, elseIsDebug: debug == false, line: startLine,
                        column: startColumn))
            } else {
                untrackedDepth += 1
            }
        case "elseif", "else":
            if untrackedDepth > 0 { break }
            guard let last = conditionals.last else {
                problem(.unbalancedDirective, line: startLine, column: startColumn)
                break
            }
            if word == "else" {
                conditionals[conditionals.count - 1].branchIsDebug = last.elseIsDebug
            } else {
                conditionals[conditionals.count - 1].branchIsDebug = Self.debugSense(of: restOfLine()) == true
            }
        case "endif":
            if untrackedDepth > 0 {
                untrackedDepth -= 1
            } else if conditionals.isEmpty {
                problem(.unbalancedDirective, line: startLine, column: startColumn)
            } else {
                // The `#endif` token itself still belongs to the block.
                let isDebug = isDebugOnly
                conditionals.removeLast()
                tokens.append(
                    SwiftToken(
                        kind: .directive, range: start..<position, line: startLine, column: startColumn,
                        isDebugOnly: isDebug))
                return
            }
        default:
            emit(.poundKeyword, from: start, line: startLine, column: startColumn)
            return
        }
        emit(.directive, from: start, line: startLine, column: startColumn)
    }

    /// The text from the current position to the end of the line or the start of a comment (not consumed).
    func restOfLine() -> String {
        var end = position
        while end < bytes.count, bytes[end] != UInt8(ascii: "\n"), bytes[end] != UInt8(ascii: "\r") {
            if bytes[end] == UInt8(ascii: "/"), end + 1 < bytes.count,
                bytes[end + 1] == UInt8(ascii: "/") || bytes[end + 1] == UInt8(ascii: "*")
            {
                break
            }
            end += 1
        }
        return String(decoding: bytes[position..<end], as: UTF8.self)
    }

    /// Whether a condition holds only in debug builds (`DEBUG`, `DEBUG && os(iOS)`: true), only in release builds
    /// (`!DEBUG`: false), or says nothing certain about DEBUG (nil, e.g. `DEBUG || TESTING`).
    static func debugSense(of condition: String) -> Bool? {
        let compact = condition.filter { !$0.isWhitespace }
        guard !compact.contains("||") else { return nil }
        let parts = compact.split(separator: "&").map { $0.trimmingParentheses() }
        if parts.contains("DEBUG") { return true }
        if parts == ["!DEBUG"] { return false }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingParentheses() -> Substring {
        var result = self
        while result.first == "(", result.last == ")" { result = result.dropFirst().dropLast() }
        return result
    }
}
