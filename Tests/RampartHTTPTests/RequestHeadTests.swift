import Testing

@testable import RampartHTTP

/// The body framing the event loop reads from each head to find where the next request starts.
struct RequestHeadTests {
    func framing(_ fields: String) -> RequestHead.BodyFraming? {
        let head = Array("POST /x HTTP/1.1\r\nHost: x\r\n\(fields)\r\n".utf8)
        let (verdict, framing) = RequestHead.examine(head, maximumByteCount: 16_384)
        guard verdict == .complete(byteCount: head.count) else { return nil }
        return framing
    }

    @Test("Content-Length is read (absent is nil, too many digits is Int.max); Transfer-Encoding is noticed")
    func bodyFraming() {
        #expect(framing("") == .init(contentLength: nil, hasTransferEncoding: false))
        #expect(framing("Content-Length: 42\r\n") == .init(contentLength: 42, hasTransferEncoding: false))
        #expect(
            framing("content-length:7\r\nContent-Length: 7\r\n") == .init(contentLength: 7, hasTransferEncoding: false))
        #expect(
            framing("Content-Length: 99999999999999999999999\r\n")
                == .init(contentLength: Int.max, hasTransferEncoding: false))
        #expect(framing("Transfer-Encoding: chunked\r\n") == .init(contentLength: nil, hasTransferEncoding: true))
        #expect(
            framing("TRANSFER-ENCODING: gzip\r\nContent-Length: 3\r\n")
                == .init(contentLength: 3, hasTransferEncoding: true))
    }

    @Test("examine and check agree, and the bytes after a head do not change its verdict")
    func agree() {
        let head = Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        let next = head + Array("GET /next HTTP/1.1\n".utf8)
        #expect(RequestHead.check(next, maximumByteCount: 1024) == .complete(byteCount: head.count))
        #expect(RequestHead.examine(next, maximumByteCount: 1024).verdict == .complete(byteCount: head.count))
        #expect(RequestHead.examine(head.dropLast(), maximumByteCount: 1024).verdict == .incomplete)
        #expect(RequestHead.examine(head.dropLast(), maximumByteCount: 1024).framing == nil)
    }
}

/// ``RequestHead/Progress``: a head examined as it arrives gets the verdict of the whole, each byte examined once.
struct RequestHeadProgressTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let head: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        .init(name: "complete, with a body framing", head: "POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 7\r\n\r\n"),
        .init(name: "an empty line before the request line", head: "\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n"),
        .init(name: "Transfer-Encoding", head: "POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
        .init(
            name: "two Content-Length values",
            head: "POST /x HTTP/1.1\r\nContent-Length: 7\r\nContent-Length: 5\r\n\r\n"),
        .init(name: "a bare CR", head: "GET / HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n"),
        .init(name: "a bare LF", head: "GET / HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n"),
        .init(name: "an obs-fold", head: "GET / HTTP/1.1\r\nX-A: a\r\n  b\r\n\r\n"),
        .init(name: "a NUL", head: "GET / HTTP/1.1\r\nX-A: a\u{0}b\r\n\r\n"),
        .init(name: "a bad request line", head: "GET  / HTTP/1.1\r\nHost: x\r\n\r\n"),
        .init(
            name: "over the cap", head: "GET / HTTP/1.1\r\n" + String(repeating: "X-Trickle: 1\r\n", count: 20) + "\r\n"
        ),
    ]

    /// The verdict and framing for `bytes` fed `step` bytes at a time through one ``RequestHead/Progress``, after
    /// checking each incomplete prefix against a whole examination; and how many bytes were examined in all.
    func fed(_ bytes: [UInt8], step: Int) -> (RequestHead.Verdict, RequestHead.BodyFraming?, examined: Int) {
        var progress = RequestHead.Progress()
        var examined = 0
        var end = 0
        while true {
            end = min(end + step, bytes.count)
            let before = progress.examinedByteCount
            let result = RequestHead.examine(bytes[..<end], maximumByteCount: 256, progress: &progress)
            examined += progress.examinedByteCount - before
            let whole = RequestHead.examine(bytes[..<end], maximumByteCount: 256)
            #expect(result.verdict == whole.verdict && result.framing == whole.framing, "prefix of \(end) bytes")
            if result.verdict != .incomplete || end == bytes.count { return (result.verdict, result.framing, examined) }
        }
    }

    @Test(
        "fed a byte, a few bytes or a line at a time: the verdict of the whole head, each byte examined once",
        arguments: cases)
    func piecewise(_ example: Case) {
        let bytes = Array(example.head.utf8)
        let whole = RequestHead.examine(bytes, maximumByteCount: 256)
        for step in [1, 3, 16, bytes.count] {
            let (verdict, framing, examined) = fed(bytes, step: step)
            #expect(verdict == whole.verdict, "\(step) bytes at a time")
            #expect(framing == whole.framing, "\(step) bytes at a time")
            #expect(examined <= bytes.count, "\(step) bytes at a time: \(examined) bytes examined")
        }
    }
}

/// ``RequestHead/decode(_:)``: the parts of a well-framed head, and what it still refuses.
struct RequestHeadDecodeTests {
    func decode(_ text: String) throws(RequestHead.DecodeProblem) -> RequestHead.Decoded {
        try RequestHead.decode(Array(text.utf8)[...])
    }

    @Test("method, target, version and fields: names lower-cased, values trimmed, repeats joined in order")
    func parts() throws {
        let head = try decode(
            "\r\nPOST /v1/a%2F?x=1 HTTP/1.1\r\nHost: h\r\nX-A:  one \t\r\nx-a: two\r\nEmpty:\r\n\r\n")
        #expect(head.method == "POST")
        #expect(head.target == "/v1/a%2F?x=1")
        #expect(head.minorVersion == 1)
        #expect(head.fields == ["host": "h", "x-a": "one, two", "empty": ""])
        #expect(head.keepAlive)
        #expect(!head.expectsContinue)
    }

    @Test("keep-alive: HTTP/1.1 unless 'close' is among the Connection tokens; HTTP/1.0 only with 'keep-alive'")
    func keepAlive() throws {
        #expect(try !decode("GET / HTTP/1.1\r\nHost: h\r\nConnection: Keep-Alive, CLOSE\r\n\r\n").keepAlive)
        #expect(try !decode("GET / HTTP/1.0\r\n\r\n").keepAlive)
        #expect(try decode("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").keepAlive)
        #expect(try decode("GET / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\n\r\n").expectsContinue)
    }

    @Test("refused: no Host on HTTP/1.1, two Hosts, control characters, non-UTF-8 values, odd versions and methods")
    func refusals() {
        let cases: [(String, RequestHead.DecodeProblem)] = [
            ("GET / HTTP/1.1\r\n\r\n", .malformed("a request needs exactly one Host header (RFC 9112 3.2)")),
            (
                "GET / HTTP/1.0\r\nHost: a\r\nHOST: a\r\n\r\n",
                .malformed("a request needs exactly one Host header (RFC 9112 3.2)")
            ),
            (
                "GET / HTTP/1.1\r\nHost: a\r\nX: \u{1B}[0m\r\n\r\n",
                .malformed("a header value holds a control character")
            ),
            ("GET / HTTP/3.0\r\nHost: a\r\n\r\n", .versionNotSupported),
            ("GET / HTTP/1.10\r\nHost: a\r\n\r\n", .malformed("the HTTP version must read HTTP/1.1")),
            ("GE@T / HTTP/1.1\r\nHost: a\r\n\r\n", .malformed("the method must be a token, e.g. POST")),
        ]
        for (text, problem) in cases {
            #expect(throws: problem, "\(text.debugDescription)") { try decode(text) }
        }
        let latin1 = Array("GET / HTTP/1.1\r\nHost: a\r\nX: caf".utf8) + [0xE9] + Array("\r\n\r\n".utf8)
        #expect(throws: RequestHead.DecodeProblem.malformed("a header value is not UTF-8 text")) {
            try RequestHead.decode(latin1[...])
        }
        let rawTarget = Array("GET /caf".utf8) + [0xC3, 0xA9] + Array(" HTTP/1.1\r\nHost: a\r\n\r\n".utf8)
        #expect(
            throws: RequestHead.DecodeProblem.malformed(
                "the request target must be visible ASCII; percent-encode anything else")
        ) { try RequestHead.decode(rawTarget[...]) }
    }
}

/// ``RequestPath``: the decoded path routes match on.
struct RequestPathTests {
    @Test("%HH decodes; the query is dropped; a stray % stays; a NUL or non-UTF-8 result leaves the path as sent")
    func decoding() {
        #expect(RequestPath.decoded("/v1/a%2Fb?q=%41") == "/v1/a/b")
        #expect(RequestPath.decoded("/caf%C3%A9") == "/café")
        #expect(RequestPath.decoded("/100%") == "/100%")
        #expect(RequestPath.decoded("/a%zz%4") == "/a%zz%4")
        #expect(RequestPath.decoded("/v1/keys/abc%00junk") == "/v1/keys/abc%00junk")
        #expect(RequestPath.decoded("/x%FF") == "/x%FF")
        #expect(RequestPath.decoded("/plain?x") == "/plain")
    }
}
