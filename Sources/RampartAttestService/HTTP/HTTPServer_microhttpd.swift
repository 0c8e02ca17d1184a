internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// A running server: the ``ConnectionGate`` on the listening socket, and the libmicrohttpd daemon (without a
/// listening socket of its own) that it hands checked connections to, with the context its C callbacks reach through
/// their `void *` argument.
final class MicroHTTPDaemon: Sendable {
    private let context: Unmanaged<DaemonContext>
    private let handle: Mutex<DaemonHandle?>
    private let gate: ConnectionGate
    let port: UInt16

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder) throws {
        let limit = Self.connectionLimit(configured: configuration.connectionLimit)
        let (listener, port) = try Self.listen(host: configuration.host, port: configuration.port)
        let table = ConnectionTable()
        let context = Unmanaged.passRetained(
            DaemonContext(
                responder: responder, maximumBodyByteCount: configuration.maximumBodyByteCount, connections: table))
        let flags =
            UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_POLL.rawValue)
        // The gate admits at most `limit`; MHD's own cap is a backstop above it.
        let started = CMicroHTTPD_start_daemon(
            flags, UInt32(clamping: limit + 16), UInt32(clamping: configuration.connectionTimeoutSeconds),
            accessHandler, context.toOpaque(), completionHandler, context.toOpaque(), connectionHandler,
            context.toOpaque(), unescapeUnlessNUL, rawTargetHandler, nil)
        guard let started else {
            close(listener)
            context.release()
            throw AttestServiceError.serverFailure("libmicrohttpd could not start; see its message on stderr")
        }
        let daemon = DaemonHandle(started)
        do {
            gate = try ConnectionGate(
                listener: listener, configuration: configuration, connectionLimit: limit, table: table
            ) { socket, address, length in
                // MHD_add_connection: "The given client socket will be managed (and closed!) by MHD after this
                // call", also when it fails.
                MHD_add_connection(daemon.pointer, socket, address, length) == .YES
            }
        } catch {
            close(listener)
            MHD_stop_daemon(started)
            context.release()
            throw error
        }
        self.context = context
        self.port = port
        self.handle = Mutex(daemon)
    }

    /// The most connections to admit: the configured number, within what the process may open.
    ///
    /// Each connection is one file descriptor, so the soft `RLIMIT_NOFILE` is first raised to the hard limit; 64
    /// descriptors stay free for the store, logs and the listening sockets.
    static func connectionLimit(configured: Int) -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return configured }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let available = Int(clamping: limits.rlim_cur) - 64
        return max(1, min(configured, available))
    }

    /// A bound, listening, non-blocking socket on `host`:`port`, and the port it got.
    private static func listen(host: String, port: UInt16) throws -> (Int32, UInt16) {
        let isIPv6 = host.contains(":")
        let family = isIPv6 ? AF_INET6 : AF_INET
        let listener = socket(
            family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw AttestServiceError.serverFailure("could not create a socket") }
        var one: Int32 = 1
        _ = setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound: Int32
        if isIPv6 {
            _ = setsockopt(listener, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                close(listener)
                throw AttestServiceError.serverFailure("'\(host)' is not an IPv6 address; use e.g. ::1 or 127.0.0.1")
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                close(listener)
                throw AttestServiceError.serverFailure(
                    "'\(host)' is not an IPv4 address; use e.g. 127.0.0.1 or 0.0.0.0")
            }
            bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard bound == 0, Foundation.listen(listener, 1024) == 0 else {
            close(listener)
            throw AttestServiceError.serverFailure(
                "could not listen on \(host):\(port); is the port in use or privileged?")
        }
        var local = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let boundPort = withUnsafePointer(to: &local) { pointer in
            isIPv6
                ? pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin6_port)
                }
                : pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    UInt16(bigEndian: $0.pointee.sin_port)
                }
        }
        return (listener, boundPort)
    }

    /// Stops the gate (no new connections; those still sending their head are closed), then MHD_stop_daemon, which
    /// joins every connection thread, so requests in flight finish first.
    func stop() {
        gate.stop()
        handle.withLock { handle in
            guard let daemon = handle else { return }
            MHD_stop_daemon(daemon.pointer)
            handle = nil
            context.release()
        }
    }

    deinit { stop() }
}

/// The daemon pointer, for the gate's thread. `@unchecked Sendable`: immutable after init, and MHD_add_connection
/// may be called from any thread when the daemon has MHD_USE_ITC.
private final class DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// What the C callbacks need: the responder, the body cap and the connection table. Immutable after init.
final class DaemonContext: Sendable {
    let responder: any HTTPResponder
    let maximumBodyByteCount: Int
    let connections: ConnectionTable

    init(responder: any HTTPResponder, maximumBodyByteCount: Int, connections: ConnectionTable) {
        self.responder = responder
        self.maximumBodyByteCount = maximumBodyByteCount
        self.connections = connections
    }
}

/// The state of one request while libmicrohttpd feeds it body chunks; owned by the connection's thread. Made by
/// ``rawTargetHandler`` and released by ``completionHandler``.
private final class RequestState {
    /// The request target as sent, before MHD unescapes it.
    let target: String
    var started = false
    var body: [UInt8] = []
    var responded = false

    init(target: String) { self.target = target }
}

/// MHD_OPTION_URI_LOG_CALLBACK, called once per request before anything is unescaped: "some programmers may use it to
/// instantiate their own request objects, freeing them in the notifier MHD_OPTION_NOTIFY_COMPLETED" (microhttpd.h).
/// Its return value is the request's initial `*req_cls`.
private let rawTargetHandler: CMicroHTTPD_uri_callback = { _, uri, _ in
    let target = uri.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
    return Unmanaged.passRetained(RequestState(target: target ?? "/")).toOpaque()
}

/// Holds the responder's answer while the connection thread waits for it.
private final class ResponseSlot: Sendable {
    let value = Mutex<HTTPResponse?>(nil)
    let ready = DispatchSemaphore(value: 0)
}

private let accessHandler: MHD_AccessHandlerCallback = {
    contextPointer, connection, url, method, _, uploadData, uploadDataSize, requestPointer in
    guard let contextPointer, let connection, let requestPointer, let uploadDataSize else { return .NO }
    let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()

    guard let existing = requestPointer.pointee else { return .NO }  // rawTargetHandler always sets it
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    if !state.started {
        // First call: headers only. Refuse an announced oversized body before reading a byte of it.
        state.started = true
        if let length = header(connection, "Content-Length"), let count = Int(length),
            count > context.maximumBodyByteCount
        {
            state.responded = true
            return send(tooLarge(context.maximumBodyByteCount), on: connection)
        }
        // libmicrohttpd can only answer before the body or after all of it; a chunked body of unknown size could
        // only be refused after reading it whole, so bodies must announce their length.
        if let encoding = header(connection, "Transfer-Encoding"), encoding.lowercased().contains("chunked") {
            state.responded = true
            return send(
                HTTPResponseError.response(
                    for: .lengthRequired("send the body with Content-Length; chunked bodies are not accepted")),
                on: connection)
        }
        return .YES
    }
    if uploadDataSize.pointee > 0 {
        let count = uploadDataSize.pointee
        uploadDataSize.pointee = 0
        if state.responded { return .YES }
        guard state.body.count + count <= context.maximumBodyByteCount, let uploadData else {
            // More bytes than the checked Content-Length: MHD cannot answer mid-body, so close the connection.
            state.responded = true
            state.body = []
            return .NO
        }
        uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
            state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
        }
        return .YES
    }
    if state.responded { return .YES }
    state.responded = true
    // The whole request is in: the gate's receive deadline no longer applies.
    context.connections.requestReceived(CMicroHTTPD_connection_fd(connection))
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        headers: allHeaders(connection), body: state.body, remoteAddress: clientAddress(connection),
        target: state.target)
    state.body = []
    // This is a libmicrohttpd connection thread, not one of Swift's cooperative threads, so blocking it while the
    // responder runs is safe.
    let slot = ResponseSlot()
    let responder = context.responder
    Task(priority: .high) {
        let response = await responder.respond(to: request)
        slot.value.withLock { $0 = response }
        slot.ready.signal()
    }
    slot.ready.wait()
    let response = slot.value.withLock { $0 } ?? HTTPResponseError.internalError()
    return send(response, on: connection)
}

/// libmicrohttpd's own `%HH` decoding of the URL, except when it would decode a NUL: then the URL stays as sent.
///
/// The access handler receives the URL as a C string, so a decoded `%00` would cut it: `/v1/keys/<id>%00junk` reached
/// the router as `/v1/keys/<id>`. Left encoded, the `%` makes the router refuse it like any other stray character
/// (`invalidBase64` for a key id, `notFound` elsewhere). MHD_OPTION_UNESCAPE_CALLBACK: the result "must be shorter
/// than the input and must still be 0-terminated"; both the decoded and the unchanged text are.
private let unescapeUnlessNUL: CMicroHTTPD_unescape_callback = { _, _, text in
    guard let text else { return 0 }
    let length = strlen(text)
    var decoded = Array(UnsafeBufferPointer(start: text, count: length + 1))
    // MHD_http_unescape decodes in place, 0-terminates and returns the decoded length, NULs included.
    let decodedLength = decoded.withUnsafeMutableBufferPointer { MHD_http_unescape($0.baseAddress) }
    guard decodedLength <= length, !decoded.prefix(decodedLength).contains(0) else { return length }
    decoded.withUnsafeBufferPointer { buffer in
        if let decodedText = buffer.baseAddress { text.update(from: decodedText, count: decodedLength + 1) }
    }
    return decodedLength
}

/// MHD_OPTION_NOTIFY_CONNECTION: when MHD closes a connection (before it closes the socket), the table forgets it.
private let connectionHandler: MHD_NotifyConnectionCallback = { contextPointer, connection, _, code in
    guard let contextPointer, let connection, code == .CONNECTION_NOTIFY_CLOSED else { return }
    let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
    context.connections.remove(CMicroHTTPD_connection_fd(connection))
}

private let completionHandler: MHD_RequestCompletedCallback = { _, _, requestPointer, _ in
    guard let requestPointer, let state = requestPointer.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestPointer.pointee = nil
}

private func header(_ connection: OpaquePointer, _ name: String) -> String? {
    // MHD_lookup_connection_value: the returned string is owned by MHD and valid while the request lives; copy it.
    MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
}

/// Every request header, names lower-cased; a field sent more than once holds its values joined by `, ` in the order
/// sent (RFC 9110 5.3). MHD_get_connection_values calls the iterator once per field; the strings are MHD's, so they
/// are copied.
private func allHeaders(_ connection: OpaquePointer) -> [String: String] {
    final class Fields {
        var values: [String: String] = [:]
    }
    let fields = Fields()
    withExtendedLifetime(fields) {
        _ = MHD_get_connection_values(
            connection, .HEADER_KIND,
            { context, _, key, value in
                guard let context, let key else { return .YES }
                let fields = Unmanaged<Fields>.fromOpaque(context).takeUnretainedValue()
                let name = String(cString: key).lowercased()
                let text = value.map { String(cString: $0) } ?? ""
                fields.values[name] = fields.values[name].map { "\($0), \(text)" } ?? text
                return .YES
            }, Unmanaged.passUnretained(fields).toOpaque())
    }
    return fields.values
}

/// The client's IP address as text, from MHD_CONNECTION_INFO_CLIENT_ADDRESS.
private func clientAddress(_ connection: OpaquePointer) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
    let found = buffer.withUnsafeMutableBufferPointer {
        CMicroHTTPD_client_address(connection, $0.baseAddress, socklen_t($0.count))
    }
    guard found == 1 else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

private func tooLarge(_ limit: Int) -> HTTPResponse {
    HTTPResponseError.response(
        for: .bodyTooLarge("the request body is larger than \(limit) bytes; send a smaller body"))
}

private func send(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
    // .RESPMEM_MUST_COPY: "MHD allocates a copy of the buffer", so the Swift array need not outlive the call.
    let created = response.body.withUnsafeBytes { bytes in
        MHD_create_response_from_buffer(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
    }
    guard let created else { return .NO }
    // MHD_destroy_response: the response is reference-counted; queuing keeps it alive until it is sent.
    defer { MHD_destroy_response(created) }
    for (name, value) in response.headers {
        _ = MHD_add_response_header(created, name, value)
    }
    // One request per connection, so that every request head passes the ConnectionGate's framing check.
    _ = MHD_add_response_header(created, "Connection", "close")
    return MHD_queue_response(connection, UInt32(clamping: response.status), created)
}
