/// An HTTP answer as the load generator reads it: the status, the two Rampart header fields it acts on, the body,
/// and whether the connection stays open.
struct LoadResponse: Hashable, Sendable {
    var status: Int
    /// `Rampart-Error`: the refusal's code, when the answer carries one.
    var rampartError: String?
    /// `Rampart-Next-Challenge`: the challenge for the key's next request, when the answer carries one.
    var nextChallenge: String?
    var body: [UInt8]
    /// Whether the server keeps the connection open after this answer.
    var keepAlive: Bool
}

/// Reads HTTP/1.1 answers out of the bytes a connection receives (RFC 9112): the status line, the header fields,
/// then a body framed by `Content-Length` or `Transfer-Encoding: chunked`, or none for 1xx, 204 and 304 answers and
/// answers to `HEAD`.
///
/// One pass over the bytes, without Foundation: every header line is checked for its `:` (RFC 9112 §5:
/// `field-line = field-name ":" OWS field-value OWS`), but only the fields the load generator acts on are kept —
/// `Content-Length`, `Transfer-Encoding`, `Connection`, `Rampart-Error` and `Rampart-Next-Challenge`, matched
/// without regard to case, their values without the surrounding whitespace, repeated fields joined by `, `.
struct LoadResponseParser {
    /// The most bytes a head may take (a bound against a broken server).
    static let maximumHeadByteCount = 64 * 1024
    /// The most bytes a body may take.
    static let maximumBodyByteCount = 16 * 1024 * 1024

    /// What ``parse(_:closed:headRequest:)`` found in the buffer.
    enum Outcome: Equatable {
        /// An answer, and how many bytes of the buffer it took.
        case response(LoadResponse, consumed: Int)
        /// Not enough bytes yet.
        case incomplete
    }

    /// Parses one answer from the start of `buffer`.
    ///
    /// - Parameters:
    ///   - buffer: The bytes received so far.
    ///   - closed: Whether the server closed the connection (a body without a length ends there).
    ///   - headRequest: Whether the request was `HEAD` (no body follows).
    /// - Returns: The answer, or `.incomplete`.
    /// - Throws: ``LoadError`` for a malformed answer.
    static func parse(_ buffer: [UInt8], closed: Bool = false, headRequest: Bool = false) throws -> Outcome {
        try buffer.withUnsafeBufferPointer { try parse(bytes: $0, closed: closed, headRequest: headRequest) }
    }

    /// The header fields kept from a head.
    private struct Fields {
        var contentLength: String?
        var transferEncoding: String?
        var connection: String?
        var rampartError: String?
        var nextChallenge: String?
    }

    /// ``parse(_:closed:headRequest:)`` over the bytes in place.
    static func parse(bytes: UnsafeBufferPointer<UInt8>, closed: Bool, headRequest: Bool) throws -> Outcome {
        guard let headEnd = find(crlfcrlf, in: bytes, from: 0) else {
            if bytes.count > maximumHeadByteCount { throw LoadError("the answer's head is over 64 KiB") }
            if closed { throw LoadError("the server closed the connection before a whole answer") }
            return .incomplete
        }
        // The first CRLF is at or before the head's end.
        let statusLineEnd = find(crlf, in: bytes, from: 0) ?? headEnd
        let (status, http10) = try statusLine(bytes, end: statusLineEnd)
        var fields = Fields()
        var position = statusLineEnd + 2
        while position < headEnd {
            let lineEnd = find(crlf, in: bytes, from: position) ?? headEnd
            try field(bytes, from: position, to: lineEnd, into: &fields)
            position = lineEnd + 2
        }
        let connection = fields.connection ?? ""
        var keepAlive =
            http10 ? containsIgnoringCase(connection, "keep-alive") : !containsIgnoringCase(connection, "close")
        let start = headEnd + 4
        func response(_ body: [UInt8]) -> LoadResponse {
            LoadResponse(
                status: status, rampartError: fields.rampartError, nextChallenge: fields.nextChallenge, body: body,
                keepAlive: keepAlive)
        }
        if headRequest || status < 200 || status == 204 || status == 304 {
            return .response(response([]), consumed: start)
        }
        if let encoding = fields.transferEncoding, containsIgnoringCase(encoding, "chunked") {
            guard let (body, end) = try chunked(bytes, from: start) else {
                if closed { throw LoadError("the server closed the connection inside a chunked body") }
                return .incomplete
            }
            return .response(response(body), consumed: end)
        }
        if let lengthText = fields.contentLength {
            guard let length = Int(lengthText), length >= 0, length <= maximumBodyByteCount else {
                throw LoadError("an unusable Content-Length: \(lengthText.prefix(40))")
            }
            guard bytes.count - start >= length else {
                if closed { throw LoadError("the server closed the connection inside the body") }
                return .incomplete
            }
            return .response(response(Array(bytes[start..<start + length])), consumed: start + length)
        }
        // No framing: the body runs to the end of the connection.
        guard closed else { return .incomplete }
        keepAlive = false
        return .response(response(Array(bytes[start...])), consumed: bytes.count)
    }

    /// `status-line = HTTP-version SP status-code SP [ reason-phrase ]` (RFC 9112 §4): the status and whether the
    /// version is HTTP/1.0. Runs of spaces separate the parts; the status is three digits in 100...599.
    private static func statusLine(_ bytes: UnsafeBufferPointer<UInt8>, end: Int) throws -> (Int, Bool) {
        func refuse() -> LoadError {
            LoadError(
                "not an HTTP/1.x status line: "
                    + String(decoding: UnsafeBufferPointer(rebasing: bytes[0..<min(end, 80)]), as: UTF8.self))
        }
        let space = UInt8(ascii: " ")
        var index = 0
        while index < end && bytes[index] == space { index += 1 }
        let versionStart = index
        while index < end && bytes[index] != space { index += 1 }
        let version = UnsafeBufferPointer(rebasing: bytes[versionStart..<index])
        guard version.starts(with: "HTTP/1.".utf8) else { throw refuse() }
        while index < end && bytes[index] == space { index += 1 }
        var status = 0
        var digits = 0
        while index < end && bytes[index] != space {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit <= 9, digits < 3 else { throw refuse() }
            status = status * 10 + Int(digit)
            digits += 1
            index += 1
        }
        guard digits == 3, (100...599).contains(status) else { throw refuse() }
        return (status, version.elementsEqual("HTTP/1.0".utf8))
    }

    /// One header line, `name ":" OWS value OWS`: keeps the value when the name is one of ``Fields``.
    private static func field(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, into fields: inout Fields
    ) throws {
        var colon = start
        while colon < end && bytes[colon] != UInt8(ascii: ":") { colon += 1 }
        guard colon < end else { throw LoadError("a header line without ':'") }
        let name = UnsafeBufferPointer(rebasing: bytes[start..<colon])
        let slot: WritableKeyPath<Fields, String?>
        switch name.count {
        case 10 where equalIgnoringCase(name, "connection"): slot = \.connection
        case 13 where equalIgnoringCase(name, "rampart-error"): slot = \.rampartError
        case 14 where equalIgnoringCase(name, "content-length"): slot = \.contentLength
        case 17 where equalIgnoringCase(name, "transfer-encoding"): slot = \.transferEncoding
        case 22 where equalIgnoringCase(name, "rampart-next-challenge"): slot = \.nextChallenge
        default: return
        }
        var valueStart = colon + 1
        var valueEnd = end
        while valueStart < valueEnd && isWhitespace(bytes[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart && isWhitespace(bytes[valueEnd - 1]) { valueEnd -= 1 }
        let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[valueStart..<valueEnd]), as: UTF8.self)
        fields[keyPath: slot] = fields[keyPath: slot].map { "\($0), \(value)" } ?? value
    }

    /// A chunked body starting at `start` (RFC 9112 §7.1): the body and where it ends, or nil when more bytes are
    /// needed.
    private static func chunked(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) throws -> ([UInt8], Int)? {
        var body: [UInt8] = []
        var position = start
        while true {
            guard let lineEnd = find(crlf, in: bytes, from: position) else { return nil }
            // chunk-size [ chunk-ext ]: the hexadecimal size before any ';', whitespace around it allowed.
            var sizeEnd = position
            while sizeEnd < lineEnd && bytes[sizeEnd] != UInt8(ascii: ";") { sizeEnd += 1 }
            var sizeStart = position
            while sizeStart < sizeEnd && isWhitespace(bytes[sizeStart]) { sizeStart += 1 }
            while sizeEnd > sizeStart && isWhitespace(bytes[sizeEnd - 1]) { sizeEnd -= 1 }
            let sizeText = String(decoding: UnsafeBufferPointer(rebasing: bytes[sizeStart..<sizeEnd]), as: UTF8.self)
            guard let size = Int(sizeText, radix: 16), size >= 0, size <= maximumBodyByteCount - body.count else {
                throw LoadError("an unusable chunk size: \(sizeText.prefix(20))")
            }
            position = lineEnd + 2
            if size == 0 {
                // Trailers, then the empty line.
                guard let end = find(crlf, in: bytes, from: position) else { return nil }
                if end == position { return (body, end + 2) }
                guard let trailersEnd = find(crlfcrlf, in: bytes, from: position) else { return nil }
                return (body, trailersEnd + 4)
            }
            guard bytes.count - position >= size + 2 else { return nil }
            body += bytes[position..<position + size]
            position += size + 2
        }
    }

    private static let crlf: StaticString = "\r\n"
    private static let crlfcrlf: StaticString = "\r\n\r\n"

    /// The first index at or after `start` where `needle` begins in `buffer`.
    static func find(_ needle: StaticString, in buffer: [UInt8], from start: Int = 0) -> Int? {
        buffer.withUnsafeBufferPointer { find(needle, in: $0, from: start) }
    }

    /// The first index at or after `start` where `needle` begins in `bytes`.
    static func find(_ needle: StaticString, in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        let count = needle.utf8CodeUnitCount
        guard count > 0, start >= 0, bytes.count >= count, start <= bytes.count - count else { return nil }
        let pattern = needle.utf8Start
        let first = pattern[0]
        let last = bytes.count - count
        var index = start
        while index <= last {
            if bytes[index] == first {
                var offset = 1
                while offset < count && bytes[index + offset] == pattern[offset] { offset += 1 }
                if offset == count { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }

    /// ASCII lower case of a byte (other bytes unchanged).
    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Whether `bytes` spell `lowercased` (lower-case ASCII), ignoring ASCII case.
    private static func equalIgnoringCase(_ bytes: UnsafeBufferPointer<UInt8>, _ lowercased: StaticString) -> Bool {
        guard bytes.count == lowercased.utf8CodeUnitCount else { return false }
        let pattern = lowercased.utf8Start
        for index in 0..<bytes.count where lower(bytes[index]) != pattern[index] { return false }
        return true
    }

    /// Whether `text` contains `lowercased` (lower-case ASCII), ignoring ASCII case.
    static func containsIgnoringCase(_ text: String, _ lowercased: StaticString) -> Bool {
        let count = lowercased.utf8CodeUnitCount
        let pattern = lowercased.utf8Start
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count >= count else { return false }
            for start in 0...(bytes.count - count) {
                var offset = 0
                while offset < count && lower(bytes[start + offset]) == pattern[offset] { offset += 1 }
                if offset == count { return true }
            }
            return false
        }
    }
}
