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

    @Test("one-shot SHA-2 of '' and 'abc' (FIPS 180-2 examples), and of a long input, match a hasher fed in pieces")
    func oneShotDigests() {
        let expected: [(DigestAlgorithm, String, String)] = [
            (
                .sha256, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
            ),
            (
                .sha384,
                "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
                "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"
            ),
            (
                .sha512,
                "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
                    + "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
                    + "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"
            ),
        ]
        let long = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        for (algorithm, empty, abc) in expected {
            #expect(Hex.encode(algorithm.hash([UInt8]())) == empty)
            #expect(Hex.encode(algorithm.hash(Array("abc".utf8))) == abc)
            var hasher = DigestHasher(algorithm)
            for start in stride(from: 0, to: long.count, by: 7_001) {
                hasher.update(Array(long[start..<min(start + 7_001, long.count)]))
            }
            #expect(algorithm.hash(long) == hasher.finalize())
        }
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

    @Test("HMACKey: RFC 4231 test case 2 with SHA-256, -384 and -512, codes in a row on reused contexts")
    func preparedKey() {
        let key = SymmetricKey(bytes: Array("Jefe".utf8))
        let data = Array("what do ya want for nothing?".utf8)
        let expected: [(DigestAlgorithm, String)] = [
            (.sha256, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            (
                .sha384,
                "af45d2e376484031617f78d2b58a6b1b9c7ef464f5a01b47e42ec3736322445e8e2240ca5e69e2c78b3239ecfab21649"
            ),
            (
                .sha512,
                "164b7a7bfcf819e2e395fbe73b56e0a387bd64222e831fd610270cd7ea2505549758bf75c05a994a6d034f65f8f0e6fd"
                    + "caeab1a34d4a6b4b636e070a38bce737"
            ),
        ]
        for (algorithm, hex) in expected {
            let prepared = HMACKey(key, using: algorithm)
            #expect(prepared.algorithm == algorithm)
            // Another message between two codes of `data`: a restarted context keeps the key, not the last message.
            #expect(Hex.encode(prepared.authenticationCode(for: data)) == hex)
            #expect(
                prepared.authenticationCode(for: data + [0])
                    == HMAC.authenticationCode(
                        for: data + [0], key: key, using: algorithm))
            #expect(Hex.encode(prepared.authenticationCode(for: data)) == hex)
        }
    }

    @Test("HMACKey: an empty key and an empty message give the one-shot codes")
    func preparedKeyEmpty() {
        let empty = SymmetricKey(bytes: [UInt8]())
        #expect(
            HMACKey(empty).authenticationCode(for: [UInt8]()) == HMAC.authenticationCode(for: [UInt8](), key: empty))
        let key = SymmetricKey()
        #expect(HMACKey(key).authenticationCode(for: [UInt8]()) == HMAC.authenticationCode(for: [UInt8](), key: key))
    }

    @Test("HMACKey from 8 tasks at once: every code equals the one-shot code of its message")
    func preparedKeyConcurrent() async {
        let key = SymmetricKey()
        let prepared = HMACKey(key)
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var wrong = 0
                    for _ in 0..<300 {
                        let message = SecureRandom.bytes(count: Int.random(in: 0...200))
                        if prepared.authenticationCode(for: message) != HMAC.authenticationCode(for: message, key: key)
                        {
                            wrong += 1
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}

struct PasswordKDFTests {
    @Test("PBKDF2-HMAC-SHA-256 (RFC 7914 section 11) and SHA-512 (openssl kdf)")
    func pbkdf2() throws {
        let sha256 = try PBKDF2.deriveKey(
            password: Array("passwd".utf8), salt: Array("salt".utf8), iterationCount: 1, outputByteCount: 64)
        #expect(
            Hex.encode(sha256)
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc"
                + "49ca9cccf179b645991664b39d77ef317c71b845b1e30bd509112041d3a19783")
        let sha512 = try PBKDF2.deriveKey(
            password: Array("password".utf8), salt: Array("saltsaltsaltsalt".utf8), iterationCount: 1000,
            outputByteCount: 64, using: .sha512)
        #expect(
            Hex.encode(sha512)
                == "ef5e6ba88af97573953e9061aaab2e825d37ef34f96d6253598999b4870af210"
                + "678ac2a9c1f63b92892fc230eb347a87845e743dbecc0fa1ef909c220d0c38c3")
    }

    @Test("PBKDF2 parameter bounds are invalidParameter")
    func pbkdf2Rejections() {
        let cases: [(Int, Int, [UInt8])] = [
            (0, 32, [1]), (PBKDF2.maximumIterationCount + 1, 32, [1]), (1, 0, [1]),
            (1, PBKDF2.maximumOutputByteCount + 1, [1]), (1, 32, []),
            (1, 32, [UInt8](repeating: 1, count: PBKDF2.maximumInputByteCount + 1)),
        ]
        for (iterations, length, salt) in cases {
            #expect(throws: CryptoError.invalidParameter("")) {
                try PBKDF2.deriveKey(password: [1], salt: salt, iterationCount: iterations, outputByteCount: length)
            }
        }
        #expect(PBKDF2.recommendedIterationCount(for: .sha256) == 600_000)
    }

    @Test("scrypt matches RFC 7914 section 12 vectors 1 and 2")
    func scrypt() throws {
        let first = try Scrypt.deriveKey(
            password: [UInt8](), salt: [UInt8](), parameters: .init(cost: 16, blockSize: 1, parallelism: 1),
            outputByteCount: 64)
        #expect(
            Hex.encode(first)
                == "77d6576238657b203b19ca42c18a0497f16b4844e3074ae8dfdffa3fede21442"
                + "fcd0069ded0948f8326a753a0fc81f17e8d3e0fb2e0d3628cf35e20c38d18906")
        let second = try Scrypt.deriveKey(
            password: Array("password".utf8), salt: Array("NaCl".utf8),
            parameters: .init(cost: 1024, blockSize: 8, parallelism: 16), outputByteCount: 64)
        #expect(
            Hex.encode(second)
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b373162"
                + "2eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640")
    }

    @Test("scrypt's recommended defaults (N=2^17, r=8, p=1; 128 MiB) run")
    func scryptDefaults() throws {
        #expect(Scrypt.Parameters.recommended.memoryByteCount == 128 * 8 * ((1 << 17) + 3))
        let key = try Scrypt.deriveKey(password: Array("pw".utf8), salt: [1, 2, 3, 4], outputByteCount: 32)
        #expect(key.count == 32)
    }

    @Test("scrypt parameter bounds are invalidParameter")
    func scryptRejections() {
        let bad: [Scrypt.Parameters] = [
            .init(cost: 1, blockSize: 8, parallelism: 1), .init(cost: 1000, blockSize: 8, parallelism: 1),
            .init(cost: 0, blockSize: 8, parallelism: 1), .init(cost: -16, blockSize: 8, parallelism: 1),
            .init(cost: 16, blockSize: 0, parallelism: 1), .init(cost: 16, blockSize: 1, parallelism: 0),
            .init(cost: 16, blockSize: 1 << 15, parallelism: 1 << 15),
            .init(cost: 1 << 16, blockSize: 1, parallelism: 1),
            .init(cost: 1 << 20, blockSize: 16, parallelism: 1), .init(cost: 1 << 62, blockSize: 8, parallelism: 1),
            .init(cost: 16, blockSize: Int.max, parallelism: 1),
        ]
        for parameters in bad {
            #expect(throws: CryptoError.invalidParameter(""), "\(parameters)") {
                try Scrypt.deriveKey(password: [1], salt: [1], parameters: parameters, outputByteCount: 32)
            }
        }
        let cheap = Scrypt.Parameters(cost: 16, blockSize: 1, parallelism: 1)
        for length in [0, Scrypt.maximumOutputByteCount + 1] {
            #expect(throws: CryptoError.invalidParameter("")) {
                try Scrypt.deriveKey(password: [1], salt: [1], parameters: cheap, outputByteCount: length)
            }
        }
        #expect(Scrypt.Parameters(cost: Int.max, blockSize: 8, parallelism: Int.max).memoryByteCount == nil)
    }
}
