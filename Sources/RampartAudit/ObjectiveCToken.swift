/// One token of Objective-C (or C) source, as ``ObjectiveCLexer`` splits it: its kind, its byte range in the source,
/// where it starts, and whether it is compiled only in debug builds.
public struct ObjectiveCToken: Hashable, Sendable {
    /// What a token is.
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// Spaces, tabs and line breaks (and a backslash that continues a line).
        case whitespace
        /// `// …` to the end of the line.
        case lineComment
        /// `/* … */` (C comments do not nest).
        case blockComment
        /// A name or a keyword.
        case identifier
        /// `@interface`, `@end`, `@selector`, `@property`, `@YES`, ….
        case atKeyword
        /// An integer or floating-point literal.
        case number
        /// A character literal such as `'a'` or `'\n'`.
        case characterLiteral
        /// A string literal, `"…"` or `@"…"`, delimiters included.
        case stringLiteral
        /// An operator: `=`, `==`, `->`, `*`, `&`, `.`, ….
        case `operator`
        /// A single punctuation character: `(`, `)`, `{`, `}`, `[`, `]`, `,`, `;`, `:`, `@`, `#`, ….
        case punctuation
        /// `#if`, `#ifdef`, `#ifndef`, `#elif`, `#else` or `#endif` (the condition that follows is lexed as code).
        case directive
        /// Another preprocessor keyword: `#define`, `#import`, `#include`, `#pragma`, ….
        case preprocessor
        /// The rest of a `#pragma`, `#error` or `#warning` line: free text.
        case preprocessorText
        /// Bytes that are none of the above (stray control bytes, or an input past a limit).
        case unknown
    }

    /// What the token is.
    public let kind: Kind
    /// The token's bytes in the source (UTF-8 offsets).
    public let range: Range<Int>
    /// The 1-based line the token starts on.
    public let line: Int
    /// The 1-based column (in Unicode scalars) the token starts at.
    public let column: Int
    /// Whether the token is compiled only in debug builds (inside `#ifdef DEBUG`, `#if DEBUG`, or the `#else` of
    /// `#ifndef DEBUG`).
    public let isDebugOnly: Bool

    /// Whether the token is trivia: whitespace, a comment, or the free text of a `#pragma`.
    public var isTrivia: Bool {
        kind == .whitespace || kind == .lineComment || kind == .blockComment || kind == .preprocessorText
    }
}
