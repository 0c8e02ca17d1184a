import Foundation
import RampartCrypto
import RampartKeyAttestation
import RampartX509

/// Android Key Attestation verification of real device chains (the vectors in
/// Tests/RampartKeyAttestationTests/Vectors) against their cost floor: the chain's own signature checks, made with
/// OpenSSL through RampartCrypto on keys imported beforehand, measured in the same run.
enum KeyAttestationBenchmarks {
    /// A vector chain and a time inside its validity.
    struct Chain {
        let name: String
        let time: Date
    }

    static let chains = [
        Chain(name: "caiman/sdk36/TEE_EC_RKP", time: Date(timeIntervalSince1970: 1_759_276_800)),
        Chain(name: "blueline/sdk28/TEE_RSA_NONE", time: Date(timeIntervalSince1970: 1_704_067_200)),
    ]

    static func run(_ options: BenchOptions) {
        let vectors = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(
                "Tests/RampartKeyAttestationTests/Vectors/android-key-attestation")
        for item in chains {
            guard
                let data = FileManager.default.contents(
                    atPath: vectors.appendingPathComponent("\(item.name).pem").path),
                let chain = try? Certificate.parseAll(Array(data)),
                let policy = try? KeyAttestationPolicy(allowUnverifiedBoot: true),
                let verifier = try? KeyAttestationVerifier(policy: policy, clock: { item.time }),
                let value = chain.first?.extensions[oid: .KeyAttestation.keyDescription]?.value,
                let challenge = try? KeyDescription(derEncoded: value).attestationChallenge,
                (try? verifier.verify(certificateChain: chain, challenge: challenge))?.attestation != nil
            else {
                print("  \(item.name): the vector did not verify (is the repository's Tests folder present?)")
                continue
            }
            // The floor: each certificate's signature checked under its issuer's key (the last one self-signed by
            // the root, which the verifier matches by key and does not check), keys imported once.
            var checks: [(PublicKey, Certificate, SignatureAlgorithm)] = []
            for index in 0..<(chain.count - 1) {
                guard let key = try? PublicKey(spkiDER: chain[index + 1].subjectPublicKeyInfoBytes),
                    let algorithm = signatureAlgorithm(chain[index].signatureAlgorithm.oid)
                else { continue }
                checks.append((key, chain[index], algorithm))
            }
            let floor = measure(seconds: options.seconds) {
                for (key, certificate, algorithm) in checks {
                    _ = key.isValidSignature(
                        certificate.signatureBytes, for: certificate.tbsCertificateBytes, algorithm: algorithm)
                }
            }
            let der = chain.map(\.derBytes)
            let parsed = measure(seconds: options.seconds) {
                _ = try? verifier.verify(certificateChain: chain, challenge: challenge)
            }
            let fromDER = measure(seconds: options.seconds) {
                _ = try? verifier.verify(certificateChainDER: der, challenge: challenge)
            }
            let what = checks.map { "\($0.2)" }.joined(separator: " + ")
            print("  \(item.name): \(chain.count) certificates; floor \(formatRate(floor)) chains/s (\(what))")
            for (name, rate) in [("parsed chain", parsed), ("chain from DER", fromDER)] {
                let ratio = String(format: "%.2f", rate / floor)
                print(
                    "    \(name.padding(toLength: 16, withPad: " ", startingAt: 0)) \(formatRate(rate)) verifications/s"
                        + "  = \(ratio) x the rate of its signature checks")
            }
        }
    }

    static func signatureAlgorithm(_ oid: ASN1ObjectIdentifier) -> SignatureAlgorithm? {
        switch oid {
        case .SignatureAlgorithm.ecdsaWithSHA256: .ecdsaWithSHA256
        case .SignatureAlgorithm.ecdsaWithSHA384: .ecdsaWithSHA384
        case .SignatureAlgorithm.sha256WithRSAEncryption: .sha256WithRSAEncryption
        case .SignatureAlgorithm.sha384WithRSAEncryption: .sha384WithRSAEncryption
        default: nil
        }
    }
}
