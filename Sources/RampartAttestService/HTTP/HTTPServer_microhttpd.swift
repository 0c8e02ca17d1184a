internal import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// A running libmicrohttpd daemon and the context its C callbacks reach through their `void *` argument.
final class MicroHTTPDaemon: Sendable {
    private let context: Unmanaged<DaemonContext>
    private let handle: Mutex<OpaquePointer?>
    let port: UInt16

    init(configuration: HTTPServer.Configuration, responder: any HTTPResponder) throws {
        let context = Unmanaged.passRetained(
            DaemonContext(responder: responder, maximumBodyByteCount: configuration.maximumBodyByteCount))
        var flags =
            UInt32(MHD_USE_THREAD_PER_CONNECTION.rawValue) | UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue)
            | UInt32(MHD_USE_POLL.rawValue)
        let started: OpaquePointer?
        if configuration.host.contains(":") {
            flags |= UInt32(MHD_USE_IPv6.rawValue)
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = configuration.port.bigEndian
            guard inet_pton(AF_INET6, configuration.host, &address.sin6_addr) == 1 else {
                context.release()
                throw AttestServiceError.serverFailure(
                    "'\(configuration.host)' is not an IPv6 address; use e.g. ::1 or 127.0.0.1")
            }
            started = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Self.startDaemon(flags: flags, address: $0, configuration: configuration, context: context)
                }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = configuration.port.bigEndian
            guard inet_pton(AF_INET, configuration.host, &address.sin_addr) == 1 else {
                context.release()
                throw AttestServiceError.serverFailure(
                    "'\(configuration.host)' is not an IPv4 address; use e.g. 127.0.0.1 or 0.0.0.0")
            }
            started = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Self.startDaemon(flags: flags, address: $0, configuration: configuration, context: context)
                }
            }
        }
        guard let started else {
            context.release()
            throw AttestServiceError.serverFailure(
                "could not listen on \(configuration.host):\(configuration.port); is the port in use or privileged?")
        }
        self.context = context
        self.port = CMicroHTTPD_bound_port(started)
        self.handle = Mutex(started)
    }

    private static func startDaemon(
        flags: UInt32, address: UnsafePointer<sockaddr>, configuration: HTTPServer.Configuration,
        context: Unmanaged<DaemonContext>
    ) -> OpaquePointer? {
        CMicroHTTPD_start_daemon(
            flags, address, UInt32(clamping: configuration.connectionLimit),
            UInt32(clamping: configuration.connectionTimeoutSeconds), accessHandler, context.toOpaque(),
            completionHandler, context.toOpaque(), unescapeUnlessNUL)
    }

    /// Quiesces, then stops: MHD_stop_daemon joins every connection thread, so requests in flight finish first.
    func stop() {
        handle.withLock { handle in
            guard let daemon = handle else { return }
            // MHD_quiesce_daemon: "stop accepting connections … the listen socket is returned" (we close it after).
            let socket = MHD_quiesce_daemon(daemon)
            MHD_stop_daemon(daemon)
            if socket >= 0 { close(socket) }
            handle = nil
            context.release()
        }
    }

    deinit { stop() }
}

/// What the C callbacks need: the responder and the body cap. Immutable after init.
final class DaemonContext: Sendable {
    let responder: any HTTPResponder
    let maximumBodyByteCount: Int

    init(responder: any HTTPResponder, maximumBodyByteCount: Int) {
        self.responder = responder
        self.maximumBodyByteCount = maximumBodyByteCount
    }
}

/// The state of one request while libmicrohttpd feeds it body chunks; owned by the connection's thread.
private final class RequestState {
    var body: [UInt8] = []
    var responded = false
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

    guard let existing = requestPointer.pointee else {
        // First call: headers only. Refuse an announced oversized body before reading a byte of it.
        let state = RequestState()
        requestPointer.pointee = Unmanaged.passRetained(state).toOpaque()
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
    let state = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
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
    var headers: [String: String] = [:]
    for name in ["Content-Type", "Content-Length", "Authorization"] {
        if let value = header(connection, name) { headers[name] = value }
    }
    let request = HTTPRequest(
        method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
        headers: headers, body: state.body, remoteAddress: clientAddress(connection))
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

private let completionHandler: MHD_RequestCompletedCallback = { _, _, requestPointer, _ in
    guard let requestPointer, let state = requestPointer.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(state).release()
    requestPointer.pointee = nil
}

private func header(_ connection: OpaquePointer, _ name: String) -> String? {
    // MHD_lookup_connection_value: the returned string is owned by MHD and valid while the request lives; copy it.
    MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
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
    return MHD_queue_response(connection, UInt32(clamping: response.status), created)
}
