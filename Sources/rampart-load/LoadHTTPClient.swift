import CNetwork
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A failure of the load generator's HTTP client: what went wrong on which connection.
struct LoadError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
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
        socket = try Self.connect(to: address)
        connectionsOpened += 1
    }

    /// A new TCP connection to `address` (`TCP_NODELAY`, close-on-exec), connected; blocking.
    ///
    /// - Parameter address: The server.
    /// - Returns: The socket; the caller closes it.
    /// - Throws: ``LoadError`` when the socket cannot be made or the server refuses it.
    static func connect(to address: LoadServerAddress) throws -> Int32 {
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
        return descriptor
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
        try send(
            LoadRequestBytes.request(method, path, host: address, headers: headers, body: body),
            headRequest: method == "HEAD")
    }

    /// Sends one request's bytes and reads its answer; reconnects once when a kept-alive connection was closed
    /// under it.
    ///
    /// - Parameters:
    ///   - request: The whole request.
    ///   - headRequest: Whether it is a `HEAD` request (its answer has no body).
    /// - Returns: The answer.
    /// - Throws: ``LoadError`` when the server cannot be reached or answers something malformed.
    func send(_ request: [UInt8], headRequest: Bool = false) throws -> LoadResponse {
        let reused = socket >= 0
        do {
            return try exchange(request, headRequest: headRequest)
        } catch let error as LoadError where reused {
            // The server may close an idle kept-alive connection at any time; one retry on a new connection.
            _ = error
            close()
            return try exchange(request, headRequest: headRequest)
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
