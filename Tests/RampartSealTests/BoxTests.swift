import Foundation
import RampartCrypto
import RampartSeal
import TestSupport
import Testing

struct BoxTests {
    @Test("seal then open round-trips with associated data", arguments: SealAlgorithm.allCases)
    func roundTrip(algorithm: SealAlgorithm) throws {
        let key = SymmetricKey(randomByteCount: 32)
        for size in [0, 1, 15, 16, 17, 1000] {
            let plaintext = SecureRandom.bytes(count: size)
            let box = try Box.seal(plaintext, using: key, authenticating: [7, 7], algorithm: algorithm)
            #expect(box.count == size + Box.overhead)
            #expect(try Box.open(box, using: key, authenticating: [7, 7], algorithm: algorithm) == plaintext)
        }
    }

    @Test("the combined layout is nonce ‖ ciphertext ‖ tag, computed independently", arguments: SealAlgorithm.allCases)
    func combinedLayout(algorithm: SealAlgorithm) throws {
        let key = SymmetricKey(randomByteCount: 32)
        let plaintext = Array("CryptoKit AES.GCM.SealedBox.combined".utf8)
        let box = try Box.seal(plaintext, using: key, authenticating: [1], algorithm: algorithm)
        let nonce = Array(box.prefix(12))
        // Recompute with the raw primitive and the same nonce, then lay the parts out by hand.
        let reference = try AEAD.seal(
            plaintext, using: key, nonce: nonce, authenticating: [1],
            algorithm: algorithm == .aes256GCM ? .aes256GCM : .chaCha20Poly1305)
        #expect(reference.ciphertext.count == plaintext.count)
        #expect(box == nonce + reference.ciphertext + reference.tag)
        #expect(Array(box[12..<(12 + plaintext.count)]) == reference.ciphertext)
        #expect(Array(box.suffix(16)) == reference.tag)
    }

    @Test("Wycheproof vectors laid out as combined boxes open, or fail with authenticationFailure")
    func wycheproof() throws {
        guard Vectors.available else {
            print("skipped: ../shared/vectors is absent (set RAMPART_VECTORS)")
            return
        }
        var checked = 0
        for (file, algorithm) in [
            ("wycheproof/aes_gcm_test.json", SealAlgorithm.aes256GCM),
            ("wycheproof/chacha20_poly1305_test.json", .chaCha20Poly1305),
        ] {
            let json = try #require(try JSONSerialization.jsonObject(with: Vectors.data(file)) as? [String: Any])
            let groups = try #require(json["testGroups"] as? [[String: Any]])
            for group in groups {
                guard group["ivSize"] as? Int == 96, group["keySize"] as? Int == 256, group["tagSize"] as? Int == 128,
                    let tests = group["tests"] as? [[String: Any]]
                else { continue }
                for test in tests {
                    let field = { (name: String) in Hex.decode(test[name] as? String ?? "") ?? [] }
                    let combined = field("iv") + field("ct") + field("tag")
                    let key = SymmetricKey(bytes: field("key"))
                    if test["result"] as? String == "valid" {
                        let opened = try Box.open(
                            combined, using: key, authenticating: field("aad"), algorithm: algorithm)
                        #expect(opened == field("msg"), "tcId \(test["tcId"] ?? "?")")
                    } else {
                        #expect(throws: SealError.authenticationFailure()) {
                            try Box.open(combined, using: key, authenticating: field("aad"), algorithm: algorithm)
                        }
                    }
                    checked += 1
                }
            }
        }
        #expect(checked > 100)
    }

    @Test("every flipped byte, a wrong key or wrong associated data is an authenticationFailure")
    func tampering() throws {
        let key = SymmetricKey(randomByteCount: 32)
        let box = try Box.seal([1, 2, 3, 4], using: key, authenticating: [9])
        for index in box.indices {
            var altered = box
            altered[index] ^= 0x01
            #expect(throws: SealError.authenticationFailure()) {
                try Box.open(altered, using: key, authenticating: [9])
            }
        }
        #expect(throws: SealError.authenticationFailure()) { try Box.open(box, using: key, authenticating: [8]) }
        #expect(throws: SealError.authenticationFailure()) {
            try Box.open(box, using: SymmetricKey(randomByteCount: 32), authenticating: [9])
        }
        #expect(throws: SealError.authenticationFailure()) {
            try Box.open(box, using: key, authenticating: [9], algorithm: .chaCha20Poly1305)
        }
    }

    @Test("a short box is malformedBox; a key that is not 32 bytes is invalidParameter")
    func malformed() throws {
        let key = SymmetricKey(randomByteCount: 32)
        #expect(throws: SealError.malformedBox()) { try Box.open([UInt8](repeating: 0, count: 27), using: key) }
        #expect(throws: SealError.invalidParameter()) { try Box.seal([1], using: SymmetricKey(randomByteCount: 16)) }
        #expect(throws: SealError.invalidParameter()) {
            try Box.open([UInt8](repeating: 0, count: 40), using: SymmetricKey(randomByteCount: 16))
        }
    }
}
