import Foundation
import RampartChainVerification
import RampartCrypto
import RampartX509
import Synchronization

/// Checks an App Attest `x5c` chain up to one trust anchor: names, ECDSA signatures, validity at an injected time,
/// basicConstraints and keyUsage of every issuer, and no unhandled critical extension. No EKU purpose is required
/// (2026 credential certificates carry EKU 1.2.840.113635.100.4.24, which no TLS purpose accepts).
///
/// Why not RampartX509's `ChainVerifier`: it runs OpenSSL with RFC 5280 strict checks (`X509_V_FLAG_X509_STRICT`),
/// which refuse every real App Attest credential certificate because Apple issues them without an
/// authorityKeyIdentifier. This checker is deliberately narrow: it accepts only ECDSA chains, the shape Apple uses.
///
/// Intermediates whose signature by the anchor has verified are remembered (bounded), so the common two-certificate
/// chain then costs one signature check: the credential certificate's, made by the intermediate's P-384 key.
final class AttestationChainVerifier: Sendable {
    /// The most verified intermediates remembered (DoS bound; Apple has one App Attest intermediate).
    static let cacheCapacity = 32

    let anchor: Certificate
    private let anchorKey: ECPublicKey?
    /// DER of intermediates already verified against the anchor, with their imported keys.
    private let verifiedIntermediates = Mutex<[[UInt8]: ECPublicKey]>([:])

    init(anchor: Certificate) {
        self.anchor = anchor
        self.anchorKey = try? ECPublicKey(derRepresentation: anchor.subjectPublicKeyInfoBytes)
    }

    /// Removes every remembered intermediate (the benchmark's cold path).
    func clearCache() {
        verifiedIntermediates.withLock { $0.removeAll() }
    }

    /// Whether `certificate` is a remembered intermediate.
    func isCached(_ certificate: Certificate) -> Bool {
        verifiedIntermediates.withLock { $0[certificate.derBytes] != nil }
    }

    /// Verifies `chain` (credential certificate first) at `time`; nil when it is trusted.
    func verify(_ received: [Certificate], at time: Date) -> AppAttestFailure? {
        var chain = received
        if chain.count > 1, chain.last == anchor { chain.removeLast() }
        let anchorSubject = anchor.subject.description
        for (index, certificate) in chain.enumerated() {
            if let failure = Self.checkValidity(certificate, index: index, at: time) { return failure }
            if let failure = Self.checkCriticalExtensions(certificate, index: index) { return failure }
            let issuer = index + 1 < chain.count ? chain[index + 1] : anchor
            guard certificate.issuer == issuer.subject else {
                return AppAttestFailure(
                    .certificateChainUntrusted,
                    message: "the issuer of certificate \(index) in x5c is neither the next certificate nor the trust "
                        + "anchor \(anchorSubject); the attestation did not come from App Attest"
                )
            }
            if index > 0, let failure = Self.checkAuthority(certificate, index: index, issuedBelow: index - 1) {
                return failure
            }
            if !signatureVerifies(certificate, issuedBy: issuer, issuerIsAnchor: index + 1 == chain.count) {
                return AppAttestFailure(
                    .certificateChainUntrusted,
                    message: "the signature of certificate \(index) in x5c does not verify under its issuer's key; "
                        + "the chain was altered or does not lead to \(anchorSubject)"
                )
            }
        }
        return Self.checkValidity(anchor, index: chain.count, at: time)
    }

    /// Checks one signature, consulting and filling the cache for certificates the anchor signed.
    private func signatureVerifies(
        _ certificate: Certificate, issuedBy issuer: Certificate, issuerIsAnchor: Bool
    )
        -> Bool
    {
        if issuerIsAnchor {
            if verifiedIntermediates.withLock({ $0[certificate.derBytes] != nil }) { return true }
            guard let anchorKey, Self.verify(certificate, with: anchorKey) else { return false }
            if let key = try? ECPublicKey(derRepresentation: certificate.subjectPublicKeyInfoBytes) {
                verifiedIntermediates.withLock { cache in
                    if cache.count >= Self.cacheCapacity { cache.removeAll() }
                    cache[certificate.derBytes] = key
                }
            }
            return true
        }
        let cachedKey = verifiedIntermediates.withLock { $0[issuer.derBytes] }
        guard let key = cachedKey ?? (try? ECPublicKey(derRepresentation: issuer.subjectPublicKeyInfoBytes)) else {
            return false
        }
        return Self.verify(certificate, with: key)
    }

    /// ECDSA over the TBSCertificate bytes as received, with the digest the signature algorithm names.
    private static func verify(_ certificate: Certificate, with key: ECPublicKey) -> Bool {
        let digest: DigestAlgorithm
        switch certificate.signatureAlgorithm.oid {
        case .SignatureAlgorithm.ecdsaWithSHA256: digest = .sha256
        case .SignatureAlgorithm.ecdsaWithSHA384: digest = .sha384
        case .SignatureAlgorithm.ecdsaWithSHA512: digest = .sha512
        default: return false
        }
        return key.isValidSignature(certificate.signatureBytes, for: certificate.tbsCertificateBytes, digest: digest)
    }

    private static func checkValidity(_ certificate: Certificate, index: Int, at time: Date) -> AppAttestFailure? {
        // Certificate names are attacker input: messages name certificates by their index in x5c only (the trust
        // anchor, index x5c.count, is configuration).
        if time < certificate.notBefore {
            let notBefore = certificate.notBefore
            return AppAttestFailure(
                .certificateNotYetValid,
                message: "certificate \(index) is valid from \(notBefore), after the verification time "
                    + "\(time); check the server clock"
            )
        }
        if time > certificate.notAfter {
            let notAfter = certificate.notAfter
            return AppAttestFailure(
                .certificateExpired,
                message: "certificate \(index) expired at \(notAfter), before the verification time "
                    + "\(time); attestations must be verified when they are made"
            )
        }
        return nil
    }

    /// An issuer must be a CA allowed to sign certificates, within its path length constraint.
    private static func checkAuthority(_ certificate: Certificate, index: Int, issuedBelow: Int) -> AppAttestFailure? {
        let extensions = certificate.extensions
        let isCA = extensions.basicConstraints?.isCA ?? false
        let canSign = extensions.keyUsage.map { $0.contains(.keyCertSign) } ?? true
        let withinPath = extensions.basicConstraints?.pathLengthConstraint.map { issuedBelow <= $0 } ?? true
        guard isCA, canSign, withinPath else {
            return AppAttestFailure(
                .certificateNotAuthority,
                message: "certificate \(index) in x5c issues another certificate but is not a CA allowed to "
                    + "(basicConstraints cA, keyUsage keyCertSign, path length); the chain is not Apple's"
            )
        }
        return nil
    }

    /// The critical extensions this check understands; any other critical extension fails closed (RFC 5280 4.2).
    private static let handledCriticalExtensions: Set<ASN1ObjectIdentifier> = [
        .X509Extension.basicConstraints, .X509Extension.keyUsage, .X509Extension.extendedKeyUsage,
    ]

    private static func checkCriticalExtensions(_ certificate: Certificate, index: Int) -> AppAttestFailure? {
        guard
            let unhandled = certificate.extensions.all.first(where: {
                $0.critical && !handledCriticalExtensions.contains($0.oid)
            })
        else { return nil }
        let oid = unhandled.oid.dottedString
        return AppAttestFailure(
            .certificateChainUntrusted,
            message: "certificate \(index) has the critical extension \(oid), which App Attest verification does "
                + "not process; refusing it (RFC 5280 section 4.2)"
        )
    }
}
