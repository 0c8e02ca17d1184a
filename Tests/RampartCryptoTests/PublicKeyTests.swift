import Foundation
import RampartCrypto
import TestSupport
import Testing

struct PublicKeyTests {
    @Test("the type of every supported SubjectPublicKeyInfo is detected and described")
    func detection() throws {
        #expect(try PublicKey(spkiDER: KeyFixtures.p256SPKI).description == "EC P-256")
        #expect(
            try PublicKey(spkiDER: ECPrivateKey(curve: .p521).publicKey.derRepresentation).description == "EC P-521")
        #expect(try PublicKey(spkiDER: KeyFixtures.rsa1024SPKI).description == "RSA 1024")
        #expect(try PublicKey(spkiDER: KeyFixtures.rsaPSSSPKI).description == "RSA-PSS 2048")
        #expect(try PublicKey(spkiDER: Ed25519PrivateKey().publicKey.derRepresentation).description == "Ed25519")
        let ed448 = try PublicKey(spkiDER: KeyFixtures.ed448SPKI)
        #expect(ed448.kind == .ed448)
        #expect(ed448.description == "Ed448")
        #expect(ed448.derRepresentation == KeyFixtures.ed448SPKI)
        #expect(ed448.ecPublicKey == nil && ed448.rsaPublicKey == nil && ed448.ed25519PublicKey == nil)
    }

    @Test("unsupported key types and sizes carry their codes")
    func rejections() {
        #expect(throws: CryptoError.unsupportedAlgorithm("")) { try PublicKey(spkiDER: KeyFixtures.x25519SPKI) }
        #expect(throws: CryptoError.unsupportedAlgorithm("")) { try PublicKey(spkiDER: KeyFixtures.secp256k1SPKI) }
        #expect(throws: CryptoError.unsupportedAlgorithm("")) { try PublicKey(spkiDER: KeyFixtures.p256ExplicitSPKI) }
        #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: KeyFixtures.rsa512SPKI) }
        #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: [UInt8]()) }
        #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: [UInt8](repeating: 0, count: 17_000)) }
        #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: [0x30, 0x03, 0x02, 0x01, 0x00]) }
    }

    /// Each mutation breaks one DER rule in an otherwise good P-256 SubjectPublicKeyInfo.
    struct NonDERCase: CustomTestStringConvertible, Sendable {
        let name: String
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    static let nonDER: [NonDERCase] = {
        let spki = KeyFixtures.p256SPKI
        let body = Array(spki.dropFirst(2))
        let algorithm = Array(spki[2..<23])
        let bitString = Array(spki[23...])
        return [
            NonDERCase(name: "indefinite outer length", bytes: [0x30, 0x80] + body + [0, 0]),
            NonDERCase(name: "non-minimal long-form length", bytes: [0x30, 0x81, 0x59] + body),
            NonDERCase(name: "length with a leading zero byte", bytes: [0x30, 0x82, 0x00, 0x59] + body),
            NonDERCase(name: "length longer than the input", bytes: [0x30, 0x5A] + body),
            NonDERCase(name: "five length bytes", bytes: [0x30, 0x85, 0, 0, 0, 0, 0x59] + body),
            NonDERCase(
                name: "constructed BIT STRING",
                bytes: [0x30, 0x5B] + algorithm + [0x23, 0x44] + bitString),
            NonDERCase(name: "high-tag-number identifier", bytes: [0x3F, 0x01, 0x59] + body),
            NonDERCase(name: "trailing byte", bytes: spki + [0]),
            NonDERCase(name: "subjectPublicKey with unused bits", bytes: evenKeyWithUnusedBits()),
            NonDERCase(name: "truncated", bytes: Array(spki.dropLast())),
            NonDERCase(
                name: "nesting deeper than the limit",
                bytes: (0..<20).reduce([0x05, 0x00]) { inner, _ in [0x30, UInt8(inner.count)] + inner }),
        ]
    }()

    /// A valid P-256 SPKI whose last byte is even, re-labelled as having one unused bit: only the unused-bits rule
    /// can reject it (the point itself is on the curve).
    static func evenKeyWithUnusedBits() -> [UInt8] {
        while true {
            let spki = ECPrivateKey(curve: .p256).publicKey.derRepresentation
            if let last = spki.last, last & 1 == 0 { return Array(spki[0..<25]) + [0x01] + Array(spki[26...]) }
        }
    }

    @Test("non-DER SubjectPublicKeyInfo encodings are invalidKey", arguments: nonDER)
    func strictDER(vector: NonDERCase) {
        #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: vector.bytes) }
    }

    @Test("keys are read with RampartASN1's key setting of DER: its refusals are invalidKey naming the rule broken")
    func keyDERSetting() throws {
        let body = Array(KeyFixtures.p256SPKI.dropFirst(2))
        let cases: [(bytes: [UInt8], rule: String)] = [
            ([0x3F, 0x01, 0x59] + body, "high-tag-number identifier"),
            ([0x30, 0x5B] + body + [0x00, 0x00], "end-of-contents"),
            ([0x10, 0x59] + body, "primitive form"),
            ((0..<17).reduce([0x05, 0x00]) { inner, _ in [0x30, UInt8(inner.count)] + inner }, "deeper than 16"),
        ]
        for (bytes, rule) in cases {
            let error = try #require(throws: CryptoError.self) { try PublicKey(spkiDER: bytes) }
            #expect(error.code == .invalidKey)
            #expect(error.reason.hasPrefix("not strict DER: ") && error.reason.contains(rule), "\(error.reason)")
        }
    }

    @Test("PEM round-trips; anything but one PUBLIC KEY block is invalidEncoding")
    func pem() throws {
        let key = try PublicKey(spkiDER: KeyFixtures.rsaPSSSPKI)
        let pem = key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PUBLIC KEY-----\n") && pem.hasSuffix("-----END PUBLIC KEY-----\n"))
        #expect(try PublicKey(pemRepresentation: "\n  " + pem + "\n\n") == key)
        let lines = pem.split(separator: "\n").map(String.init)
        let body = lines.dropFirst().dropLast().joined(separator: "\n")
        let bad = [
            "",
            pem.replacingOccurrences(of: "PUBLIC KEY", with: "CERTIFICATE"),
            "subject=CN=x\n" + pem,
            pem + pem,
            "-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\n\(body)\n-----END PUBLIC KEY-----",
            "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----",
            "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
            String(repeating: "A", count: 70_000),
        ]
        for text in bad {
            #expect(throws: CryptoError.invalidEncoding("")) { try PublicKey(pemRepresentation: text) }
        }
        #expect(throws: CryptoError.invalidKey("")) {
            try PublicKey(pemRepresentation: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----")
        }
    }

    @Test("signatures verify only with an algorithm that fits the key")
    func algorithmMatching() throws {
        let ec = ECPrivateKey(curve: .p256)
        let ecSignature = try ec.signature(for: [1])
        let ecKey = PublicKey(ec.publicKey)
        #expect(ecKey.isValidSignature(ecSignature, for: [1], algorithm: .ecdsaWithSHA256))
        #expect(!ecKey.isValidSignature(ecSignature, for: [1], algorithm: .ecdsaWithSHA384))
        #expect(!ecKey.isValidSignature(ecSignature, for: [1], algorithm: .sha256WithRSAEncryption))
        #expect(!ecKey.isValidSignature(ecSignature, for: [1], algorithm: .ed25519))

        let ed = Ed25519PrivateKey()
        let edKey = PublicKey(ed.publicKey)
        #expect(edKey.isValidSignature(try ed.signature(for: [1]), for: [1], algorithm: .ed25519))
        #expect(!edKey.isValidSignature(try ed.signature(for: [1]), for: [1], algorithm: .ed448))
        #expect(!edKey.isValidSignature(try ed.signature(for: [1]), for: [1], algorithm: .ecdsaWithSHA256))

        let pss = try PublicKey(spkiDER: KeyFixtures.rsaPSSSPKI)
        let abc = Array("abc".utf8)
        #expect(pss.isValidSignature(KeyFixtures.rsaPSSSignatureOverABC, for: abc, algorithm: .rsaPSSWithSHA256))
        // An id-RSASSA-PSS key never verifies PKCS#1 v1.5, and its SHA-256 restriction holds.
        #expect(
            !pss.isValidSignature(KeyFixtures.rsaPSSSignatureOverABC, for: abc, algorithm: .sha256WithRSAEncryption))
        #expect(!pss.isValidSignature(KeyFixtures.rsaPSSSignatureOverABC, for: abc, algorithm: .rsaPSSWithSHA384))
        let otherMGF = try SignatureAlgorithm.rsaPSS(digest: .sha256, mgf1Digest: .sha384, saltByteCount: 32)
        #expect(!pss.isValidSignature(KeyFixtures.rsaPSSSignatureOverABC, for: abc, algorithm: otherMGF))
        #expect(pss.rsaPublicKey?.isPSSOnly == true)

        let ed448 = try PublicKey(spkiDER: KeyFixtures.ed448SignerSPKI)
        #expect(ed448.isValidSignature(KeyFixtures.ed448SignatureOverABC, for: abc, algorithm: .ed448))
        #expect(!ed448.isValidSignature(KeyFixtures.ed448SignatureOverABC, for: Array("abd".utf8), algorithm: .ed448))
        #expect(!ed448.isValidSignature(KeyFixtures.ed448SignatureOverABC, for: abc, algorithm: .ed25519))
    }

    @Test("RSA keys below 2048 bits import but never verify")
    func smallRSA() throws {
        let key = try PublicKey(spkiDER: KeyFixtures.rsa1024SPKI)
        #expect(key.bitCount == 1024)
        #expect(
            !key.isValidSignature(
                KeyFixtures.rsa1024SignatureOverABC, for: Array("abc".utf8), algorithm: .sha256WithRSAEncryption))
    }
}

struct SPKIImportPathTests {
    @Test("the point at infinity and hybrid points in an SPKI are invalidKey")
    func oddPoints() throws {
        let header = Array(KeyFixtures.p256SPKI.prefix(23))  // SEQUENCE, AlgorithmIdentifier
        let infinity = header + [0x03, 0x02, 0x00, 0x00]
        var hybrid = KeyFixtures.p256SPKI
        hybrid[26] = 0x06 + (hybrid[90] & 1)
        for bytes in [infinity, hybrid] {
            #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: fixLength(bytes)) }
        }
    }

    private func fixLength(_ bytes: [UInt8]) -> [UInt8] { [0x30, UInt8(bytes.count - 2)] + bytes.dropFirst(2) }
}

struct PublicKeySharingTests {
    @Test("one key verifies from many tasks at once (EVP_PKEY shared read-only)")
    func concurrentVerification() async throws {
        let signer = ECPrivateKey(curve: .p256)
        let signature = try signer.signature(for: [4, 2])
        let key = PublicKey(signer.publicKey)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<25).allSatisfy { _ in
                        key.isValidSignature(signature, for: [4, 2], algorithm: .ecdsaWithSHA256)
                            && !key.isValidSignature(signature, for: [4, 3], algorithm: .ecdsaWithSHA256)
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == [Bool](repeating: true, count: 8))
    }

    @Test("a compressed point in an SPKI is re-encoded uncompressed")
    func compressedSPKI() throws {
        let full = try ECPublicKey(derRepresentation: KeyFixtures.p256SPKI)
        let point = full.x963Representation
        let compressedPoint = [2 + (point[64] & 1)] + point[1...32]
        let algorithm = Array(KeyFixtures.p256SPKI[2..<23])
        let body = algorithm + [0x03, 0x22, 0x00] + compressedPoint
        let spki = [0x30, UInt8(body.count)] + body
        let key = try PublicKey(spkiDER: spki)
        #expect(key.derRepresentation == KeyFixtures.p256SPKI)
        #expect(key.ecPublicKey?.x963Representation == point)
    }

    /// Found by FuzzPublicKey: an RSA-PSS SubjectPublicKeyInfo whose saltLength is the negative INTEGER -96.
    /// d2i_PUBKEY took it, then i2d_PUBKEY refused to encode it, so `derRepresentation` trapped.
    static let negativeSaltPSS: [UInt8] =
        Hex.decode(
            [
                "30820138302306092a864886f70d01010a3016a00f300d06096086480165030402010500a2030201a00382010f003082",
                "010a0282010100a95403a3d9637450c9533d6b01522f0e4c39fb8942ef00efe04195ff62dd13c6c5c7dbd3a72c070038",
                "f1cc658fec2642c5eff7d383dd854efb2db3e8c24eb2342445f8e18f05138f6e21f7e8e21d6caf684ce6fbb387c8d5d1",
                "03708713e26eaef89c2ad12d42e7076d5762a9a5373dfc6a2de804d1eb034269c6737a9afd34c01aeb7fa39f1e4524bf",
                "2cde15b475455148c38a012826b914ad7b58a70fa834f4c27af67d66f1eed9e3831d957dbf01d024e6308063c6739e5c",
                "2b96c901cfaa8d47f3cb62e9ae1be6e634a799f508186595223e001e08dc6de8fb8901e468ac2097cce2054c79ff3b0c",
                "ce65d26a68cf1390715e848e224b0e2954df08252925ed0203010001",
            ].joined()) ?? []

    @Test("an RSA-PSS key whose parameters OpenSSL cannot re-encode is invalidKey, not a trap")
    func unencodablePSSParameters() throws {
        #expect(Self.negativeSaltPSS.count == 316)
        #expect(throws: CryptoError.invalidKey("")) { try PublicKey(spkiDER: Self.negativeSaltPSS) }
    }
}
