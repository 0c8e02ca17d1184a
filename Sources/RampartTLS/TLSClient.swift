internal import Foundation
import RampartChainVerification

/// A TLS client that connects to a server, completes the handshake and returns the certificate chain the server
/// presented, without sending any application data.
///
/// It is the live half of `rampart inspect` and `rampart check HOST`: the chain it returns is *not* evaluated here.
/// Hand it to `ChainVerifier` (in `RampartX509`) and to a pin policy, which decide whether a client would trust it.
///
/// ```swift
/// let client = TLSClient(timeout: .seconds(5))
/// let chain = try await client.fetchPeerChain(from: TLSEndpoint(parsing: "example.com"))
/// print(chain.certificates.count, chain.protocolVersion)
/// ```
///
/// - Important: The handshake deliberately accepts any certificate: this client fetches chains for inspection and
///   must never be used to carry data.
public struct TLSClient: Sendable {
    /// The longest time allowed for the TCP connection plus the TLS handshake. Name resolution is not covered: it is
    /// done by the system resolver, which applies its own timeouts.
    public var timeout: Duration

    /// Creates a client.
    ///
    /// - Parameter timeout: The budget for connecting and completing the handshake; 10 seconds by default.
    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    /// Connects to `endpoint`, completes a TLS 1.2 or 1.3 handshake and returns the presented chain.
    ///
    /// The blocking socket work runs on a global dispatch queue, so the caller's executor is not held.
    ///
    /// - Parameters:
    ///   - endpoint: The host and port.
    ///   - serverName: The SNI name to send; by default the endpoint's host, or none when the host is an IP address.
    /// - Returns: The chain in the order the server sent it (leaf first), with the negotiated protocol and cipher.
    /// - Throws: ``TLSError``: `invalidEndpoint` for a bad server name, `resolutionFailed`, `connectionFailed`,
    ///   `timedOut`, `handshakeFailed` or `noCertificate`.
    public func fetchPeerChain(from endpoint: TLSEndpoint, serverName: String? = nil) async throws -> PeerChain {
        let sni: String?
        if let serverName {
            sni = try TLSEndpoint.validatedHost(serverName)
        } else {
            sni = endpoint.isIPAddress ? nil : endpoint.host
        }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let timeout = self.timeout
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let socket = try TCPSocket.connect(to: endpoint, deadline: deadline, timeout: timeout)
                        return try TLSHandshake.run(on: socket, serverName: sni, deadline: deadline, timeout: timeout)
                    })
            }
        }
    }
}

/// The certificates a server presented in its handshake, and what was negotiated.
public struct PeerChain: Hashable, Sendable {
    /// The DER certificates in the order the server sent them; the first is the server's own (leaf) certificate.
    public let certificates: [[UInt8]]
    /// The negotiated protocol, e.g. `TLSv1.3`.
    public let protocolVersion: String
    /// The negotiated cipher suite in OpenSSL's naming, e.g. `TLS_AES_256_GCM_SHA384`.
    public let cipherSuite: String
    /// The SNI name that was sent, if any.
    public let serverName: String?

    /// Creates a value (for tests and adapters).
    ///
    /// - Parameters:
    ///   - certificates: DER certificates, leaf first.
    ///   - protocolVersion: The protocol name.
    ///   - cipherSuite: The cipher suite name.
    ///   - serverName: The SNI name sent.
    public init(certificates: [[UInt8]], protocolVersion: String, cipherSuite: String, serverName: String?) {
        self.certificates = certificates
        self.protocolVersion = protocolVersion
        self.cipherSuite = cipherSuite
        self.serverName = serverName
    }
}
