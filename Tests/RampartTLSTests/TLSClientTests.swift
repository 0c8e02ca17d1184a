import Foundation
import RampartTLS
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A listening socket on 127.0.0.1 that the test controls (never speaks TLS).
final class RawListener: @unchecked Sendable {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 4) == 0 else { throw PKIError(message: "listen failed") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    /// Accepts one connection, writes `reply`, and closes it (on a background queue).
    func answerOnce(_ reply: String) {
        let descriptor = self.descriptor
        DispatchQueue.global().async {
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { return }
            _ = reply.withCString { write(client, $0, strlen($0)) }
            close(client)
        }
    }

    deinit { close(descriptor) }
}

struct TLSClientTests {
    @Test("fetches the presented chain from openssl s_server with SNI, leaf first")
    func fetchesChain() async throws {
        let pki = try TestPKI.shared.get()
        let server = try TestTLSServer(
            certificate: pki.path("good.pem"), key: pki.path("good.key"), chain: pki.path("intermediate.pem"))
        defer { server.stop() }
        let client = TLSClient(timeout: .seconds(10))
        let chain = try await client.fetchPeerChain(
            from: TLSEndpoint(host: "127.0.0.1", port: server.port), serverName: "good.rampart.test")
        #expect(chain.certificates.count == 2)
        #expect(chain.certificates.first == (try pki.der("good")))
        #expect(chain.certificates.last == (try pki.der("intermediate")))
        #expect(chain.serverName == "good.rampart.test")
        #expect(chain.protocolVersion.hasPrefix("TLSv1."))
        #expect(!chain.cipherSuite.isEmpty)
    }

    @Test("a closed port is connectionFailed")
    func refused() async throws {
        let reserved = try ReservedPort()
        await #expect(throws: TLSError.connectionFailed("")) {
            try await TLSClient(timeout: .seconds(5))
                .fetchPeerChain(from: TLSEndpoint(host: "127.0.0.1", port: reserved.port))
        }
    }

    @Test("a server that never answers the ClientHello is timedOut")
    func timesOut() async throws {
        let listener = try RawListener()
        await #expect(throws: TLSError.timedOut("")) {
            try await TLSClient(timeout: .milliseconds(300))
                .fetchPeerChain(from: TLSEndpoint(host: "127.0.0.1", port: listener.port))
        }
    }

    @Test("a server that is not TLS is handshakeFailed")
    func notTLS() async throws {
        let listener = try RawListener()
        listener.answerOnce("HTTP/1.0 400 Bad Request\r\n\r\n")
        await #expect(throws: TLSError.handshakeFailed("")) {
            try await TLSClient(timeout: .seconds(5))
                .fetchPeerChain(from: TLSEndpoint(host: "127.0.0.1", port: listener.port))
        }
    }

    @Test("an unresolvable name is resolutionFailed")
    func unresolvable() async throws {
        await #expect(throws: TLSError.resolutionFailed("")) {
            try await TLSClient(timeout: .seconds(5)).fetchPeerChain(from: TLSEndpoint(parsing: "nonexistent.invalid"))
        }
    }

    @Test(
        "endpoints parse host, port, IPv6 and normalise case and trailing dot",
        arguments: [
            ("example.com", "example.com", 443), ("Example.COM.:8443", "example.com", 8443),
            ("127.0.0.1:4433", "127.0.0.1", 4433), ("[::1]:8443", "::1", 8443), ("::1", "::1", 443),
        ])
    func endpoints(text: String, host: String, port: Int) throws {
        let endpoint = try TLSEndpoint(parsing: text)
        #expect(endpoint.host == host)
        #expect(Int(endpoint.port) == port)
    }

    @Test(
        "malformed endpoints are invalidEndpoint",
        arguments: ["", "host:0", "host:99999", "host:abc", "[::1", "[::1]x", "bad_host!.com", "-a.com", "a..b"])
    func badEndpoints(text: String) {
        #expect(throws: TLSError.invalidEndpoint("")) { try TLSEndpoint(parsing: text) }
    }

    @Test("a malformed SNI name is invalidEndpoint")
    func badServerName() async {
        await #expect(throws: TLSError.invalidEndpoint("")) {
            try await TLSClient().fetchPeerChain(
                from: TLSEndpoint(host: "127.0.0.1", port: 1), serverName: "not a name")
        }
    }
}
