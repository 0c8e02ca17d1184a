import Foundation
import RampartAttestService
import Testing

/// Issue 12 item 6: RFC 9112 framing is checked on the raw bytes by the one parser that reads them.
@Suite(.serialized)
struct HTTPFramingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let head: String
        var testDescription: String { name }
    }

    static let body = #"{"a":1}"#

    static let malformed: [Case] = [
        .init(name: "two different Content-Length values", head: "Content-Length: 7\r\nContent-Length: 5\r\n"),
        .init(name: "a Content-Length list", head: "Content-Length: 7, 7\r\n"),
        .init(name: "a signed Content-Length", head: "Content-Length: +7\r\n"),
        .init(name: "an obs-fold (continuation line)", head: "Content-Length: 7\r\nX-A: a\r\n  b\r\n"),
        .init(name: "an obs-fold with a tab", head: "Content-Length: 7\r\nX-A: a\r\n\tb\r\n"),
        .init(name: "a bare LF after a header", head: "Content-Length: 7\nX-A: b\r\n"),
        .init(name: "a bare CR after a header", head: "Content-Length: 7\rX-A: b\r\n"),
        .init(name: "whitespace between a field name and its colon", head: "Content-Length : 7\r\n"),
        .init(name: "a space inside a field name", head: "Content-Length: 7\r\nX A: b\r\n"),
        .init(name: "a line with no colon", head: "Content-Length: 7\r\nnonsense\r\n"),
        .init(name: "a NUL in a header value", head: "Content-Length: 7\r\nX-A: a\u{0}b\r\n"),
    ]

    func withServer(_ body: (UInt16) async throws -> Void) async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: EchoResponder())
        try server.start()
        defer { server.stop() }
        try await body(try #require(server.port))
    }

    @Test("badly framed heads are 400 malformedRequest, before the responder sees them", arguments: malformed)
    func refused(_ bad: Case) async throws {
        try await withServer { port in
            let request = "POST /v1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(bad.head)\r\n\(Self.body)"
            let answer = try #require(await RawHTTP.exchange(port: port, Array(request.utf8)))
            #expect(answer.status == 400)
            #expect(answer.body.contains(#""error":"malformedRequest""#), "\(answer.body)")
            #expect(answer.headers["connection"] == "close")
        }
    }

    @Test("a request of bare LF lines only is 400 malformedRequest")
    func bareLFOnly() async throws {
        try await withServer { port in
            let answer = try #require(
                await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.1\nHost: x\n\n".utf8)))
            #expect(answer.status == 400)
            #expect(answer.body.contains(#""error":"malformedRequest""#))
        }
    }

    @Test("a bad request line is 400 malformedRequest")
    func badRequestLine() async throws {
        try await withServer { port in
            for line in ["GET  /healthz HTTP/1.1", "GET /healthz", "GET\t/healthz HTTP/1.1"] {
                let answer = try #require(
                    await RawHTTP.exchange(port: port, Array("\(line)\r\nHost: x\r\n\r\n".utf8)))
                #expect(answer.status == 400, "\(line)")
                #expect(answer.body.contains(#""error":"malformedRequest""#))
            }
        }
    }

    @Test("well-framed requests still pass: the same Content-Length twice, a leading empty line, tabs in values")
    func accepted() async throws {
        try await withServer { port in
            for extra in ["Content-Length: 7\r\nContent-Length: 7\r\n", "Content-Length: 7\r\nX-A:\tb \r\n"] {
                let request = "POST /v1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(extra)\r\n\(Self.body)"
                let answer = try #require(await RawHTTP.exchange(port: port, Array(request.utf8)))
                #expect(answer.status == 200, "\(extra)")
                #expect(answer.body == "POST /v1/x 7 -")
            }
            let leading = "\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            #expect(try #require(await RawHTTP.exchange(port: port, Array(leading.utf8))).status == 200)
        }
    }

    @Test("a head over the cap is 431 headersTooLarge")
    func headTooLarge() async throws {
        try await withServer { port in
            let big = "X-Big: " + String(repeating: "a", count: HTTPServer.Configuration.defaultMaximumHeadByteCount)
            let answer = try #require(
                await RawHTTP.exchange(port: port, Array("GET /healthz HTTP/1.1\r\n\(big)\r\n\r\n".utf8)))
            #expect(answer.status == 431)
            #expect(answer.body.contains(#""error":"headersTooLarge""#))
        }
    }

    @Test("a kept-alive connection's second request is checked too: a bare-LF one after a good one is 400, last")
    func secondRequestChecked() async throws {
        try await withServer { port in
            let two = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\nHost: x\n\n"
            let answers = await RawHTTP.exchangeAll(port: port, Array(two.utf8))
            #expect(answers.map(\.status) == [200, 400])
            #expect(answers.first?.headers["connection"] == nil)
            #expect(answers.last?.body.contains(#""error":"malformedRequest""#) == true)
            #expect(answers.last?.headers["connection"] == "close")
        }
    }

    @Test("a 405 carries Allow with the route's methods (RFC 9110 15.5.6)")
    func allow() async throws {
        let service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier())
        let router = ServiceRouter(service: service)
        for (method, path, allowed) in [("DELETE", "/healthz", "GET"), ("GET", "/v1/challenges", "POST")] {
            let response = await router.respond(to: HTTPRequest(method: method, path: path))
            #expect(response.status == 405)
            #expect(response.headers["Allow"] == allowed)
            #expect(response.bodyText.contains(#""error":"methodNotAllowed""#))
        }
        let admin = ServiceRouter(service: service, listener: .admin)
        let metrics = await admin.respond(to: HTTPRequest(method: "POST", path: "/metrics"))
        #expect(metrics.status == 405)
        #expect(metrics.headers["Allow"] == "GET")
    }
}
