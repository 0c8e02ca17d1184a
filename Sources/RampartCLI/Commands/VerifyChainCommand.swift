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
        USAGE: rampart verify-chain CHAIN.pem --host NAME [--ca ROOT.pem]... [--at RFC3339] [--json]

        Builds a path from the first certificate of CHAIN.pem (the leaf) through the others (intermediates, any
        order) to a trust anchor, and checks signatures, validity at the given time, CA constraints, the serverAuth
        extendedKeyUsage, and NAME against the leaf's subjectAltName (never the subject CN, as on iOS).

        OPTIONS:
          --host NAME     the host name the client connects to (DNS name or IP address)
          --ca FILE       trust the root certificate(s) in FILE instead of the system trust store (repeatable)
          --at TIME       validate at this RFC 3339 time instead of now, e.g. 2026-06-01T00:00:00Z
          --json          print {"trusted": true, "path": [...]} or
                          {"trusted": false, "reason": "<code>", "certificate": i, "message": "..."}
          -h, --help      show this help

        REASONS: expired, notYetValid, hostnameMismatch, selfSigned, untrustedRoot, missingIntermediate, notACA,
        badSignature, wrongPurpose, keyUsage, pathLengthExceeded, nameConstraints, weakKey, weakSignatureAlgorithm,
        unhandledCriticalExtension, malformedCertificate, chainTooLong, invalidHostname, leafIsCA, revoked, other

        EXIT CODES:
          0  the chain is trusted for NAME
          1  the chain is refused (the reason and the certificate concerned are printed)
          2  bad usage, or a file that holds no certificate (a certificate that is well-formed DER but breaks
             RFC 5280 is refused with malformedCertificate, exit 1)

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
        let chain = try TrustInputs.certificateDER(file: file, context: context)
        let verifier: ChainVerifier
        do {
            verifier = try ChainVerifier(trustAnchors: trust.anchors, options: trust.options)
        } catch let error as X509Error {
            throw UsageError("cannot load the trust anchors: \(error)")
        }
        let verdict = verifier.verify(chainDER: chain, at: time, purpose: .tlsServer(hostname: host))
        if json {
            try context.printJSON(VerdictJSON(verdict))
        } else {
            switch verdict {
            case .trusted(let path):
                context.print("trusted for \(host)")
                CertificateEntry.lines(path).forEach(context.print)
            case .untrusted(let failure):
                context.print("untrusted: \(failure)")
            }
        }
        return verdict.isTrusted ? .success : .failure
    }
}
