import Foundation

/// A tiny HTTP/1.1 client over a POSIX socket, so tests control every byte (oversized and chunked bodies, garbage)
/// and read the raw answer. One request per connection (`Connection: close`).
enum RawHTTP {
    struct Response {
        let status: Int
        let headers: [String: String]
        let body: String
    }

    /// Sends `bytes` to 127.0.0.1:`port` and reads until the server closes; nil when nothing came back.
    ///
    /// The blocking socket work runs on its own thread: the server answers through a `Task` on the cooperative
    /// pool, and a test blocking one of its (two, on a 2-core machine) threads while other suites keep the rest busy
    /// starved that `Task` past the timeout.
    static func exchange(
        port: UInt16, _ bytes: [UInt8], timeoutSeconds: Int = 10, source: String = "127.0.0.1"
    ) async -> Response? {
        await withCheckedContinuation { continuation in
            Thread {
                continuation.resume(
                    returning: blockingExchange(port: port, bytes, timeoutSeconds: timeoutSeconds, source: source))
            }.start()
        }
    }

    /// A blocking TCP socket connected to 127.0.0.1:`port` from `source` (any 127.0.0.0/8 address: Linux lets a
    /// socket bind them all, so a test can be many clients), with `timeoutSeconds` for receiving; nil on failure.
    static func connectedSocket(port: UInt16, source: String = "127.0.0.1", timeoutSeconds: Int = 10) -> Int32? {
        let socket = Foundation.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            close(socket)
            return nil
        }
        return socket
    }

    private static func blockingExchange(
        port: UInt16, _ bytes: [UInt8], timeoutSeconds: Int, source: String
    ) -> Response? {
        guard let socket = connectedSocket(port: port, source: source, timeoutSeconds: timeoutSeconds) else {
            return nil
        }
        defer { close(socket) }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent <= 0 { break }  // the server may close early (413); read what it said
            offset += sent
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return parse(received)
    }

    /// Sends `bytes` (several requests, pipelined) and reads until the server closes: every answer, in order.
    static func exchangeAll(
        port: UInt16, _ bytes: [UInt8], timeoutSeconds: Int = 10, source: String = "127.0.0.1"
    ) async -> [Response] {
        await withCheckedContinuation { continuation in
            Thread {
                guard let socket = connectedSocket(port: port, source: source, timeoutSeconds: timeoutSeconds) else {
                    return continuation.resume(returning: [])
                }
                defer { close(socket) }
                sendAll(socket, bytes)
                continuation.resume(returning: responses(receiveAll(socket)))
            }.start()
        }
    }

    /// Runs blocking socket work on its own thread (see ``exchange(port:_:timeoutSeconds:source:)``).
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in Thread { continuation.resume(returning: work()) }.start() }
    }

    /// Writes all of `bytes` (stopping early when the server closes).
    static func sendAll(_ socket: Int32, _ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Foundation.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { break }
            offset += sent
        }
    }

    /// Reads until the server closes (or the receive timeout).
    static func receiveAll(_ socket: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received
    }

    /// Reads one answer (head, then Content-Length bytes of body) from a kept-alive connection; nil when the
    /// server closes first or the receive timeout passes.
    static func receiveOne(_ socket: Int32) -> Response? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            if let (response, used) = parseOne(received[...]), used <= received.count { return response }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return nil }
            received += buffer[0..<count]
        }
    }

    /// The answers in `bytes`, one after another, each framed by its Content-Length.
    static func responses(_ bytes: [UInt8]) -> [Response] {
        var rest = bytes[...]
        var answers: [Response] = []
        while let (response, used) = parseOne(rest) {
            answers.append(response)
            rest = rest.dropFirst(used)
        }
        return answers
    }

    /// One answer at the start of `bytes` and the bytes it takes, when it is all there.
    private static func parseOne(_ bytes: ArraySlice<UInt8>) -> (Response, Int)? {
        let end = Array("\r\n\r\n".utf8)
        guard let split = bytes.indices.first(where: { bytes[$0...].starts(with: end) }) else { return nil }
        let headText = String(decoding: bytes[..<split], as: UTF8.self)
        let length =
            headText.components(separatedBy: "\r\n").compactMap { line -> Int? in
                guard line.lowercased().hasPrefix("content-length:") else { return nil }
                return Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
            }.first ?? 0
        let bodyStart = split + 4
        guard bytes.endIndex - bodyStart >= length else { return nil }
        guard let response = parse(Array(bytes[bytes.startIndex..<(bodyStart + length)])) else { return nil }
        return (response, bodyStart + length - bytes.startIndex)
    }

    /// Sends a request with a body and `Content-Length`.
    static func request(
        port: UInt16, _ method: String, _ path: String, body: [UInt8] = [], headers: [String: String] = [:],
        source: String = "127.0.0.1"
    ) async -> Response? {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        head += "Content-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return await exchange(port: port, Array(head.utf8) + body, source: source)
    }

    static func request(port: UInt16, _ method: String, _ path: String, json: String) async -> Response? {
        await request(port: port, method, path, body: Array(json.utf8), headers: ["Content-Type": "application/json"])
    }

    private static func parse(_ bytes: [UInt8]) -> Response? {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let lines = text[..<split.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = lines.first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { return nil }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = String(text[split.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = dechunk(body) }
        return Response(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ text: String) -> String {
        var rest = Substring(text)
        var out = ""
        while let lineEnd = rest.range(of: "\r\n"), let size = Int(rest[..<lineEnd.lowerBound], radix: 16), size > 0 {
            let start = lineEnd.upperBound
            let end = rest.utf8.index(start, offsetBy: size, limitedBy: rest.endIndex) ?? rest.endIndex
            out += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        return out
    }
}
