import Foundation
import RampartCrypto
import RampartX509

/// What the chain checks concluded: trusted under the named anchor, or refused.
enum ChainOutcome {
    case trusted(String)
    case refused(KeyAttestationFailure)
}

extension KeyAttestationVerifier {
    /// The critical extensions this verifier processes; any other critical extension fails closed (RFC 5280 4.2).
    static let handledCriticalExtensions: Set<ASN1ObjectIdentifier> = [
        .X509Extension.basicConstraints, .X509Extension.keyUsage, .KeyAttestation.keyDescription,
        .KeyAttestation.provisioningInfo,
    ]

    /// Verifies the chain's structure, signatures, authorities, validity and revocation; returns the anchor's name.
    ///
    /// Certificate names, serials and keys are attacker input: messages name certificates by index only.
    func verifyChain(_ chain: [Certificate], at time: Date) -> ChainOutcome {
        guard let top = chain.last else { return .refused(Self.missingExtension()) }
        let count = chain.count

        // 1. The anchor: the top certificate's key is a root's, or a root issued the top certificate.
        let anchor: TrustedRoot
        let anchorInChain: Bool
        if let root = roots.first(where: { $0.certificate.subjectPublicKeyInfoBytes == top.subjectPublicKeyInfoBytes })
        {
            anchor = root
            anchorInChain = true
        } else if let root = roots.first(where: { $0.certificate.subject == top.issuer }) {
            anchor = root
            anchorInChain = false
        } else {
            return .refused(
                KeyAttestationFailure(
                    .untrustedRoot,
                    message: "certificate \(count - 1), the top of the chain, is neither one of Google's attestation "
                        + "roots (the RSA-4096 root f92009e853b6b045, Key Attestation CA1), matched by public key, "
                        + "nor issued by one, nor a configured extra root; the key was not attested by a device "
                        + "Google certified (or the app sent a software or emulator attestation)"))
        }

        // 2. Only the attestation extension nearest the root counts, and nothing may follow its certificate.
        let signedCount = anchorInChain ? count - 1 : count
        guard
            let attestationIndex = (0..<signedCount).reversed().first(where: {
                chain[$0].extensions[oid: .KeyAttestation.keyDescription] != nil
            })
        else { return .refused(Self.missingExtension()) }
        guard attestationIndex == 0 else {
            return .refused(
                KeyAttestationFailure(
                    .chainExtendedBelowAttestation,
                    message: "certificate \(attestationIndex) holds the attestation extension nearest the root, "
                        + "but \(attestationIndex) more certificate(s) follow it down to the leaf; the chain was "
                        + "extended below the attested key, so any attestation further down is not the device's. "
                        + "Send the chain exactly as KeyStore.getCertificateChain returns it"))
        }

        // 3. Names, authority and signature of each certificate under the next (or under the anchor).
        for index in 0..<signedCount {
            let certificate = chain[index]
            let issuerInChain = index + 1 < count
            let issuer = issuerInChain ? chain[index + 1] : anchor.certificate
            guard certificate.issuer == issuer.subject else {
                return .refused(
                    KeyAttestationFailure(
                        .chainBroken,
                        message: "the issuer of certificate \(index) is not the subject of certificate \(index + 1); "
                            + "send the whole chain, leaf first, in the order the device gave it"))
            }
            if issuerInChain, let failure = checkAuthority(chain, issuerIndex: index + 1) { return .refused(failure) }
            let issuerKey: PublicKey
            if issuerInChain {
                guard let key = try? PublicKey(spkiDER: issuer.subjectPublicKeyInfoBytes), Self.isAcceptedIssuerKey(key)
                else {
                    return .refused(
                        KeyAttestationFailure(
                            .unsupportedSignatureAlgorithm,
                            message: "certificate \(index + 1) signs with a \(issuer.publicKeyDescription) key; "
                                + "attestation chains are signed with RSA (2048 bits or more) or EC P-256/P-384 keys"))
                }
                issuerKey = key
            } else {
                issuerKey = anchor.key
            }
            if let failure = Self.checkSignature(certificate, index: index, issuerKey: issuerKey) {
                return .refused(failure)
            }
        }

        // 4. Validity of everything above the leaf (the leaf's is the device's to set), and of an external anchor.
        for index in 1..<max(count, 1) {
            if let failure = Self.checkValidity(chain[index], "certificate \(index)", at: time) {
                return .refused(failure)
            }
        }
        if !anchorInChain, let failure = Self.checkValidity(anchor.certificate, "the root \(anchor.name)", at: time) {
            return .refused(failure)
        }

        // 5. Critical extensions and revocation.
        for (index, certificate) in chain.enumerated() {
            if let unhandled = certificate.extensions.all.first(where: {
                $0.critical && !Self.handledCriticalExtensions.contains($0.oid)
            }) {
                let oid = unhandled.oid.dottedString
                return .refused(
                    KeyAttestationFailure(
                        .unhandledCriticalExtension,
                        message: "certificate \(index) has the critical extension \(oid), which Key Attestation "
                            + "verification does not process; refusing it (RFC 5280 section 4.2)"))
            }
            guard !(anchorInChain && index == count - 1), let revocations,
                let entry = revocations.entry(forSerialNumber: certificate.serialNumber)
            else { continue }
            let serial = RevocationList.key(forSerialNumber: certificate.serialNumber)
            let why = entry.reason.map { " (\($0.prefix(40)))" } ?? ""
            switch entry.status {
            case .revoked:
                return .refused(
                    KeyAttestationFailure(
                        .certificateRevoked,
                        message: "certificate \(index) (serial \(serial)) is REVOKED\(why) in the revocation list; "
                            + "the device's attestation key is compromised or withdrawn: refuse the key"))
            case .suspended where !policy.allowSuspendedCertificates:
                return .refused(
                    KeyAttestationFailure(
                        .certificateSuspended,
                        message: "certificate \(index) (serial \(serial)) is SUSPENDED\(why) in the revocation list; "
                            + "refuse the key, or set allowSuspendedCertificates if you accept suspended keys"))
            case .suspended:
                continue
            }
        }
        return .trusted(anchor.name)
    }

    static func missingExtension() -> KeyAttestationFailure {
        KeyAttestationFailure(
            .attestationExtensionMissing,
            message: "no certificate below the root carries the attestation extension 1.3.6.1.4.1.11129.2.1.17; "
                + "generate the key with KeyGenParameterSpec.Builder.setAttestationChallenge(challenge) and send "
                + "KeyStore.getCertificateChain(alias)")
    }

    /// An issuer must be a CA allowed to sign certificates, within its path length constraint (RFC 5280 4.2.1.9:
    /// the non-self-issued intermediates below it, leaf excluded).
    func checkAuthority(_ chain: [Certificate], issuerIndex: Int) -> KeyAttestationFailure? {
        let extensions = chain[issuerIndex].extensions
        let isCA = extensions.basicConstraints?.isCA ?? false
        let canSign = extensions.keyUsage.map { $0.contains(.keyCertSign) } ?? true
        let below = (1..<issuerIndex).filter { chain[$0].issuer != chain[$0].subject }.count
        let withinPath = extensions.basicConstraints?.pathLengthConstraint.map { below <= $0 } ?? true
        guard isCA, canSign, withinPath else {
            let what =
                !isCA
                ? "basicConstraints does not say cA"
                : !canSign ? "keyUsage lacks keyCertSign" : "its path length is exceeded"
            return KeyAttestationFailure(
                .certificateNotAuthority,
                message: "certificate \(issuerIndex) issues certificate \(issuerIndex - 1) but is not a CA allowed "
                    + "to (\(what)); the chain is not an attestation chain")
        }
        return nil
    }

    /// The signature of `certificate` over its TBSCertificate as received, with the algorithm it names.
    static func checkSignature(_ certificate: Certificate, index: Int, issuerKey: PublicKey) -> KeyAttestationFailure? {
        guard let algorithm = signatureAlgorithm(certificate.signatureAlgorithm, key: issuerKey) else {
            let name = certificate.signatureAlgorithm.description
            return KeyAttestationFailure(
                .unsupportedSignatureAlgorithm,
                message: "certificate \(index) is signed with \(name) by a \(issuerKey) key; attestation chains are "
                    + "signed with RSA PKCS#1 v1.5 or ECDSA (P-256/P-384) with SHA-256, SHA-384 or SHA-512")
        }
        guard
            issuerKey.isValidSignature(
                certificate.signatureBytes, for: certificate.tbsCertificateBytes, algorithm: algorithm)
        else {
            return KeyAttestationFailure(
                .signatureInvalid,
                message: "the signature of certificate \(index) does not verify under its issuer's key; the chain "
                    + "was altered or assembled from pieces of different chains")
        }
        return nil
    }

    /// The RampartCrypto algorithm for an X.509 signature algorithm when the issuer's key fits it, else nil.
    static func signatureAlgorithm(_ algorithm: Certificate.SignatureAlgorithm, key: PublicKey) -> SignatureAlgorithm? {
        let rsaParametersOK = algorithm.parameters == nil || algorithm.parameters == [0x05, 0x00]
        switch algorithm.oid {
        case .SignatureAlgorithm.ecdsaWithSHA256 where key.kind == .ec && algorithm.parameters == nil:
            return .ecdsaWithSHA256
        case .SignatureAlgorithm.ecdsaWithSHA384 where key.kind == .ec && algorithm.parameters == nil:
            return .ecdsaWithSHA384
        case .SignatureAlgorithm.ecdsaWithSHA512 where key.kind == .ec && algorithm.parameters == nil:
            return .ecdsaWithSHA512
        case .SignatureAlgorithm.sha256WithRSAEncryption where key.kind == .rsa && rsaParametersOK:
            return .sha256WithRSAEncryption
        case .SignatureAlgorithm.sha384WithRSAEncryption where key.kind == .rsa && rsaParametersOK:
            return .sha384WithRSAEncryption
        case .SignatureAlgorithm.sha512WithRSAEncryption where key.kind == .rsa && rsaParametersOK:
            return .sha512WithRSAEncryption
        default:
            return nil
        }
    }

    static func checkValidity(_ certificate: Certificate, _ what: String, at time: Date) -> KeyAttestationFailure? {
        if time < certificate.notBefore {
            let notBefore = certificate.notBefore
            return KeyAttestationFailure(
                .certificateNotYetValid,
                message: "\(what) is valid from \(notBefore), after the verification time \(time); check the "
                    + "server clock")
        }
        if time > certificate.notAfter {
            let notAfter = certificate.notAfter
            return KeyAttestationFailure(
                .certificateExpired,
                message: "\(what) expired at \(notAfter), before the verification time \(time); ask the app for a "
                    + "new attestation (RKP intermediates live for days, so verify chains when they arrive)")
        }
        return nil
    }
}
