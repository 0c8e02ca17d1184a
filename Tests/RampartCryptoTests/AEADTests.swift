import RampartCrypto
import Testing

struct AEADTests {
    @Test("seal then open round-trips for every algorithm", arguments: AEADAlgorithm.allCases)
    func roundTrip(algorithm: AEADAlgorithm) throws {
        let key = SymmetricKey(randomByteCount: algorithm.keyByteCount)
        let box = try AEAD.seal(
            Array("attack at dawn".utf8), using: key, authenticating: [1, 2, 3], algorithm: algorithm)
        #expect(box.nonce.count == 12)
        #expect(box.tag.count == 16)
        let opened = try AEAD.open(box, using: key, authenticating: [1, 2, 3], algorithm: algorithm)
        #expect(opened == Array("attack at dawn".utf8))
    }

    @Test("a flipped ciphertext, tag or associated-data byte is an authenticationFailure")
    func tampering() throws {
        let key = SymmetricKey()
        let box = try AEAD.seal([0, 1, 2, 3], using: key, authenticating: [9])
        var ciphertext = box.ciphertext
        ciphertext[0] ^= 1
        #expect(throws: CryptoError.authenticationFailure()) {
            try AEAD.open(
                SealedBox(nonce: box.nonce, ciphertext: ciphertext, tag: box.tag), using: key, authenticating: [9])
        }
        #expect(throws: CryptoError.authenticationFailure()) {
            try AEAD.open(box, using: key, authenticating: [8])
        }
        #expect(throws: CryptoError.authenticationFailure()) {
            try AEAD.open(box, using: SymmetricKey(), authenticating: [9])
        }
    }

    @Test("combined layout is nonce ‖ ciphertext ‖ tag")
    func combined() throws {
        let key = SymmetricKey()
        let box = try AEAD.seal([5, 6, 7], using: key)
        let parsed = try SealedBox(combined: box.combined)
        #expect(parsed == box)
        #expect(throws: CryptoError.invalidEncoding("")) { try SealedBox(combined: [UInt8](repeating: 0, count: 27)) }
    }

    @Test("wrong key sizes are invalidKey")
    func wrongKeySize() {
        #expect(throws: CryptoError.invalidKey("")) {
            try AEAD.seal([1], using: SymmetricKey(randomByteCount: 16), algorithm: .aes256GCM)
        }
    }
}
