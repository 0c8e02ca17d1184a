import RampartAttestService
import Testing

/// The body framing the connection gate reads from each head to find where the next request starts.
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
