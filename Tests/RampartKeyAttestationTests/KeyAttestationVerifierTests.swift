import Foundation
import RampartCrypto
import RampartKeyAttestation
import RampartX509
import TestSupport
import Testing

/// The vectors' challenge (most chains attest the bytes of "challenge").
func challenge(of chain: [Certificate]) throws -> [UInt8] {
    let value = try #require(chain.first?.extensions[oid: .KeyAttestation.keyDescription]?.value)
    return try KeyDescription(derEncoded: value).attestationChallenge
}

func verifier(
    _ policy: KeyAttestationPolicy, at time: Date, extraRoots: [Certificate] = [], revocations: RevocationList? = nil
) throws -> KeyAttestationVerifier {
    try KeyAttestationVerifier(policy: policy, extraRoots: extraRoots, revocations: revocations, clock: { time })
}

/// Accepts test devices (unlocked, unverified boot), as most of the vector phones are.
let permissive: KeyAttestationPolicy = {
    do { return try KeyAttestationPolicy(allowUnverifiedBoot: true) } catch { preconditionFailure("\(error)") }
}()

struct KeyAttestationVerifierTests {
    static let caiman = AndroidChain(name: "caiman/sdk36/TEE_EC_RKP", time: AndroidChain.date("2025-10-01T00:00:00Z"))
    static let caimanPackage = "com.google.android.attestation"
    static let caimanDigest = Array(Data(base64Encoded: "EDk47kU35Z6O55L2VFBPuDRvxrNG0LvEQV/DOfz8jsE=") ?? Data())

    @Test(
        "every chain under Google's roots verifies at a time inside its validity", arguments: AndroidChain.googleRooted)
    func verifies(item: AndroidChain) throws {
        let chain = try item.chain()
        let verdict = try verifier(permissive, at: item.time).verify(
            certificateChain: chain, challenge: challenge(of: chain))
        let attestation = try #require(verdict.attestation, "\(item.name): \(verdict.failure?.description ?? "")")
        #expect(attestation.keyID == SHA256.hash(chain[0].subjectPublicKeyInfoBytes))
        #expect(attestation.publicKeyInfo == chain[0].subjectPublicKeyInfoBytes)
        let json = try AndroidChain.parseJSON(JSONEncoder().encode(attestation.keyDescription))
        #expect(json == (try item.expectedJSON()))
        if item.name.contains("RKP") {
            #expect(!attestation.provisioningInfo.isEmpty, "\(item.name) carries provisioning info")
        }
        if item.name.contains("_EC_") {
            #expect(attestation.requestSigningKey.key != nil, "\(item.name)")
        } else {
            #expect(attestation.requestSigningKey.refusal?.reason == .unsupportedKeyType, "\(item.name)")
        }
    }

    @Test("the locked, verified caiman chains pass the default policy with their package and digest")
    func defaultPolicy() throws {
        for name in ["caiman/sdk36/TEE_EC_RKP", "caiman/sdk36/SB_EC_RKP"] {
            let chain = try AndroidChain(name: name, time: Self.caiman.time).chain()
            let policy = try KeyAttestationPolicy(
                packageNames: [Self.caimanPackage], signingCertificateDigests: [Self.caimanDigest],
                minimumOSPatchLevel: 202511)
            let verdict = try verifier(policy, at: Self.caiman.time).verify(
                certificateChain: chain, challenge: challenge(of: chain))
            let attestation = try #require(verdict.attestation, "\(name): \(verdict.failure?.description ?? "")")
            #expect(attestation.isApplicationIDTrustworthy)
            #expect(attestation.anchor == "Google RSA-4096 root")
            #expect(attestation.provisioningInfo[1]?.certificatesIssued == 8 || attestation.provisioningInfo[1] != nil)
        }
    }

    @Test("an ML-DSA leaf attests but is refused for request signing, saying why")
    func mlDSA() throws {
        let item = AndroidChain(name: "tokay/sdk37/TEE_MLDSA_RKP", time: AndroidChain.date("2026-05-01T00:00:00Z"))
        let chain = try item.chain()
        let verdict = try verifier(permissive, at: item.time).verify(
            certificateChain: chain, challenge: challenge(of: chain))
        let attestation = try #require(verdict.attestation)
        #expect(attestation.keyType == "ML-DSA-65")
        #expect(attestation.anchor == "Google Key Attestation CA1 (ECDSA P-384)")
        let refusal = try #require(attestation.requestSigningKey.refusal)
        #expect(refusal.reason == .unsupportedKeyType)
        #expect(refusal.message.contains("ML-DSA-65") && refusal.message.contains("secp256r1"))
    }

    /// A refusal case: a chain (possibly altered), the verifier's settings, and the reason expected.
    struct Refusal: CustomTestStringConvertible, Sendable {
        let name: String
        let reason: KeyAttestationFailure.Reason
        let make: @Sendable () throws -> (KeyAttestationVerifier, [Certificate], [UInt8])
        var testDescription: String { name }
    }

    static func caimanCase(
        _ name: String, _ reason: KeyAttestationFailure.Reason, policy: KeyAttestationPolicy = permissive,
        at time: Date = caiman.time, revocations: String? = nil, challenge override: [UInt8]? = nil,
        alter: @escaping @Sendable ([Certificate]) throws -> [Certificate] = { $0 }
    ) -> Refusal {
        Refusal(name: name, reason: reason) {
            let chain = try caiman.chain()
            let list = try revocations.map { try RevocationList(json: Array($0.utf8)) }
            return (
                try verifier(policy, at: time, revocations: list), try alter(chain),
                try override ?? challenge(of: chain)
            )
        }
    }

    /// A new leaf under the real leaf: the attested key's name as issuer, signed by a key of our own.
    static func extendBelow(_ chain: [Certificate]) throws -> [Certificate] {
        let attested = try #require(chain.first)
        let key = ECPrivateKey(curve: .p256)
        var builder = CertificateBuilder(copying: attested)
        builder.issuer = attested.subject
        builder.subjectPublicKeyInfo = key.publicKey.derRepresentation
        return [try builder.sign(with: key)] + chain
    }

    static let refusals: [Refusal] = [
        caimanCase("a chain extended below the attestation certificate", .chainExtendedBelowAttestation) {
            try extendBelow($0)
        },
        caimanCase("a wrong challenge", .challengeMismatch, challenge: Array("another challenge".utf8)),
        caimanCase(
            "a wrong package", .packageMismatch,
            policy: (try? KeyAttestationPolicy(packageNames: ["com.example.other"])) ?? permissive),
        caimanCase(
            "a wrong signing digest", .signingDigestMismatch,
            policy: (try? KeyAttestationPolicy(
                packageNames: [caimanPackage], signingCertificateDigests: [SHA256.hash(Array("other".utf8))]))
                ?? permissive),
        caimanCase(
            "a revoked intermediate", .certificateRevoked,
            revocations:
                #"{"entries": {"f165849ef08b4658dd0a8ab95be53006": {"status": "REVOKED", "reason": "KEY_COMPROMISE"}}}"#
        ),
        caimanCase(
            "a suspended intermediate", .certificateSuspended,
            revocations: #"{"entries": {"F165849EF08B4658DD0A8AB95BE53006": {"status": "SUSPENDED"}}}"#),
        caimanCase(
            "StrongBox required of a TEE key", .securityLevelTooLow,
            policy: (try? KeyAttestationPolicy(minimumSecurityLevel: .strongbox)) ?? permissive),
        caimanCase(
            "an OS patch level below the minimum", .patchLevelTooOld,
            policy: (try? KeyAttestationPolicy(minimumOSPatchLevel: 202512)) ?? permissive),
        caimanCase(
            "an intermediate expired at the verification time", .certificateExpired,
            at: AndroidChain.date("2026-01-01T00:00:00Z")),
        caimanCase(
            "an intermediate not yet valid at the verification time", .certificateNotYetValid,
            at: AndroidChain.date("2025-09-01T00:00:00Z")),
        caimanCase("a leaf signed by another key", .signatureInvalid) { chain in
            var builder = CertificateBuilder(copying: try #require(chain.first))
            builder.issuer = chain[1].subject
            return [try builder.sign(with: ECPrivateKey(curve: .p256))] + chain.dropFirst()
        },
        caimanCase("a chain missing an intermediate", .chainBroken) { chain in
            [chain[0]] + chain.dropFirst(2)
        },
        caimanCase("a chain without the attested leaf", .attestationExtensionMissing) { Array($0.dropFirst()) },
        Refusal(name: "an unlocked, unverified boot", reason: .bootStateUnverified) {
            let item = AndroidChain(name: "akita/sdk34/TEE_EC_NONE", time: AndroidChain.date("2024-09-20T00:00:00Z"))
            let chain = try item.chain()
            return (try verifier(KeyAttestationPolicy(), at: item.time), chain, try challenge(of: chain))
        },
        Refusal(name: "a software key (its root configured)", reason: .softwareKey) {
            let item = AndroidChain(name: "marlin/sdk29/TEE_EC_NONE", time: AndroidChain.date("2020-01-01T00:00:00Z"))
            let chain = try item.chain()
            let root = try #require(chain.last)
            return (try verifier(permissive, at: item.time, extraRoots: [root]), chain, try challenge(of: chain))
        },
        Refusal(name: "a chain to another root", reason: .untrustedRoot) {
            let item = AndroidChain(name: "marlin/sdk29/TEE_RSA_NONE", time: AndroidChain.date("2020-01-01T00:00:00Z"))
            let chain = try item.chain()
            return (try verifier(permissive, at: item.time), chain, try challenge(of: chain))
        },
        Refusal(name: "the malformed RootOfTrust vector", reason: .malformedKeyDescription) {
            let chain = try AndroidChain.certificates("invalid/malformed_rot_device_locked.pem")
            return (try verifier(permissive, at: AndroidChain.date("2025-01-01T00:00:00Z")), chain, [1])
        },
        // Its leaf was edited after it was signed (OpenSSL agrees): the chain fails before the KeyDescription is read;
        // KeyDescriptionTests shows the parser refuses its tag order too.
        Refusal(name: "the tags-out-of-order vector", reason: .signatureInvalid) {
            let chain = try AndroidChain.certificates("invalid/tags_not_in_ascending_order.pem")
            return (try verifier(permissive, at: AndroidChain.date("2025-01-01T00:00:00Z")), chain, [1])
        },
    ]

    @Test("each refusal comes with its own reason and an actionable message", arguments: refusals)
    func refuses(item: Refusal) throws {
        let (verifier, chain, challenge) = try item.make()
        let verdict = try verifier.verify(certificateChain: chain, challenge: challenge)
        let failure = try #require(verdict.failure, "\(item.name) was accepted")
        #expect(failure.reason == item.reason, "\(item.name): \(failure)")
        #expect(failure.message.count > 40)
    }

    @Test("a SUSPENDED serial passes when the policy allows suspended certificates; REVOKED never does")
    func suspendedAllowed() throws {
        let chain = try Self.caiman.chain()
        let policy = try KeyAttestationPolicy(allowUnverifiedBoot: true, allowSuspendedCertificates: true)
        let suspended = try RevocationList(
            json: Array(#"{"entries": {"f165849ef08b4658dd0a8ab95be53006": {"status": "SUSPENDED"}}}"#.utf8))
        let accepted = try verifier(policy, at: Self.caiman.time, revocations: suspended)
            .verify(certificateChain: chain, challenge: challenge(of: chain))
        #expect(accepted.attestation != nil)
        let revoked = try RevocationList(
            json: Array(#"{"entries": {"00f165849ef08b4658dd0a8ab95be53006": {"status": "REVOKED"}}}"#.utf8))
        let refused = try verifier(policy, at: Self.caiman.time, revocations: revoked)
            .verify(certificateChain: chain, challenge: challenge(of: chain))
        #expect(refused.failure?.reason == .certificateRevoked)
    }

    @Test("the embedded roots are the vectors' roots.json")
    func roots() throws {
        let data = try Vectors.data("android-key-attestation/roots.json")
        let pems = try #require(try JSONSerialization.jsonObject(with: data) as? [String])
        let certificates = try pems.map { try Certificate(pemEncoded: $0) }
        #expect(certificates == GoogleAttestationRoots.all)
    }

    @Test("malformed input throws: an empty chain, too many certificates, a challenge KeyMint cannot attest, bad DER")
    func malformedInput() throws {
        let verifier = try verifier(permissive, at: Self.caiman.time)
        let chain = try Self.caiman.chain()
        #expect(throws: KeyAttestationError.invalidArgument("")) {
            try verifier.verify(certificateChain: [], challenge: [1])
        }
        #expect(throws: KeyAttestationError.limitExceeded("")) {
            try verifier.verify(
                certificateChain: Array(repeating: chain[0], count: KeyAttestationVerifier.maximumChainLength + 1),
                challenge: [1])
        }
        #expect(throws: KeyAttestationError.invalidArgument("")) {
            try verifier.verify(certificateChain: chain, challenge: [])
        }
        #expect(throws: KeyAttestationError.invalidArgument("")) {
            try verifier.verify(certificateChain: chain, challenge: [UInt8](repeating: 1, count: 129))
        }
        #expect(throws: KeyAttestationError.malformedCertificate("")) {
            try verifier.verify(certificateChainDER: [[0x30, 0x00]], challenge: [1])
        }
    }
}
