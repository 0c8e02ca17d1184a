import Foundation
import RampartAttestService
import Testing

/// Answers with the request's method, path and body length, so the server's own behaviour is what is tested.
struct EchoResponder: HTTPResponder {
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        let text = "\(request.method) \(request.path) \(request.body.count) \(request.headers["content-type"] ?? "-")"
        return HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": "text/plain", "X-Remote-Address": request.remoteAddress ?? "-",
                "X-Target": request.target, "X-Echo": request.headers["x-echo"] ?? "-",
            ],
            body: Array(text.utf8))
    }
}

@Suite(.serialized)
struct HTTPServerTests {
    func withServer(limit: Int = 1024, _ body: (UInt16) async throws -> Void) async throws {
        let server = HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, maximumBodyByteCount: limit), responder: EchoResponder())
        try server.start()
        defer { server.stop() }
        let port = try #require(server.port)
        #expect(port != 0)
        try await body(port)
    }

    @Test("a request reaches the responder with method, path (query dropped), headers and body")
    func roundTrip() async throws {
        try await withServer { port in
            let response = try #require(await RawHTTP.request(port: port, "POST", "/v1/x?y=1", json: "{\"a\":1}"))
            #expect(response.status == 200)
            #expect(response.body == "POST /v1/x 7 application/json")
        }
    }

    @Test("the responder sees the target as sent (query and escapes untouched) and every header, repeats joined")
    func targetAndHeaders() async throws {
        try await withServer { port in
            let request = Array(
                "GET /v1/a%2Fb?q=%41&r=1 HTTP/1.1\r\nHost: x\r\nX-Echo: one\r\nX-Echo: two\r\nConnection: close\r\n\r\n"
                    .utf8)
            let response = try #require(await RawHTTP.exchange(port: port, request))
            #expect(response.headers["x-target"] == "/v1/a%2Fb?q=%41&r=1")
            #expect(response.headers["x-echo"] == "one, two")
            #expect(response.body == "GET /v1/a/b 0 -")
        }
    }

    @Test("the responder sees the client's IP address without a port, also from another loopback address")
    func remoteAddress() async throws {
        try await withServer { port in
            let local = try #require(await RawHTTP.request(port: port, "GET", "/healthz"))
            #expect(local.headers["x-remote-address"] == "127.0.0.1")
            let other = try #require(await RawHTTP.request(port: port, "GET", "/healthz", source: "127.0.0.7"))
            #expect(other.headers["x-remote-address"] == "127.0.0.7")
        }
    }

    @Test("a path with %00 reaches the responder as sent, not decoded and cut at the NUL; other escapes decode")
    func encodedNUL() async throws {
        try await withServer { port in
            let cut = try #require(await RawHTTP.request(port: port, "GET", "/v1/keys/AB%00CD%2F"))
            #expect(cut.body == "GET /v1/keys/AB%00CD%2F 0 -")
            let decoded = try #require(await RawHTTP.request(port: port, "GET", "/v1/keys/AB%2FCD%41"))
            #expect(decoded.body == "GET /v1/keys/AB/CDA 0 -")
        }
    }

    @Test("an announced body over the cap is 413 bodyTooLarge, without being read, and the server stays up")
    func announcedTooLarge() async throws {
        try await withServer { port in
            let big = [UInt8](repeating: 0x41, count: 200_000)
            let response = try #require(await RawHTTP.request(port: port, "POST", "/v1/x", body: big))
            #expect(response.status == 413)
            #expect(response.body.contains("\"error\":\"bodyTooLarge\""))
            let after = try #require(await RawHTTP.request(port: port, "GET", "/healthz"))
            #expect(after.status == 200)
        }
    }

    @Test("a chunked body is 411 lengthRequired before any of it is read")
    func chunkedTooLarge() async throws {
        try await withServer { port in
            var bytes = Array(
                "POST /v1/x HTTP/1.1\r\nHost: x\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
            for _ in 0..<4 {
                bytes += Array("200\r\n".utf8) + [UInt8](repeating: 0x42, count: 512) + Array("\r\n".utf8)
            }
            bytes += Array("0\r\n\r\n".utf8)
            let answer = await RawHTTP.exchange(port: port, bytes)
            #expect(answer?.status == 411)
            #expect(answer?.body.contains("\"error\":\"lengthRequired\"") == true)
        }
    }

    @Test("a body exactly at the cap is accepted")
    func atTheCap() async throws {
        try await withServer { port in
            let response = try #require(
                await RawHTTP.request(port: port, "POST", "/v1/x", body: [UInt8](repeating: 0x43, count: 1024)))
            #expect(response.status == 200)
            #expect(response.body.hasPrefix("POST /v1/x 1024"))
        }
    }

    @Test("garbage instead of HTTP gets an error or a closed connection, and the server stays up")
    func garbage() async throws {
        try await withServer { port in
            let answer = await RawHTTP.exchange(
                port: port, Array("\u{0}\u{1}NOT HTTP AT ALL\r\n\r\n".utf8), timeoutSeconds: 1)
            #expect(answer == nil || answer?.status == 400)
            let after = try #require(await RawHTTP.request(port: port, "GET", "/healthz"))
            #expect(after.status == 200)
        }
    }

    @Test("a bad listen address or a port in use is serverFailure")
    func startFailures() async throws {
        let bad = HTTPServer(configuration: .init(host: "not-an-ip", port: 0), responder: EchoResponder())
        #expect(throws: HTTPServerError.serverFailure("")) { try bad.start() }
        try await withServer { port in
            let clash = HTTPServer(configuration: .init(host: "127.0.0.1", port: port), responder: EchoResponder())
            #expect(throws: HTTPServerError.serverFailure("")) { try clash.start() }
        }
    }

    @Test("IPv6 loopback works")
    func ipv6() throws {
        let server = HTTPServer(configuration: .init(host: "::1", port: 0), responder: EchoResponder())
        do { try server.start() } catch { return }  // no IPv6 on this machine: nothing to test
        server.stop()
    }
}
