/// The framing check every request head passes before anything reads it (RFC 9112), over the raw bytes: the event
/// loop's one parser (``decode(_:)`` reads the parts of a head this judged complete).
///
/// Where RFC 9112 lets a server either refuse or repair, it refuses, so that a proxy in front that reads the same bytes
/// differently cannot smuggle a second request past it:
///
/// - RFC 9112 2.2: "A recipient that receives whitespace between the start-line and the first header field MUST
///   either reject the message as invalid or …"; a bare CR "MUST" be treated as invalid or replaced; we refuse
///   every line ending but CRLF, including a bare LF.
/// - RFC 9112 5.2: "A server that receives an obs-fold in a request message … MUST either reject the message by
///   sending a 400 (Bad Request) … or replace each received obs-fold with one or more SP octets"; we reject.
/// - RFC 9112 5.1: "No whitespace is allowed between the field name and colon … A server MUST reject, with a response
///   status code of 400 (Bad Request), any received request message that contains whitespace between a header field
///   name and colon."
/// - RFC 9112 6.3: a Content-Length that is not a single valid value "MUST" be treated as an unrecoverable error;
///   two values that differ (or a list) are refused.
///
/// A NUL byte anywhere in the head is refused too. ``examine(_:maximumByteCount:)`` also reports the body framing
/// (RFC 9112 6), which the event loop uses to find where the next request on a kept-alive connection starts, and to
/// refuse `Transfer-Encoding` beside `Content-Length` (RFC 9112 6.1: "ought to be handled as an error").
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

    /// How a complete head says its body is framed (RFC 9112 6): the event loop counts `contentLength` body
    /// bytes to find where the next request on the connection starts.
    package struct BodyFraming: Equatable {
        /// The Content-Length value, nil when absent (`Int.max` when it does not fit an `Int`).
        package var contentLength: Int?
        /// Whether a Transfer-Encoding field is present (whatever its value).
        package var hasTransferEncoding: Bool

        /// Creates a framing.
        ///
        /// - Parameters:
        ///   - contentLength: The Content-Length value, nil when absent.
        ///   - hasTransferEncoding: Whether a Transfer-Encoding field is present.
        package init(contentLength: Int?, hasTransferEncoding: Bool) {
            self.contentLength = contentLength
            self.hasTransferEncoding = hasTransferEncoding
        }
    }

    /// Checks the start of a connection's bytes.
    ///
    /// - Parameters:
    ///   - bytes: The bytes received so far (peeked, not consumed).
    ///   - maximumByteCount: The largest head accepted.
    /// - Returns: The verdict.
    package static func check(_ bytes: some Collection<UInt8>, maximumByteCount: Int) -> Verdict {
        examine(bytes, maximumByteCount: maximumByteCount).verdict
    }

    /// How far ``examine(_:maximumByteCount:progress:)`` has read a head that is not complete yet, so that the bytes
    /// arriving next are examined from there instead of from the start.
    ///
    /// Examined from the start on every arrival, a head trickled a line or a byte at a time cost its length squared:
    /// 300 clients each sending a header line every 0.2 s kept the event loop's thread busy, more so with every line,
    /// until it could no longer answer anyone else.
    package struct Progress: Sendable {
        /// How many bytes of the head have been examined: the next examination starts there.
        package fileprivate(set) var examinedByteCount = 0
        fileprivate var lineStart = 0
        fileprivate var previousWasCR = false
        fileprivate var sawRequestLine = false
        fileprivate var contentLength: [UInt8]? = nil
        fileprivate var contentLengthsDiffer = false
        fileprivate var hasTransferEncoding = false

        /// Nothing examined yet: a new head.
        package init() {}
    }

    /// Checks the start of a request's bytes, and for a complete head also reports its body framing.
    ///
    /// - Parameters:
    ///   - bytes: The bytes of the request received so far.
    ///   - maximumByteCount: The largest head accepted.
    /// - Returns: The verdict, and the body framing when the verdict is ``Verdict/complete(byteCount:)``.
    package static func examine(
        _ bytes: some Collection<UInt8>, maximumByteCount: Int
    ) -> (verdict: Verdict, framing: BodyFraming?) {
        var progress = Progress()
        return examine(bytes, maximumByteCount: maximumByteCount, progress: &progress)
    }

    /// Checks the bytes of a request received since `progress` (the ones before it were examined and found
    /// incomplete), and for a complete head also reports its body framing.
    ///
    /// The verdict is the one ``examine(_:maximumByteCount:)`` gives for all of `bytes`. After
    /// ``Verdict/incomplete`` call again with the same bytes followed by the ones that arrived next, and the same
    /// `progress`; start each head with a fresh one.
    ///
    /// - Parameters:
    ///   - bytes: The bytes of the request received so far, starting with those examined before.
    ///   - maximumByteCount: The largest head accepted.
    ///   - progress: How far earlier calls got; updated.
    /// - Returns: The verdict, and the body framing when the verdict is ``Verdict/complete(byteCount:)``.
    package static func examine(
        _ bytes: some Collection<UInt8>, maximumByteCount: Int, progress: inout Progress
    ) -> (verdict: Verdict, framing: BodyFraming?) {
        // Over one buffer, each line a range of it, so no byte is copied into a line of its own.
        if let examined = bytes.withContiguousStorageIfAvailable({
            examine(buffer: $0, maximumByteCount, &progress)
        }) {
            return examined
        }
        return Array(bytes).withUnsafeBufferPointer { examine(buffer: $0, maximumByteCount, &progress) }
    }

    private static func examine(
        buffer bytes: UnsafeBufferPointer<UInt8>, _ maximumByteCount: Int, _ progress: inout Progress
    ) -> (verdict: Verdict, framing: BodyFraming?) {
        precondition(progress.examinedByteCount <= bytes.count, "examine: fewer bytes than were examined before")
        var lineStart = progress.lineStart
        var sawRequestLine = progress.sawRequestLine
        var contentLength = progress.contentLength
        var contentLengthsDiffer = progress.contentLengthsDiffer
        var hasTransferEncoding = progress.hasTransferEncoding
        var previousWasCR = progress.previousWasCR
        var offset = progress.examinedByteCount
        defer { progress.examinedByteCount = offset }
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            if offset > maximumByteCount { return (.tooLarge, nil) }
            if previousWasCR {
                guard byte == lf else {
                    return (.malformed("a CR not followed by LF; end every line with CRLF"), nil)
                }
                previousWasCR = false
                // The line's bytes, without its CR LF.
                let line = bytes[lineStart..<(offset - 2)]
                lineStart = offset
                if line.isEmpty {
                    // RFC 9112 2.2: a server "SHOULD ignore at least one empty line (CRLF) received prior to the
                    // request-line".
                    if sawRequestLine {
                        if contentLengthsDiffer {
                            return (.malformed("two different Content-Length values; send exactly one"), nil)
                        }
                        // Digits only (checked per field); more of them than an Int holds is too large for any cap.
                        let length = contentLength.map { Int(String(decoding: $0, as: UTF8.self)) ?? Int.max }
                        return (
                            .complete(byteCount: offset),
                            BodyFraming(contentLength: length, hasTransferEncoding: hasTransferEncoding)
                        )
                    }
                    continue
                }
                if !sawRequestLine {
                    if let problem = requestLineProblem(line) { return (.malformed(problem), nil) }
                    sawRequestLine = true
                } else {
                    switch fieldProblem(line) {
                    case .problem(let problem): return (.malformed(problem), nil)
                    case .contentLength(let value):
                        if let earlier = contentLength, earlier != value { contentLengthsDiffer = true }
                        contentLength = value
                    case .transferEncoding: hasTransferEncoding = true
                    case .fine: break
                    }
                }
                continue
            }
            switch byte {
            case 0: return (.malformed("a NUL byte in the request head"), nil)
            case cr: previousWasCR = true
            case lf: return (.malformed("a bare LF line ending; end every line with CRLF"), nil)
            default: break
            }
        }
        progress.lineStart = lineStart
        progress.previousWasCR = previousWasCR
        progress.sawRequestLine = sawRequestLine
        progress.contentLength = contentLength
        progress.contentLengthsDiffer = contentLengthsDiffer
        progress.hasTransferEncoding = hasTransferEncoding
        return (.incomplete, nil)
    }

    /// One line of a head: a range of the buffer ``examine(_:maximumByteCount:)`` reads, without its CR LF.
    private typealias Line = Slice<UnsafeBufferPointer<UInt8>>

    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09

    /// `request-line = method SP request-target SP HTTP-version` (RFC 9112 3).
    private static func requestLineProblem(_ line: Line) -> String? {
        // Three non-empty parts between exactly two single spaces, counted without splitting (no allocation per
        // request).
        var spaces = 0
        var wellSpaced = true
        var previous = space
        for byte in line {
            if byte == tab || (byte == space && previous == space) { wellSpaced = false }
            if byte == space { spaces += 1 }
            previous = byte
        }
        guard wellSpaced, spaces == 2, previous != space else {
            return "the request line must be 'METHOD target HTTP/1.1', single spaces"
        }
        return nil
    }

    private enum Field {
        case fine
        case contentLength([UInt8])
        case transferEncoding
        case problem(String)
    }

    /// `field-line = field-name ":" OWS field-value OWS` (RFC 9112 5), `field-name = token` (RFC 9110 5.1).
    private static func fieldProblem(_ line: Line) -> Field {
        if line.first == space || line.first == tab {
            return .problem("an obs-fold (a header line starting with whitespace); put each field on one line")
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
            line[..<colon].allSatisfy(isTokenCharacter)
        else {
            return .problem("a header name must be a token directly followed by ':' (no whitespace before it)")
        }
        let name = line[..<colon]
        if isName(name, transferEncodingName) { return .transferEncoding }
        guard isName(name, contentLengthName) else { return .fine }
        let value = Array(
            line[(colon + 1)...].drop { $0 == space || $0 == tab }.reversed().drop { $0 == space || $0 == tab }
                .reversed())
        guard !value.isEmpty, value.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return .problem("Content-Length must be one decimal number")
        }
        return .contentLength(value)
    }

    /// Whether the token `name` is `lowercased` in any case (compared in place: a head's every field passes here).
    private static func isName(_ name: Line, _ lowercased: [UInt8]) -> Bool {
        name.count == lowercased.count && zip(name, lowercased).allSatisfy { $0 | 0x20 == $1 }
    }

    private static let contentLengthName = Array("content-length".utf8)
    private static let transferEncodingName = Array("transfer-encoding".utf8)

    /// `tchar` (RFC 9110 5.6.2).
    package static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
