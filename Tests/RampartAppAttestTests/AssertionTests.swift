import Foundation
import RampartAppAttest
import RampartCrypto
import TestSupport
import Testing

struct AssertionTests {
    static func verifier(for vector: AppAttestVector, bundleID: String? = nil) throws -> AppAttestVerifier {
        try AppAttestVerifier(
            teamID: vector.teamID,
            bundleID: bundleID ?? vector.bundleID,
            environment: vector.attestation?.environment == "production" ? .production : .development,
            clock: { Date(timeIntervalSince1970: 0) }
        )
    }

    @Test(
        "every real assertion verifies under its key at its previous counter",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.withAssertions
    )
    func realAssertions(_ vector: AppAttestVector) throws {
        let verifier = try Self.verifier(for: vector)
        for assertion in vector.assertions {
            let clientDataHash = bytes(assertion.client_data_hash_base64)
            if let clientData = assertion.client_data_base64 {
                #expect(SHA256.hash(bytes(clientData)) == clientDataHash)
            }
            let verdict = try verifier.verifyAssertion(
                bytes(assertion.assertion_base64),
                clientDataHash: clientDataHash,
                publicKeyX963: vector.publicKeyX963,
                previousCounter: assertion.previous_counter
            )
            #expect(
                verdict.assertion?.counter == assertion.expected.sign_count, "\(String(describing: verdict.failure))")
        }
    }

    @Test(
        "each check of a real assertion fails with its own reason",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func reasons() throws {
        let vector = try AppAttestVector.named("ricardo-ch_2026-10_ios27_dev.json")
        let assertion = try #require(vector.assertions.first)
        let encoded = bytes(assertion.assertion_base64)
        let hash = bytes(assertion.client_data_hash_base64)
        let verifier = try Self.verifier(for: vector)

        let otherData = SHA256.hash(Array("ABCDF".utf8))
        let wrongData = try verifier.verifyAssertion(
            encoded,
            clientDataHash: otherData,
            publicKeyX963: vector.publicKeyX963,
            previousCounter: 0
        )
        #expect(wrongData.failure?.reason == .signatureInvalid)

        let otherKey = ECPrivateKey(curve: .p256).publicKey
        let wrongKey = try verifier.verifyAssertion(
            encoded, clientDataHash: hash, publicKey: otherKey, previousCounter: 0)
        #expect(wrongKey.failure?.reason == .signatureInvalid)

        let otherApp = try Self.verifier(for: vector, bundleID: "com.example.other")
        let wrongApp = try otherApp.verifyAssertion(
            encoded,
            clientDataHash: hash,
            publicKeyX963: vector.publicKeyX963,
            previousCounter: 0
        )
        #expect(wrongApp.failure?.reason == .rpIDMismatch)
        #expect(wrongApp.failure?.message.contains("J4Y28BA299.com.example.other") == true)

        for stored: UInt32 in [1, 2, UInt32.max] {
            let replay = try verifier.verifyAssertion(
                encoded,
                clientDataHash: hash,
                publicKeyX963: vector.publicKeyX963,
                previousCounter: stored
            )
            #expect(replay.failure?.reason == .counterNotIncreasing)
        }
    }

    @Test(
        "malformed assertions and arguments throw with their codes",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func malformed() throws {
        let vector = try AppAttestVector.named("bas-d_2021-04_dev.json")
        let verifier = try Self.verifier(for: vector)
        let key = vector.publicKeyX963
        let hash = SHA256.hash([1])
        let authData = CBORValue.byteString([UInt8](repeating: 0, count: 37))
        let cases: [([UInt8], AppAttestError.Code)] = [
            (CBORValue.array([]).encoded, .malformedAssertion),
            (CBORValue.map([CBORMapEntry(.textString("signature"), .byteString([1]))]).encoded, .malformedAssertion),
            (
                CBORValue.map([
                    CBORMapEntry(.textString("signature"), .byteString([1])),
                    CBORMapEntry(.textString("authenticatorData"), authData),
                    CBORMapEntry(.textString("extra"), .null),
                ]).encoded, .malformedAssertion
            ),
            (
                CBORValue.map([
                    CBORMapEntry(.textString("signature"), .textString("x")),
                    CBORMapEntry(.textString("authenticatorData"), authData),
                ]).encoded, .malformedAssertion
            ),
            (
                CBORValue.map([
                    CBORMapEntry(.textString("signature"), .byteString([UInt8](repeating: 0, count: 73))),
                    CBORMapEntry(.textString("authenticatorData"), authData),
                ]).encoded, .malformedAssertion
            ),
            (
                CBORValue.map([
                    CBORMapEntry(.textString("signature"), .byteString([1])),
                    CBORMapEntry(.textString("authenticatorData"), .unsignedInteger(1)),
                ]).encoded, .malformedAssertion
            ),
            (
                CBORValue.map([
                    CBORMapEntry(.textString("signature"), .byteString([1])),
                    CBORMapEntry(.textString("authenticatorData"), .byteString([1, 2])),
                ]).encoded, .malformedAuthenticatorData
            ),
            ([0xA2], .malformedCBOR),
        ]
        for (input, code) in cases {
            #expect(throws: AppAttestError(code: code)) {
                try verifier.verifyAssertion(input, clientDataHash: hash, publicKeyX963: key, previousCounter: 0)
            }
        }
        let assertion = bytes(try #require(vector.assertions.first).assertion_base64)
        for badHash in [[], [UInt8](repeating: 0, count: AppAttestVerifier.maximumClientDataHashByteCount + 1)] {
            #expect(throws: AppAttestError.invalidArgument("")) {
                try verifier.verifyAssertion(assertion, clientDataHash: badHash, publicKeyX963: key, previousCounter: 0)
            }
        }
        #expect(throws: AppAttestError.invalidArgument("")) {
            try verifier.verifyAssertion(assertion, clientDataHash: hash, publicKeyX963: [4, 1, 2], previousCounter: 0)
        }
        #expect(throws: AppAttestError.invalidArgument("")) {
            try verifier.verifyAssertion(
                assertion,
                clientDataHash: hash,
                publicKey: ECPrivateKey(curve: .p384).publicKey,
                previousCounter: 0
            )
        }
    }

    @Test(
        "every single-byte change to a real assertion is refused and never crashes",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func everyByteChange() throws {
        let vector = try AppAttestVector.named("ricardo-ch_2026-10_ios27_dev.json")
        let assertion = try #require(vector.assertions.first)
        let original = bytes(assertion.assertion_base64)
        let hash = bytes(assertion.client_data_hash_base64)
        let verifier = try Self.verifier(for: vector)
        let key = try ECPublicKey(x963Representation: vector.publicKeyX963, curve: .p256)
        #expect(
            try verifier.verifyAssertion(original, clientDataHash: hash, publicKey: key, previousCounter: 0).assertion
                != nil
        )
        var accepted: [Int] = []
        for index in original.indices {
            for delta: UInt8 in [0x01, 0x80, 0xFF] {
                var mutated = original
                mutated[index] ^= delta
                let verdict = try? verifier.verifyAssertion(
                    mutated, clientDataHash: hash, publicKey: key, previousCounter: 0)
                if verdict?.assertion != nil { accepted.append(index) }
            }
        }
        #expect(accepted.isEmpty, "accepted after changing bytes at \(accepted)")
    }
}
