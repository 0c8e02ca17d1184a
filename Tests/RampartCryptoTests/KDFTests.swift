import RampartCrypto
import TestSupport
import Testing

struct KDFTests {
    @Test("HKDF-SHA256 matches RFC 5869 test case 1")
    func hkdfRFC5869() throws {
        let okm = try HKDF.deriveKey(
            inputKeyMaterial: SymmetricKey(
                bytes: try #require(Hex.decode("0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b0b"))),
            salt: try #require(Hex.decode("000102030405060708090a0b0c")),
            info: try #require(Hex.decode("f0f1f2f3f4f5f6f7f8f9")),
            outputByteCount: 42
        )
        #expect(
            Hex.encode(okm)
                == "3cb25f25faacd57a90434f64d0362f2a2d2d0a90cf1a5a4c5db02d56ecc4c5bf34007208d5b887185865")
    }

    @Test("HKDF refuses more than 255 blocks")
    func hkdfTooLong() {
        #expect(throws: CryptoError.invalidParameter("")) {
            try HKDF.deriveKey(
                inputKeyMaterial: SymmetricKey(), salt: [UInt8](), info: [UInt8](), outputByteCount: 255 * 32 + 1)
        }
    }

    @Test("SHA-256 of 'abc' (FIPS 180-2 example)")
    func sha256() {
        #expect(
            Hex.encode(SHA256.hash(Array("abc".utf8)))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var hasher = DigestHasher(.sha256)
        hasher.update(Array("a".utf8))
        hasher.update(Array("bc".utf8))
        #expect(hasher.finalize() == SHA256.hash(Array("abc".utf8)))
    }

    @Test("HMAC-SHA256 RFC 4231 test case 2, and truncated tags")
    func hmac() throws {
        let key = SymmetricKey(bytes: Array("Jefe".utf8))
        let data = Array("what do ya want for nothing?".utf8)
        let tag = HMAC.authenticationCode(for: data, key: key)
        #expect(Hex.encode(tag) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(HMAC.isValidAuthenticationCode(tag, for: data, key: key))
        #expect(HMAC.isValidAuthenticationCode(Array(tag.prefix(16)), for: data, key: key))
        #expect(!HMAC.isValidAuthenticationCode(Array(tag.prefix(8)), for: data, key: key))
        #expect(!HMAC.isValidAuthenticationCode(tag, for: data + [0], key: key))
    }
}
