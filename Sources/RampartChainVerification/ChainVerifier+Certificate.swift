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
    ///   - revocationLists: DER certificate revocation lists (RFC 5280 5.1). When any is given, the leaf's issuer
    ///     must have published one and the leaf must not be on it (``ChainFailure/Reason/revoked``); each must carry
    ///     a cRLNumber. Empty by default: no revocation checking.
    /// - Returns: ``ChainVerdict/trusted(path:)`` or ``ChainVerdict/untrusted(_:)`` with a precise reason.
    public func verify(
        leaf: Certificate,
        intermediates: [Certificate],
        at time: Date,
        purpose: Purpose,
        revocationLists: [[UInt8]] = []
    ) -> ChainVerdict {
        var known: [[UInt8]: Certificate] = [leaf.derBytes: leaf]
        for certificate in intermediates { known[certificate.derBytes] = certificate }
        let raw = evaluateDER(
            leaf: leaf.derBytes, intermediates: intermediates.map(\.derBytes), at: time, purpose: purpose,
            parsed: known, revocationLists: revocationLists)
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
        case .untrusted(let failure):
            guard !failure.isFinalMessage else {
                return .untrusted(
                    ChainFailure(
                        reason: failure.reason, certificateIndex: failure.index, message: failure.text,
                        openSSLCode: failure.openSSLCode))
            }
            var failure = failure
            // OpenSSL reports a CA whose keyUsage lacks keyCertSign as an invalid CA; name the keyUsage.
            if failure.reason == .notACA, let concerned = failure.certificate.flatMap(certificate),
                concerned.extensions.basicConstraints?.isCA == true,
                let usage = concerned.extensions.keyUsage, !usage.contains(.keyCertSign)
            {
                failure.reason = .keyUsage
            }
            let message = Self.message(
                failure, certificate: failure.certificate.flatMap(certificate),
                path: failure.path.compactMap(certificate),
                time: time, purpose: purpose)
            return .untrusted(
                ChainFailure(
                    reason: failure.reason, certificateIndex: failure.index, message: message,
                    openSSLCode: failure.openSSLCode))
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

    /// Evaluates a chain given as DER, leaf first, after parsing every certificate with RampartX509's strict reader.
    ///
    /// A certificate that is well-formed DER but breaks the X.509 profile (a duplicate extension, an empty
    /// extendedKeyUsage, a non-ASCII dNSName, …) is a verdict, not an input error: the chain is refused with
    /// ``ChainFailure/Reason/malformedCertificate``, and the message says which presented certificate failed and why.
    ///
    /// - Parameters:
    ///   - chainDER: The presented certificates as DER, leaf first.
    ///   - time: The validation time.
    ///   - purpose: What the chain is for.
    ///   - revocationLists: DER CRLs, as for ``verify(leaf:intermediates:at:purpose:revocationLists:)``.
    /// - Returns: The verdict; an empty chain is ``ChainFailure/Reason/other``.
    public func verify(
        chainDER: [[UInt8]], at time: Date, purpose: Purpose, revocationLists: [[UInt8]] = []
    ) -> ChainVerdict {
        var chain: [Certificate] = []
        for (index, der) in chainDER.enumerated() {
            do {
                chain.append(try Certificate(derEncoded: der))
            } catch let error as X509Error {
                let which = index == 0 ? "the leaf" : "presented certificate \(index)"
                return .untrusted(
                    ChainFailure(
                        reason: .malformedCertificate, certificateIndex: index == 0 ? 0 : nil,
                        message: "\(which) is not a valid X.509 certificate (\(error.code): \(error.reason)): "
                            + "the server must send certificates that follow RFC 5280"))
            } catch {
                return .untrusted(
                    ChainFailure(
                        reason: .malformedCertificate, certificateIndex: nil,
                        message: "presented certificate \(index) could not be parsed"))
            }
        }
        guard let leaf = chain.first else {
            return .untrusted(
                ChainFailure(reason: .other, certificateIndex: nil, message: "the chain holds no certificate"))
        }
        return verify(
            leaf: leaf, intermediates: Array(chain.dropFirst()), at: time, purpose: purpose,
            revocationLists: revocationLists)
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
        _ failure: RawChainFailure,
        certificate: Certificate?,
        path: [Certificate],
        time: Date,
        purpose: Purpose
    ) -> String {
        let reason = failure.reason
        let index = failure.index
        let openSSLText = failure.text
        func role(_ index: Int, anchor: Bool) -> String {
            index == 0 ? "the leaf" : anchor ? "the trust anchor, certificate \(index)," : "certificate \(index)"
        }
        let which: String
        if let index {
            let name = role(index, anchor: failure.isAnchor)
            which = certificate.map { "\(name) (\($0.subject))" } ?? name
        } else {
            which = "the chain"
        }
        let issued = index.map { $0 > 0 ? " as the issuer of \(role($0 - 1, anchor: false))" : "" } ?? ""
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
            let why: String
            switch certificate?.extensions.basicConstraints {
            case .none: why = "it has no basicConstraints extension"
            case .some(let constraints) where !constraints.isCA: why = "its basicConstraints cA is FALSE"
            case .some:
                if let usage = certificate?.extensions.keyUsage, !usage.contains(.keyCertSign) {
                    why = "its keyUsage lacks keyCertSign"
                } else {
                    why = "OpenSSL refused it as a CA (\(openSSLText))"
                }
            }
            return "\(which) was used\(issued) but is not a CA: \(why); the issuer must be a CA certificate "
                + "(basicConstraints cA TRUE, keyUsage keyCertSign)"
        case .keyUsage:
            return "\(which) was presented\(issued), but its keyUsage lacks keyCertSign, so it may not sign "
                + "certificates: the CA must be reissued with keyCertSign"
        case .badSignature:
            return "the signature of \(which) does not verify with its issuer's key: the chain is corrupted or "
                + "assembled from the wrong certificates"
        case .wrongPurpose:
            return "\(which) does not allow TLS server authentication: \(purposeProblem(certificate, openSSLText))"
        case .nameConstraints:
            return nameConstraintsMessage(which: which, index: index, certificate: certificate, path: path)
                ?? "\(which) violates a CA's name constraints (\(openSSLText))"
        case .unhandledCriticalExtension:
            let oid = failure.detail.map { " \($0)" } ?? ""
            return "\(which) carries the critical extension\(oid), which Rampart (OpenSSL) does not process, so it "
                + "must refuse the certificate (RFC 5280 4.2): the issuer must not mark it critical"
        case .weakKey:
            let key = certificate.map { " (\($0.publicKeyDescription))" } ?? ""
            return "\(which) has a key that is too small\(key): iOS and security level 2 require RSA of at least "
                + "2048 bits or ECC of at least 224 bits; reissue it with a larger key"
        case .revoked:
            return "\(which) is listed in its issuer's certificate revocation list: the server must use a "
                + "certificate that has not been revoked"
        case .invalidHostname, .chainTooLong:
            return openSSLText
        default:
            return "\(which): \(openSSLText)"
        }
    }

    /// Why a certificate is not fit for TLS server authentication, read from its extensions.
    static func purposeProblem(_ certificate: Certificate?, _ openSSLText: String) -> String {
        guard let certificate else { return openSSLText }
        if let usage = certificate.extensions.extendedKeyUsage, !usage.contains(.ExtendedKeyUsage.serverAuth),
            !usage.contains(.ExtendedKeyUsage.any)
        {
            let listed = usage.purposes.prefix(4).map { OID.name($0) }.joined(separator: ", ")
            return "its extendedKeyUsage lists \(listed) but not serverAuth; reissue it with serverAuth"
        }
        if let usage = certificate.extensions.keyUsage,
            usage.isDisjoint(with: [.digitalSignature, .keyEncipherment, .keyAgreement])
        {
            return "its keyUsage allows none of digitalSignature, keyEncipherment and keyAgreement, which a TLS "
                + "server key needs; reissue it with digitalSignature"
        }
        return "OpenSSL refused it for the TLS server purpose (\(openSSLText))"
    }

    /// Names the name and the CA whose nameConstraints it breaks, for DNS and IP names.
    static func nameConstraintsMessage(
        which: String, index: Int?, certificate: Certificate?, path: [Certificate]
    ) -> String? {
        guard let index, let certificate else { return nil }
        let names = certificate.extensions.subjectAlternativeNames ?? []
        for constraining in path.indices where constraining > index {
            guard let constraints = path[constraining].extensions.nameConstraints else { continue }
            let ca = "certificate \(constraining) (\(path[constraining].subject))"
            for name in names {
                for base in constraints.excludedSubtrees ?? [] where NameMatch.within(name, base) == true {
                    return "\(which) has the name \(NameMatch.text(name)), which \(ca) excludes by its "
                        + "nameConstraints (subtree \(NameMatch.text(base))): the CA may not issue for that name"
                }
                let permitted = (constraints.permittedSubtrees ?? []).filter { NameMatch.within(name, $0) != nil }
                if !permitted.isEmpty, !permitted.contains(where: { NameMatch.within(name, $0) == true }) {
                    let listed = permitted.prefix(4).map(NameMatch.text).joined(separator: ", ")
                    return "\(which) has the name \(NameMatch.text(name)), which is outside the subtrees \(ca) "
                        + "permits (\(listed)): the CA may only issue for names within them"
                }
            }
        }
        return nil
    }

    /// Readable names of common extended key usages.
    enum OID {
        static func name(_ oid: ASN1ObjectIdentifier) -> String {
            switch oid {
            case .ExtendedKeyUsage.serverAuth: "serverAuth"
            case .ExtendedKeyUsage.clientAuth: "clientAuth"
            case .ExtendedKeyUsage.codeSigning: "codeSigning"
            case .ExtendedKeyUsage.emailProtection: "emailProtection"
            case .ExtendedKeyUsage.timeStamping: "timeStamping"
            case .ExtendedKeyUsage.ocspSigning: "OCSPSigning"
            default: oid.dottedString
            }
        }
    }
}

/// DNS and IP name-constraint matching (RFC 5280 4.2.1.10), for naming the constraint a name breaks.
enum NameMatch {
    /// Whether `name` is within the subtree `base`; nil when they are different name forms.
    static func within(_ name: GeneralName, _ base: GeneralName) -> Bool? {
        switch (name, base) {
        case (.dnsName(let text), .dnsName(let subtree)):
            let host = text.lowercased().replacingOccurrences(of: "*.", with: "")
            let root = subtree.lowercased()
            if root.isEmpty { return true }
            if root.hasPrefix(".") { return host.hasSuffix(root) }
            return host == root || host.hasSuffix("." + root)
        case (.ipAddress(let address), .ipAddress(let subtree)):
            guard subtree.count == address.count * 2 else { return nil }
            return address.indices.allSatisfy {
                address[$0] & subtree[address.count + $0] == subtree[$0] & subtree[address.count + $0]
            }
        default:
            return nil
        }
    }

    /// A name for a message (printable ASCII, bounded).
    static func text(_ name: GeneralName) -> String {
        switch name {
        case .dnsName(let text): return ChainVerifier.printable(text)
        case .ipAddress(let octets) where octets.count == 8 || octets.count == 32:
            let half = octets.count / 2
            let address = ChainVerifier.canonicalText(ipAddress: Array(octets[..<half])) ?? "?"
            let mask = ChainVerifier.canonicalText(ipAddress: Array(octets[half...])) ?? "?"
            return "\(address)/\(mask)"
        case .ipAddress(let octets): return ChainVerifier.canonicalText(ipAddress: octets) ?? "an IP address"
        case .rfc822Name(let text): return ChainVerifier.printable(text)
        case .directoryName(let name): return "\(name)"
        default: return "a name"
        }
    }
}
