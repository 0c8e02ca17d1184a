public import Foundation
import RampartCrypto
public import RampartX509

extension ChainVerifier {
    /// Creates a verifier that trusts `trustAnchors` (and the system bundle if ``Options/includeSystemTrustStore``).
    ///
    /// - Parameters:
    ///   - trustAnchors: Self-signed root certificates.
    ///   - options: Trust store, cache and length settings.
    /// - Throws: ``X509Error`` with code `invalidCertificate` when OpenSSL cannot load an anchor, or `unsupported`
    ///   when the system trust store cannot be loaded.
    public init(trustAnchors: [Certificate], options: Options = Options()) throws {
        try self.init(trustAnchorDER: trustAnchors.map(\.derBytes), options: options)
    }

    /// Evaluates a chain as a TLS client (or App Attest, with ``Purpose/none``) would.
    ///
    /// The intermediates may be in any order and may include extra or unrelated certificates, as servers send them;
    /// only those on the built path appear in the result.
    ///
    /// - Parameters:
    ///   - leaf: The end-entity certificate.
    ///   - intermediates: Untrusted certificates that may help build the path.
    ///   - time: The validation time (inject it; tests fix it).
    ///   - purpose: ``Purpose/tlsServer(hostname:)`` or ``Purpose/none``.
    /// - Returns: ``ChainVerdict/trusted(path:)`` or ``ChainVerdict/untrusted(_:)`` with a precise reason.
    public func verify(
        leaf: Certificate,
        intermediates: [Certificate],
        at time: Date,
        purpose: Purpose
    ) -> ChainVerdict {
        let raw = evaluateDER(
            leaf: leaf.derBytes, intermediates: intermediates.map(\.derBytes), at: time, purpose: purpose)
        var known: [[UInt8]: Certificate] = [leaf.derBytes: leaf]
        for certificate in intermediates { known[certificate.derBytes] = certificate }
        func certificate(_ der: [UInt8]) -> Certificate? { known[der] ?? (try? Certificate(derEncoded: der)) }
        switch raw {
        case .trusted(let derPath):
            var path: [Certificate] = []
            for (index, der) in derPath.enumerated() {
                guard let element = certificate(der) else {
                    return .untrusted(
                        ChainFailure(
                            reason: .malformedCertificate, certificateIndex: index,
                            message: "certificate \(index) of the built path (a system trust anchor) could not be "
                                + "parsed by Rampart's strict DER reader"))
                }
                path.append(element)
            }
            return .trusted(path: path)
        case .untrusted(let reason, let code, let index, let der, let text):
            let concerned = der.flatMap(certificate)
            let message = Self.message(
                reason: reason, index: index, certificate: concerned, time: time, purpose: purpose, openSSLText: text)
            return .untrusted(
                ChainFailure(reason: reason, certificateIndex: index, message: message, openSSLCode: code))
        }
    }

    /// Evaluates a chain given as the server presents it: the leaf first, then intermediates.
    ///
    /// - Parameters:
    ///   - chain: The presented certificates, leaf first.
    ///   - time: The validation time.
    ///   - purpose: What the chain is for.
    /// - Returns: The verdict; an empty chain is ``ChainFailure/Reason/other``.
    public func verify(chain: [Certificate], at time: Date, purpose: Purpose) -> ChainVerdict {
        guard let leaf = chain.first else {
            return .untrusted(
                ChainFailure(reason: .other, certificateIndex: nil, message: "the chain holds no certificate"))
        }
        return verify(leaf: leaf, intermediates: Array(chain.dropFirst()), at: time, purpose: purpose)
    }

    /// The DNS and IP names of a leaf, bounded and reduced to printable ASCII, for a mismatch message.
    static func sanSummary(_ certificate: Certificate?) -> String {
        let names = (certificate?.extensions.subjectAlternativeNames ?? []).compactMap { name -> String? in
            switch name {
            case .dnsName(let text):
                return String(
                    text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x21 && $0.value < 0x7F }.prefix(64))
            case .ipAddress(let bytes) where bytes.count == 4:
                return bytes.map(String.init).joined(separator: ".")
            case .ipAddress:
                return "an IPv6 address"
            default:
                return nil
            }
        }
        guard !names.isEmpty else { return "it has no DNS or IP subjectAltName" }
        let shown = names.prefix(5).joined(separator: ", ")
        return "its subjectAltName lists \(shown)\(names.count > 5 ? " and \(names.count - 5) more" : "")"
    }

    static func message(
        reason: ChainFailure.Reason,
        index: Int?,
        certificate: Certificate?,
        time: Date,
        purpose: Purpose,
        openSSLText: String
    ) -> String {
        let which: String
        if let index {
            let role = index == 0 ? "the leaf" : "certificate \(index)"
            which = certificate.map { "\(role) (\($0.subject))" } ?? role
        } else {
            which = "the chain"
        }
        let at = time.formatted(.iso8601)
        switch reason {
        case .expired:
            let end = certificate.map { " at \($0.notAfter.formatted(.iso8601))" } ?? ""
            return "\(which) expired\(end); the validation time is \(at): renew the certificate"
        case .notYetValid:
            let start = certificate.map { " until \($0.notBefore.formatted(.iso8601))" } ?? ""
            return "\(which) is not valid\(start); the validation time is \(at): check the clock"
        case .hostnameMismatch:
            return "\(which) is not valid for \(purpose.hostname ?? "the host"): \(sanSummary(certificate)) "
                + "(iOS never uses the subject CN); issue a certificate whose subjectAltName lists the host"
        case .selfSigned:
            return "\(which) is self-signed and is not a trust anchor: use a CA-issued certificate, or trust it "
                + "explicitly as an anchor (--ca)"
        case .untrustedRoot:
            if let certificate, certificate.subject == certificate.issuer {
                return "\(which) is a root that is not a trust anchor: pass it with --ca if you trust it, or use a "
                    + "publicly trusted CA"
            }
            let issuer = certificate.map { " by \($0.issuer)" } ?? ""
            return "\(which) was issued\(issuer), which is not a trust anchor: pass that root with --ca, or use a "
                + "publicly trusted CA"
        case .missingIntermediate:
            let issuer = certificate.map { " (\($0.issuer))" } ?? ""
            return "the issuer of \(which)\(issuer) was not presented and is not a trust anchor: configure the "
                + "server to send its intermediate certificates"
        case .notACA:
            return "\(which) issued the certificate below it but is not a CA (basicConstraints cA is missing)"
        case .keyUsage:
            return "\(which) issued the certificate below it but its keyUsage lacks keyCertSign"
        case .badSignature:
            return "the signature of \(which) does not verify with its issuer's key: the chain is corrupted or "
                + "assembled from the wrong certificates"
        case .wrongPurpose:
            return "\(which) does not allow TLS server authentication (extendedKeyUsage lacks serverAuth)"
        case .invalidHostname, .chainTooLong:
            return openSSLText
        default:
            return "\(which): \(openSSLText)"
        }
    }
}
