import Foundation
import Testing

@testable import RampartHTTP

/// `ResponseWriter`: the fields it frames itself are never taken from a responder, in any case, and a response that
/// could split is replaced by a 500.
struct ResponseWriterTests {
    static let exchange = HTTPConnectionStateMachine.Exchange(keepAlive: true, minorVersion: 1, isHEAD: false)

    static func text(_ response: HTTPResponse, close: Bool = false) -> String {
        String(decoding: ResponseWriter().serialize(response, exchange: exchange, close: close), as: UTF8.self)
    }

    @Test("the status line and Content-Length carry the exact decimal numbers, whatever their digit count")
    func decimalNumbers() {
        for (status, length) in [(200, 0), (204, 7), (404, 9), (429, 10), (500, 99), (503, 100), (200, 65_536)] {
            let response = HTTPResponse(status: status, body: [UInt8](repeating: 0x61, count: length))
            let lines = Self.text(response).split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
            #expect(lines.first == "HTTP/1.1 \(status) \(ResponseWriter.reason(for: status))")
            let lengths = lines.filter { $0.hasPrefix("Content-Length: ") }
            #expect(lengths == (status == 204 ? [] : ["Content-Length: \(length)"]))
        }
        for value in [0, 1, 9, 10, 11, 99, 100, 101, 999_999, Int.max] {
            var bytes: [UInt8] = []
            bytes.appendDecimal(value)
            #expect(String(decoding: bytes, as: UTF8.self) == String(value))
        }
    }

    @Test("Content-Length, Transfer-Encoding, Connection and Date from a responder are dropped whatever their case")
    func framingFieldsDropped() {
        let response = HTTPResponse(
            status: 200,
            headers: [
                "content-LENGTH": "999", "Transfer-Encoding": "chunked", "CONNECTION": "upgrade", "date": "yesterday",
                "X-Kept": "yes", "Content-Type": "text/plain", "Dates": "kept: not a framing field",
            ],
            body: Array("hello".utf8))
        let lines = Self.text(response).split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "HTTP/1.1 200 OK")
        #expect(lines.filter { $0.lowercased().hasPrefix("content-length:") } == ["Content-Length: 5"])
        #expect(!lines.contains { $0.lowercased().hasPrefix("transfer-encoding") })
        #expect(!lines.contains { $0.lowercased().hasPrefix("connection") })
        #expect(lines.filter { $0.lowercased().hasPrefix("date:") }.count == 1)
        #expect(!lines.contains("date: yesterday"))
        #expect(lines.contains("X-Kept: yes"))
        #expect(lines.contains("Content-Type: text/plain"))
        #expect(lines.contains("Dates: kept: not a framing field"))
        #expect(lines.last == "hello")
    }

    @Test(
        "a field that could split the response makes it a 500",
        arguments: [
            ["X-A": "one\r\nX-Injected: two"], ["X-A": "a\nb"], ["X-A": "a\u{0}b"], ["X A": "b"], ["": "b"],
            ["X-Ä": "b"],
        ])
    func splittingRefused(headers: [String: String]) {
        let text = Self.text(HTTPResponse(status: 200, headers: headers, body: Array("secret".utf8)))
        #expect(text.hasPrefix("HTTP/1.1 500 Internal Server Error\r\n"))
        #expect(!text.contains("Injected") && !text.contains("secret"))
    }
}
