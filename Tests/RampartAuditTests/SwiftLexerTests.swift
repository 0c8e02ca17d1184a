import RampartAudit
import Testing

/// The lexer's tokens, problems and `#if DEBUG` tracking.
struct SwiftLexerTests {
    /// `(kind, text)` pairs of the non-whitespace tokens of `source`.
    static func lex(_ source: String) -> [(SwiftToken.Kind, String)] {
        let bytes = Array(source.utf8)
        return SwiftLexer.tokenize(bytes).tokens.filter { $0.kind != .whitespace }.map {
            ($0.kind, String(decoding: bytes[$0.range], as: UTF8.self))
        }
    }

    static func kinds(_ source: String) -> [SwiftToken.Kind] { lex(source).map(\.0) }

    static func problems(_ source: String) -> [SwiftLexer.Problem] { SwiftLexer.tokenize(Array(source.utf8)).problems }

    /// Checks that the tokens cover `source` exactly (the fuzz target's invariant).
    static func expectCovers(_ source: String) {
        let bytes = Array(source.utf8)
        var offset = 0
        for token in SwiftLexer.tokenize(bytes).tokens {
            #expect(token.range.lowerBound == offset)
            #expect(!token.range.isEmpty)
            offset = token.range.upperBound
        }
        #expect(offset == bytes.count)
    }

    @Test("every token kind")
    func everyKind() {
        let source = """
            // line
            /* block */ let x = 0x1F + 1.5e-3 #available(iOS 15, *) `class` \u{e9}t\u{e9} "s" ; \u{2028}
            #if A
            #endif
            """
        let seen = Set(Self.kinds(source) + SwiftLexer.tokenize(Array(source.utf8)).tokens.map(\.kind))
        let expected: Set<SwiftToken.Kind> = [
            .whitespace, .lineComment, .blockComment, .identifier, .number, .operator, .punctuation, .stringOpen,
            .stringSegment, .stringClose, .directive, .poundKeyword,
        ]
        #expect(expected.isSubset(of: seen))
        #expect(Self.lex("1.5e-3").map(\.1) == ["1.5e-3"])
        #expect(Self.lex("x?.y").map(\.1) == ["x", "?.", "y"])
        #expect(Self.lex("`class`").map(\.0) == [.identifier])
        #expect(
            Self.lex("\"a\\(b)\"").map(\.0) == [
                .stringOpen, .stringSegment, .interpolationStart, .identifier,
                .interpolationEnd, .stringClose,
            ])
        Self.expectCovers(source)
    }

    @Test("nested block comments are one token")
    func nestedComments() {
        let tokens = Self.lex("/* a /* b */ c */ x")
        #expect(tokens.map(\.0) == [.blockComment, .identifier])
        #expect(tokens.first?.1 == "/* a /* b */ c */")
        #expect(Self.problems("/* a /* b */ c */").isEmpty)
    }

    @Test("interpolation is lexed as code, nested strings and parentheses included")
    func interpolation() {
        let tokens = Self.lex(#""a \(f("b \(x)", (1)))c""#)
        #expect(
            tokens.map(\.1) == [
                "\"", "a ", "\\(", "f", "(", "\"", "b ", "\\(", "x", ")", "\"", ",", "(", "1", ")", ")", ")", "c",
                "\"",
            ])
        #expect(tokens[9].0 == .interpolationEnd)
        #expect(tokens[16].0 == .interpolationEnd)
        #expect(tokens[15].0 == .punctuation)
    }

    @Test("raw strings: quotes and backslashes inside, interpolation only with the hashes")
    func rawStrings() {
        let tokens = Self.lex(##"#"say "\(no)" \#(yes)"# x"##)
        #expect(
            tokens.map(\.0) == [
                .stringOpen, .stringSegment, .interpolationStart, .identifier, .interpolationEnd, .stringClose,
                .identifier,
            ])
        #expect(tokens[1].1 == #"say "\(no)" "#)
        #expect(Self.lex(###"##"a"#b"## y"###).map(\.1) == ["##\"", "a\"#b", "\"##", "y"])
    }

    @Test("multi-line strings keep quotes and lines inside")
    func multilineStrings() {
        let source = "let s = \"\"\"\n  one \"two\"\n  \\(x)\n  \"\"\"\nlet t"
        let tokens = Self.lex(source)
        #expect(
            tokens.map(\.0) == [
                .identifier, .identifier, .operator, .stringOpen, .stringSegment,
                .interpolationStart, .identifier, .interpolationEnd, .stringSegment, .stringClose, .identifier,
                .identifier,
            ])
        #expect(tokens.last.map { _ in SwiftLexer.tokenize(Array(source.utf8)).tokens.last?.line } == 5)
        #expect(Self.problems(source).isEmpty)
    }

    @Test("escapes do not end a string")
    func escapes() {
        #expect(Self.lex(#""a\"b\\" c"#).map(\.1) == ["\"", #"a\"b\\"#, "\"", "c"])
    }

    @Test("comment markers inside strings and string quotes inside comments are text")
    func textStaysText() {
        #expect(Self.kinds(#""// not a comment /* either""#) == [.stringOpen, .stringSegment, .stringClose])
        #expect(Self.kinds("// \"not a string\n/* \" */ x") == [.lineComment, .blockComment, .identifier])
    }

    @Test("lines and columns count Unicode scalars and \\r\\n as one break")
    func positions() {
        let tokens = SwiftLexer.tokenize(Array("é x\r\n  y".utf8)).tokens.filter { $0.kind == .identifier }
        #expect(tokens.map(\.line) == [1, 1, 2])
        #expect(tokens.map(\.column) == [1, 3, 3])
    }

    @Test("#if DEBUG, #else, #if !DEBUG and nested blocks")
    func debugTracking() {
        let source = """
            a
            #if DEBUG
            b
            #if os(iOS)
            c
            #endif
            #else
            d
            #endif
            #if !DEBUG
            e
            #else
            f
            #endif
            #if DEBUG || TESTING
            g
            #elseif DEBUG
            h
            #endif
            #if (DEBUG) && os(iOS)
            i
            #endif
            """
        let bytes = Array(source.utf8)
        let debug = SwiftLexer.tokenize(bytes).tokens.filter { $0.kind == .identifier && $0.range.count == 1 }
            .filter(\.isDebugOnly).map { String(decoding: bytes[$0.range], as: UTF8.self) }
        #expect(debug == ["b", "c", "f", "h", "i"])
        #expect(SwiftLexer.tokenize(bytes).problems.isEmpty)
    }

    @Test(
        "unterminated constructs are reported with where they start, not crashed on",
        arguments: [
            ("let s = \"open\nlet t = 1", SwiftLexer.Problem.Code.unterminatedString, 1, 9),
            ("x /* a /* b */", .unterminatedBlockComment, 1, 3),
            ("let s = \"\"\"\nnever closed", .unterminatedString, 1, 9),
            ("let s = \"a \\(f(x\"", .unterminatedInterpolation, 1, 12),
            ("#endif", .unbalancedDirective, 1, 1),
            ("x\n#else", .unbalancedDirective, 2, 1),
            ("#if DEBUG\nx", .unterminatedDirective, 1, 1),
            ("#\"raw", .unterminatedString, 1, 1),
        ])
    func unterminated(source: String, code: SwiftLexer.Problem.Code, line: Int, column: Int) {
        let problems = Self.problems(source)
        #expect(problems.map(\.code).contains(code))
        let problem = problems.first { $0.code == code }
        #expect(problem?.line == line)
        #expect(problem?.column == column)
        Self.expectCovers(source)
    }

    @Test("a single-line string ends at its line and the next line is code again")
    func unterminatedRecovers() {
        #expect(Self.kinds("\"open\nx").suffix(1) == [.identifier])
    }

    @Test("nesting deeper than the limit is reported once and the rest is one token")
    func nestingLimit() {
        let depth = SwiftLexer.maximumNestingDepth
        let source = String(repeating: "\"\\(", count: depth) + "x" + String(repeating: ")\"", count: depth)
        let result = SwiftLexer.tokenize(Array(source.utf8))
        #expect(result.problems.map(\.code) == [.nestingTooDeep])
        #expect(result.tokens.last?.kind == .unknown)
        Self.expectCovers(source)
    }

    @Test("an input over the size limit is reported, not lexed")
    func sizeLimit() {
        let result = SwiftLexer.tokenize([UInt8](repeating: 0x61, count: SwiftLexer.maximumInputSize + 1))
        #expect(result.problems.map(\.code) == [.inputTooLarge])
        #expect(result.tokens.count == 1)
    }

    @Test(
        "arbitrary bytes are covered exactly",
        arguments: [
            [0xFF, 0xFE, 0x22, 0x5C], [0x23, 0x23, 0x23], [0x22, 0x22, 0x22, 0x5C, 0x28], [0x2F, 0x2A, 0x2F], [0x60],
            [0x5C, 0x29, 0x29, 0x0D], [0xA9, 0x20], [0xC3, 0xA9, 0xA9, 0x20, 0xE2, 0x82],
            [0x0D, 0x0D, 0x0A, 0x22, 0x0D],
        ] as [[UInt8]])
    func arbitraryBytes(bytes: [UInt8]) {
        var offset = 0
        var previous = (line: 1, column: 0)
        for token in SwiftLexer.tokenize(bytes).tokens {
            #expect(token.range.lowerBound == offset)
            // Positions only grow, even over invalid UTF-8 (a stray continuation byte is a column of its own).
            #expect(token.line > previous.line || (token.line == previous.line && token.column > previous.column))
            previous = (token.line, token.column)
            offset = token.range.upperBound
        }
        #expect(offset == bytes.count)
    }
}
