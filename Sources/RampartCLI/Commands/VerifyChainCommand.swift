import Foundation
import RampartChainVerification
import RampartX509

/// `rampart verify-chain CHAIN --host NAME`: the default evaluation a TLS client makes, with a precise reason.
public enum VerifyChainCommand: Command {
    /// `verify-chain`.
    public static let name = "verify-chain"
    /// One line for `rampart --help`.
    public static let abstract = "evaluate a certificate chain for a host name as iOS would, with a precise reason"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart verify-chain CHAIN.pem --host NAME [--ca ROOT.pem]... [--at RFC3339]
                                    [--policy apple|webpki] [--json]

        Builds a path from the first certificate of CHAIN.pem (the leaf) through the others (intermediates, any
        order) to a trust anchor, and checks signatures, validity at the given time, CA constraints, the serverAuth
        extendedKeyUsage, and NAME against the leaf's subjectAltName (never the subject CN, as on iOS).

        POLICIES: apple (the default) applies what iOS's SSL server policy applies and nothing more: RSA 2048, EC
        P-256 and no SHA-1; a leaf issued after 2019-07-01 lists serverAuth and is valid for at most 825 days (398
        under the system store for leaves issued from 2020-09-01); name constraints whether critical or not.
        webpki adds the CA/Browser Forum Baseline Requirements and RFC 5280 pedantry x509-limbo tests (a subject CN
        must be one of the subjectAltNames, critical name constraints, a leaf with cA FALSE, serial numbers, key
        identifiers, …); every refusal names its rule.

        OPTIONS:
          --host NAME     the host name the client connects to (DNS name or IP address)
          --ca FILE       trust the root certificate(s) in FILE instead of the system trust store (repeatable)
          --at TIME       validate at this RFC 3339 time instead of now, e.g. 2026-06-01T00:00:00Z
          --policy P      apple (default) or webpki
          --json          print {"trusted": true, "policy": "apple", "path": [...]} or
                          {"trusted": false, "policy": "apple", "reason": "<code>", "certificate": i, "message": "..."}
          -h, --help      show this help

        REASONS: expired, notYetValid, hostnameMismatch, selfSigned, untrustedRoot, missingIntermediate, notACA,
        badSignature, wrongPurpose, keyUsage, pathLengthExceeded, nameConstraints, weakKey, weakSignatureAlgorithm,
        unhandledCriticalExtension, malformedCertificate, chainTooLong, invalidHostname, leafIsCA, revoked,
        validityPeriodTooLong, other

        EXIT CODES:
          0  the chain is trusted for NAME
          1  the chain is refused (the reason and the certificate concerned are printed)
          2  bad usage, or a file that holds no certificate (a certificate that is well-formed DER but breaks
             RFC 5280, in CHAIN.pem or in a --ca file, is refused with malformedCertificate, exit 1)

        EXAMPLE:
          rampart verify-chain chain.pem --host api.example.com --ca root.pem
        """

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `verify-chain`.
    ///   - context: Streams, input and clock.
    /// - Returns: `.success` when trusted, `.failure` when refused.
    /// - Throws: ``UsageError`` for bad usage or input.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        let host = try arguments.option("--host")
        let trust = try TrustInputs.anchors(&arguments, context: context)
        let time = try TrustInputs.time(&arguments, context: context)
        let files = try arguments.positionals()
        // The chain first: it is the command's subject, --host what it is checked for.
        guard files.count == 1, let file = files.first else {
            throw UsageError("give exactly one CHAIN file (PEM or DER), then --host NAME")
        }
        guard let host else { throw UsageError("missing --host NAME: the host the chain must be valid for") }
        let source = try await TrustInputs.chain(
            positional: file, host: host, serverName: nil, timeout: .seconds(10), context: context)
        let verdict = try source.verdict(trust, at: time)
        if json {
            try context.printJSON(VerdictJSON(verdict, policy: trust.policy))
        } else {
            switch verdict {
            case .trusted(let path):
                context.print("trusted for \(host) (policy \(trust.policy))")
                CertificateEntry.lines(path).forEach(context.print)
            case .untrusted(let failure):
                context.print("untrusted: \(failure)")
            }
        }
        return verdict.isTrusted ? .success : .failure
    }
}
