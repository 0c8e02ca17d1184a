import Foundation
import RampartAppAttest
import RampartCrypto
import TestSupport
import Testing

struct ReceiptTests {
    static func verifier(at time: Date) -> ReceiptVerifier {
        ReceiptVerifier(clock: { time })
    }

    @Test(
        "every veehaitch receipt verifies at its creation time with the fields Apple signed",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.all.filter { !($0.receipts ?? []).isEmpty }
    )
    func veehaitchReceipts(_ vector: AppAttestVector) throws {
        for receiptCase in vector.receipts ?? [] {
            let parsed = receiptCase.parsed
            let created = date(try #require(parsed["creation_time"]?.text))
            let verdict = try Self.verifier(at: created.addingTimeInterval(1)).verify(bytes(receiptCase.receipt_base64))
            let receipt = try #require(verdict.receipt, "\(String(describing: verdict.failure))")
            #expect(receipt.appID == parsed["app_id"]?.text)
            #expect(receipt.type == parsed["type"]?.text)
            #expect(receipt.environment == parsed["environment"]?.text)
            #expect(receipt.token == parsed["token"]?.text)
            #expect(abs(receipt.creationTime.timeIntervalSince(created)) < 0.001)
            #expect(receipt.attestedCertificateSHA256 == parsed["attested_certificate_sha256_hex"]?.text)
            #expect(receipt.riskMetric.map(String.init) == parsed["risk_metric"]?.text)
            #expect(Self.sameTime(receipt.expirationTime, parsed["expiration_time"]?.text.map(date)))
            #expect(Self.sameTime(receipt.notBefore, parsed["not_before"]?.text.map(date)))
        }
    }

    /// Equal to the millisecond (two ISO 8601 parsers may round the fraction differently).
    static func sameTime(_ lhs: Date?, _ rhs: Date?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): true
        case (let left?, let right?): abs(left.timeIntervalSince(right)) < 0.001
        default: false
        }
    }

    @Test(
        "the receipt inside every real attestation verifies at the attestation's verification time, except webauthn4j's",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)"),
        arguments: AppAttestVector.withAttestation
    )
    func attestationReceipts(_ vector: AppAttestVector) throws {
        let attestation = try #require(vector.attestation)
        let object = try AttestationObject(bytes: bytes(attestation.attestation_object_base64))
        let verdict = try Self.verifier(at: date(attestation.verification_time)).verify(object.receipt)
        if vector.file.hasPrefix("webauthn4j") {
            #expect(verdict.failure?.reason == .receiptSignatureInvalid)
        } else {
            let receipt = try #require(verdict.receipt, "\(String(describing: verdict.failure))")
            #expect(receipt.type == "ATTEST")
            #expect(receipt.attestedCertificate == object.certificateChain.first)
            #expect(receipt.appID == "\(vector.teamID).\(vector.bundleID)")
        }
    }

    @Test(
        "a receipt is refused after it expires, after its signer expires, and under another anchor",
        .enabled(if: Vectors.available, "needs ../shared/vectors (set RAMPART_VECTORS)")
    )
    func refusals() throws {
        let vector = try AppAttestVector.named("veehaitch_ios-14.2.json")
        let receipt = bytes(try #require(vector.receipts?[1]).receipt_base64)
        #expect(
            try Self.verifier(at: date("2021-03-01T00:00:00Z")).verify(receipt).failure?.reason == .receiptExpired
        )
        #expect(
            try Self.verifier(at: date("2021-07-01T00:00:00Z")).verify(receipt).failure?.reason
                == .receiptChainUntrusted
        )
        let otherAnchor = ReceiptVerifier(
            trustAnchor: AppleRoots.appAttestationRootCA,
            clock: { date("2020-11-21T22:16:06Z") }
        )
        #expect(try otherAnchor.verify(receipt).failure?.reason == .receiptChainUntrusted)
    }

    @Test("malformed receipts throw malformedReceipt or limitExceeded")
    func malformed() throws {
        let verifier = Self.verifier(at: Date())
        #expect(throws: AppAttestError.malformedReceipt("")) { try verifier.verify([]) }
        #expect(throws: AppAttestError.malformedReceipt("")) { try verifier.verify([0x30, 0x03, 0x02, 0x01, 0x01]) }
        #expect(throws: AppAttestError.malformedReceipt("")) { try Receipt(unverifiedBytes: [0x01, 0x02]) }
        #expect(throws: AppAttestError.limitExceeded("")) {
            try verifier.verify([UInt8](repeating: 0x30, count: Receipt.maximumByteCount + 1))
        }
    }
}
