import RampartCrypto
import Testing

struct RSATests {
    /// A fixed key (generating one takes up to seconds of CPU, which would slow the whole suite).
    static let key: RSAPrivateKey? = try? RSAPrivateKey(pkcs8DERRepresentation: KeyFixtures.rsa2048PKCS8)

    @Test(
        "PKCS#1 v1.5 and PSS signatures verify with their own algorithm only",
        arguments: [
            SignatureAlgorithm.sha256WithRSAEncryption, .sha384WithRSAEncryption, .sha512WithRSAEncryption,
            .rsaPSSWithSHA256, .rsaPSSWithSHA384, .rsaPSSWithSHA512,
        ]
    )
    func signVerify(algorithm: SignatureAlgorithm) throws {
        let key = try #require(Self.key)
        let publicKey = key.publicKey
        #expect(publicKey.bitCount == 2048 && !publicKey.isPSSOnly)
        let signature = try key.signature(for: [7, 7, 7], algorithm: algorithm)
        #expect(signature.count == 256)
        #expect(publicKey.isValidSignature(signature, for: [7, 7, 7], algorithm: algorithm))
        #expect(!publicKey.isValidSignature(signature, for: [7, 7], algorithm: algorithm))
        let other: SignatureAlgorithm =
            algorithm == .sha256WithRSAEncryption ? .rsaPSSWithSHA256 : .sha256WithRSAEncryption
        #expect(!publicKey.isValidSignature(signature, for: [7, 7, 7], algorithm: other))
        #expect(PublicKey(publicKey).isValidSignature(signature, for: [7, 7, 7], algorithm: algorithm))
    }

    @Test("PSS salt length is exact; explicit parameters are validated")
    func pssParameters() throws {
        let key = try #require(Self.key)
        let salt20 = try SignatureAlgorithm.rsaPSS(digest: .sha256, saltByteCount: 20)
        let signature = try key.signature(for: [1], algorithm: salt20)
        #expect(key.publicKey.isValidSignature(signature, for: [1], algorithm: salt20))
        #expect(!key.publicKey.isValidSignature(signature, for: [1], algorithm: .rsaPSSWithSHA256))
        #expect(try SignatureAlgorithm.rsaPSS(digest: .sha384) == .rsaPSSWithSHA384)
        #expect(throws: CryptoError.invalidParameter("")) {
            try SignatureAlgorithm.rsaPSS(digest: .sha256, saltByteCount: -1)
        }
        #expect(throws: CryptoError.invalidParameter("")) {
            try SignatureAlgorithm.rsaPSS(
                digest: .sha256, saltByteCount: SignatureAlgorithm.maximumPSSSaltByteCount + 1)
        }
        #expect(SignatureAlgorithm.rsaPSSWithSHA256.description == "RSASSA-PSS (SHA-256, MGF1-SHA-256, salt 32)")
    }

    @Test("PKCS#8 round-trips; generation makes a working key")
    func pkcs8() throws {
        let key = try #require(Self.key)
        #expect(key.pkcs8DERRepresentation == KeyFixtures.rsa2048PKCS8)
        let generated = try RSAPrivateKey(bitCount: 2048)
        let signature = try generated.signature(for: [1], algorithm: .sha256WithRSAEncryption)
        #expect(generated.publicKey.isValidSignature(signature, for: [1], algorithm: .sha256WithRSAEncryption))
        #expect(!key.publicKey.isValidSignature(signature, for: [1], algorithm: .sha256WithRSAEncryption))
    }

    @Test("rejections carry their codes")
    func rejections() throws {
        let key = try #require(Self.key)
        #expect(throws: CryptoError.invalidParameter("")) { try RSAPrivateKey(bitCount: 1024) }
        #expect(throws: CryptoError.invalidKey("")) { try RSAPrivateKey(pkcs8DERRepresentation: KeyFixtures.p256PKCS8) }
        #expect(throws: CryptoError.invalidKey("")) {
            try RSAPrivateKey(pkcs8DERRepresentation: KeyFixtures.rsa2048PKCS8 + [0])
        }
        var corrupted = KeyFixtures.rsa2048PKCS8
        corrupted[corrupted.count - 5] ^= 1
        #expect(throws: CryptoError.invalidKey("")) { try RSAPrivateKey(pkcs8DERRepresentation: corrupted) }
        #expect(throws: CryptoError.unsupportedAlgorithm("")) {
            try key.signature(for: [1], algorithm: .ecdsaWithSHA256)
        }
        #expect(throws: CryptoError.invalidKey("")) { try RSAPublicKey(derRepresentation: KeyFixtures.p256SPKI) }
        #expect(throws: CryptoError.invalidKey("")) { try RSAPublicKey(derRepresentation: KeyFixtures.rsa512SPKI) }
        #expect(
            try RSAPublicKey(pemRepresentation: key.publicKey.pemRepresentation).derRepresentation
                == key.publicKey.derRepresentation)
        #expect(String(describing: key) == "RSAPrivateKey(2048 bits)")
    }
}
