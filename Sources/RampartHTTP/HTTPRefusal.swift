/// Why a connection answers a request itself instead of its responder: the request cannot be read.
package enum HTTPRefusal: Equatable, Sendable {
    /// Not well-framed HTTP/1.1 (400), with what is wrong.
    case malformed(String)
    /// The head is larger than the limit (431).
    case headTooLarge
    /// The announced body is larger than the limit (413).
    case bodyTooLarge
    /// A body of unknown length (411).
    case chunked
    /// The request did not arrive in time (408).
    case timeout
    /// An HTTP version other than 1.1 and 1.0 (505).
    case versionNotSupported
}

extension HTTPRefusal {
    /// The answer to the refused request: the one place the server's own refusals become HTTP, each with its status,
    /// a stable `error` code and a message that says what to do, in the JSON error body every Rampart answer carries
    /// and in `Rampart-Error`.
    ///
    /// - Parameter configuration: The limits the messages name.
    /// - Returns: The response.
    package func response(_ configuration: HTTPServer.Configuration) -> HTTPResponse {
        let (status, code, message): (Int, String, String)
        switch self {
        case .malformed(let problem):
            (status, code) = (400, "malformedRequest")
            message = "the request is not well-framed HTTP/1.1: \(problem)"
        case .versionNotSupported:
            (status, code) = (505, "malformedRequest")
            message = "only HTTP/1.1 and HTTP/1.0 are served; send HTTP/1.1"
        case .headTooLarge:
            (status, code) = (431, "headersTooLarge")
            message =
                "the request head is larger than \(configuration.maximumHeadByteCount) bytes; send fewer or shorter "
                + "headers"
        case .bodyTooLarge:
            (status, code) = (413, "bodyTooLarge")
            message = "the request body is larger than \(configuration.maximumBodyByteCount) bytes; send a smaller body"
        case .chunked:
            (status, code) = (411, "lengthRequired")
            message = "send the body with Content-Length; chunked bodies are not accepted"
        case .timeout:
            (status, code) = (408, "requestTimeout")
            message = "the request did not arrive within \(configuration.requestTimeoutSeconds) s; send it at once"
        }
        var response = HTTPResponse.error(status: status, code: code, message: message)
        response.headers["Rampart-Error"] = code
        return response
    }
}

extension HTTPResponse {
    /// `{"error":"<code>","message":"<message>"}` as `application/json`: the shape of every Rampart error body.
    ///
    /// - Parameters:
    ///   - status: The status code.
    ///   - code: The stable error code.
    ///   - message: What failed and what to do; never request bytes.
    /// - Returns: The response.
    package static func error(status: Int, code: String, message: String) -> HTTPResponse {
        var body = Array(#"{"error":"#.utf8)
        appendJSONString(code, to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        appendJSONString(message, to: &body)
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    /// The answer that replaces one that cannot be sent safely: a generic 500.
    static let internalError = HTTPResponse.error(
        status: 500, code: "internalError", message: "the service failed unexpectedly; the failure was logged")

    /// `value` as a JSON string (RFC 8259 7): `"` and `\` escaped, control characters as `\uXXXX` or their short
    /// forms, everything else as is.
    private static func appendJSONString(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), byte])
            case 0x08: bytes.append(contentsOf: Array(#"\b"#.utf8))
            case 0x0C: bytes.append(contentsOf: Array(#"\f"#.utf8))
            case 0x0A: bytes.append(contentsOf: Array(#"\n"#.utf8))
            case 0x0D: bytes.append(contentsOf: Array(#"\r"#.utf8))
            case 0x09: bytes.append(contentsOf: Array(#"\t"#.utf8))
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
