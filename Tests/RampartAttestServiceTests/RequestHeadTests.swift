import Testing

@testable import RampartAttestService

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
