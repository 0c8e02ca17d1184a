import Foundation
import RampartAppAttest
import RampartCrypto
import TestSupport
import Testing

/// Every single-byte change to a real attestation object is refused, or proven harmless: the only accepted changes lie
/// inside the receipt, which attestation verification passes through untouched, and there either the receipt still
/// reads exactly the attributes Apple signed, or the receipt verifier refuses it.
@Suite(.enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"))
struct MutationTests {
    @Test("every single-byte change to a real attestation is refused or proven harmless, and never crashes")
    func attestationObject() throws {
        let vector = try AppAttestVector.named("ricardo-ch_2026-10_ios27_dev.json")
        let attestation = try #require(vector.attestation)
        let original = bytes(attestation.attestation_object_base64)
        let keyID = bytes(attestation.key_id_base64)
        let hash = bytes(attestation.client_data_hash_base64)
        let time = date(attestation.verification_time)
        let verifier = try AppAttestVerifier(
            teamID: vector.teamID,
            bundleID: vector.bundleID,
            environment: .development,
            clock: { time }
        )
        let receipts = ReceiptVerifier(clock: { time })
        let originalReceipt = try AttestationObject(bytes: original).receipt
        let signedAttributes = try #require(try receipts.verify(originalReceipt).receipt).attributes
        let receiptRange = try #require(Self.range(of: originalReceipt, in: original))

        var acceptedOutsideReceipt: [Int] = []
        var harmfulReceiptChanges: [Int] = []
        var acceptedInsideReceipt = 0
        for index in original.indices {
            var mutated = original
            mutated[index] ^= 0x01
            guard
                let result = (try? verifier.verifyAttestation(mutated, keyID: keyID, clientDataHash: hash))?
                    .attestation
            else { continue }
            guard receiptRange.contains(index) else {
                acceptedOutsideReceipt.append(index)
                continue
            }
            acceptedInsideReceipt += 1
            // Harmless when the signed attributes read back unchanged; otherwise the receipt verifier must refuse.
            if let unverified = try? Receipt(unverifiedBytes: result.receipt), unverified.attributes == signedAttributes
            {
                continue
            }
            if (try? receipts.verify(result.receipt))?.receipt != nil {
                harmfulReceiptChanges.append(index)
            }
        }
        #expect(acceptedOutsideReceipt.isEmpty, "accepted after changing bytes at \(acceptedOutsideReceipt)")
        #expect(
            harmfulReceiptChanges.isEmpty, "a changed receipt verified with other fields at \(harmfulReceiptChanges)")
        #expect(acceptedInsideReceipt <= receiptRange.count)
    }

    static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}
