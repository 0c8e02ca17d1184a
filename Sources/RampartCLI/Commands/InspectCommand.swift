import Foundation
import RampartChainVerification
import RampartTLS
import RampartX509

/// `rampart inspect HOST[:PORT]`: the chain a live server presents, its pins, and the trust verdict.
public enum InspectCommand: Command {
    /// `inspect`.
    public static let name = "inspect"
    /// One line for `rampart --help`.
    public static let abstract = "fetch a live server's chain over TLS, print its pins and the trust verdict"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart inspect HOST[:PORT] [--servername NAME] [--ca ROOT.pem]... [--at RFC3339] [--timeout S]
                               [--policy apple|webpki] [--json]

        Connects to HOST (port 443 by default), completes a TLS 1.2+ handshake with SNI, sends no application data,
        and prints the presented chain as `rampart pins` does, then the verdict of `rampart verify-chain` for the
        host name (or --servername).

        OPTIONS:
          --servername NAME  the SNI name to send and the host name to check (default: HOST; none for an IP)
          --ca FILE          trust the root certificate(s) in FILE instead of the system trust store (repeatable)
          --at TIME          validate at this RFC 3339 time instead of now
          --timeout S        seconds allowed for connecting and the handshake (default 10)
          --policy P         apple (default: what iOS accepts) or webpki (see rampart verify-chain --help)
          --json             print {"host", "port", "protocol", "cipher", "chain": [...], "verdict": {...}}
          -h, --help         show this help

        EXIT CODES:
          0  the chain is trusted
          1  the chain is refused (reason and certificate printed; a presented certificate or --ca root that is
             well-formed DER but breaks RFC 5280 is malformedCertificate)
          2  bad usage, or the server could not be reached or did not complete a TLS handshake

        EXAMPLE:
          rampart inspect github.com
          rampart inspect 127.0.0.1:8443 --servername api.example.com --ca root.pem
        """

    struct Output: Encodable {
        let host: String
        let port: Int
        let `protocol`: String
        let cipher: String
        let chain: [CertificateEntry]
        let verdict: VerdictJSON
    }

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `inspect`.
    ///   - context: Streams, input and clock.
    /// - Returns: `.success` when trusted, `.failure` when refused.
    /// - Throws: ``UsageError`` for bad usage, ``TLSError`` when the server cannot be reached.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let serverName = try arguments.option("--servername")
        let trust = try TrustInputs.anchors(&arguments, context: context)
        let time = try TrustInputs.time(&arguments, context: context)
        let timeout = try TrustInputs.timeout(&arguments)
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let target = positionals.first else { throw UsageError("give one HOST[:PORT]") }
        let endpoint: TLSEndpoint
        do {
            endpoint = try TLSEndpoint(parsing: target)
        } catch let error as TLSError {
            throw UsageError("\(target): \(error.reason)")
        }
        let source = try await TrustInputs.live(endpoint: endpoint, serverName: serverName, timeout: timeout)
        let verdict = try source.verdict(trust, at: time)
        if json {
            try context.printJSON(
                Output(
                    host: source.host, port: Int(endpoint.port), protocol: source.peer?.protocolVersion ?? "",
                    cipher: source.peer?.cipherSuite ?? "", chain: CertificateEntry.list(source.certificates),
                    verdict: VerdictJSON(verdict, policy: trust.policy)))
        } else {
            context.print("\(endpoint) (\(source.peer?.protocolVersion ?? ""), \(source.peer?.cipherSuite ?? ""))")
            CertificateEntry.lines(source.certificates).forEach(context.print)
            switch verdict {
            case .trusted(let path):
                context.print(
                    "trusted for \(source.host) (path of \(path.count) certificates, policy \(trust.policy))")
            case .untrusted(let failure): context.print("untrusted: \(failure)")
            }
        }
        return verdict.isTrusted ? .success : .failure
    }
}
