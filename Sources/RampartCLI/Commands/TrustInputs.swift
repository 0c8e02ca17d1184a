import Foundation
import RampartChainVerification
import RampartPinning
import RampartTLS
import RampartX509

/// Reading the inputs shared by `verify-chain`, `inspect`, `pinset` and `check`: certificate files, trust anchors,
/// the validation time, and a chain from either a file or a live server.
enum TrustInputs {
    /// The certificates of a PEM (one or many) or DER file.
    static func certificates(file: String, context: CommandContext) throws -> [Certificate] {
        let bytes: [UInt8]
        if file == "-" {
            bytes = Array(context.readStandardInput())
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError("\(file): cannot read the file; check the path and permissions")
            }
            bytes = Array(data)
        }
        do {
            let certificates = try Certificate.parseAll(bytes)
            guard !certificates.isEmpty else { throw UsageError("\(file): holds no certificate") }
            return certificates
        } catch let error as X509Error {
            throw UsageError("\(file): not a certificate file: \(error)")
        }
    }

    /// The DER of every certificate in a PEM (one or many) or DER file, not yet parsed: a chain to evaluate, whose
    /// well-formed but invalid certificates are a verdict (`malformedCertificate`), not bad input.
    static func certificateDER(file: String, context: CommandContext) throws -> [[UInt8]] {
        let bytes: [UInt8]
        if file == "-" {
            bytes = Array(context.readStandardInput())
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                throw UsageError("\(file): cannot read the file; check the path and permissions")
            }
            bytes = Array(data)
        }
        if bytes.first == 0x30 {
            guard (try? DER.parse(bytes)) != nil else {
                throw UsageError("\(file): not a certificate file: it starts like DER but is not one DER element")
            }
            return [bytes]
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw UsageError("\(file): not a certificate file: neither DER nor PEM text")
        }
        do {
            let blocks = try PEMDocument.parseAll(text).filter { $0.label == "CERTIFICATE" }
            guard !blocks.isEmpty else { throw UsageError("\(file): holds no -----BEGIN CERTIFICATE----- block") }
            return blocks.map(\.derBytes)
        } catch let error as ASN1Error {
            throw UsageError("\(file): not a certificate file: \(error)")
        }
    }

    /// The certificates of `file` parsed by the strict reader, or the refusal of the first that is well-formed DER
    /// but breaks RFC 5280 (a verdict, exit 1), naming the file and the certificate. A file that holds no
    /// certificate throws ``UsageError`` (exit 2).
    static func parsedCertificates(
        file: String, context: CommandContext, presented: Bool
    ) throws -> (certificates: [Certificate], refusal: ChainFailure?) {
        var certificates: [Certificate] = []
        for (index, der) in try certificateDER(file: file, context: context).enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch let error as X509Error {
                let role = presented ? presentedRole(index) : "certificate \(index) (a trust anchor given with --ca)"
                let advice =
                    presented
                    ? "the server must send certificates that follow RFC 5280"
                    : "a trust anchor must follow RFC 5280; remove it from the file or trust a conforming root"
                let refusal = ChainFailure(
                    reason: .malformedCertificate, certificateIndex: presented && index == 0 ? 0 : nil,
                    message: "\(file): \(role) is not a valid X.509 certificate (\(error.code): \(error.reason)): "
                        + advice)
                return (certificates, refusal)
            }
        }
        return (certificates, nil)
    }

    /// What `--ca` and `--policy` ask for: the anchors of every `--ca` file (the system trust store when there is
    /// none), the policy, and the refusal of an anchor that breaks RFC 5280.
    struct Trust {
        let anchors: [Certificate]
        let options: ChainVerifier.Options
        /// A `--ca` certificate that is well-formed DER but not a valid X.509 certificate: the verdict, exit 1.
        let refusal: ChainFailure?

        var policy: ChainPolicy { options.policy }

        /// A verifier over the anchors.
        func verifier() throws -> ChainVerifier {
            do {
                return try ChainVerifier(trustAnchors: anchors, options: options)
            } catch let error as X509Error {
                throw UsageError("cannot load the trust anchors: \(error)")
            }
        }
    }

    /// The anchors of every `--ca` file, whether the system trust store applies (when there is no `--ca`), and
    /// `--policy apple|webpki` (default apple).
    static func anchors(_ arguments: inout Arguments, context: CommandContext) throws -> Trust {
        let files = try arguments.options("--ca")
        let policy = try Self.policy(&arguments)
        var anchors: [Certificate] = []
        var refusal: ChainFailure?
        for file in files where refusal == nil {
            let parsed = try parsedCertificates(file: file, context: context, presented: false)
            anchors += parsed.certificates
            refusal = parsed.refusal
        }
        return Trust(
            anchors: anchors, options: ChainVerifier.Options(includeSystemTrustStore: files.isEmpty, policy: policy),
            refusal: refusal)
    }

    /// `--policy apple|webpki`, apple by default.
    static func policy(_ arguments: inout Arguments) throws -> ChainPolicy {
        guard let name = try arguments.option("--policy") else { return .apple }
        guard let policy = ChainPolicy(name: name) else {
            let names = ChainPolicy.all.map(\.description).joined(separator: " or ")
            throw UsageError("--policy must be \(names); got '\(name.prefix(40))'")
        }
        return policy
    }

    /// `--at RFC3339`, or the context's clock.
    static func time(_ arguments: inout Arguments, context: CommandContext) throws -> Date {
        try arguments.timeOption("--at") ?? context.now()
    }

    /// A presented chain: from `CHAIN.pem` when the positional names an existing file (then `--host` is required),
    /// else from a live `HOST[:PORT]`.
    struct Source {
        let certificates: [Certificate]
        let host: String
        let endpoint: TLSEndpoint?
        let peer: PeerChain?
        /// A presented certificate that is well-formed DER but not a valid X.509 certificate: the verdict, exit 1.
        var refusal: ChainFailure? = nil

        /// The verdict of `verifier` on the chain, or the refusal of a malformed certificate (or anchor).
        func verdict(_ trust: Trust, at time: Date) throws -> ChainVerdict {
            if let refusal = refusal ?? trust.refusal { return .untrusted(refusal) }
            return try trust.verifier().verify(chain: certificates, at: time, purpose: .tlsServer(hostname: host))
        }
    }

    /// How a presented certificate is named in a refusal.
    static func presentedRole(_ index: Int) -> String {
        index == 0 ? "the leaf" : "presented certificate \(index)"
    }

    static func chain(
        positional: String,
        host: String?,
        serverName: String?,
        timeout: Duration,
        context: CommandContext
    ) async throws -> Source {
        if FileManager.default.fileExists(atPath: positional) || positional == "-" {
            guard let host else { throw UsageError("with a chain file, give the host name with --host NAME") }
            let parsed = try parsedCertificates(file: positional, context: context, presented: true)
            return Source(
                certificates: parsed.certificates, host: host, endpoint: nil, peer: nil, refusal: parsed.refusal)
        }
        guard host == nil else {
            throw UsageError("\(positional): no such chain file (--host is only for chain files)")
        }
        let endpoint: TLSEndpoint
        do {
            endpoint = try TLSEndpoint(parsing: positional)
        } catch let error as TLSError {
            throw UsageError("\(positional) is neither a chain file nor HOST[:PORT]: \(error.reason)")
        }
        return try await live(endpoint: endpoint, serverName: serverName, timeout: timeout)
    }

    /// The chain a live server presents.
    static func live(endpoint: TLSEndpoint, serverName: String?, timeout: Duration) async throws -> Source {
        let peer = try await TLSClient(timeout: timeout).fetchPeerChain(from: endpoint, serverName: serverName)
        var certificates: [Certificate] = []
        var refusal: ChainFailure?
        for (index, der) in peer.certificates.enumerated() {
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch let error as X509Error {
                refusal = ChainFailure(
                    reason: .malformedCertificate, certificateIndex: index == 0 ? 0 : nil,
                    message: "\(endpoint): \(presentedRole(index)) is not a valid X.509 certificate (\(error.code): "
                        + "\(error.reason)): the server must send certificates that follow RFC 5280")
                break
            }
        }
        return Source(
            certificates: certificates, host: serverName ?? endpoint.host, endpoint: endpoint, peer: peer,
            refusal: refusal)
    }

    /// `--timeout SECONDS` for live connections (default 10).
    static func timeout(_ arguments: inout Arguments) throws -> Duration {
        guard let text = try arguments.option("--timeout") else { return .seconds(10) }
        guard let seconds = Double(text), seconds > 0, seconds <= 300 else {
            throw UsageError("--timeout needs a number of seconds from 0 to 300")
        }
        return .milliseconds(Int(seconds * 1000))
    }
}

/// A certificate as `rampart pins --json` prints it.
struct CertificateEntry: Encodable {
    let index: Int
    let subject: String
    let issuer: String
    let notBefore: Date
    let notAfter: Date
    let keyType: String
    let spkiSHA256: String

    init(index: Int, certificate: Certificate) {
        self.index = index
        subject = certificate.subject.description
        issuer = certificate.issuer.description
        notBefore = certificate.notBefore
        notAfter = certificate.notAfter
        keyType = certificate.publicKeyDescription
        spkiSHA256 = certificate.spkiSHA256
    }

    static func list(_ certificates: [Certificate]) -> [CertificateEntry] {
        certificates.enumerated().map { CertificateEntry(index: $0, certificate: $1) }
    }

    /// The lines `rampart pins` prints for `certificates`.
    static func lines(_ certificates: [Certificate]) -> [String] {
        certificates.enumerated().flatMap { index, certificate in
            let number = String(index)
            return [
                String(repeating: " ", count: max(0, 2 - number.count)) + number + " s:\(certificate.subject)",
                "   i:\(certificate.issuer)",
                "   pin-sha256: \(certificate.spkiSHA256)",
            ]
        }
    }
}

/// The `--json` verdict of `verify-chain` and `inspect`.
struct VerdictJSON: Encodable {
    let trusted: Bool
    /// The policy that judged the chain: `apple` or `webpki`.
    let policy: String
    let path: [CertificateEntry]?
    let reason: String?
    let certificate: Int?
    let message: String?

    init(_ verdict: ChainVerdict, policy: ChainPolicy) {
        self.policy = policy.description
        switch verdict {
        case .trusted(let path):
            trusted = true
            self.path = CertificateEntry.list(path)
            reason = nil
            certificate = nil
            message = nil
        case .untrusted(let failure):
            trusted = false
            path = nil
            reason = failure.reason.description
            certificate = failure.certificateIndex
            message = failure.message
        }
    }
}
