import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An HTTP answer as the load generator reads it: the status, the headers (lower-cased names) and the body.
struct LoadResponse: Hashable, Sendable {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    /// Whether the server keeps the connection open after this answer.
    var keepAlive: Bool
}

/// A failure of the load generator's HTTP client: what went wrong on which connection.
struct LoadError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Reads HTTP/1.1 answers out of the bytes a connection receives (RFC 9112): the status line, the header fields,
/// then a body framed by `Content-Length` or `Transfer-Encoding: chunked`, or none for 1xx, 204 and 304 answers and
/// answers to `HEAD`.
struct LoadResponseParser {
    /// The most bytes a head may take (a bound against a broken server).
    static let maximumHeadByteCount = 64 * 1024
    /// The most bytes a body may take.
    static let maximumBodyByteCount = 16 * 1024 * 1024

    /// What ``parse(_:)`` found in the buffer.
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
        guard let headEnd = find([13, 10, 13, 10], in: buffer) else {
            if buffer.count > maximumHeadByteCount { throw LoadError("the answer's head is over 64 KiB") }
            if closed { throw LoadError("the server closed the connection before a whole answer") }
            return .incomplete
        }
        let lines = String(decoding: buffer[..<headEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]),
            (100...599).contains(status)
        else { throw LoadError("not an HTTP/1.x status line: \(lines[0].prefix(80))") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { throw LoadError("a header line without ':'") }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        let http10 = statusParts[0] == "HTTP/1.0"
        let connection = headers["connection"]?.lowercased() ?? ""
        var keepAlive = http10 ? connection.contains("keep-alive") : !connection.contains("close")
        let start = headEnd + 4
        if headRequest || status < 200 || status == 204 || status == 304 {
            return .response(
                LoadResponse(status: status, headers: headers, body: [], keepAlive: keepAlive), consumed: start)
        }
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            guard let (body, end) = try chunked(buffer, from: start) else {
                if closed { throw LoadError("the server closed the connection inside a chunked body") }
                return .incomplete
            }
            return .response(
                LoadResponse(status: status, headers: headers, body: body, keepAlive: keepAlive), consumed: end)
        }
        if let lengthText = headers["content-length"] {
            guard let length = Int(lengthText), length >= 0, length <= maximumBodyByteCount else {
                throw LoadError("an unusable Content-Length: \(lengthText.prefix(40))")
            }
            guard buffer.count - start >= length else {
                if closed { throw LoadError("the server closed the connection inside the body") }
                return .incomplete
            }
            return .response(
                LoadResponse(
                    status: status, headers: headers, body: Array(buffer[start..<start + length]), keepAlive: keepAlive),
                consumed: start + length)
        }
        // No framing: the body runs to the end of the connection.
        guard closed else { return .incomplete }
        keepAlive = false
        return .response(
            LoadResponse(status: status, headers: headers, body: Array(buffer[start...]), keepAlive: keepAlive),
            consumed: buffer.count)
    }

    /// A chunked body starting at `start`: the body and where it ends, or nil when more bytes are needed.
    private static func chunked(_ buffer: [UInt8], from start: Int) throws -> ([UInt8], Int)? {
        var body: [UInt8] = []
        var position = start
        while true {
            guard let lineEnd = find([13, 10], in: buffer, from: position) else { return nil }
            let sizeText =
                String(decoding: buffer[position..<lineEnd], as: UTF8.self)
                .split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0,
                body.count + size <= maximumBodyByteCount
            else { throw LoadError("an unusable chunk size: \(sizeText.prefix(20))") }
            position = lineEnd + 2
            if size == 0 {
                // Trailers, then the empty line.
                guard let end = find([13, 10], in: buffer, from: position) else { return nil }
                if end == position { return (body, end + 2) }
                guard let trailersEnd = find([13, 10, 13, 10], in: buffer, from: position) else { return nil }
                return (body, trailersEnd + 4)
            }
            guard buffer.count >= position + size + 2 else { return nil }
            body += buffer[position..<position + size]
            position += size + 2
        }
    }

    static func find(_ needle: [UInt8], in buffer: [UInt8], from start: Int = 0) -> Int? {
        guard buffer.count >= needle.count, start <= buffer.count - needle.count else { return nil }
        var index = start
        let last = buffer.count - needle.count
        while index <= last {
            if buffer[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where buffer[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}

/// Where a server listens: a loopback IPv4 address and port, from `http://HOST:PORT`.
struct LoadServerAddress: Hashable, Sendable, CustomStringConvertible {
    var host: String
    var port: UInt16

    /// Parses `http://127.0.0.1:8080` (a trailing `/` is allowed; `localhost` means 127.0.0.1).
    init(_ url: String) throws {
        var text = Substring(url)
        guard text.hasPrefix("http://") else {
            throw LoadError("the server must be an http:// URL such as http://127.0.0.1:8080 (got \(url.prefix(80)))")
        }
        text = text.dropFirst("http://".count)
        while text.hasSuffix("/") { text = text.dropLast() }
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0
        else { throw LoadError("the server URL needs a port, as in http://127.0.0.1:8080 (got \(url.prefix(80)))") }
        let host = String(text[..<colon])
        self.host = host == "localhost" ? "127.0.0.1" : host
        self.port = port
        var probe = in_addr()
        guard inet_pton(AF_INET, self.host, &probe) == 1 else {
            throw LoadError("the server host must be an IPv4 address or localhost (got \(host.prefix(80)))")
        }
    }

    var description: String { "http://\(host):\(port)" }
}

/// One blocking HTTP/1.1 connection that is kept alive across requests while the server allows it, and reopened
/// when it does not.
final class LoadConnection {
    let address: LoadServerAddress
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 64 * 1024)
    /// How many TCP connections this object opened.
    private(set) var connectionsOpened = 0

    init(_ address: LoadServerAddress) { self.address = address }

    deinit { close() }

    func close() {
        if socket >= 0 { _ = Glibc.close(socket) }
        socket = -1
        buffer.removeAll(keepingCapacity: true)
    }

    private func open() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw LoadError("socket() failed: \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var peer = sockaddr_in()
        peer.sin_family = sa_family_t(AF_INET)
        peer.sin_port = address.port.bigEndian
        _ = inet_pton(AF_INET, address.host, &peer.sin_addr)
        let connected = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            _ = Glibc.close(descriptor)
            throw LoadError("cannot connect to \(address): \(reason)")
        }
        socket = descriptor
        connectionsOpened += 1
    }

    /// Sends one request and reads its answer; reconnects once when a kept-alive connection was closed under it.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - path: The request target.
    ///   - headers: Extra header fields (`Host`, `Content-Length` are added).
    ///   - body: The body.
    /// - Returns: The answer.
    /// - Throws: ``LoadError`` when the server cannot be reached or answers something malformed.
    func send(_ method: String, _ path: String, headers: [(String, String)], body: [UInt8]) throws -> LoadResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(address.host):\(address.port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" || method == "PUT" { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8) + body
        let reused = socket >= 0
        do {
            return try exchange(request, headRequest: method == "HEAD")
        } catch let error as LoadError where reused {
            // The server may close an idle kept-alive connection at any time; one retry on a new connection.
            _ = error
            close()
            return try exchange(request, headRequest: method == "HEAD")
        }
    }

    private func exchange(_ request: [UInt8], headRequest: Bool) throws -> LoadResponse {
        if socket < 0 { try open() }
        var sent = 0
        while sent < request.count {
            let count = request.withUnsafeBytes { raw -> Int in
                guard let base = raw.baseAddress else { return 0 }
                return Glibc.send(socket, base + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close()
                throw LoadError("sending to \(address) failed: \(reason)")
            }
            sent += count
        }
        var closed = false
        while true {
            if !buffer.isEmpty || closed {
                let outcome: LoadResponseParser.Outcome
                do {
                    outcome = try LoadResponseParser.parse(buffer, closed: closed, headRequest: headRequest)
                } catch {
                    close()
                    throw error
                }
                switch outcome {
                case .response(let response, let consumed):
                    buffer.removeFirst(consumed)
                    if !response.keepAlive || closed { close() }
                    return response
                case .incomplete:
                    if closed {
                        close()
                        throw LoadError("the server closed the connection before a whole answer")
                    }
                }
            }
            let count = scratch.withUnsafeMutableBytes { Glibc.recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 {
                let reason = String(cString: strerror(errno))
                close()
                throw LoadError("reading from \(address) failed: \(reason)")
            }
            if count == 0 {
                if buffer.isEmpty {
                    close()
                    throw LoadError("the server closed the connection without answering")
                }
                closed = true
                continue
            }
            buffer += scratch[0..<count]
        }
    }
}
