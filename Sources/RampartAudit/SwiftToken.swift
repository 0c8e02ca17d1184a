/// One token of Swift source, as ``SwiftLexer`` splits it: its kind, its byte range in the source, where it starts,
/// and whether it is compiled only under `#if DEBUG`.
public struct SwiftToken: Hashable, Sendable {
    /// What a token is.
    public enum Kind: Hashable, Sendable, CaseIterable {
        /// Spaces, tabs and line breaks.
        case whitespace
        /// `// …` to the end of the line.
        case lineComment
        /// `/* … */`, nested comments included.
        case blockComment
        /// A name, a keyword, or a backquoted name.
        case identifier
        /// An integer or floating-point literal.
        case number
        /// A run of operator characters (`=`, `==`, `.`, `!`, `?.`).
        case `operator`
        /// A single punctuation character: `(`, `)`, `{`, `}`, `[`, `]`, `,`, `:`, `;`, `@`, `#`, `\`.
        case punctuation
        /// The opening delimiter of a string literal: `"`, `"""`, `#"`, `##"""`, ….
        case stringOpen
        /// Literal text inside a string, escapes as written.
        case stringSegment
        /// `\(` (or `\#(` in a raw string): the code after it, up to ``interpolationEnd``, is lexed as code.
        case interpolationStart
        /// The `)` that closes an interpolation.
        case interpolationEnd
        /// The closing delimiter of a string literal.
        case stringClose
        /// `#if`, `#elseif`, `#else` or `#endif`.
        case directive
        /// Another `#word`: `#available`, `#selector`, `#file`, ….
        case poundKeyword
        /// Bytes that are none of the above (stray non-ASCII, or the rest of an input past a limit).
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
    /// Whether the token is compiled only in debug builds (inside `#if DEBUG`, or the `#else` of `#if !DEBUG`).
    public let isDebugOnly: Bool

    /// Whether the token is trivia: whitespace or a comment.
    public var isTrivia: Bool { kind == .whitespace || kind == .lineComment || kind == .blockComment }
}
