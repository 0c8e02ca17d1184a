internal import Foundation

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// An open, non-blocking TCP socket, closed in `deinit`.
final class TCPSocket {
    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Resolves `endpoint` and connects to the first address that accepts before `deadline`.
    static func connect(
        to endpoint: TLSEndpoint, deadline: ContinuousClock.Instant, timeout: Duration
    ) throws
        -> TCPSocket
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        // getaddrinfo allocates the result list; the caller releases it with freeaddrinfo.
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let list else {
            let text = String(cString: gai_strerror(status))
            throw TLSError.resolutionFailed(
                "could not resolve \(endpoint.host): check the host name and your DNS", detail: text)
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var cursor: UnsafeMutablePointer<addrinfo>? = list
        while let info = cursor {
            cursor = info.pointee.ai_next
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            guard descriptor >= 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            let socket = TCPSocket(descriptor: descriptor)
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0 else {
                lastError = String(cString: strerror(errno))
                continue
            }
            if Glibc.connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return socket }
            guard errno == EINPROGRESS else {
                lastError = String(cString: strerror(errno))
                continue
            }
            guard try socket.wait(forWriting: true, until: deadline) else {
                throw TLSError.timedOut(
                    "connecting to \(endpoint) took longer than \(timeout); check the port and firewalls")
            }
            var socketError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &socketError, &length) == 0, socketError == 0 else {
                lastError = String(cString: strerror(socketError))
                continue
            }
            return socket
        }
        throw TLSError.connectionFailed(
            "could not connect to \(endpoint): is a TLS server listening there?", detail: lastError)
    }

    /// Waits until the socket is readable (or writable); returns false when `deadline` passes first.
    func wait(forWriting: Bool, until deadline: ContinuousClock.Instant) throws -> Bool {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { return false }
            let milliseconds = Int32(
                clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
                    + 1)
            var entry = pollfd(fd: descriptor, events: Int16(forWriting ? POLLOUT : POLLIN), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR {
                throw TLSError.connectionFailed(
                    "waiting on the socket failed", detail: String(cString: strerror(errno)))
            }
        }
    }
}
