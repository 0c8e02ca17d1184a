import Foundation

/// A Swift file as the source rules see it: the tokens that are not trivia, with their texts, and the
/// bracket pairs and function bodies the rules navigate by.
struct SwiftCode {
    let tokens: [SwiftToken]
    let texts: [String]
    /// For each opening `(`, `[` or `{`, the index of its closing partner (or the end when unbalanced).
    let partner: [Int: Int]
    /// For each closing `)`, `]` or `}`, the index of its opening partner.
    let opener: [Int: Int]
    /// The token ranges of function, initializer and closure-free declaration bodies (`{` … `}`), innermost last.
    let functionBodies: [Range<Int>]
    /// For each token, the index in ``functionBodies`` of the innermost body containing it, or -1.
    let innermostBody: [Int]
    /// For each token, the index of the last identifier at or before it whose words start with `pin` (`pins`,
    /// `pinned`, `pinSet`), or -1.
    let lastPinMention: [Int]
    /// The raw lines of the file, for baseline fingerprints.
    let lines: [Substring]

    init(source: [UInt8]) {
        self.init(tokens: SwiftLexer.tokenize(source).tokens.filter { !$0.isTrivia }, source: source, isSwift: true)
    }

    /// Objective-C or C source, its tokens given the shapes the rules read: a string literal becomes an opening
    /// delimiter (`"` or `@"`), its text and its closing quote; a character literal is a number; `@keywords` and
    /// preprocessor keywords are pound keywords.
    init(objectiveC source: [UInt8]) {
        var tokens: [SwiftToken] = []
        for token in ObjectiveCLexer.tokenize(source).tokens where !token.isTrivia {
            func add(_ kind: SwiftToken.Kind, _ range: Range<Int>, column: Int) {
                guard !range.isEmpty else { return }
                tokens.append(
                    SwiftToken(
                        kind: kind, range: range, line: token.line, column: column, isDebugOnly: token.isDebugOnly))
            }
            switch token.kind {
            case .stringLiteral:
                let range = token.range
                let openLength = source[range.lowerBound] == UInt8(ascii: "@") ? 2 : 1
                let isClosed =
                    range.count > openLength && source[range.upperBound - 1] == UInt8(ascii: "\"")
                    && (range.upperBound - 2 < range.lowerBound + openLength
                        || source[range.upperBound - 2] != UInt8(ascii: "\\")
                        || (range.upperBound - 3 >= range.lowerBound + openLength
                            && source[range.upperBound - 3] == UInt8(ascii: "\\")))
                let contentEnd = isClosed ? range.upperBound - 1 : range.upperBound
                add(.stringOpen, range.lowerBound..<(range.lowerBound + openLength), column: token.column)
                add(.stringSegment, (range.lowerBound + openLength)..<contentEnd, column: token.column + openLength)
                // An unterminated literal still closes, so that rules never read past it.
                tokens.append(
                    SwiftToken(
                        kind: .stringClose, range: contentEnd..<range.upperBound, line: token.line,
                        column: token.column + (contentEnd - range.lowerBound), isDebugOnly: token.isDebugOnly))
            case .identifier: add(.identifier, token.range, column: token.column)
            case .number, .characterLiteral: add(.number, token.range, column: token.column)
            case .operator: add(.operator, token.range, column: token.column)
            case .punctuation: add(.punctuation, token.range, column: token.column)
            case .directive: add(.directive, token.range, column: token.column)
            case .atKeyword, .preprocessor: add(.poundKeyword, token.range, column: token.column)
            case .whitespace, .lineComment, .blockComment, .preprocessorText, .unknown:
                add(.unknown, token.range, column: token.column)
            }
        }
        self.init(tokens: tokens, source: source, isSwift: false)
    }

    private init(tokens: [SwiftToken], source: [UInt8], isSwift: Bool) {
        self.tokens = tokens
        self.texts = tokens.map { String(decoding: source[$0.range], as: UTF8.self) }
        self.lines = String(decoding: source, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        var partner: [Int: Int] = [:]
        var opener: [Int: Int] = [:]
        var stack: [Int] = []
        for (index, token) in tokens.enumerated() where token.kind == .punctuation {
            switch texts[index] {
            case "(", "[", "{": stack.append(index)
            case ")", "]", "}":
                if let open = stack.popLast() {
                    partner[open] = index
                    opener[index] = open
                }
            default: break
            }
        }
        for open in stack { partner[open] = tokens.count }
        self.partner = partner
        self.opener = opener
        var bodies: [Range<Int>] = []
        if !isSwift {
            // C functions and Objective-C methods: the braces at depth 0 (an @implementation has none of its own).
            var index = 0
            while index < tokens.count {
                if tokens[index].kind == .punctuation, texts[index] == "{" {
                    let close = partner[index] ?? tokens.count - 1
                    bodies.append(index..<(min(close, tokens.count - 1) + 1))
                    index = close + 1
                    continue
                }
                index += 1
            }
        }
        for (index, text) in texts.enumerated()
        where isSwift && tokens[index].kind == .identifier && (text == "func" || text == "init") {
            // The body is the first `{` after the signature at parenthesis depth 0.
            var cursor = index + 1
            while cursor < tokens.count {
                if tokens[cursor].kind == .punctuation {
                    if texts[cursor] == "(" || texts[cursor] == "[" {
                        cursor = (partner[cursor] ?? cursor) + 1
                        continue
                    }
                    if texts[cursor] == "{" {
                        bodies.append(cursor..<((partner[cursor] ?? tokens.count - 1) + 1))
                        break
                    }
                    if texts[cursor] == "}" || texts[cursor] == ";" { break }
                }
                cursor += 1
            }
        }
        self.functionBodies = bodies
        // Larger bodies first, so inner bodies overwrite the outer ones they are nested in.
        var innermost = [Int](repeating: -1, count: tokens.count)
        for (bodyIndex, body) in bodies.enumerated().sorted(by: { $0.element.count > $1.element.count }) {
            for index in body where index < tokens.count { innermost[index] = bodyIndex }
        }
        self.innermostBody = innermost
        var pins = [Int](repeating: -1, count: tokens.count)
        var last = -1
        for index in tokens.indices {
            if tokens[index].kind == .identifier, texts[index].contains("pin") || texts[index].contains("Pin"),
                SecretNames.words(texts[index]).contains(where: { $0.hasPrefix("pin") })
            {
                last = index
            }
            pins[index] = last
        }
        self.lastPinMention = pins
    }

    var count: Int { tokens.count }

    func text(_ index: Int) -> String { index >= 0 && index < texts.count ? texts[index] : "" }

    func isIdentifier(_ index: Int, _ name: String? = nil) -> Bool {
        guard index >= 0, index < tokens.count, tokens[index].kind == .identifier else { return false }
        return name.map { texts[index] == $0 } ?? true
    }

    func isPunctuation(_ index: Int, _ text: String) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind == .punctuation && texts[index] == text
    }

    func isOperator(_ index: Int, _ text: String) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind == .operator && texts[index] == text
    }

    /// The innermost function body containing `index`, or the whole file.
    func enclosingBody(of index: Int) -> Range<Int> {
        guard index >= 0, index < innermostBody.count, innermostBody[index] >= 0 else { return 0..<tokens.count }
        return functionBodies[innermostBody[index]]
    }

    /// The arguments of the call whose `(` is at `open`: each with its label (or nil) and its value's token range.
    func arguments(open: Int) -> [(label: String?, value: Range<Int>)] {
        guard isPunctuation(open, "("), let close = partner[open] else { return [] }
        var result: [(String?, Range<Int>)] = []
        var start = open + 1
        var cursor = start
        func finish(_ end: Int) {
            guard end > start else { return }
            if isIdentifier(start), isPunctuation(start + 1, ":"), end > start + 2 {
                result.append((texts[start], (start + 2)..<end))
            } else {
                result.append((nil, start..<end))
            }
        }
        while cursor < close {
            if tokens[cursor].kind == .punctuation, ["(", "[", "{"].contains(texts[cursor]) {
                cursor = (partner[cursor] ?? close) + 1
                continue
            }
            if isPunctuation(cursor, ",") {
                finish(cursor)
                start = cursor + 1
            }
            cursor += 1
        }
        finish(min(close, tokens.count))
        return result
    }

    /// An Objective-C message send `[receiver part: value part: value]`: where its `[` is, the receiver's tokens, and
    /// each selector part's label token and value range.
    struct MessageSend {
        let open: Int
        let receiver: Range<Int>
        let parts: [(label: Int, value: Range<Int>)]
    }

    /// The message sends of the file: brackets not used as a subscript (`a[i]`) or a literal (`@[…]`) whose content
    /// is a receiver followed by `label:` parts.
    func messageSends() -> [MessageSend] {
        var sends: [MessageSend] = []
        for open in tokens.indices where isPunctuation(open, "[") {
            if open > 0,
                tokens[open - 1].kind == .identifier || isPunctuation(open - 1, ")")
                    || isPunctuation(open - 1, "]") || isPunctuation(open - 1, "@"),
                !["return", "in", "else"].contains(texts[open - 1])
            {
                continue
            }
            guard let close = partner[open], close <= tokens.count else { continue }
            var parts: [(label: Int, value: Range<Int>)] = []
            var receiverEnd: Int?
            var cursor = open + 1
            var labelStart: Int?
            while cursor < close {
                if tokens[cursor].kind == .punctuation, ["(", "[", "{"].contains(texts[cursor]) {
                    cursor = (partner[cursor] ?? close) + 1
                    continue
                }
                // A part starts at `name:` after the receiver (or after the previous part's value).
                if tokens[cursor].kind == .identifier, isPunctuation(cursor + 1, ":"), cursor > open + 1 {
                    if let start = labelStart { parts.append((label: start, value: (start + 2)..<cursor)) }
                    if receiverEnd == nil { receiverEnd = cursor }
                    labelStart = cursor
                    cursor += 2
                    continue
                }
                cursor += 1
            }
            if let start = labelStart { parts.append((label: start, value: (start + 2)..<close)) }
            guard let receiverEnd else { continue }
            sends.append(MessageSend(open: open, receiver: (open + 1)..<receiverEnd, parts: parts))
        }
        return sends
    }

    /// The end (exclusive) of the statement starting at `start`: the first token on a later line at bracket depth
    /// 0 that does not continue the expression, or a `;`, or the enclosing block's `}`.
    func statementEnd(from start: Int) -> Int {
        guard start < tokens.count else { return tokens.count }
        var cursor = start
        var line = tokens[start].line
        while cursor < tokens.count {
            let token = tokens[cursor]
            if token.kind == .punctuation {
                switch texts[cursor] {
                case "(", "[", "{":
                    cursor = (partner[cursor] ?? tokens.count - 1) + 1
                    if cursor - 1 < tokens.count, cursor > 0 { line = tokens[cursor - 1].line }
                    continue
                case ")", "]", "}", ";": return cursor
                default: break
                }
            }
            if token.line > line, cursor > start, token.kind != .operator,
                !(cursor > 0 && tokens[cursor - 1].kind == .operator)
            {
                return cursor
            }
            line = max(line, token.line)
            cursor += 1
        }
        return tokens.count
    }

    /// The trimmed source line of token `index`, for baseline fingerprints.
    func lineText(of index: Int) -> String {
        guard index >= 0, index < tokens.count else { return "" }
        let line = tokens[index].line - 1
        guard line >= 0, line < lines.count else { return "" }
        return String(lines[line]).trimmingCharacters(in: .whitespaces)
    }
}
