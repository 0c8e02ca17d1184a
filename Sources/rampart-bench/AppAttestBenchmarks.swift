import Foundation
import RampartAppAttest
import RampartCrypto

/// App Attest verification rates against the OpenSSL cost of the signature checks each one needs: a cold attestation
/// checks two P-384 signatures (intermediate by root, credential certificate by intermediate), a cached one only the
/// second, and an assertion one P-256 signature.
enum AppAttestBenchmarks {
    static func run(_ options: BenchOptions) {
        let teamID = "ABCDE12345"
        let bundleID = "com.example.bench"
        let clientDataHash = SHA256.hash(Array("bench challenge".utf8))
        guard let simulator = try? AppAttestSimulator(),
            let verifier = try? AppAttestVerifier(
                teamID: teamID,
                bundleID: bundleID,
                environment: .production,
                trustAnchor: simulator.rootCertificate
            )
        else {
            print("  the simulator could not start")
            return
        }
        var device = SimulatedDevice(teamID: teamID, bundleID: bundleID, environment: .production)
        guard let attestation = try? simulator.attestKey(of: device, clientDataHash: clientDataHash),
            let assertion = try? device.generateAssertion(clientDataHash: clientDataHash),
            (try? verifier.verifyAttestation(attestation, keyID: device.keyID, clientDataHash: clientDataHash))?
                .attestation != nil
        else {
            print("  the simulated objects did not verify")
            return
        }
        let publicKey = device.publicKey

        // The floors: the OpenSSL signature checks themselves.
        let message = SecureRandom.bytes(count: 32)
        let p256 = ECPrivateKey(curve: .p256)
        let p384 = ECPrivateKey(curve: .p384)
        guard let sig256 = try? p256.signature(for: message), let sig384 = try? p384.signature(for: message) else {
            print("  signing failed")
            return
        }
        let p256Public = p256.publicKey
        let p384Public = p384.publicKey
        // Each floor is one plain EVP_DigestVerify (a context made per call), the OpenSSL primitive's own cost; the
        // chain's certificate signatures are checked that way. An assertion verifies through the key's reused
        // contexts, so it can beat its floor: the reused rate is printed beside it.
        let p256Rate = measure(seconds: options.seconds) {
            _ = p256Public.isValidSignatureWithFreshContext(sig256, for: message)
        }
        let p384Rate = measure(seconds: options.seconds) {
            _ = p384Public.isValidSignatureWithFreshContext(sig384, for: message)
        }
        let p256ReusedRate = measure(seconds: options.seconds) {
            _ = p256Public.isValidSignature(sig256, for: message)
        }

        let cold = measure(seconds: options.seconds) {
            verifier.clearIntermediateCache()
            _ = try? verifier.verifyAttestation(attestation, keyID: device.keyID, clientDataHash: clientDataHash)
        }
        let cached = measure(seconds: options.seconds) {
            _ = try? verifier.verifyAttestation(attestation, keyID: device.keyID, clientDataHash: clientDataHash)
        }
        let assertions = measure(seconds: options.seconds) {
            _ = try? verifier.verifyAssertion(
                assertion,
                clientDataHash: clientDataHash,
                publicKey: publicKey,
                previousCounter: 0
            )
        }
        let rows: [(String, Double, Double, String)] = [
            ("attestation, cold", cold, p384Rate / 2, "2 x P-384 verify"),
            ("attestation, cached", cached, p384Rate, "1 x P-384 verify"),
            ("assertion", assertions, p256Rate, "1 x P-256 verify"),
        ]
        print("  floors: P-384 verify \(formatRate(p384Rate)) ops/s, P-256 verify \(formatRate(p256Rate)) ops/s")
        print(
            "  P-256 verify on a reused context \(formatRate(p256ReusedRate)) ops/s (what an assertion's check costs)")
        for (name, rate, floor, what) in rows {
            let ratio = String(format: "%.2f", rate / floor)
            print(
                "  \(name.padding(toLength: 22, withPad: " ", startingAt: 0)) \(formatRate(rate)) ops/s"
                    + "  = \(ratio) x the rate of its signature checks (\(what))"
            )
        }
    }
}
