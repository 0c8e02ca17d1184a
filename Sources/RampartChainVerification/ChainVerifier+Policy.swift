import RampartX509

/// Rampart-side checks of a path OpenSSL accepted, where OpenSSL 3.0 is more lenient than RFC 5280 or than the web
/// PKI profile iOS enforces for TLS servers (CA/Browser Forum Baseline Requirements). Each refusal has its own
/// ``ChainFailure/Reason`` and a message naming the certificate, what is wrong and what to do.
///
/// RFC 5280 checks apply to every purpose; the web PKI profile applies to ``ChainVerifier/Purpose/tlsServer(hostname:)``
/// only (App Attest's Apple-issued chain is not a web PKI chain).
extension ChainVerifier {
    /// The first policy refusal of `path` (leaf first, anchor last), or nil when the path is acceptable.
    func policyFailure(path: [Certificate], purpose: Purpose) -> ChainFailure? {
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

        for (index, certificate) in path.enumerated() {
            // RFC 5280 4.2.1.11: "Conforming CAs MUST mark this extension as critical."
            if let constraints = certificate.extensions[oid: .X509Extension.policyConstraints], !constraints.critical {
                return refuse(
                    .malformedCertificate, index,
                    "\(which(index)) carries policyConstraints that are not marked critical, which RFC 5280 "
                        + "4.2.1.11 requires: the CA must reissue it")
            }
            if let failure = nameConstraintsStructureFailure(certificate, index: index, which: which(index)) {
                return failure
            }
        }
        if let failure = wildcardNameConstraintFailure(path: path, which: which) { return failure }

        guard purpose.hostname != nil else { return nil }
        return webPKIFailure(path: path, leaf: leaf, which: which)
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
                message: "\(which) carries nameConstraints but is not a CA; RFC 5280 4.2.1.10 allows them only in "
                    + "CA certificates: the issuer must reissue it without them")
        }
        guard raw.critical else {
            return ChainFailure(
                reason: .nameConstraints, certificateIndex: index,
                message: "\(which) carries nameConstraints that are not marked critical, which RFC 5280 4.2.1.10 "
                    + "requires: the CA must be reissued with a critical nameConstraints extension")
        }
        for case .dnsName(let base) in (constraints.permittedSubtrees ?? []) + (constraints.excludedSubtrees ?? []) {
            if base.hasPrefix(".") || base.contains("..") || base.hasSuffix(".") || base.contains("*") {
                return ChainFailure(
                    reason: .nameConstraints, certificateIndex: index,
                    message: "\(which) has the nameConstraints dNSName subtree \"\(Self.printable(base))\", which is "
                        + "not a host name (RFC 5280 4.2.1.10: a DNS constraint is written host.example.com, without "
                        + "a leading period or wildcard): the CA must be reissued")
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
                            + "issue the leaf for the names it may serve instead of a wildcard")
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
                    "\(which(index)) has a DSA key, which the web PKI does not allow (BR 6.1.5: RSA or ECDSA P-256, "
                        + "P-384, P-521): reissue it with an RSA or ECDSA key")
            }
            if let bits = certificate.rsaModulusBitCount, bits % 8 != 0 {
                return refuse(
                    .weakKey, index,
                    "\(which(index)) has an RSA \(bits) key; the web PKI requires a modulus size in bits that is "
                        + "divisible by 8 (BR 6.1.5): reissue it with an RSA 2048, 3072 or 4096 key")
            }
            if let problem = Self.authorityKeyIdentifierProblem(certificate, isAnchor: index == anchorIndex) {
                return refuse(
                    .malformedCertificate, index,
                    "\(which(index)) \(problem) (RFC 5280 4.2.1.1, BR 7.1.2.1.3 and 7.1.2.11.1): the CA must reissue it"
                )
            }
            guard index != anchorIndex else { continue }
            if let problem = Self.serialNumberProblem(certificate.serialNumber) {
                return refuse(
                    .malformedCertificate, index,
                    "\(which(index)) has a serial number that \(problem) (RFC 5280 4.1.2.2 requires a positive "
                        + "integer of at most 20 octets): the CA must reissue it")
            }
        }

        if anchor.issuer == anchor.subject, anchor.extensions.extendedKeyUsage != nil, anchorIndex > 0 {
            return refuse(
                .wrongPurpose, anchorIndex,
                "\(which(anchorIndex)) is a root that carries an extendedKeyUsage, which the web PKI forbids in roots "
                    + "(BR 7.1.2.1.2): trust a root without one")
        }
        if leaf.extensions.basicConstraints?.isCA == true {
            return refuse(
                .leafIsCA, 0,
                "the leaf (\(leaf.subject)) is a CA certificate (basicConstraints cA TRUE); a TLS server "
                    + "certificate must have cA FALSE (BR 7.1.2.7.8): issue an end-entity certificate for the server")
        }
        // A leaf without extendedKeyUsage stays acceptable (RFC 5280 4.2.1.12: any purpose), as before; one with
        // it must not list anyExtendedKeyUsage or mark it critical.
        guard let usage = leaf.extensions.extendedKeyUsage,
            let usageExtension = leaf.extensions[oid: .X509Extension.extendedKeyUsage]
        else { return nameFailure(leaf: leaf, refuse: refuse) }
        if usage.contains(.ExtendedKeyUsage.any) {
            return refuse(
                .wrongPurpose, 0,
                "the leaf (\(leaf.subject)) lists anyExtendedKeyUsage, which the web PKI forbids (BR 7.1.2.7.10): "
                    + "reissue it with extendedKeyUsage serverAuth only")
        }
        if usageExtension.critical {
            return refuse(
                .wrongPurpose, 0,
                "the leaf (\(leaf.subject)) marks extendedKeyUsage critical, which the web PKI forbids "
                    + "(BR 7.1.2.7.6): reissue it with a non-critical extendedKeyUsage")
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
                "the leaf's subjectAltName dNSName \"\(Self.printable(name))\" is not a host name (RFC 5280 4.2.1.6 "
                    + "and RFC 1034 3.5: letters, digits and '-' in labels of 1 to 63 characters, an optional "
                    + "leading '*.'): reissue the certificate")
        }
        if let san = leaf.extensions[oid: .X509Extension.subjectAlternativeName], san.critical,
            !leaf.subject.relativeNames.isEmpty
        {
            return refuse(
                .malformedCertificate, 0,
                "the leaf (\(leaf.subject)) marks subjectAltName critical although its subject is not empty; RFC "
                    + "5280 4.2.1.6 and BR 7.1.2.7.12 require it non-critical then: reissue the certificate")
        }
        if let problem = Self.commonNameProblem(leaf: leaf, names: names) {
            return refuse(
                .hostnameMismatch, 0,
                "the leaf's subject CN \(problem) (BR 7.1.4.3: a CN must be a character-for-character copy of a "
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
