import RampartAudit
import Testing

/// The Objective-C lexer: every kind of token, tokens that cover the input, `#if DEBUG` tracking, and problems
/// instead of traps.
struct ObjectiveCLexerTests {
    static func lex(_ source: String) -> [(ObjectiveCToken.Kind, String)] {
        let bytes = Array(source.utf8)
        return ObjectiveCLexer.tokenize(bytes).tokens.filter { !$0.isTrivia }.map {
            ($0.kind, String(decoding: bytes[$0.range], as: UTF8.self))
        }
    }

    static func problems(_ source: String) -> [SwiftLexer.Problem] {
        ObjectiveCLexer.tokenize(Array(source.utf8)).problems
    }

    /// The tokens' ranges are contiguous, non-empty and cover `bytes`.
    static func expectCovers(_ bytes: [UInt8]) {
        var offset = 0
        for token in ObjectiveCLexer.tokenize(bytes).tokens {
            #expect(token.range.lowerBound == offset)
            #expect(!token.range.isEmpty)
            offset = token.range.upperBound
        }
        #expect(offset == bytes.count)
    }

    @Test("every token kind")
    func everyKind() {
        let source = """
            #import <Foundation/Foundation.h>
            #pragma mark - don't lex 'this'
            @interface Vault : NSObject // a comment
            /* a block */ @end
            static NSString *const kKey = @"k\\"ey"; char c = '\\''; double d = 1.5e-3; x->y += 2;
            """
        let tokens = Self.lex(source)
        #expect(tokens.contains { $0 == (.preprocessor, "#import") })
        #expect(tokens.contains { $0 == (.preprocessor, "#pragma") })
        #expect(!tokens.contains { $0.1.contains("don't") })
        #expect(tokens.contains { $0 == (.atKeyword, "@interface") })
        #expect(tokens.contains { $0 == (.atKeyword, "@end") })
        #expect(tokens.contains { $0 == (.stringLiteral, #"@"k\"ey""#) })
        #expect(tokens.contains { $0 == (.characterLiteral, #"'\''"#) })
        #expect(tokens.contains { $0 == (.number, "1.5e-3") })
        #expect(tokens.contains { $0 == (.operator, "->") })
        #expect(tokens.contains { $0 == (.operator, "+=") })
        #expect(tokens.contains { $0 == (.identifier, "kKey") })
        let all = ObjectiveCLexer.tokenize(Array(source.utf8)).tokens.map(\.kind)
        #expect(all.contains(.lineComment) && all.contains(.blockComment) && all.contains(.preprocessorText))
        #expect(Self.problems(source).isEmpty)
        Self.expectCovers(Array(source.utf8))
    }

    @Test("comment markers inside strings are text, and quotes inside comments are comments")
    func textStaysText() {
        let tokens = Self.lex(#"NSString *u = @"http://a/*b*/"; /* "not a string" */ int x;"#)
        #expect(tokens.contains { $0 == (.stringLiteral, #"@"http://a/*b*/""#) })
        #expect(!tokens.contains { $0.1.contains("not a string") })
        #expect(tokens.last.map { $0 == (.punctuation, ";") } == true)
    }

    @Test("#ifdef DEBUG, #if defined(DEBUG), #ifndef DEBUG … #else, #ifndef NDEBUG and #if 0 … #else")
    func debugTracking() {
        func debugIdentifiers(_ source: String) -> [String] {
            let bytes = Array(source.utf8)
            return ObjectiveCLexer.tokenize(bytes).tokens.filter { $0.kind == .identifier && $0.isDebugOnly }.map {
                String(decoding: bytes[$0.range], as: UTF8.self)
            }
        }
        #expect(debugIdentifiers("#ifdef DEBUG\na();\n#else\nb();\n#endif\nc();") == ["DEBUG", "a"])
        #expect(debugIdentifiers("#if defined(DEBUG) && TARGET\na();\n#endif") == ["defined", "DEBUG", "TARGET", "a"])
        #expect(debugIdentifiers("#ifndef DEBUG\na();\n#else\nb();\n#endif") == ["b"])
        #expect(debugIdentifiers("#ifndef NDEBUG\na();\n#endif") == ["NDEBUG", "a"])
        #expect(debugIdentifiers("#if DEBUG || TESTING\na();\n#endif").isEmpty)
        #expect(debugIdentifiers("  #  ifdef DEBUG\na();\n  #  endif\nb();") == ["DEBUG", "a"])
        // A # that does not start a line is not a directive.
        #expect(debugIdentifiers("x = 1; #ifdef DEBUG\na();").isEmpty)
    }

    @Test(
        "unfinished constructs are problems, with where they start",
        arguments: [
            (#"x = @"open"#, SwiftLexer.Problem.Code.unterminatedString, 1, 5),
            ("c = 'a", .unterminatedString, 1, 5),
            ("a;\n /* open", .unterminatedBlockComment, 2, 2),
            ("#endif", .unbalancedDirective, 1, 1),
            ("#ifdef DEBUG\na();", .unterminatedDirective, 1, 1),
        ])
    func unterminated(source: String, code: SwiftLexer.Problem.Code, line: Int, column: Int) {
        let problems = Self.problems(source)
        #expect(problems.map(\.code) == [code])
        #expect(problems.first?.line == line)
        #expect(problems.first?.column == column)
        Self.expectCovers(Array(source.utf8))
    }

    @Test("a string ends at its line and the next line is code again")
    func unterminatedRecovers() {
        let tokens = Self.lex("s = \"open\nNSLog(x);")
        #expect(tokens.contains { $0 == (.identifier, "NSLog") })
    }

    @Test("#if blocks deeper than the limit are still lexed and balanced")
    func directiveDepth() {
        let depth = ObjectiveCLexer.maximumDirectiveDepth + 10
        let source =
            String(repeating: "#ifdef DEBUG\n", count: depth) + "a();\n" + String(repeating: "#endif\n", count: depth)
            + "b();"
        #expect(Self.problems(source).isEmpty)
        let bytes = Array(source.utf8)
        let b = ObjectiveCLexer.tokenize(bytes).tokens.last { $0.kind == .identifier }
        #expect(b?.isDebugOnly == false)
    }

    @Test("an input over the size limit is reported, not lexed")
    func sizeLimit() {
        let result = ObjectiveCLexer.tokenize([UInt8](repeating: 0x61, count: ObjectiveCLexer.maximumInputSize + 1))
        #expect(result.tokens.count == 1)
        #expect(result.problems.map(\.code) == [.inputTooLarge])
    }

    @Test(
        "arbitrary bytes are covered exactly, without a trap",
        arguments: [
            [0xFF, 0xFE, 0x00, 0x22], [0x40], [0x40, 0x22], [0x27, 0x5C], [0x23], [0x5C, 0x0D, 0x0A, 0x23, 0x69, 0x66],
            [0x2F, 0x2A, 0x2A], [0x2E, 0x31, 0x65, 0x2D], [0xE2, 0x82], [0x22, 0x5C, 0x0D, 0x0A, 0x22], [0x80, 0x80],
        ] as [[UInt8]])
    func arbitraryBytes(bytes: [UInt8]) {
        Self.expectCovers(bytes)
    }
}
