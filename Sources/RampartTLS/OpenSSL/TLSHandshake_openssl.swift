internal import COpenSSL
internal import Foundation
import RampartChainVerification

/// Runs one client handshake over a connected socket with libssl and collects the peer's chain.
enum TLSHandshake {
    static func run(
        on socket: TCPSocket,
        serverName: String?,
        deadline: ContinuousClock.Instant,
        timeout: Duration
    ) throws -> PeerChain {
        let context = try SSLContext()
        let connection = try SSLConnection(context: context)
        let ssl = connection.pointer
        guard SSL_set_fd(ssl, socket.descriptor) == 1 else {
            throw TLSError.handshakeFailed("could not attach the socket to OpenSSL", detail: drainErrors())
        }
        if let serverName {
            // SSL_set_tlsext_host_name copies the name.
            guard COpenSSL_SSL_set_tlsext_host_name(ssl, serverName) == 1 else {
                throw TLSError.invalidEndpoint("OpenSSL refused the server name for SNI")
            }
        }
        SSL_set_connect_state(ssl)
        while true {
            ERR_clear_error()
            let status = SSL_connect(ssl)
            if status == 1 { break }
            let error = SSL_get_error(ssl, status)
            let ready: Bool
            switch error {
            case SSL_ERROR_WANT_READ: ready = try socket.wait(forWriting: false, until: deadline)
            case SSL_ERROR_WANT_WRITE: ready = try socket.wait(forWriting: true, until: deadline)
            case SSL_ERROR_SYSCALL, SSL_ERROR_ZERO_RETURN:
                throw TLSError.handshakeFailed(
                    "the server closed the connection during the TLS handshake: is this port speaking TLS?",
                    detail: drainErrors())
            default:
                let detail = drainErrors()
                // A reply that is not a TLS record (plain HTTP, SSH, SMTP, …) is reported by OpenSSL as a record
                // with a wrong version number or an impossible length.
                let notTLS = ["wrong version number", "packet length too long", "http request", "record layer failure"]
                    .contains { detail.lowercased().contains($0) }
                throw TLSError.handshakeFailed(
                    notTLS
                        ? "the server's reply is not TLS: is this port speaking TLS? (plain HTTP answers like this; "
                            + "give the port that serves HTTPS, usually 443)"
                        : "the TLS handshake failed (no common TLS 1.2+ version or cipher, or the server sent an alert)",
                    detail: detail)
            }
            guard ready else {
                throw TLSError.timedOut("the TLS handshake did not finish within \(timeout)")
            }
        }
        // SSL_get_peer_cert_chain returns a stack owned by the SSL object (client side: leaf included); the X509
        // pointers in it stay valid until SSL_free, and are only read here.
        guard let stack = SSL_get_peer_cert_chain(ssl), COpenSSL_sk_X509_num(stack) > 0 else {
            throw TLSError.noCertificate("the server completed the handshake without presenting a certificate")
        }
        var certificates: [[UInt8]] = []
        for index in 0..<COpenSSL_sk_X509_num(stack) {
            guard let certificate = COpenSSL_sk_X509_value(stack, index) else { continue }
            // i2d_X509 with a NULL output returns the length; with a buffer it writes there and advances the cursor.
            let length = i2d_X509(certificate, nil)
            guard length > 0 else {
                throw TLSError.handshakeFailed("could not re-encode a presented certificate", detail: drainErrors())
            }
            var der = [UInt8](repeating: 0, count: Int(length))
            der.withUnsafeMutableBufferPointer { buffer in
                var cursor = buffer.baseAddress
                _ = i2d_X509(certificate, &cursor)
            }
            certificates.append(der)
        }
        let version = String(cString: SSL_get_version(ssl))
        let cipher = SSL_get_current_cipher(ssl).flatMap { SSL_CIPHER_get_name($0) }.map { String(cString: $0) } ?? ""
        // One close_notify, without waiting for the peer's: no application data was or will be exchanged.
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        return PeerChain(
            certificates: certificates, protocolVersion: version, cipherSuite: cipher, serverName: serverName)
    }

    static func drainErrors() -> String {
        var parts: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return parts.joined(separator: "; ")
    }
}

/// Owns an `SSL_CTX` (released with `SSL_CTX_free`) configured for inspection: TLS 1.2 or later, no verification.
final class SSLContext {
    let pointer: OpaquePointer

    init() throws {
        // SSL_CTX_new returns an owned context or NULL.
        guard let pointer = SSL_CTX_new(TLS_client_method()) else {
            throw TLSError.handshakeFailed("OpenSSL could not create a TLS context", detail: TLSHandshake.drainErrors())
        }
        self.pointer = pointer
        guard COpenSSL_SSL_CTX_set_min_proto_version(pointer, TLS1_2_VERSION) == 1 else {
            throw TLSError.handshakeFailed("OpenSSL refused TLS 1.2 as the minimum version")
        }
        // The chain is evaluated by ChainVerifier afterwards, with the caller's anchors, time and host name.
        SSL_CTX_set_verify(pointer, SSL_VERIFY_NONE, nil)
    }

    deinit { SSL_CTX_free(pointer) }
}

/// Owns an `SSL` (released with `SSL_free`, which also drops its reference to the context).
final class SSLConnection {
    let pointer: OpaquePointer
    private let context: SSLContext

    init(context: SSLContext) throws {
        // SSL_new takes its own reference on the SSL_CTX.
        guard let pointer = SSL_new(context.pointer) else {
            throw TLSError.handshakeFailed("OpenSSL could not create a connection", detail: TLSHandshake.drainErrors())
        }
        self.pointer = pointer
        self.context = context
    }

    deinit { SSL_free(pointer) }
}
