import Foundation
import RampartAppAttest
import RampartCrypto
import RampartRequestSigning
import Testing

struct SimulatorTests {
    @Test("a simulated device's assertions verify with increasing counters, and a replay is refused")
    func deviceAssertions() throws {
        var device = SimulatedDevice(teamID: "ABCDE12345", bundleID: "com.example.app", environment: .development)
        #expect(device.keyID == SHA256.hash(device.publicKeyX963))
        let verifier = try AppAttestVerifier(
            teamID: "ABCDE12345", bundleID: "com.example.app", environment: .development)
        let payload = JSONValue.object(["action": .string("point_use"), "amount": .number(1000)])
        var stored: UInt32 = 0
        for expected: UInt32 in 1...3 {
            let hash = RequestCanonicalization.clientDataHash(challenge: "c\(expected)", payload: payload)
            let assertion = try device.generateAssertion(clientDataHash: hash)
            let verdict = try verifier.verifyAssertion(
                assertion,
                clientDataHash: hash,
                publicKey: device.publicKey,
                previousCounter: stored
            )
            #expect(verdict.assertion?.counter == expected)
            stored = verdict.assertion?.counter ?? stored
            let replay = try verifier.verifyAssertion(
                assertion,
                clientDataHash: hash,
                publicKey: device.publicKey,
                previousCounter: stored
            )
            #expect(replay.failure?.reason == .counterNotIncreasing)
            let tampered = RequestCanonicalization.clientDataHash(
                challenge: "c\(expected)",
                payload: .object(["action": .string("point_use"), "amount": .number(100_000)])
            )
            let changed = try verifier.verifyAssertion(
                assertion,
                clientDataHash: tampered,
                publicKey: device.publicKey,
                previousCounter: stored - 1
            )
            #expect(changed.failure?.reason == .signatureInvalid)
        }
    }
}
