public import Foundation
import RampartCrypto
public import RampartX509

/// Verifies Android Key Attestation certificate chains offline, as Google's "Verify hardware-backed key pairs with
/// key attestation" describes, and applies a ``KeyAttestationPolicy``.
///
/// For a chain received leaf first, ``verify(certificateChain:challenge:)`` checks, in order:
///
/// 1. the top certificate is one of Google's roots, matched by public key (``GoogleAttestationRoots``), or one of the
///    extra roots given here; or such a root issued it;
/// 2. the attestation extension (1.3.6.1.4.1.11129.2.1.17) nearest the root is in the leaf, and no certificate was
///    added below the certificate that holds it;
/// 3. each certificate's issuer is the next one, its signature (RSA PKCS#1 v1.5 or ECDSA on P-256/P-384, over the
///    TBSCertificate as received) verifies under the next key, and every issuer is a CA allowed to sign within its
///    path length; no certificate carries a critical extension this verifier does not process;
/// 4. every certificate above the leaf is valid at the injected time (the leaf's own validity is set by the device
///    and is not a check);
/// 5. no certificate's serial is REVOKED (or SUSPENDED, unless allowed) in the revocation list;
/// 6. the KeyDescription and any provisioning-info extension parse strictly;
/// 7. the policy: the challenge (compared as bytes), the security level, the RootOfTrust (VERIFIED and locked
///    unless allowed), origin GENERATED, purpose SIGN, the OS patch level, the package and signing digests.
///
/// Malformed input (no certificate, too many, a certificate that is not DER) throws ``KeyAttestationError``; a
/// well-formed chain that fails a check returns ``KeyAttestationVerdict/invalid(_:)`` with the reason.
///
/// - Important: The verifier checks the chain; the caller owns the state. Issue each challenge once and consume it
///   on use: Key Attestation has no counter, so a single-use challenge is the only replay guard.
public struct KeyAttestationVerifier: Sendable {
    /// The most certificates a chain may hold (DoS bound; real chains hold 3 to 5).
    public static let maximumChainLength = 10

    /// A root the chain may end at, with its imported key.
    struct TrustedRoot: Sendable {
        let certificate: Certificate
        let key: PublicKey
        let name: String
    }

    /// The policy applied after the chain verifies.
    public let policy: KeyAttestationPolicy
    let roots: [TrustedRoot]
    let revocations: RevocationList?
    let clock: @Sendable () -> Date

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - policy: What an attested key must show.
    ///   - extraRoots: Roots trusted besides Google's (a test CA, the device simulator); configuration only.
    ///   - revocations: Google's status list, or nil to skip the revocation check.
    ///   - clock: The time intermediates and roots are checked at; the system clock by default.
    /// - Throws: ``KeyAttestationError/Code/invalidArgument`` when an extra root's key cannot be used (not RSA or
    ///   EC P-256/P-384).
    public init(
        policy: KeyAttestationPolicy,
        extraRoots: [Certificate] = [],
        revocations: RevocationList? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        var roots: [TrustedRoot] = []
        let named =
            [
                (GoogleAttestationRoots.rsaRoot, "Google RSA-4096 root"),
                (GoogleAttestationRoots.ecdsaRoot, "Google Key Attestation CA1 (ECDSA P-384)"),
            ] + extraRoots.enumerated().map { ($0.element, "extra root \($0.offset)") }
        for (certificate, name) in named {
            guard let key = try? PublicKey(spkiDER: certificate.subjectPublicKeyInfoBytes),
                Self.isAcceptedIssuerKey(key)
            else {
                throw KeyAttestationError.invalidArgument(
                    "\(name) has a \(certificate.publicKeyDescription) key; roots must be RSA (2048 bits or more) "
                        + "or EC P-256/P-384")
            }
            roots.append(TrustedRoot(certificate: certificate, key: key, name: name))
        }
        self.policy = policy
        self.roots = roots
        self.revocations = revocations
        self.clock = clock
    }

    /// Verifies a chain received as DER certificates, leaf first.
    ///
    /// - Parameters:
    ///   - certificateChainDER: The certificates, leaf first (as `KeyStore.getCertificateChain` returns them).
    ///   - challenge: The challenge the server issued for this key, as bytes.
    /// - Returns: `.valid` with the attested key, or `.invalid` naming the failed check.
    /// - Throws: ``KeyAttestationError``: `invalidArgument` for an empty chain or challenge, `limitExceeded` beyond
    ///   ``maximumChainLength``, `malformedCertificate` for a certificate that is not strict DER X.509.
    public func verify(certificateChainDER: [[UInt8]], challenge: [UInt8]) throws -> KeyAttestationVerdict {
        try Self.checkChainLength(certificateChainDER.count)
        let chain = try certificateChainDER.enumerated().map { index, der in
            do {
                return try Certificate(derEncoded: der)
            } catch let error as X509Error {
                throw KeyAttestationError.malformedCertificate(
                    "certificate \(index) of the chain is not a DER X.509 certificate: \(error.reason)")
            }
        }
        return try verify(certificateChain: chain, challenge: challenge)
    }

    /// Verifies a parsed chain, leaf first.
    ///
    /// - Parameters:
    ///   - certificateChain: The certificates, leaf first.
    ///   - challenge: The challenge the server issued for this key, as bytes.
    /// - Returns: `.valid` with the attested key, or `.invalid` naming the failed check.
    /// - Throws: ``KeyAttestationError``: `invalidArgument` for an empty chain or an empty challenge or one longer
    ///   than ``KeyDescription/maximumChallengeByteCount``, `limitExceeded` beyond ``maximumChainLength``.
    public func verify(certificateChain: [Certificate], challenge: [UInt8]) throws -> KeyAttestationVerdict {
        try Self.checkChainLength(certificateChain.count)
        guard (1...KeyDescription.maximumChallengeByteCount).contains(challenge.count) else {
            throw KeyAttestationError.invalidArgument(
                "the challenge is \(challenge.count) bytes; KeyMint attests 1 to "
                    + "\(KeyDescription.maximumChallengeByteCount)")
        }
        let time = clock()
        let anchor: String
        switch verifyChain(certificateChain, at: time) {
        case .refused(let failure): return .invalid(failure)
        case .trusted(let name): anchor = name
        }
        let leaf = certificateChain[0]
        let description: KeyDescription
        do {
            description = try KeyDescription(
                derEncoded: leaf.extensions[oid: .KeyAttestation.keyDescription]?.value ?? [])
        } catch let error as KeyAttestationError {
            return .invalid(
                KeyAttestationFailure(
                    .malformedKeyDescription,
                    message: "the attestation extension of the leaf is not a valid KeyDescription (\(error.reason)); "
                        + "the chain verifies, so the device or its KeyMint is faulty: refuse the key"))
        }
        var provisioning: [Int: ProvisioningInfo] = [:]
        for (index, certificate) in certificateChain.enumerated() {
            guard let value = certificate.extensions[oid: .KeyAttestation.provisioningInfo]?.value else { continue }
            do {
                provisioning[index] = try ProvisioningInfo(cbor: value)
            } catch let error as KeyAttestationError {
                return .invalid(
                    KeyAttestationFailure(
                        .malformedProvisioningInfo,
                        message: "certificate \(index) carries a provisioning-info extension that is not the "
                            + "expected CBOR map (\(error.reason)); refuse the key"))
            }
        }
        if let failure = checkPolicy(description, challenge: challenge) { return .invalid(failure) }
        let bootTrusted = description.hardwareEnforced.rootOfTrust?.isVerifiedAndLocked ?? false
        return .valid(
            VerifiedKeyAttestation(
                keyDescription: description,
                certificateChain: certificateChain,
                publicKeyInfo: leaf.subjectPublicKeyInfoBytes,
                keyID: SHA256.hash(leaf.subjectPublicKeyInfoBytes),
                keyType: Self.describeKey(leaf),
                anchor: anchor,
                provisioningInfo: provisioning,
                isApplicationIDTrustworthy: bootTrusted,
                requestSigningKey: Self.requestSigningKey(leaf)))
    }

    private static func checkChainLength(_ count: Int) throws {
        guard count > 0 else {
            throw KeyAttestationError.invalidArgument(
                "the certificate chain is empty; send KeyStore.getCertificateChain(alias), leaf first")
        }
        guard count <= maximumChainLength else {
            throw KeyAttestationError.limitExceeded(
                "the certificate chain holds \(count) certificates; at most \(maximumChainLength) are accepted")
        }
    }

    /// Whether a key may sign certificates of an attestation chain: RSA of at least 2048 bits or EC P-256/P-384.
    static func isAcceptedIssuerKey(_ key: PublicKey) -> Bool {
        switch key.kind {
        case .rsa: key.bitCount >= RSAPublicKey.minimumVerificationBitCount
        case .ec: key.ecCurve == .p256 || key.ecCurve == .p384
        default: false
        }
    }

    /// `EC P-256`, `RSA 2048`, `ML-DSA-65`, …
    static func describeKey(_ certificate: Certificate) -> String {
        switch certificate.publicKeyAlgorithm {
        case .MLDSA.mlDSA44: "ML-DSA-44"
        case .MLDSA.mlDSA65: "ML-DSA-65"
        case .MLDSA.mlDSA87: "ML-DSA-87"
        default: certificate.publicKeyDescription
        }
    }

    /// Requests are signed with ECDSA P-256 (`Rampart-Signature`); any other key attests but cannot sign them.
    static func requestSigningKey(_ leaf: Certificate) -> RequestSigningKey {
        let type = describeKey(leaf)
        if let key = try? PublicKey(spkiDER: leaf.subjectPublicKeyInfoBytes), key.kind == .ec, key.ecCurve == .p256,
            let ecKey = key.ecPublicKey
        {
            return .usable(ecKey)
        }
        let why =
            type.hasPrefix("ML-DSA")
            ? "Rampart cannot verify \(type) signatures (OpenSSL 3.0 has no ML-DSA)"
            : "Rampart requests are signed with ECDSA P-256, not \(type)"
        return .refused(
            KeyAttestationFailure(
                .unsupportedKeyType,
                message: "the attested key is \(type); \(why). Generate the key with "
                    + "KeyGenParameterSpec.Builder(alias, PURPOSE_SIGN).setAlgorithmParameterSpec("
                    + "ECGenParameterSpec(\"secp256r1\")).setDigests(DIGEST_SHA256) under KEY_ALGORITHM_EC"))
    }
}
