internal import Foundation
package import RampartX509

/// Where the trust anchor of a built path came from: trustd applies some rules only to chains that end in Apple's
/// root store (`SecCertificateSourceContains(kSecSystemAnchorSource, root, pvc)` in trust/trustd/SecPolicyServer.c).
package enum AnchorSource {
    /// An anchor the verifier was given (`--ca`): what an app passes to `SecTrustSetAnchorCertificates`.
    case given
    /// An anchor of the system bundle, standing in for Apple's root store.
    case system
}

/// Rampart-side checks of a path OpenSSL accepted: the rules of the ``ChainPolicy`` in ``ChainVerifier/Options``.
///
/// ``ChainPolicy/apple`` adds what trustd's SSL server policy adds to what OpenSSL already checks, each rule citing
/// Apple's page or, where the page is silent, the trustd source (`apple-oss-distributions/Security`).
/// ``ChainPolicy/webPKI`` adds the CA/Browser Forum Baseline Requirements and RFC 5280 structure, each refusal
/// naming its clause; its RFC 5280 structure checks apply to every purpose, its web PKI profile to
/// ``ChainVerifier/Purpose/tlsServer(hostname:)`` only (App Attest's Apple-issued chain is not a web PKI chain).
/// Each refusal has its own ``ChainFailure/Reason`` and a message naming the certificate, what is wrong, the rule
/// and what to do.
extension ChainVerifier {
    /// Dates and limits of Apple's TLS server rules, as trustd writes them (CFAbsoluteTime, seconds since 2001).
    enum AppleLimits {
        /// 1 July 2019: leaves issued after it need serverAuth and at most 825 days (trust/trustd/SecPolicyServer.c,
        /// `SecPolicyCheckServerAuthEKU`; OSX/sec/Security/SecPolicy.c, `set_ssl_validity_periods`).
        static let july2019 = Date(timeIntervalSinceReferenceDate: 583_628_400)
        /// 1 March 2018: the 825-day limit under Apple's root store (SecPolicy.c, `set_ssl_validity_periods`).
        static let march2018 = Date(timeIntervalSinceReferenceDate: 541_555_200)
        /// 1 September 2020: the 398-day limit under Apple's root store (SecPolicy.c; "About upcoming limits on
        /// trusted certificates", HT211025).
        static let september2020 = Date(timeIntervalSinceReferenceDate: 620_611_200)
        /// 825 days and trustd's one hour of slip.
        static let twoYears: TimeInterval = 825 * 86_400 + 3_600
        /// 398 days, no slip.
        static let oneYear: TimeInterval = 398 * 86_400
        /// EC keys below 256 bits that OpenSSL's security level 2 still accepts (224 bits and up) and trustd's
        /// `SecPolicyAddStrongKeySizeOptions` (SecPolicy.c: "EC key sizes are P-256 or larger") refuses.
        static let smallCurves: Set<String> = ["EC secp224r1", "EC secp224k1", "EC prime192v1", "EC secp192k1"]
    }

    /// The first policy refusal of `path` (leaf first, anchor last), or nil when the path is acceptable.
    ///
    /// - Parameters:
    ///   - path: The path OpenSSL accepted.
    ///   - purpose: What the chain is for.
    ///   - anchor: Where the path's anchor came from.
    /// - Returns: The refusal, or nil.
    package func policyFailure(path: [Certificate], purpose: Purpose, anchor: AnchorSource) -> ChainFailure? {
        guard let leaf = path.first else { return nil }
        let anchorIndex = path.count - 1
        func which(_ index: Int) -> String {
            let role =
                index == 0 ? "the leaf" : index == anchorIndex ? "the trust anchor" : "certificate \(index)"
            return "\(role) (\(path[index].subject))"
        }
        func refuse(_ reason: ChainFailure.Reason, _ index: Int?, _ message: String) -> ChainFailure {
            ChainFailure(reason: reason, certificateIndex: index, message: message)
        }

        // Path length: self-issued intermediates (key rollover) do not count, as for pathLenConstraint (RFC 5280
        // 6.1.4 (l)).
        let allowed = max(options.maximumPathLength - 2, 0)
        var counted = 0
        for index in path.indices.dropFirst().dropLast() where path[index].issuer != path[index].subject {
            counted += 1
            if counted > allowed {
                return refuse(
                    .chainTooLong, index,
                    "\(which(index)) is intermediate \(counted) of the path, but at most \(allowed) are allowed "
                        + "(maximumPathLength \(options.maximumPathLength), leaf and anchor included; self-issued "
                        + "intermediates not counted): send a shorter chain or raise the limit")
            }
        }

        switch options.policy.backing {
        case .apple:
            guard purpose.hostname != nil else { return nil }
            return appleFailure(path: path, leaf: leaf, anchor: anchor, which: which)
        case .webPKI:
            for (index, certificate) in path.enumerated() {
                // RFC 5280 4.2.1.11: "Conforming CAs MUST mark this extension as critical."
                if let constraints = certificate.extensions[oid: .X509Extension.policyConstraints],
                    !constraints.critical
                {
                    return refuse(
                        .malformedCertificate, index,
                        "\(which(index)) carries policyConstraints that are not marked critical, which RFC 5280 "
                            + "4.2.1.11 requires (policy webpki): the CA must reissue it")
                }
                if let failure = nameConstraintsStructureFailure(certificate, index: index, which: which(index)) {
                    return failure
                }
            }
            if let failure = wildcardNameConstraintFailure(path: path, which: which) { return failure }
            guard purpose.hostname != nil else { return nil }
            return webPKIFailure(path: path, leaf: leaf, which: which)
        }
    }

    /// What Apple's SSL server policy adds to the engine, for a TLS server chain.
    ///
    /// OpenSSL already applies what both policies share: RSA keys of 2048 bits or more and no SHA-1 signatures
    /// (security level 2; "Requirements for trusted certificates in iOS 13 and macOS 10.15", HT210176), an
    /// extendedKeyUsage, when present, that allows TLS server authentication (SecPolicy.c `set_ssl_ekus`), the host
    /// against the subjectAltName only, never the CN (HT210176; OSX/sec/Security/SecPolicyLeafCallbacks.c
    /// `SecPolicyCheckCertSSLHostname`), and name constraints whether or not they are critical (SecPolicyServer.c
    /// `SecPolicyCheckBasicCertificateProcessing`, step (g)).
    private func appleFailure(
        path: [Certificate], leaf: Certificate, anchor: AnchorSource, which: (Int) -> String
    ) -> ChainFailure? {
        for (index, certificate) in path.enumerated() where certificate.publicKeyAlgorithm == .PublicKeyAlgorithm.dsa {
            return ChainFailure(
                reason: .weakKey, certificateIndex: index,
                message: "\(which(index)) has a DSA key, which iOS treats as a weak key whatever its size (policy "
                    + "apple: trustd's SecCertificateIsWeakKey, SecCertificate.c, trusts only RSA, ECDSA, Ed25519 and "
                    + "Ed448 keys): reissue it with an RSA or ECDSA key")
        }
        for (index, certificate) in path.enumerated()
        where AppleLimits.smallCurves.contains(certificate.publicKeyDescription) {
            return ChainFailure(
                reason: .weakKey, certificateIndex: index,
                message: "\(which(index)) has a \(certificate.publicKeyDescription) key; iOS requires EC keys of "
                    + "P-256 or larger for TLS (policy apple: trustd's SecPolicyAddStrongKeySizeOptions, "
                    + "SecPolicy.c): reissue it with a P-256 or P-384 key")
        }

        let lifetime = leaf.notAfter.timeIntervalSince(leaf.notBefore)
        let days = Int((lifetime / 86_400).rounded(.up))
        let issued = leaf.notBefore.formatted(.iso8601)
        if anchor == .system {
            if leaf.notBefore >= AppleLimits.september2020, lifetime > AppleLimits.oneYear {
                return ChainFailure(
                    reason: .validityPeriodTooLong, certificateIndex: 0,
                    message: "the leaf (\(leaf.subject)) was issued \(issued) and is valid for \(days) days; under "
                        + "Apple's root store a TLS certificate issued on or after 2020-09-01 may be valid for at most "
                        + "398 days (policy apple: \"About upcoming limits on trusted certificates\", HT211025): "
                        + "reissue it for 398 days or fewer")
            }
            if leaf.notBefore >= AppleLimits.march2018, lifetime > AppleLimits.twoYears {
                return ChainFailure(
                    reason: .validityPeriodTooLong, certificateIndex: 0,
                    message: "the leaf (\(leaf.subject)) was issued \(issued) and is valid for \(days) days; under "
                        + "Apple's root store a TLS certificate issued on or after 2018-03-01 may be valid for at most "
                        + "825 days (policy apple: trustd's set_ssl_validity_periods, SecPolicy.c): reissue it for "
                        + "825 days or fewer")
            }
        }
        if leaf.notBefore >= AppleLimits.july2019, lifetime > AppleLimits.twoYears {
            return ChainFailure(
                reason: .validityPeriodTooLong, certificateIndex: 0,
                message: "the leaf (\(leaf.subject)) was issued \(issued) and is valid for \(days) days; iOS 13 and "
                    + "later refuse a TLS server certificate issued after 2019-07-01 that is valid for more than 825 "
                    + "days, whatever CA issued it (policy apple: \"Requirements for trusted certificates in iOS 13 "
                    + "and macOS 10.15\", HT210176): reissue it for 825 days or fewer")
        }

        let serverAuth = ASN1ObjectIdentifier.ExtendedKeyUsage.serverAuth
        let needsServerAuth = anchor == .system || leaf.notBefore > AppleLimits.july2019
        if needsServerAuth, leaf.extensions.extendedKeyUsage?.contains(serverAuth) != true {
            let has = leaf.extensions.extendedKeyUsage.map {
                "its extendedKeyUsage lists \($0.purposes.prefix(4).map { OID.name($0) }.joined(separator: ", "))"
            }
            return ChainFailure(
                reason: .wrongPurpose, certificateIndex: 0,
                message: "the leaf (\(leaf.subject)) \(has ?? "has no extendedKeyUsage"), but iOS 13 and later "
                    + "require a TLS server certificate issued after 2019-07-01 to list id-kp-serverAuth (policy "
                    + "apple: \"Requirements for trusted certificates in iOS 13 and macOS 10.15\", HT210176; trustd's "
                    + "SecPolicyCheckServerAuthEKU): reissue it with extendedKeyUsage serverAuth")
        }
        return nil
    }

    /// RFC 5280 4.2.1.10: nameConstraints are critical, only in CA certificates, and DNS bases are host names.
    private func nameConstraintsStructureFailure(
        _ certificate: Certificate, index: Int, which: String
    ) -> ChainFailure? {
        guard let constraints = certificate.extensions.nameConstraints,
            let raw = certificate.extensions[oid: .X509Extension.nameConstraints]
        else { return nil }
        guard certificate.extensions.basicConstraints?.isCA == true else {
            return ChainFailure(
                reason: .nameConstraints, certificateIndex: index,
                message: "\(which) carries nameConstraints but is not a CA; RFC 5280 4.2.1.10 (policy webpki) allows "
                    + "them only in CA certificates: the issuer must reissue it without them")
        }
        guard raw.critical else {
            return ChainFailure(
                reason: .nameConstraints, certificateIndex: index,
                message: "\(which) carries nameConstraints that are not marked critical, which RFC 5280 4.2.1.10 "
                    + "requires (policy webpki): the CA must be reissued with a critical nameConstraints extension")
        }
        for case .dnsName(let base) in (constraints.permittedSubtrees ?? []) + (constraints.excludedSubtrees ?? []) {
            if base.hasPrefix(".") || base.contains("..") || base.hasSuffix(".") || base.contains("*") {
                return ChainFailure(
                    reason: .nameConstraints, certificateIndex: index,
                    message: "\(which) has the nameConstraints dNSName subtree \"\(Self.printable(base))\", which is "
                        + "not a host name (RFC 5280 4.2.1.10: a DNS constraint is written host.example.com, without "
                        + "a leading period or wildcard; policy webpki): the CA must be reissued")
            }
        }
        return nil
    }

    /// A wildcard dNSName of the leaf matches names one label below it; when a CA above excludes such a name, the
    /// leaf could be presented for it, so the chain is refused (the CVE-2025-61727 ambiguity, resolved defensively).
    private func wildcardNameConstraintFailure(path: [Certificate], which: (Int) -> String) -> ChainFailure? {
        guard let leaf = path.first else { return nil }
        let wildcards = (leaf.extensions.subjectAlternativeNames ?? []).compactMap { name -> String? in
            guard case .dnsName(let text) = name, text.hasPrefix("*.") else { return nil }
            return String(text.dropFirst(2)).lowercased()
        }
        guard !wildcards.isEmpty else { return nil }
        for index in path.indices.dropFirst() {
            for case .dnsName(let base) in path[index].extensions.nameConstraints?.excludedSubtrees ?? [] {
                let excluded = base.lowercased()
                guard let dot = excluded.firstIndex(of: ".") else { continue }
                let parent = String(excluded[excluded.index(after: dot)...])
                for suffix in wildcards where parent == suffix {
                    return ChainFailure(
                        reason: .nameConstraints, certificateIndex: 0,
                        message: "the leaf's subjectAltName *.\(Self.printable(suffix)) matches "
                            + "\(Self.printable(excluded)), which \(which(index)) excludes by its nameConstraints: "
                            + "(policy webpki; trustd matches the wildcard as written): issue the leaf for the "
                            + "names it may serve instead of a wildcard")
                }
            }
        }
        return nil
    }

    /// The web PKI profile for TLS servers (CA/Browser Forum Baseline Requirements, as iOS enforces it).
    private func webPKIFailure(path: [Certificate], leaf: Certificate, which: (Int) -> String) -> ChainFailure? {
        func refuse(_ reason: ChainFailure.Reason, _ index: Int?, _ message: String) -> ChainFailure {
            ChainFailure(reason: reason, certificateIndex: index, message: message)
        }
        let anchorIndex = path.count - 1
        let anchor = path[anchorIndex]

        for (index, certificate) in path.enumerated() {
            if certificate.publicKeyAlgorithm == .PublicKeyAlgorithm.dsa {
                return refuse(
                    .weakKey, index,
                    "\(which(index)) has a DSA key, which the web PKI does not allow (policy webpki: BR 6.1.5: RSA or ECDSA P-256, "
                        + "P-384, P-521): reissue it with an RSA or ECDSA key")
            }
            if AppleLimits.smallCurves.contains(certificate.publicKeyDescription) {
                return refuse(
                    .weakKey, index,
                    "\(which(index)) has a \(certificate.publicKeyDescription) key, which the web PKI does not allow "
                        + "(policy webpki: BR 6.1.5: ECDSA on P-256, P-384 or P-521): reissue it with a P-256 key")
            }
            if let bits = certificate.rsaModulusBitCount, bits % 8 != 0 {
                return refuse(
                    .weakKey, index,
                    "\(which(index)) has an RSA \(bits) key; the web PKI requires a modulus size in bits that is "
                        + "divisible by 8 (policy webpki: BR 6.1.5): reissue it with an RSA 2048, 3072 or 4096 key")
            }
            if let problem = Self.authorityKeyIdentifierProblem(certificate, isAnchor: index == anchorIndex) {
                return refuse(
                    .malformedCertificate, index,
                    "\(which(index)) \(problem) (policy webpki: RFC 5280 4.2.1.1, BR 7.1.2.1.3 and 7.1.2.11.1): the CA must reissue it"
                )
            }
            guard index != anchorIndex else { continue }
            if let problem = Self.serialNumberProblem(certificate.serialNumber) {
                return refuse(
                    .malformedCertificate, index,
                    "\(which(index)) has a serial number that \(problem) (policy webpki: RFC 5280 4.1.2.2 requires a positive "
                        + "integer of at most 20 octets): the CA must reissue it")
            }
        }

        if anchor.issuer == anchor.subject, anchor.extensions.extendedKeyUsage != nil, anchorIndex > 0 {
            return refuse(
                .wrongPurpose, anchorIndex,
                "\(which(anchorIndex)) is a root that carries an extendedKeyUsage, which the web PKI forbids in roots "
                    + "(policy webpki: BR 7.1.2.1.2): trust a root without one")
        }
        if leaf.extensions.basicConstraints?.isCA == true {
            return refuse(
                .leafIsCA, 0,
                "the leaf (\(leaf.subject)) is a CA certificate (basicConstraints cA TRUE); a TLS server "
                    + "certificate must have cA FALSE (policy webpki: BR 7.1.2.7.8): issue an end-entity certificate "
                    + "for the server")
        }
        // A leaf without extendedKeyUsage stays acceptable (RFC 5280 4.2.1.12: any purpose), as before; one with
        // it must not list anyExtendedKeyUsage or mark it critical.
        guard let usage = leaf.extensions.extendedKeyUsage,
            let usageExtension = leaf.extensions[oid: .X509Extension.extendedKeyUsage]
        else { return nameFailure(leaf: leaf, refuse: refuse) }
        if usage.contains(.ExtendedKeyUsage.any) {
            return refuse(
                .wrongPurpose, 0,
                "the leaf (\(leaf.subject)) lists anyExtendedKeyUsage, which the web PKI forbids (policy webpki: BR 7.1.2.7.10): "
                    + "reissue it with extendedKeyUsage serverAuth only")
        }
        if usageExtension.critical {
            return refuse(
                .wrongPurpose, 0,
                "the leaf (\(leaf.subject)) marks extendedKeyUsage critical, which the web PKI forbids "
                    + "(policy webpki: BR 7.1.2.7.6): reissue it with a non-critical extendedKeyUsage")
        }

        return nameFailure(leaf: leaf, refuse: refuse)
    }

    /// The web PKI checks of the leaf's names: SAN syntax and criticality, and the subject CN.
    private func nameFailure(
        leaf: Certificate, refuse: (ChainFailure.Reason, Int?, String) -> ChainFailure
    ) -> ChainFailure? {
        let names = leaf.extensions.subjectAlternativeNames ?? []
        for case .dnsName(let name) in names where !Self.isPreferredNameSyntax(name) {
            return refuse(
                .malformedCertificate, 0,
                "the leaf's subjectAltName dNSName \"\(Self.printable(name))\" is not a host name (policy webpki: RFC 5280 4.2.1.6 "
                    + "and RFC 1034 3.5: letters, digits and '-' in labels of 1 to 63 characters, an optional "
                    + "leading '*.'): reissue the certificate")
        }
        if let san = leaf.extensions[oid: .X509Extension.subjectAlternativeName], san.critical,
            !leaf.subject.relativeNames.isEmpty
        {
            return refuse(
                .malformedCertificate, 0,
                "the leaf (\(leaf.subject)) marks subjectAltName critical although its subject is not empty; RFC "
                    + "5280 4.2.1.6 and BR 7.1.2.7.12 require it non-critical then (policy webpki): reissue the "
                    + "certificate")
        }
        if let problem = Self.commonNameProblem(leaf: leaf, names: names) {
            return refuse(
                .hostnameMismatch, 0,
                "the leaf's subject CN \(problem) (policy webpki: BR 7.1.4.3: a CN must be a character-for-character copy of a "
                    + "subjectAltName entry, an IP address written as RFC 3986 and RFC 5952 write it): reissue it "
                    + "with the CN taken from the subjectAltName, or without a CN")
        }
        return nil
    }

    /// Why the leaf's subject CN contradicts its subjectAltName, or nil.
    ///
    /// A CN that reads as an IP address must be the canonical text of a SAN iPAddress; any other CN must be an
    /// ASCII host name that is a SAN dNSName. One leniency: a CN that is a parent domain of every SAN dNSName (or
    /// any CN when there is none) is accepted, as x509-limbo's corpus expects of its many `CN=example.com` leaves
    /// over names such as `*.example.com`; such a CN names nothing the SAN does not already cover below it.
    static func commonNameProblem(leaf: Certificate, names: [GeneralName]) -> String? {
        let commonNames = leaf.subject.relativeNames.flatMap(\.attributes).filter {
            $0.type == .NameAttribute.commonName
        }
        let dnsNames = names.compactMap { name -> String? in
            if case .dnsName(let text) = name { return text }
            return nil
        }
        let addresses = names.compactMap { name -> String? in
            if case .ipAddress(let octets) = name { return canonicalText(ipAddress: octets) }
            return nil
        }
        for attribute in commonNames {
            guard let value = attribute.stringValue else { return "is not a string" }
            let shown = "\"\(printable(value))\""
            if looksLikeIPAddress(value) {
                guard addresses.contains(value) else {
                    return "\(shown) reads as an IP address but is not the canonical text of a subjectAltName "
                        + "iPAddress (\(addresses.isEmpty ? "there is none" : addresses.prefix(4).joined(separator: ", ")))"
                }
                continue
            }
            guard value.unicodeScalars.allSatisfy(\.isASCII), isPreferredNameSyntax(value) else {
                return "\(shown) is not an ASCII host name (a U-label must be written as its A-label, as in the "
                    + "subjectAltName)"
            }
            if dnsNames.contains(value) { continue }
            if dnsNames.allSatisfy({ $0.hasSuffix("." + value) }) { continue }
            return
                "\(shown) is not one of its subjectAltName dNSNames (\(dnsNames.prefix(4).map(printable).joined(separator: ", ")))"
        }
        return nil
    }

    /// Whether a text reads as an IP address in any notation (dotted decimal with or without leading zeros,
    /// hexadecimal, IPv6).
    static func looksLikeIPAddress(_ text: String) -> Bool {
        let lower = text.lowercased()
        if lower.hasPrefix("0x"), lower.dropFirst(2).allSatisfy(\.isHexDigit), lower.count > 2 { return true }
        if lower.contains(":") { return lower.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." } }
        let parts = lower.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }
    }

    /// How a certificate's authorityKeyIdentifier breaks the web PKI profile, or nil: it must be present unless
    /// the certificate is self-signed or the trust anchor (an anchor is an input of path validation, RFC 5280 6.1.1
    /// (d), not a certificate it checks), hold a keyIdentifier and neither authorityCertIssuer nor
    /// authorityCertSerialNumber, and a self-signed anchor's must equal its subjectKeyIdentifier.
    static func authorityKeyIdentifierProblem(_ certificate: Certificate, isAnchor: Bool) -> String? {
        let selfIssued = certificate.issuer == certificate.subject
        guard let identifier = certificate.extensions.authorityKeyIdentifier else {
            return selfIssued || isAnchor ? nil : "is not self-signed but has no authorityKeyIdentifier"
        }
        guard let key = identifier.keyIdentifier else {
            return "has an authorityKeyIdentifier without keyIdentifier"
        }
        if identifier.authorityCertIssuer != nil || identifier.authorityCertSerialNumber != nil {
            return "has an authorityKeyIdentifier with authorityCertIssuer or authorityCertSerialNumber, which the web "
                + "PKI forbids"
        }
        if selfIssued, isAnchor, let subjectKey = certificate.extensions.subjectKeyIdentifier, subjectKey != key {
            return "is a root whose authorityKeyIdentifier differs from its subjectKeyIdentifier"
        }
        return nil
    }

    /// Why a serial number breaks RFC 5280 4.1.2.2, or nil.
    static func serialNumberProblem(_ content: [UInt8]) -> String? {
        guard let first = content.first else { return "is empty" }
        if first & 0x80 != 0 { return "is negative" }
        if content.allSatisfy({ $0 == 0 }) { return "is zero" }
        let magnitude = first == 0 ? content.count - 1 : content.count
        if magnitude > 20 { return "is \(magnitude) octets long" }
        return nil
    }

    /// Whether `name` is a host name in the preferred name syntax (RFC 1034 3.5, RFC 5280 4.2.1.6), optionally with
    /// a whole-label wildcard first (`*.example.com`).
    static func isPreferredNameSyntax(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= maximumHostnameLength else { return false }
        var labels = name.split(separator: ".", omittingEmptySubsequences: false)
        if labels.first == "*" {
            labels.removeFirst()
            guard labels.count >= 2 else { return false }
        }
        return labels.allSatisfy { label in
            let bytes = Array(label.utf8)
            guard let first = bytes.first, let last = bytes.last, bytes.count <= 63 else { return false }
            let ldh = bytes.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == 0x2D
            }
            return ldh && first != 0x2D && last != 0x2D
        }
    }

    /// An IP address as RFC 3986 3.2.2 (IPv4, dotted decimal) and RFC 5952 (IPv6: lowercase, no leading zeros,
    /// the longest run of two or more zero groups as `::`) write it.
    static func canonicalText(ipAddress octets: [UInt8]) -> String? {
        if octets.count == 4 { return octets.map(String.init).joined(separator: ".") }
        guard octets.count == 16 else { return nil }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(octets[$0]) << 8 | UInt16(octets[$0 + 1]) }
        var best: (start: Int, length: Int) = (-1, 0)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            var end = index
            while end < 8, groups[end] == 0 { end += 1 }
            if end - index > best.length, end - index >= 2 { best = (index, end - index) }
            index = end
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.start >= 0 else { return text.joined(separator: ":") }
        let head = text[..<best.start].joined(separator: ":")
        let tail = text[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }

    /// Attacker-controlled text reduced to printable ASCII and bounded, for a message.
    static func printable(_ text: String) -> String {
        String(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }.prefix(64))
    }
}
