import Foundation
import RampartAttestSimulation
import RampartCrypto
import RampartKeyAttestation
import RampartX509
import Testing

struct SimulatedAndroidKeystoreTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)
    static let package = "com.example.app"
    static let digest = SHA256.hash(Array("example signing certificate".utf8))
    static let challenge = Array("one-time challenge 7f3a".utf8)

    static func policy() throws -> KeyAttestationPolicy {
        try KeyAttestationPolicy(packageNames: [package], signingCertificateDigests: [digest])
    }

    static func device() -> SimulatedAndroidKeystore.Device {
        SimulatedAndroidKeystore.Device(packageName: package, signingCertificateDigests: [digest])
    }

    @Test("a simulated key verifies with the simulator's root configured, and signs requests with its P-256 key")
    func accepted() throws {
        let keystore = try SimulatedAndroidKeystore(clock: { Self.now })
        let key = try keystore.generateKey(challenge: Self.challenge, device: Self.device())
        let verifier = try KeyAttestationVerifier(
            policy: Self.policy(), extraRoots: [keystore.rootCertificate], clock: { Self.now })
        let verdict = try verifier.verify(certificateChainDER: key.certificateChainDER, challenge: Self.challenge)
        let attestation = try #require(verdict.attestation, "\(verdict.failure?.description ?? "")")
        #expect(attestation.anchor == "extra root 0")
        #expect(attestation.isApplicationIDTrustworthy)
        let signingKey = try #require(attestation.requestSigningKey.key)
        let message = Array("rampart-request-v1".utf8)
        #expect(signingKey.isValidSignature(try key.signature(for: message), for: message, digest: .sha256))
        #expect(attestation.keyDescription.attestationApplicationID?.packages.first?.name == Self.package)
    }

    @Test("without the simulator's root configured, the same chain is refused: untrustedRoot")
    func refusedWithoutRoot() throws {
        let keystore = try SimulatedAndroidKeystore(clock: { Self.now })
        let key = try keystore.generateKey(challenge: Self.challenge, device: Self.device())
        let verifier = try KeyAttestationVerifier(policy: Self.policy(), clock: { Self.now })
        let verdict = try verifier.verify(certificateChainDER: key.certificateChainDER, challenge: Self.challenge)
        #expect(verdict.failure?.reason == .untrustedRoot)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let name: String
        let reason: KeyAttestationFailure.Reason
        let change: @Sendable (inout SimulatedAndroidKeystore.Device) -> Void
        var testDescription: String { name }
    }

    static let deviceCases: [Case] = [
        Case(name: "a locked bootloader but a self-signed boot", reason: .bootStateUnverified) {
            $0.verifiedBootState = .selfSigned
        },
        Case(name: "a verified boot but an unlocked bootloader", reason: .deviceUnlocked) { $0.deviceLocked = false },
        Case(name: "no RootOfTrust", reason: .rootOfTrustMissing) { $0.includesRootOfTrust = false },
        Case(name: "an imported key", reason: .originNotGenerated) { $0.origin = .imported },
        Case(name: "an encryption-only key", reason: .purposeNotSign) { $0.purposes = [0, 1] },
        Case(name: "no attestationApplicationId", reason: .applicationIDMissing) { $0.includesApplicationID = false },
        Case(name: "a software keystore", reason: .softwareKey) { $0.securityLevel = .software },
        Case(name: "another app's package", reason: .packageMismatch) { $0.packageName = "com.example.evil" },
        Case(name: "a repackaged app", reason: .signingDigestMismatch) {
            $0.signingCertificateDigests = [SHA256.hash(Array("attacker".utf8))]
        },
    ]

    @Test("a device or app that breaks the policy is refused with its own reason", arguments: deviceCases)
    func deviceRefusals(item: Case) throws {
        let keystore = try SimulatedAndroidKeystore(clock: { Self.now })
        var device = Self.device()
        item.change(&device)
        let key = try keystore.generateKey(challenge: Self.challenge, device: device)
        let verifier = try KeyAttestationVerifier(
            policy: Self.policy(), extraRoots: [keystore.rootCertificate], clock: { Self.now })
        let verdict = try verifier.verify(certificateChainDER: key.certificateChainDER, challenge: Self.challenge)
        #expect(verdict.failure?.reason == item.reason, "\(item.name): \(verdict.failure?.description ?? "accepted")")
    }

    @Test("with allowUnverifiedBoot an unlocked device passes, its package still compared, its app id untrusted")
    func allowUnverifiedBoot() throws {
        let keystore = try SimulatedAndroidKeystore(clock: { Self.now })
        var device = Self.device()
        device.deviceLocked = false
        device.verifiedBootState = .unverified
        let key = try keystore.generateKey(challenge: Self.challenge, device: device)
        let policy = try KeyAttestationPolicy(
            packageNames: [Self.package], signingCertificateDigests: [Self.digest], allowUnverifiedBoot: true)
        let verifier = try KeyAttestationVerifier(
            policy: policy, extraRoots: [keystore.rootCertificate], clock: { Self.now })
        let attestation = try #require(
            try verifier.verify(certificateChainDER: key.certificateChainDER, challenge: Self.challenge).attestation)
        #expect(!attestation.isApplicationIDTrustworthy)
        device.packageName = "com.example.evil"
        let other = try keystore.generateKey(challenge: Self.challenge, device: device)
        let refused = try verifier.verify(certificateChainDER: other.certificateChainDER, challenge: Self.challenge)
        #expect(refused.failure?.reason == .packageMismatch)
    }

    /// Chains altered with the simulator's keys: the checks a real vector cannot reach.
    @Test("chain shapes no device produces are refused with their own reason")
    func chainRefusals() throws {
        let keystore = try SimulatedAndroidKeystore(clock: { Self.now })
        let key = try keystore.generateKey(challenge: Self.challenge, device: Self.device())
        let verifier = try KeyAttestationVerifier(
            policy: Self.policy(), extraRoots: [keystore.rootCertificate], clock: { Self.now })
        let (leaf, intermediate, root) = (key.certificateChain[0], key.certificateChain[1], key.certificateChain[2])

        // A certificate signed by the attested key itself, below the attestation certificate.
        var below = CertificateBuilder(copying: leaf)
        below.issuer = leaf.subject
        below.subjectPublicKeyInfo = ECPrivateKey(curve: .p256).publicKey.derRepresentation
        let extended = [try below.sign(with: key.privateKey)] + key.certificateChain
        #expect(
            try verifier.verify(certificateChain: extended, challenge: Self.challenge).failure?.reason
                == .chainExtendedBelowAttestation)

        // The leaf re-signed by a key without CA rights: an intermediate that is not a CA.
        let rogueKey = ECPrivateKey(curve: .p256)
        var rogue = CertificateBuilder(copying: intermediate)
        rogue.subjectPublicKeyInfo = rogueKey.publicKey.derRepresentation
        rogue.extraExtensions = []
        rogue.keyUsage = [.digitalSignature]
        let rogueIntermediate = try rogue.sign(with: keystore.rootKey)
        let resigned = try CertificateBuilder(copying: leaf).sign(with: rogueKey)
        #expect(
            try verifier.verify(certificateChain: [resigned, rogueIntermediate, root], challenge: Self.challenge)
                .failure?.reason == .certificateNotAuthority)

        // A critical extension nobody processes, and a malformed provisioning-info extension.
        for (extraExtension, reason) in [
            (Certificate.Extension(oid: "1.2.3.4", critical: true, value: [0x05, 0x00]), .unhandledCriticalExtension),
            (
                Certificate.Extension(oid: .KeyAttestation.provisioningInfo, critical: false, value: [0xA1, 0x02]),
                KeyAttestationFailure.Reason.malformedProvisioningInfo
            ),
        ] {
            var changed = CertificateBuilder(copying: leaf)
            changed.extraExtensions.append(extraExtension)
            let chain = [try changed.sign(with: keystore.intermediateKey), intermediate, root]
            #expect(try verifier.verify(certificateChain: chain, challenge: Self.challenge).failure?.reason == reason)
        }

        // An intermediate on P-521, which attestation chains never use.
        let p521 = ECPrivateKey(curve: .p521)
        var wide = CertificateBuilder(copying: intermediate)
        wide.subjectPublicKeyInfo = p521.publicKey.derRepresentation
        let wideIntermediate = try wide.sign(with: keystore.rootKey)
        let underWide = try CertificateBuilder(copying: leaf).sign(with: p521)
        #expect(
            try verifier.verify(certificateChain: [underWide, wideIntermediate, root], challenge: Self.challenge)
                .failure?.reason == .unsupportedSignatureAlgorithm)
    }
}
