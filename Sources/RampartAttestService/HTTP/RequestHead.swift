/// The framing check every request head passes before libmicrohttpd parses it (RFC 9112), over the raw bytes.
///
/// libmicrohttpd 0.9.75 is lenient where RFC 9112 asks a server to refuse, and a proxy in front that reads the same
/// bytes differently could smuggle a second request past it:
///
/// - RFC 9112 2.2: "A recipient that receives whitespace between the start-line and the first header field MUST
///   either reject the message as invalid or …"; a bare CR "MUST" be treated as invalid or replaced; we refuse
///   every line ending but CRLF, including a bare LF (which MHD accepts).
/// - RFC 9112 5.2: "A server that receives an obs-fold in a request message … MUST either reject the message by
///   sending a 400 (Bad Request) … or replace each received obs-fold with one or more SP octets"; we reject.
/// - RFC 9112 5.1: "No whitespace is allowed between the field name and colon … A server MUST reject, with a response
///   status code of 400 (Bad Request), any received request message that contains whitespace between a header field
///   name and colon."
/// - RFC 9112 6.3: a Content-Length that is not a single valid value "MUST" be treated as an unrecoverable error;
///   MHD used the first of two different values, so two values that differ (or a list) are refused.
///
/// A NUL byte anywhere in the head is refused too (MHD would cut the text at it).
package enum RequestHead {
    /// What the bytes received so far amount to.
    package enum Verdict: Equatable {
        /// No end of head yet, and nothing wrong so far.
        case incomplete
        /// A well-framed head of `byteCount` bytes (through its final CRLF CRLF).
        case complete(byteCount: Int)
        /// Badly framed: answer 400 with this reason.
        case malformed(String)
        /// No end of head within the limit: answer 431.
        case tooLarge
    }

    /// Checks the start of a connection's bytes.
    ///
    /// - Parameters:
    ///   - bytes: The bytes received so far (peeked, not consumed).
    ///   - maximumByteCount: The largest head accepted.
    /// - Returns: The verdict.
    package static func check(_ bytes: some Collection<UInt8>, maximumByteCount: Int) -> Verdict {
        var line: [UInt8] = []
        var sawRequestLine = false
        var contentLengths: Set<[UInt8]> = []
        var previousWasCR = false
        var offset = 0
        for byte in bytes {
            offset += 1
            if offset > maximumByteCount { return .tooLarge }
            if previousWasCR {
                guard byte == lf else { return .malformed("a CR not followed by LF; end every line with CRLF") }
                previousWasCR = false
                if line.isEmpty {
                    // RFC 9112 2.2: a server "SHOULD ignore at least one empty line (CRLF) received prior to the
                    // request-line".
                    if sawRequestLine {
                        return contentLengths.count > 1
                            ? .malformed("two different Content-Length values; send exactly one")
                            : .complete(byteCount: offset)
                    }
                    continue
                }
                if !sawRequestLine {
                    if let problem = requestLineProblem(line) { return .malformed(problem) }
                    sawRequestLine = true
                } else {
                    switch fieldProblem(line) {
                    case .problem(let problem): return .malformed(problem)
                    case .contentLength(let value): contentLengths.insert(value)
                    case .fine: break
                    }
                }
                line.removeAll(keepingCapacity: true)
                continue
            }
            switch byte {
            case 0: return .malformed("a NUL byte in the request head")
            case cr: previousWasCR = true
            case lf: return .malformed("a bare LF line ending; end every line with CRLF")
            default: line.append(byte)
            }
        }
        return .incomplete
    }

    private static let cr: UInt8 = 0x0D
    private static let lf: UInt8 = 0x0A
    private static let space: UInt8 = 0x20
    private static let tab: UInt8 = 0x09

    /// `request-line = method SP request-target SP HTTP-version` (RFC 9112 3).
    private static func requestLineProblem(_ line: [UInt8]) -> String? {
        let parts = line.split(separator: space, omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }), !line.contains(tab) else {
            return "the request line must be 'METHOD target HTTP/1.1', single spaces"
        }
        return nil
    }

    private enum Field {
        case fine
        case contentLength([UInt8])
        case problem(String)
    }

    /// `field-line = field-name ":" OWS field-value OWS` (RFC 9112 5), `field-name = token` (RFC 9110 5.1).
    private static func fieldProblem(_ line: [UInt8]) -> Field {
        if line.first == space || line.first == tab {
            return .problem("an obs-fold (a header line starting with whitespace); put each field on one line")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0,
            line[..<colon].allSatisfy(isTokenCharacter)
        else {
            return .problem("a header name must be a token directly followed by ':' (no whitespace before it)")
        }
        let name = line[..<colon].map { $0 | 0x20 }
        guard name == Array("content-length".utf8) else { return .fine }
        let value = Array(
            line[(colon + 1)...].drop { $0 == space || $0 == tab }.reversed().drop { $0 == space || $0 == tab }
                .reversed())
        guard !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return .problem("Content-Length must be one decimal number")
        }
        return .contentLength(value)
    }

    /// `tchar` (RFC 9110 5.6.2).
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        default: Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}
