import Foundation

/// A lexer for Objective-C and C source (`.m`, `.mm`, `.h`) that never traps: it splits any bytes into tokens that
/// cover the input exactly, and reports what it could not finish (an unterminated string, character literal or
/// comment, an unbalanced `#if`) as ``SwiftLexer/Problem``s with the same codes the Swift lexer uses.
///
/// It knows what the audit rules need to tell code from text: string literals (`"…"` and Objective-C's `@"…"`),
/// character literals, line and block comments, `@keywords`, and the preprocessor's conditional blocks, so that each
/// token knows whether it is compiled only in debug builds (`#ifdef DEBUG`, `#if DEBUG`, `#if defined(DEBUG)`, the
/// `#else` of `#ifndef DEBUG`, `#ifndef NDEBUG`).
///
/// The grammar followed is C11 § 6.4 "Lexical elements" (6.4.4.4 character constants, 6.4.5 string literals, 6.4.9
/// comments, 6.10 preprocessing directives as lines starting with `#`) and the Objective-C literal `@"…"`. Trigraphs
/// and a backslash-newline inside a token are not joined; raw C++ strings `R"(…)"` are lexed as an identifier and a
/// string.
public enum ObjectiveCLexer {
    /// The largest source the lexer accepts, in bytes (DoS bound: a file larger than this is reported, not lexed).
    public static let maximumInputSize = SwiftLexer.maximumInputSize
    /// The deepest nesting of `#if` blocks tracked (deeper blocks are still lexed, and counted).
    public static let maximumDirectiveDepth = 64

    /// The tokens of a source and the problems met while lexing it.
    public struct Result: Sendable {
        /// The tokens, in order; their ranges are contiguous and cover the whole input.
        public let tokens: [ObjectiveCToken]
        /// What could not be finished; empty for well-formed source.
        public let problems: [SwiftLexer.Problem]
    }

    /// Lexes `source`.
    ///
    /// Never traps and never throws: malformed input gives tokens that still cover every byte, plus problems.
    ///
    /// - Parameter source: The bytes of an Objective-C, C or header file (UTF-8 or ASCII).
    /// - Returns: The tokens and problems.
    public static func tokenize(_ source: [UInt8]) -> Result {
        guard source.count <= maximumInputSize else {
            let whole = ObjectiveCToken(kind: .unknown, range: 0..<source.count, line: 1, column: 1, isDebugOnly: false)
            return Result(tokens: [whole], problems: [SwiftLexer.Problem(code: .inputTooLarge, line: 1, column: 1)])
        }
        var lexer = CLexer(bytes: source)
        lexer.run()
        return Result(tokens: lexer.tokens, problems: lexer.problems)
    }

    /// Whether a conditional's text holds only in debug builds (true), only in release builds (false), or says
    /// nothing certain (nil): `DEBUG`, `defined(DEBUG)`, `DEBUG == 1` and `!defined(NDEBUG)` are debug; `!DEBUG` and
    /// `NDEBUG` are release; anything with `||` is uncertain.
    static func debugSense(of condition: String) -> Bool? {
        var compact = condition.filter { !$0.isWhitespace }
        guard !compact.contains("||") else { return nil }
        compact = compact.replacingOccurrences(of: "defined", with: "").filter { $0 != "(" && $0 != ")" }
        let parts = compact.components(separatedBy: "&&")
        if parts.contains(where: { ["DEBUG", "DEBUG==1", "DEBUG!=0", "!NDEBUG"].contains($0) }) { return true }
        if parts.count == 1, ["!DEBUG", "NDEBUG", "DEBUG==0", "!DEBUG==1"].contains(parts[0]) { return false }
        return nil
    }
}

/// The lexer's state: a position, line/column bookkeeping, and the stack of `#if` blocks.
private struct CLexer {
    let bytes: [UInt8]
    var position = 0
    var line = 1
    var column = 1
    var pendingContinuations = 0
    /// Whether only whitespace has been seen since the start of the line (a `#` there starts a directive).
    var atLineStart = true
    var tokens: [ObjectiveCToken] = []
    var problems: [SwiftLexer.Problem] = []

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

    /// Advances one byte; columns count Unicode scalars, `\r\n` is one line break.
    mutating func advance() {
        guard position < bytes.count else { return }
        let byte = bytes[position]
        position += 1
        if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && peek() != UInt8(ascii: "\n")) {
            line += 1
            column = 1
            pendingContinuations = 0
            atLineStart = true
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

    mutating func emit(_ kind: ObjectiveCToken.Kind, from start: Int, line startLine: Int, column startColumn: Int) {
        guard position > start else { return }
        tokens.append(
            ObjectiveCToken(
                kind: kind, range: start..<position, line: startLine, column: startColumn, isDebugOnly: isDebugOnly))
    }

    mutating func problem(_ code: SwiftLexer.Problem.Code, line: Int, column: Int) {
        problems.append(SwiftLexer.Problem(code: code, line: line, column: column))
    }

    mutating func run() {
        while position < bytes.count { lexToken() }
        for conditional in conditionals.reversed() {
            problem(.unterminatedDirective, line: conditional.line, column: conditional.column)
        }
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r") || byte == 0x0B || byte == 0x0C
    }

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$") || byte >= 0x80
    }

    static func isIdentifierContinue(_ byte: UInt8) -> Bool { isIdentifierStart(byte) || isDigit(byte) }

    static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// C's operators, longest first (maximal munch over this list only, so `=-1` is `=` then `-`).
    static let operators: [[UInt8]] = [
        "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "+=", "-=", "*=", "/=",
        "%=", "&=", "^=", "|=", "##", "+", "-", "*", "/", "%", "=", "<", ">", "!", "&", "|", "^", "~", "?", ".",
    ].map { Array($0.utf8) }

    mutating func lexToken() {
        let start = position
        let startLine = line
        let startColumn = column
        guard let byte = peek() else { return }
        let lineStart = atLineStart
        if !Self.isSpace(byte) { atLineStart = false }
        switch byte {
        case _ where Self.isSpace(byte):
            while let next = peek(), Self.isSpace(next) { advance() }
            emit(.whitespace, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "\\") where peek(1) == UInt8(ascii: "\n") || peek(1) == UInt8(ascii: "\r"):
            // A line continuation: whitespace (and the next line does not start a directive).
            advance(peek(1) == UInt8(ascii: "\r") && peek(2) == UInt8(ascii: "\n") ? 3 : 2)
            atLineStart = false
            emit(.whitespace, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
            while let next = peek(), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") { advance() }
            emit(.lineComment, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
            advance(2)
            var closed = false
            while position < bytes.count {
                if peek() == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                    advance(2)
                    closed = true
                    break
                }
                advance()
            }
            if !closed { problem(.unterminatedBlockComment, line: startLine, column: startColumn) }
            // A comment is a space to the preprocessor: `/* … */ #define` is still a directive.
            atLineStart = lineStart
            emit(.blockComment, from: start, line: startLine, column: startColumn)
        case UInt8(ascii: "\""):
            lexQuoted(UInt8(ascii: "\""), kind: .stringLiteral, prefix: 0)
        case UInt8(ascii: "'"):
            lexQuoted(UInt8(ascii: "'"), kind: .characterLiteral, prefix: 0)
        case UInt8(ascii: "@"):
            if peek(1) == UInt8(ascii: "\"") {
                lexQuoted(UInt8(ascii: "\""), kind: .stringLiteral, prefix: 1)
            } else if let next = peek(1), Self.isIdentifierStart(next) {
                advance()
                while let next = peek(), Self.isIdentifierContinue(next) { advance() }
                emit(.atKeyword, from: start, line: startLine, column: startColumn)
            } else {
                advance()
                emit(.punctuation, from: start, line: startLine, column: startColumn)
            }
        case UInt8(ascii: "#") where lineStart:
            lexDirective(start: start, line: startLine, column: startColumn)
        case _ where Self.isDigit(byte) || (byte == UInt8(ascii: ".") && peek(1).map(Self.isDigit) == true):
            while let next = peek() {
                if Self.isIdentifierContinue(next) || next == UInt8(ascii: ".") {
                    let isExponent =
                        next == UInt8(ascii: "e") || next == UInt8(ascii: "E") || next == UInt8(ascii: "p")
                        || next == UInt8(ascii: "P")
                    advance()
                    if isExponent, let sign = peek(), sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                        advance()
                    }
                } else {
                    break
                }
            }
            emit(.number, from: start, line: startLine, column: startColumn)
        case _ where Self.isIdentifierStart(byte):
            while let next = peek(), Self.isIdentifierContinue(next) { advance() }
            emit(.identifier, from: start, line: startLine, column: startColumn)
        default:
            if let length = Self.operators.first(where: { matches($0) })?.count {
                advance(length)
                emit(.operator, from: start, line: startLine, column: startColumn)
            } else if byte < 0x80, byte >= 0x20 {
                advance()
                emit(.punctuation, from: start, line: startLine, column: startColumn)
            } else {
                advance()
                emit(.unknown, from: start, line: startLine, column: startColumn)
            }
        }
    }

    func matches(_ text: [UInt8]) -> Bool {
        for (offset, byte) in text.enumerated() where peek(offset) != byte { return false }
        return true
    }

    /// A string or character literal: `prefix` bytes (`@`), the quote, escapes, the closing quote. A literal ends
    /// at an unescaped line break (C has no multi-line literals), reported as unterminated.
    mutating func lexQuoted(_ quote: UInt8, kind: ObjectiveCToken.Kind, prefix: Int) {
        let start = position
        let startLine = line
        let startColumn = column
        advance(prefix + 1)
        var closed = false
        while let byte = peek() {
            if byte == quote {
                advance()
                closed = true
                break
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            if byte == UInt8(ascii: "\\") {
                advance()
                // A backslash-newline continues the literal on the next line.
                if peek() == UInt8(ascii: "\r"), peek(1) == UInt8(ascii: "\n") { advance() }
                advance()
                continue
            }
            advance()
        }
        atLineStart = false
        if !closed { problem(.unterminatedString, line: startLine, column: startColumn) }
        emit(kind, from: start, line: startLine, column: startColumn)
    }

    /// A `#` at the start of a line: the directive's keyword, tracked when it is a conditional; the free text of
    /// `#pragma`, `#error`, `#warning`, `#line` and `#ident` as one token.
    mutating func lexDirective(start: Int, line startLine: Int, column startColumn: Int) {
        advance()
        while let next = peek(), next == UInt8(ascii: " ") || next == UInt8(ascii: "\t") { advance() }
        let nameStart = position
        while let next = peek(), Self.isIdentifierContinue(next) { advance() }
        let name = String(decoding: bytes[nameStart..<position], as: UTF8.self)
        switch name {
        case "if", "ifdef", "ifndef":
            var condition = restOfLine()
            if name == "ifdef" { condition = "defined(\(condition))" }
            if name == "ifndef" { condition = "!defined(\(condition))" }
            let sense = ObjectiveCLexer.debugSense(of: condition)
            if conditionals.count < ObjectiveCLexer.maximumDirectiveDepth {
                conditionals.append(
                    Conditional(
                        branchIsDebug: sense == true, elseIsDebug: sense == false, line: startLine,
                        column: startColumn))
            } else {
                untrackedDepth += 1
            }
            emit(.directive, from: start, line: startLine, column: startColumn)
        case "elif", "else":
            if untrackedDepth == 0 {
                if let last = conditionals.last {
                    conditionals[conditionals.count - 1].branchIsDebug =
                        name == "else" ? last.elseIsDebug : ObjectiveCLexer.debugSense(of: restOfLine()) == true
                } else {
                    problem(.unbalancedDirective, line: startLine, column: startColumn)
                }
            }
            emit(.directive, from: start, line: startLine, column: startColumn)
        case "endif":
            if untrackedDepth > 0 {
                untrackedDepth -= 1
                emit(.directive, from: start, line: startLine, column: startColumn)
            } else if conditionals.isEmpty {
                problem(.unbalancedDirective, line: startLine, column: startColumn)
                emit(.directive, from: start, line: startLine, column: startColumn)
            } else {
                // The `#endif` itself still belongs to the block.
                emit(.directive, from: start, line: startLine, column: startColumn)
                conditionals.removeLast()
            }
        case "pragma", "error", "warning", "line", "ident":
            emit(.preprocessor, from: start, line: startLine, column: startColumn)
            let textStart = position
            let textLine = line
            let textColumn = column
            while let next = peek(), next != UInt8(ascii: "\n"), next != UInt8(ascii: "\r") { advance() }
            emit(.preprocessorText, from: textStart, line: textLine, column: textColumn)
        default:
            emit(.preprocessor, from: start, line: startLine, column: startColumn)
        }
    }

    /// The text from the current position to the end of the line or a comment (not consumed).
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
}
