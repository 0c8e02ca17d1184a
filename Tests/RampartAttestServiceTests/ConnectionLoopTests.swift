import Foundation
import Testing

@testable import RampartAttestService

/// The HTTP/1.1 rules the server's event loop applies itself, now that no library parses requests after it:
/// versions, `Host`, field values, `Expect: 100-continue`, HTTP/1.0 connections, HEAD, and answers it will not send.
@Suite(.serialized)
struct ConnectionLoopTests {
    /// Answers `X-Status` with a header named by the request (to test unsafe answers).
    struct HeaderResponder: HTTPResponder {
        func respond(to request: HTTPRequest) async -> HTTPResponse {
            if request.path == "/split" {
                return HTTPResponse(status: 200, headers: ["X-Split": "a\r\nSet-Cookie: x=1"], body: Array("no".utf8))
            }
            if request.path == "/badname" {
                return HTTPResponse(status: 200, headers: ["X Bad": "1"], body: Array("no".utf8))
            }
            return HTTPResponse(
                status: 200, headers: ["Content-Length": "999", "X-Path": request.path],
                body: Array("\(request.method) \(request.body.count)".utf8))
        }
    }

    func withServer(
        _ responder: any HTTPResponder = EchoResponder(), _ body: (UInt16) async throws -> Void
    ) async throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0), responder: responder)
        try server.start()
        defer { server.stop() }
        try await body(try #require(server.port))
    }

    static func error(of response: RawHTTP.Response) -> String? {
        guard let data = response.body.data(using: .utf8),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["error"] as? String
    }

    struct Refused: CustomTestStringConvertible, Sendable {
        let name: String
        let head: String
        let status: Int
        let code: String
        var testDescription: String { name }
    }

    static let refused: [Refused] = [
        Refused(name: "HTTP/1.1 without Host", head: "GET /a HTTP/1.1\r\n\r\n", status: 400, code: "malformedRequest"),
        Refused(
            name: "two Host fields", head: "GET /a HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", status: 400,
            code: "malformedRequest"),
        Refused(
            name: "HTTP/1.0 with two Host fields", head: "GET /a HTTP/1.0\r\nHost: a\r\nHost: a\r\n\r\n", status: 400,
            code: "malformedRequest"),
        Refused(name: "HTTP/2.0", head: "GET /a HTTP/2.0\r\nHost: a\r\n\r\n", status: 505, code: "malformedRequest"),
        Refused(name: "HTTP/1.2", head: "GET /a HTTP/1.2\r\nHost: a\r\n\r\n", status: 505, code: "malformedRequest"),
        Refused(
            name: "not a version", head: "GET /a HTTX/1.1\r\nHost: a\r\n\r\n", status: 400, code: "malformedRequest"),
        Refused(
            name: "lower-case version", head: "GET /a http/1.1\r\nHost: a\r\n\r\n", status: 400,
            code: "malformedRequest"),
        Refused(
            name: "a control character in a value", head: "GET /a HTTP/1.1\r\nHost: a\r\nX-Echo: a\u{01}b\r\n\r\n",
            status: 400, code: "malformedRequest"),
        Refused(
            name: "DEL in a value", head: "GET /a HTTP/1.1\r\nHost: a\r\nX-Echo: a\u{7F}b\r\n\r\n", status: 400,
            code: "malformedRequest"),
        Refused(
            name: "a method that is not a token", head: "G(T /a HTTP/1.1\r\nHost: a\r\n\r\n", status: 400,
            code: "malformedRequest"),
    ]

    @Test("heads the loop itself refuses, with the status and code of each", arguments: refused)
    func refusedHeads(_ refused: Refused) async throws {
        try await withServer { port in
            let response = try #require(await RawHTTP.exchange(port: port, Array(refused.head.utf8)))
            #expect(response.status == refused.status)
            #expect(Self.error(of: response) == refused.code)
            #expect(response.headers["rampart-error"] == refused.code)
            #expect(response.headers["connection"] == "close")
        }
    }

    @Test("a header value that is not UTF-8 is 400: two byte strings never reach the router as one string")
    func notUTF8() async throws {
        try await withServer { port in
            let head = Array("GET /a HTTP/1.1\r\nHost: a\r\nX-User-Id: al".utf8) + [0xFF] + Array("ice\r\n\r\n".utf8)
            let response = try #require(await RawHTTP.exchange(port: port, head))
            #expect(response.status == 400)
            #expect(Self.error(of: response) == "malformedRequest")
            #expect(response.body.contains("not UTF-8"))
            // UTF-8 text beyond ASCII is fine.
            let fine = Array("GET /a HTTP/1.1\r\nHost: a\r\nX-Echo: café\r\nConnection: close\r\n\r\n".utf8)
            let answered = try #require(await RawHTTP.exchange(port: port, fine))
            #expect(answered.status == 200)
            #expect(answered.headers["x-echo"] == "café")
        }
    }

    @Test("Expect: 100-continue gets 100 Continue before the body, then the answer")
    func expectContinue() async throws {
        try await withServer { port in
            let answers = await RawHTTP.onThread { () -> [String] in
                guard let socket = RawHTTP.connectedSocket(port: port) else { return [] }
                defer { close(socket) }
                RawHTTP.sendAll(
                    socket,
                    Array(
                        "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"
                            .utf8))
                var interim = [UInt8](repeating: 0, count: 64)
                let count = interim.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                let first = String(decoding: interim.prefix(max(count, 0)), as: UTF8.self)
                RawHTTP.sendAll(socket, Array("hello".utf8))
                let rest = String(decoding: RawHTTP.receiveAll(socket), as: UTF8.self)
                return [first, rest]
            }
            #expect(answers.first == "HTTP/1.1 100 Continue\r\n\r\n")
            #expect(answers.last?.hasPrefix("HTTP/1.1 200 OK\r\n") == true)
            #expect(answers.last?.hasSuffix("POST /up 5 -") == true)
        }
    }

    @Test("HTTP/1.0 closes after the answer unless it asks for keep-alive; Connection: close closes HTTP/1.1")
    func connectionRules() async throws {
        try await withServer { port in
            let closed = await RawHTTP.exchangeAll(
                port: port, Array("GET /a HTTP/1.0\r\n\r\nGET /b HTTP/1.0\r\n\r\n".utf8))
            #expect(closed.map(\.body) == ["GET /a 0 -"])
            #expect(closed.first?.headers["connection"] == "close")
            let kept = await RawHTTP.exchangeAll(
                port: port,
                Array(
                    "GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /b HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /c HTTP/1.1\r\nHost: a\r\n\r\n"
                        .utf8))
            #expect(kept.map(\.body) == ["GET /a 0 -", "GET /b 0 -"])
            #expect(kept.first?.headers["connection"] == "keep-alive")
            #expect(kept.last?.headers["connection"] == "close")
        }
    }

    @Test("a HEAD answer has the Content-Length a GET would get and no body; every answer has a Date")
    func headAndDate() async throws {
        try await withServer(HeaderResponder()) { port in
            let bytes = await RawHTTP.onThread { () -> [UInt8] in
                guard let socket = RawHTTP.connectedSocket(port: port) else { return [] }
                defer { close(socket) }
                RawHTTP.sendAll(socket, Array("HEAD /h HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n".utf8))
                return RawHTTP.receiveAll(socket)
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(text.hasSuffix("\r\n\r\n"), "a HEAD answer with a body: \(text)")
            // The responder's own Content-Length (999) is not sent: the server frames the body itself.
            #expect(text.contains("\r\nContent-Length: 6\r\n"))
            #expect(!text.contains("999"))
            let date = try #require(text.split(separator: "\r\n").first { $0.hasPrefix("Date: ") })
            // IMF-fixdate: "Date: Sun, 06 Nov 1994 08:49:37 GMT".
            #expect(date.count == "Date: Sun, 06 Nov 1994 08:49:37 GMT".count && date.hasSuffix(" GMT"))
        }
    }

    @Test("an answer whose header would split the response (CR LF in a value, a name not a token) is a 500 instead")
    func responseSplitting() async throws {
        try await withServer(HeaderResponder()) { port in
            for path in ["/split", "/badname"] {
                let response = try #require(await RawHTTP.request(port: port, "GET", path))
                #expect(response.status == 500)
                #expect(Self.error(of: response) == "internalError")
                #expect(response.headers["set-cookie"] == nil)
            }
        }
    }

    @Test("many requests over kept-alive connections, each answer handed back to the loop, all arrive in order")
    func manyKeptAlive() async throws {
        try await withServer { port in
            let bodies = await RawHTTP.onThread { () -> [String] in
                guard let socket = RawHTTP.connectedSocket(port: port) else { return [] }
                defer { close(socket) }
                var seen: [String] = []
                for index in 0..<200 {
                    RawHTTP.sendAll(socket, Array("GET /n\(index) HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
                    guard let answer = RawHTTP.receiveOne(socket) else { break }
                    seen.append(answer.body)
                }
                return seen
            }
            #expect(bodies == (0..<200).map { "GET /n\($0) 0 -" })
        }
    }
}
