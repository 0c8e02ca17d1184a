import Foundation
import RampartAppAttest
import RampartCrypto
import Testing

/// A refresher that answers with fixed bytes.
struct FixedRefresher: ReceiptRefreshing {
    let answer: [UInt8]

    func refreshedReceipt(for receipt: [UInt8], environment: AppAttestEnvironment) async throws -> [UInt8] { answer }
}

struct ReceiptRefreshTests {
    @Test("a refreshed receipt verifies and carries the risk metric; one for another key is refused")
    func refresh() async throws {
        let simulator = try AppAttestSimulator()
        let hash = SHA256.hash([1])
        let device = SimulatedDevice(teamID: "ABCDE12345", bundleID: "com.example.app", environment: .development)
        let verifier = try AppAttestVerifier(
            teamID: "ABCDE12345",
            bundleID: "com.example.app",
            environment: .development,
            trustAnchor: simulator.rootCertificate
        )
        let attestation = try #require(
            try verifier.verifyAttestation(
                try simulator.attestKey(of: device, clientDataHash: hash),
                keyID: device.keyID,
                clientDataHash: hash
            ).attestation
        )
        let receipts = ReceiptVerifier(trustAnchor: simulator.rootCertificate)
        let stored = try #require(try receipts.verify(attestation.receipt).receipt)

        let fresh = try #require(
            try await receipts.refresh(stored, environment: .development, using: simulator).receipt
        )
        #expect(fresh.type == "RECEIPT")
        #expect(fresh.riskMetric == 1)
        #expect(fresh.notBefore != nil)
        #expect(fresh.attestedCertificate == stored.attestedCertificate)

        let other = SimulatedDevice(teamID: "ABCDE12345", bundleID: "com.example.app", environment: .development)
        let otherObject = try simulator.attestKey(of: other, clientDataHash: hash)
        let otherReceipt = try AttestationObject(bytes: otherObject).receipt
        let mismatch = try await receipts.refresh(
            stored,
            environment: .development,
            using: FixedRefresher(answer: try simulator.fraudMetricReceipt(for: otherReceipt, riskMetric: 7))
        )
        #expect(mismatch.failure?.reason == .receiptMismatch)

        await #expect(throws: AppAttestError.malformedReceipt("")) {
            try await receipts.refresh(stored, environment: .development, using: FixedRefresher(answer: [0x30, 0x00]))
        }
    }
}
