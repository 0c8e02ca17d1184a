import Foundation
import RampartAppAttest
import RampartCrypto
import RampartX509
import TestSupport
import Testing

struct AttestationTests {
    static func verifier(
        for vector: AppAttestVector,
        at time: Date? = nil,
        environment: AppAttestEnvironment? = nil,
        bundleID: String? = nil
    ) throws -> AppAttestVerifier {
        let attestation = try #require(vector.attestation)
        let fixed = time ?? date(attestation.verification_time)
        return try AppAttestVerifier(
            teamID: vector.teamID,
            bundleID: bundleID ?? vector.bundleID,
            environment: environment ?? (attestation.environment == "production" ? .production : .development),
            clock: { fixed }
        )
    }

    static func inputs(_ vector: AppAttestVector) throws -> (object: [UInt8], keyID: [UInt8], hash: [UInt8]) {
        let attestation = try #require(vector.attestation)
        return (
            bytes(attestation.attestation_object_base64), bytes(attestation.key_id_base64),
            bytes(attestation.client_data_hash_base64)
        )
    }

    @Test(
        "every real attestation verifies at its verification time with the expected key and environment",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.withAttestation
    )
    func realAttestations(_ vector: AppAttestVector) throws {
        let attestation = try #require(vector.attestation)
        let (object, keyID, hash) = try Self.inputs(vector)
        let verdict = try Self.verifier(for: vector).verifyAttestation(object, keyID: keyID, clientDataHash: hash)
        let result = try #require(verdict.attestation, "\(String(describing: verdict.failure))")
        #expect(result.publicKeyX963 == bytes(attestation.expected.public_key_x963_base64))
        #expect(result.keyID == keyID)
        #expect(result.counter == 0)
        #expect(result.environment.rawValue == attestation.environment)
        #expect(result.nonce == bytes(attestation.expected.nonce_base64))
        #expect(!result.receipt.isEmpty)
        #expect(result.certificateChain.count == 2)
        #expect(
            result.extensions?.bundleVersion == attestation.expected.authdata_extensions?["apple_bundle_version_01"])
    }

    @Test(
        "every real attestation fails with certificateExpired a day after its leaf expires",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.withAttestation
    )
    func expiredLeaf(_ vector: AppAttestVector) throws {
        let attestation = try #require(vector.attestation)
        let later = date(attestation.leaf_not_after).addingTimeInterval(86_400)
        let (object, keyID, hash) = try Self.inputs(vector)
        let verdict = try Self.verifier(for: vector, at: later).verifyAttestation(
            object,
            keyID: keyID,
            clientDataHash: hash
        )
        #expect(verdict.failure?.reason == .certificateExpired)
    }

    @Test(
        "a real attestation is refused before its leaf is valid, for another app, another environment, hash or key id",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func reasons() throws {
        let dev = try AppAttestVector.named("ricardo-ch_2026-10_ios27_dev.json")
        let (object, keyID, hash) = try Self.inputs(dev)
        let early = date("2026-10-01T00:00:00Z")
        #expect(
            try Self.verifier(for: dev, at: early).verifyAttestation(object, keyID: keyID, clientDataHash: hash)
                .failure?.reason == .certificateNotYetValid
        )
        let production = try Self.verifier(for: dev, environment: .production)
        let refused = try production.verifyAttestation(object, keyID: keyID, clientDataHash: hash)
        #expect(refused.failure?.reason == .environmentMismatch)
        #expect(refused.failure?.message.contains("development") == true)

        let otherApp = try Self.verifier(for: dev, bundleID: "swiss.ricardo.iphone")
        #expect(
            try otherApp.verifyAttestation(object, keyID: keyID, clientDataHash: hash).failure?.reason == .rpIDMismatch
        )
        let verifier = try Self.verifier(for: dev)
        #expect(
            try verifier.verifyAttestation(object, keyID: keyID, clientDataHash: SHA256.hash(hash)).failure?.reason
                == .nonceMismatch
        )
        var otherKeyID = keyID
        otherKeyID[0] ^= 1
        #expect(
            try verifier.verifyAttestation(object, keyID: otherKeyID, clientDataHash: hash).failure?.reason
                == .keyIDMismatch
        )

        let prod = try AppAttestVector.named("apple-guide_2024-04_ios18_prod.json")
        let (prodObject, prodKeyID, prodHash) = try Self.inputs(prod)
        let development = try Self.verifier(for: prod, environment: .development)
        #expect(
            try development.verifyAttestation(prodObject, keyID: prodKeyID, clientDataHash: prodHash).failure?.reason
                == .environmentMismatch
        )
    }

    @Test(
        "a real attestation is refused under another trust anchor",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func otherAnchor() throws {
        let vector = try AppAttestVector.named("uebelack_2024-02_prod.json")
        let attestation = try #require(vector.attestation)
        let (object, keyID, hash) = try Self.inputs(vector)
        let time = date(attestation.verification_time)
        let verifier = try AppAttestVerifier(
            teamID: vector.teamID,
            bundleID: vector.bundleID,
            environment: .production,
            trustAnchor: AppleRoots.rootCAG3,
            clock: { time }
        )
        #expect(
            try verifier.verifyAttestation(object, keyID: keyID, clientDataHash: hash).failure?.reason
                == .certificateChainUntrusted
        )
    }

    @Test(
        "the embedded Apple roots are the published certificates (and the vectors' copies)",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func embeddedRoots() throws {
        #expect(
            Hex.encode(AppleRoots.appAttestationRootCA.fingerprintSHA256)
                == "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932"
        )
        #expect(
            Hex.encode(AppleRoots.rootCAG3.fingerprintSHA256)
                == "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179"
        )
        let published = try Certificate.parseAll(Array(Vectors.data("appattest/Apple_App_Attestation_Root_CA.pem")))
        #expect(published.first == AppleRoots.appAttestationRootCA)
        let g3 = try Certificate.parseAll(Array(Vectors.data("appattest/Apple_Root_CA_G3.pem")))
        #expect(g3.first == AppleRoots.rootCAG3)
    }
}
