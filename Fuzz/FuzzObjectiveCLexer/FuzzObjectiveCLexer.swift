import Foundation
import FuzzSupport
import RampartAudit

/// ``ObjectiveCLexer/tokenize(_:)`` must never crash, and its tokens must cover the input exactly: each starts where
/// the previous one ended, none is empty, and concatenating their bytes gives the input back. Lines and columns only
/// grow through the token list. The rules that read its tokens must not crash either.
func check(_ bytes: [UInt8]) {
    let result = ObjectiveCLexer.tokenize(bytes)
    var offset = 0
    var rebuilt: [UInt8] = []
    rebuilt.reserveCapacity(bytes.count)
    var previous = (line: 1, column: 0)
    for token in result.tokens {
        fuzzInvariant(token.range.lowerBound == offset, "a token does not start where the previous one ended")
        fuzzInvariant(!token.range.isEmpty, "an empty token")
        fuzzInvariant(token.range.upperBound <= bytes.count, "a token ends past the input")
        fuzzInvariant(
            token.line > previous.line || (token.line == previous.line && token.column > previous.column),
            "token positions do not increase")
        previous = (token.line, token.column)
        rebuilt += bytes[token.range]
        offset = token.range.upperBound
    }
    fuzzInvariant(rebuilt == bytes, "the tokens do not give the input back")
    for finding in Auditor().findings(inObjectiveCSource: String(decoding: bytes, as: UTF8.self), file: "F.m") {
        fuzzInvariant(finding.line >= 1 && finding.column >= 1, "a finding outside the file")
    }
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzObjectiveCLexerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzObjectiveCLexer_main")
func fuzzObjectiveCLexerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzObjectiveCLexerTestOneInput)
}
#else
@main
enum FuzzObjectiveCLexerReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
