internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// A running server: the ``ConnectionGate`` on the listening socket, and the libmicrohttpd daemon (without a
/// listening socket of its own) that the gate relays checked requests to, with the context its C callbacks reach
/// through their `void *` argument.
///
/// libmicrohttpd runs a pool of internal threads (one per core) polling with epoll; no thread waits for a request.
/// When a request is in, its connection is suspended (MHD_suspend_connection) while a Swift `Task` answers it, and
/// resumed (MHD_resume_connection) with the answer; connections are kept alive between requests.
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
        // MHD_USE_TURBO ("disables certain calls to shutdown(), enables aggressive non-blocking optimistic
        // reads"): libmicrohttpd only ever talks to the gate's end of a socket pair, and the gate shuts the client's
        // socket down itself.
        let flags =
            UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue) | UInt32(MHD_USE_EPOLL.rawValue)
            | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue) | UInt32(MHD_USE_TURBO.rawValue)
        let poolSize = UInt32(clamping: max(1, ProcessInfo.processInfo.activeProcessorCount))
        // The gate admits at most `limit`; MHD's own cap (shared out among the pool's threads) is a backstop above
        // it, for the connections the gate has closed but MHD not yet.
        let started = CMicroHTTPD_start_daemon(
            flags, poolSize, UInt32(clamping: limit + 64 * Int(poolSize)),
            UInt32(clamping: configuration.connectionTimeoutSeconds), accessHandler, context.toOpaque(),
            completionHandler, context.toOpaque(), connectionHandler, context.toOpaque(), unescapeUnlessNUL,
            rawTargetHandler, context.toOpaque())
        guard let started else {
            close(listener)
            context.release()
            throw AttestServiceError.serverFailure("libmicrohttpd could not start; see its message on stderr")
        }
        let daemon = DaemonHandle(started)
        let gate: ConnectionGate
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
        context.takeUnretainedValue().gate.withLock { $0 = gate }
        self.gate = gate
        self.context = context
        self.port = port
        self.handle = Mutex(daemon)
    }

    /// The most connections to admit: the configured number, within what the process may open.
    ///
    /// Each connection is three file descriptors (the client's socket and a socket pair to libmicrohttpd), so the
    /// soft `RLIMIT_NOFILE` is first raised to the hard limit; 64 descriptors stay free for the store, logs and the
    /// listening sockets.
    static func connectionLimit(configured: Int) -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return configured }
        if limits.rlim_cur < limits.rlim_max {
            var raised = limits
            raised.rlim_cur = limits.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limits = raised }
        }
        let available = (Int(clamping: limits.rlim_cur) - 64) / 3
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

    /// Stops the gate (no new connections; requests in flight are answered first), waits until no connection is
    /// suspended (MHD_stop_daemon: "it is an API violation to call MHD_stop_daemon while having suspended
    /// connections"), then stops libmicrohttpd.
    func stop() {
        gate.stop()
        handle.withLock { handle in
            guard let daemon = handle else { return }
            context.takeUnretainedValue().suspensions.drain()
            MHD_stop_daemon(daemon.pointer)
            handle = nil
            context.takeUnretainedValue().gate.withLock { $0 = nil }
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

/// A suspended connection, for the `Task` that resumes it. `@unchecked Sendable`: immutable, and
/// MHD_resume_connection "is safe to resume a suspended connection at any time" from any thread (MHD_USE_ITC).
private final class SuspendedConnection: @unchecked Sendable {
    let pointer: OpaquePointer
    init(_ pointer: OpaquePointer) { self.pointer = pointer }
}

/// How many connections are suspended, and whether the daemon is stopping (then none may be suspended any more).
final class Suspensions: Sendable {
    private let state = Mutex<(stopping: Bool, count: Int)>((false, 0))

    /// Counts one more suspended connection, unless the daemon is stopping.
    func begin() -> Bool {
        state.withLock { state in
            guard !state.stopping else { return false }
            state.count += 1
            return true
        }
    }

    /// A suspended connection was resumed.
    func end() { state.withLock { $0.count -= 1 } }

    /// Refuses new suspensions and waits until every suspended connection has been resumed.
    func drain() {
        state.withLock { $0.stopping = true }
        while state.withLock({ $0.count }) > 0 { usleep(1000) }
    }
}

/// What the C callbacks need: the responder, the body cap, the connection table, the suspension count and the gate
/// (to wake it). Immutable after init but for `gate`, which is behind a lock.
final class DaemonContext: Sendable {
    let responder: any HTTPResponder
    let maximumBodyByteCount: Int
    let connections: ConnectionTable
    let suspensions = Suspensions()
    let gate = Mutex<ConnectionGate?>(nil)

    init(responder: any HTTPResponder, maximumBodyByteCount: Int, connections: ConnectionTable) {
        self.responder = responder
        self.maximumBodyByteCount = maximumBodyByteCount
        self.connections = connections
    }
}

/// The answer a `Task` computes for a suspended connection.
private final class PendingResponse: Sendable {
    let value = Mutex<HTTPResponse?>(nil)
}

/// The state of one request while libmicrohttpd feeds it body chunks; touched only by the thread of the connection's
/// libmicrohttpd worker (the `Task` reaches only `pending`). Made by ``rawTargetHandler`` and released by
/// ``completionHandler``.
private final class RequestState {
    /// The request target as sent, before MHD unescapes it.
    let target: String
    /// The gate's id of the connection (see ``ConnectionTable``), 0 when unknown.
    let connectionID: UInt64
    var started = false
    var body: [UInt8] = []
    var responded = false
    /// Set while a `Task` answers; its answer is queued when libmicrohttpd calls the handler after the resume.
    var pending: PendingResponse?

    init(target: String, connectionID: UInt64) {
        self.target = target
        self.connectionID = connectionID
    }
}

/// MHD_OPTION_URI_LOG_CALLBACK, called once per request before anything is unescaped: "some programmers may use it to
/// instantiate their own request objects, freeing them in the notifier MHD_OPTION_NOTIFY_COMPLETED" (microhttpd.h).
/// Its return value is the request's initial `*req_cls`.
private let rawTargetHandler: CMicroHTTPD_uri_callback = { _, uri, connection in
    let target = uri.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: strlen($0)), as: UTF8.self) }
    let id = connection.flatMap { CMicroHTTPD_socket_context($0) }.map { UInt64(UInt(bitPattern: $0)) } ?? 0
    return Unmanaged.passRetained(RequestState(target: target ?? "/", connectionID: id)).toOpaque()
}

private let accessHandler: MHD_AccessHandlerCallback = {
    contextPointer, connection, url, method, _, uploadData, uploadDataSize, requestPointer in
    guard let contextPointer, let connection, let requestPointer, let uploadDataSize else { return .NO }
    let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()

    guard let existing = requestPointer.pointee else { return .NO }  // rawTargetHandler always sets it
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
    if let pending = state.pending {
        // Called again after MHD_resume_connection: queue the Task's answer.
        state.pending = nil
        let response = pending.value.withLock { $0 } ?? HTTPResponseError.internalError()
        return send(response, on: connection)
    }
    if !state.started {
        // First call: headers only. The gate has refused oversized and chunked bodies already; these checks stay
        // as a second line, before a byte of the body is read.
        state.started = true
        if let length = header(connection, "Content-Length"), let count = Int(length),
            count > context.maximumBodyByteCount
        {
            state.responded = true
            return send(tooLarge(context.maximumBodyByteCount), on: connection)
        }
        // libmicrohttpd can only answer before the body or after all of it; a chunked body of unknown size could
        // only be refused after reading it whole, so bodies must announce their length.
        if header(connection, "Transfer-Encoding") != nil {
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
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        headers: allHeaders(connection), body: state.body, remoteAddress: clientAddress(connection),
        target: state.target)
    state.body = []
    guard context.suspensions.begin() else {
        return send(
            HTTPResponseError.body(
                status: 503, code: "shuttingDown", message: "the service is stopping; retry on another instance"),
            on: connection)
    }
    // Suspend the connection rather than block this worker thread (which polls many connections) while the
    // responder runs; "The only safe way to call this function is to call it from the MHD_AccessHandlerCallback".
    // After MHD_resume_connection, libmicrohttpd calls this handler again, which queues the answer (above).
    let pending = PendingResponse()
    state.pending = pending
    MHD_suspend_connection(connection)
    let suspended = SuspendedConnection(connection)
    let responder = context.responder
    let suspensions = context.suspensions
    Task(priority: .high) {
        let response = await responder.respond(to: request)
        pending.value.withLock { $0 = response }
        MHD_resume_connection(suspended.pointer)
        suspensions.end()
    }
    return .YES
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

/// MHD_OPTION_NOTIFY_CONNECTION: when MHD starts a connection the gate handed over, its socket context becomes the
/// gate's id of the connection (a pointer-sized integer, never dereferenced), so later callbacks can name it.
private let connectionHandler: MHD_NotifyConnectionCallback = { contextPointer, connection, socketContext, code in
    guard let contextPointer, let connection, let socketContext, code == .CONNECTION_NOTIFY_STARTED else { return }
    let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
    let socket = CMicroHTTPD_connection_fd(connection)
    if let id = context.connections.started(socket: socket) {
        socketContext.pointee = UnsafeMutableRawPointer(bitPattern: UInt(id))
    }
}

/// MHD_OPTION_NOTIFY_COMPLETED: the request's answer has been sent (or the request was abandoned). The gate counts
/// these to know when a refusal may follow the answers before it.
private let completionHandler: MHD_RequestCompletedCallback = { contextPointer, _, requestPointer, _ in
    guard let requestPointer, let statePointer = requestPointer.pointee else { return }
    let state = Unmanaged<RequestState>.fromOpaque(statePointer).takeRetainedValue()
    requestPointer.pointee = nil
    guard let contextPointer, state.connectionID != 0 else { return }
    let context = Unmanaged<DaemonContext>.fromOpaque(contextPointer).takeUnretainedValue()
    if context.connections.requestCompleted(id: state.connectionID) {
        context.gate.withLock { $0?.wake() }
    }
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
                // Lower-cased byte by byte: the gate let only token characters (ASCII) through as a field name.
                let length = strlen(key)
                let name = String(unsafeUninitializedCapacity: length) { buffer in
                    for index in 0..<length {
                        let byte = UInt8(bitPattern: key[index])
                        buffer[index] = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                    }
                    return length
                }
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
    // Connections stay open between requests: every request still passes the gate's framing check, which relays
    // each connection's bytes (ConnectionGate).
    return MHD_queue_response(connection, UInt32(clamping: response.status), created)
}
