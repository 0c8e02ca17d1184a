import Foundation
import Synchronization

/// Writes an ``HTTPResponse`` as HTTP/1.1 bytes (RFC 9112 4, 6): the status line, the responder's header fields,
/// `Date`, `Content-Length` and `Connection`, then the body.
///
/// The `Date` text is made once per second. Header fields the server itself frames (`Content-Length`,
/// `Transfer-Encoding`, `Connection`, `Date`) are not taken from the responder. A field whose name is not a token or
/// whose value holds CR, LF or NUL would let the response split into two ("response splitting"), so such a response
/// is replaced by a generic 500 rather than sent with the field left out.
package final class ResponseWriter: Sendable {
    /// The second the `Date` field was made for, and the field.
    /// Creates a writer.
    package init() {}

    private let dateCache = Mutex<(second: Int, field: [UInt8])>((-1, []))

    /// The bytes of `response` to the request `exchange` describes; `close` adds `Connection: close`.
    package func serialize(
        _ response: HTTPResponse, exchange: HTTPConnectionStateMachine.Exchange, close: Bool
    ) -> [UInt8] {
        let response = Self.isSafe(response) ? response : HTTPResponse.internalError
        let status = response.status
        // RFC 9110 6.4.1: 1xx, 204 and 304 answers have no content; RFC 9110 9.3.2: a HEAD answer has none either
        // (its Content-Length is the one a GET would get).
        let hasContent = status >= 200 && status != 204 && status != 304
        var bytes: [UInt8] = []
        bytes.reserveCapacity(192 + response.headers.count * 48 + (hasContent ? response.body.count : 0))
        bytes.append(contentsOf: "HTTP/1.1 ".utf8)
        bytes.appendDecimal(status)
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: Self.reason(for: status).utf8)
        bytes.append(contentsOf: "\r\n".utf8)
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) where !Self.isFramingField(name) {
            bytes.append(contentsOf: name.utf8)
            bytes.append(contentsOf: ": ".utf8)
            bytes.append(contentsOf: value.utf8)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        bytes.append(contentsOf: date())
        if hasContent {
            bytes.append(contentsOf: "Content-Length: ".utf8)
            bytes.appendDecimal(response.body.count)
            bytes.append(contentsOf: "\r\n".utf8)
        }
        if close {
            bytes.append(contentsOf: "Connection: close\r\n".utf8)
        } else if exchange.minorVersion == 0 {
            bytes.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        bytes.append(contentsOf: "\r\n".utf8)
        if hasContent && !exchange.isHEAD { bytes.append(contentsOf: response.body) }
        return bytes
    }

    /// `Date: <IMF-fixdate>\r\n` (RFC 9110 5.6.7), e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    private func date() -> [UInt8] {
        var now = time(nil)
        if let field = dateCache.withLock({ $0.second == Int(now) ? $0.field : nil }) { return field }
        var parts = tm()
        gmtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let text =
            "Date: \(Self.days[Int(parts.tm_wday) % 7]), \(two(parts.tm_mday)) \(Self.months[Int(parts.tm_mon) % 12]) "
            + "\(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT\r\n"
        let field = Array(text.utf8)
        dateCache.withLock { $0 = (Int(now), field) }
        return field
    }

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Whether every field name is a token and no value holds CR, LF or NUL (RFC 9110 5.1, 5.5).
    static func isSafe(_ response: HTTPResponse) -> Bool {
        (100...999).contains(response.status)
            && response.headers.allSatisfy { name, value in
                !name.isEmpty && utf8(of: name) { $0.allSatisfy(RequestHead.isTokenCharacter) }
                    && utf8(of: value) { !$0.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 } }
            }
    }

    /// Whether `name` is one of the fields this writer sets itself, in any ASCII case (compared in place: a
    /// lower-cased copy of every header of every answer cost an allocation each).
    private static func isFramingField(_ name: String) -> Bool {
        utf8(of: name) { name in
            framingFields.contains { field in
                field.count == name.count
                    && zip(name, field).allSatisfy { byte, lower in
                        ((0x41...0x5A).contains(byte) ? byte | 0x20 : byte) == lower
                    }
            }
        }
    }

    private static let framingFields = ["content-length", "transfer-encoding", "connection", "date"].map {
        Array($0.utf8)
    }

    /// `body` over the UTF-8 bytes of `text`, as one buffer rather than element by element through its UTF-8 view.
    private static func utf8<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }

    /// The reason phrase of `status` (RFC 9110 15); clients ignore it, people read it.
    static func reason(for status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status"
        }
    }
}
