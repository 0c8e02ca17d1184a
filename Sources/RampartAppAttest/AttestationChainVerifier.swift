import Foundation
import RampartX509

/// Checks an App Attest `x5c` chain with RampartX509's ``ChainVerifier`` (OpenSSL `X509_verify_cert`, RFC 5280
/// strict, injected time) under purpose `.none`: 2026 credential certificates carry EKU 1.2.840.113635.100.4.24,
/// which no TLS purpose accepts. Chain failures become ``AppAttestFailure`` reasons.
///
/// The verifier's signature cache remembers verified (issuer, subject) pairs, so once Apple's intermediate has been
/// verified against the root, each new attestation costs one signature check: its credential certificate's, made with
/// the intermediate's P-384 key.
struct AttestationChainVerifier: Sendable {
    let anchor: Certificate
    private let verifier: ChainVerifier

    init(anchor: Certificate) throws {
        self.anchor = anchor
        do {
            self.verifier = try ChainVerifier(trustAnchorDER: [anchor.derBytes])
        } catch {
            throw AppAttestError.invalidArgument("the App Attest trust anchor is not usable: \(error)")
        }
    }

    /// Forgets every verified signature (the benchmark's cold path).
    func clearCache() {
        verifier.clearSignatureCache()
    }

    /// Verifies `x5c` (credential certificate first, DER as received) at `time`; nil when it is trusted.
    func verify(_ chain: [[UInt8]], at time: Date) -> AppAttestFailure? {
        guard let leaf = chain.first else {
            return AppAttestFailure(.certificateChainUntrusted, message: "x5c holds no certificate")
        }
        let result = verifier.evaluateDER(leaf: leaf, intermediates: Array(chain.dropFirst()), at: time, purpose: .none)
        guard case .untrusted(let reason, _, let index, _, let text) = result else { return nil }
        let which = index.map { "certificate \($0) of the chain" } ?? "the chain"
        let anchorName = anchor.subject.description
        switch reason {
        case .expired:
            return AppAttestFailure(
                .certificateExpired,
                message: "\(which) has expired at \(time) (\(text)); attestations must be verified when they are made"
            )
        case .notYetValid:
            return AppAttestFailure(
                .certificateNotYetValid,
                message: "\(which) is not yet valid at \(time) (\(text)); check the server clock"
            )
        case .notACA, .pathLengthExceeded, .keyUsage:
            return AppAttestFailure(
                .certificateNotAuthority,
                message: "\(which) signs another certificate but is not a CA allowed to (\(text)); "
                    + "the chain is not Apple's"
            )
        default:
            return AppAttestFailure(
                .certificateChainUntrusted,
                message: "x5c does not chain to \(anchorName): \(reason) at \(which) (\(text)); "
                    + "the attestation did not come from App Attest, or the trust anchor is wrong"
            )
        }
    }
}
