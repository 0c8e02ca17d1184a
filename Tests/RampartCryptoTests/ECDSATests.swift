import RampartCrypto
import TestSupport
import Testing

struct ECDSATests {
    @Test("sign and verify on every curve; a different message fails", arguments: ECCurve.allCases)
    func signVerify(curve: ECCurve) throws {
        let key = ECPrivateKey(curve: curve)
        let signature = try key.signature(for: [1, 2, 3])
        #expect(key.publicKey.isValidSignature(signature, for: [1, 2, 3]))
        #expect(!key.publicKey.isValidSignature(signature, for: [1, 2, 4]))
    }

    @Test("X9.63 and SPKI round-trip", arguments: ECCurve.allCases)
    func encodings(curve: ECCurve) throws {
        let key = ECPrivateKey(curve: curve).publicKey
        let x963 = key.x963Representation
        #expect(x963.count == 1 + 2 * curve.coordinateByteCount)
        #expect(try ECPublicKey(x963Representation: x963, curve: curve).derRepresentation == key.derRepresentation)
        let fromDER = try ECPublicKey(derRepresentation: key.derRepresentation)
        #expect(fromDER.curve == curve)
        #expect(fromDER.x963Representation == x963)
    }

    @Test("a point off the curve is invalidKey")
    func offCurve() throws {
        var x963 = ECPrivateKey(curve: .p256).publicKey.x963Representation
        x963[64] ^= 1
        #expect(throws: CryptoError.invalidKey("")) { try ECPublicKey(x963Representation: x963, curve: .p256) }
    }

    @Test("SPKI with trailing bytes is invalidKey")
    func trailing() throws {
        let der = ECPrivateKey(curve: .p256).publicKey.derRepresentation + [0]
        #expect(throws: CryptoError.invalidKey("")) { try ECPublicKey(derRepresentation: der) }
    }
}

struct ECDSARawAndPrivateKeyTests {
    @Test("raw r‖s signatures round-trip and are 2 × coordinate bytes", arguments: ECCurve.allCases)
    func rawSignatures(curve: ECCurve) throws {
        let key = ECPrivateKey(curve: curve)
        let raw = try key.rawSignature(for: [1, 2, 3])
        #expect(raw.count == 2 * curve.coordinateByteCount)
        #expect(key.publicKey.isValidRawSignature(raw, for: [1, 2, 3]))
        #expect(!key.publicKey.isValidRawSignature(raw, for: [1, 2, 4]))
        #expect(!key.publicKey.isValidRawSignature(raw.dropLast(), for: [1, 2, 3]))
        #expect(!key.publicKey.isValidRawSignature(try key.signature(for: [1, 2, 3]), for: [1, 2, 3]))
        #expect(!key.publicKey.isValidRawSignature([UInt8](repeating: 0, count: raw.count), for: [1, 2, 3]))
    }

    @Test("PKCS#8 from OpenSSL imports with the right scalar and point, and re-exports byte for byte")
    func pkcs8Interop() throws {
        let key = try ECPrivateKey(pkcs8DERRepresentation: KeyFixtures.p256PKCS8)
        #expect(key.curve == .p256)
        #expect(key.rawRepresentation == KeyFixtures.p256Scalar)
        #expect(key.publicKey.derRepresentation == KeyFixtures.p256SPKI)
        #expect(key.pkcs8DERRepresentation == KeyFixtures.p256PKCS8)
        #expect(try ECPrivateKey(pemRepresentation: key.pemRepresentation).rawRepresentation == KeyFixtures.p256Scalar)
        #expect(key.pemRepresentation.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        #expect(String(describing: key) == "ECPrivateKey(P-256)")
    }

    @Test("PKCS#8 and raw scalars round-trip on every curve", arguments: ECCurve.allCases)
    func privateRoundTrip(curve: ECCurve) throws {
        let key = ECPrivateKey(curve: curve)
        let fromPKCS8 = try ECPrivateKey(pkcs8DERRepresentation: key.pkcs8DERRepresentation)
        let fromRaw = try ECPrivateKey(rawRepresentation: key.rawRepresentation, curve: curve)
        #expect(fromPKCS8.publicKey.derRepresentation == key.publicKey.derRepresentation)
        #expect(fromRaw.publicKey.derRepresentation == key.publicKey.derRepresentation)
        #expect(key.publicKey.isValidSignature(try fromRaw.signature(for: [9]), for: [9]))
    }

    @Test("PKCS#8 rejections carry their codes")
    func pkcs8Rejections() throws {
        let good = KeyFixtures.p256PKCS8
        #expect(throws: CryptoError.invalidKey("")) { try ECPrivateKey(pkcs8DERRepresentation: [UInt8]()) }
        #expect(throws: CryptoError.invalidKey("")) { try ECPrivateKey(pkcs8DERRepresentation: good + [0]) }
        #expect(throws: CryptoError.invalidKey("")) { try ECPrivateKey(pkcs8DERRepresentation: good.dropLast()) }
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPrivateKey(pkcs8DERRepresentation: [UInt8](repeating: 0x30, count: 20_000))
        }
        // Non-minimal outer length (81 87 is minimal; 82 00 87 is BER).
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPrivateKey(pkcs8DERRepresentation: [0x30, 0x82, 0x00, 0x87] + good.dropFirst(3))
        }
        // A public point that does not match the scalar (last byte flipped).
        var mismatched = good
        mismatched[mismatched.count - 1] ^= 1
        #expect(throws: CryptoError.invalidKey("")) { try ECPrivateKey(pkcs8DERRepresentation: mismatched) }
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPrivateKey(pkcs8DERRepresentation: KeyFixtures.ed25519PKCS8)
        }
        #expect(throws: CryptoError.unsupportedAlgorithm("")) {
            try ECPrivateKey(pkcs8DERRepresentation: KeyFixtures.secp256k1PKCS8)
        }
        #expect(throws: CryptoError.invalidEncoding("")) {
            try ECPrivateKey(pemRepresentation: PublicKey(spkiDER: KeyFixtures.p256SPKI).pemRepresentation)
        }
    }

    @Test("raw scalars must be the curve length and in 1…n−1")
    func scalarRejections() throws {
        let order = try #require(
            Hex.decode("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551"))
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPrivateKey(rawRepresentation: [UInt8](repeating: 0, count: 32), curve: .p256)
        }
        #expect(throws: CryptoError.invalidKey("")) { try ECPrivateKey(rawRepresentation: order, curve: .p256) }
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPrivateKey(rawRepresentation: [UInt8](repeating: 0xFF, count: 32), curve: .p256)
        }
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPrivateKey(rawRepresentation: KeyFixtures.p256Scalar, curve: .p384)
        }
        var belowOrder = order
        belowOrder[31] -= 1
        #expect(try ECPrivateKey(rawRepresentation: belowOrder, curve: .p256).curve == .p256)
    }

    @Test("ECDH: both sides derive the same secret; curves must match", arguments: ECCurve.allCases)
    func keyAgreement(curve: ECCurve) throws {
        let alice = ECPrivateKey(curve: curve)
        let bob = ECPrivateKey(curve: curve)
        let one = try alice.sharedSecretFromKeyAgreement(with: bob.publicKey)
        let two = try bob.sharedSecretFromKeyAgreement(with: alice.publicKey)
        #expect(one.byteCount == curve.coordinateByteCount)
        #expect(one.withUnsafeBytes { Array($0) } == two.withUnsafeBytes { Array($0) })
        let other = ECPrivateKey(curve: curve == .p256 ? .p384 : .p256)
        #expect(throws: CryptoError.invalidKey("")) { try alice.sharedSecretFromKeyAgreement(with: other.publicKey) }
    }

    @Test("compressed points import and export uncompressed")
    func compressedPoints() throws {
        let full = ECPrivateKey(curve: .p256).publicKey.x963Representation
        let compressed = [2 + (full[64] & 1)] + full[1...32]
        let key = try ECPublicKey(x963Representation: compressed, curve: .p256)
        #expect(key.x963Representation == full)
        #expect(throws: CryptoError.invalidKey("")) {
            try ECPublicKey(x963Representation: full.dropLast(), curve: .p256)
        }
        // Prefix and length must agree: 04 with 33 bytes, 02 with 65 bytes, the hybrid form 06 and infinity 00 fail.
        let bad: [[UInt8]] = [[4] + full[1...32], [2] + full[1...], [6] + full[1...], [0]]
        for bad in bad {
            #expect(throws: CryptoError.invalidKey("")) { try ECPublicKey(x963Representation: bad, curve: .p256) }
        }
    }

    @Test("SPKI: explicit parameters and other curves are unsupported; other key types are invalidKey")
    func spkiRejections() throws {
        #expect(throws: CryptoError.unsupportedAlgorithm("")) {
            try ECPublicKey(derRepresentation: KeyFixtures.p256ExplicitSPKI)
        }
        #expect(throws: CryptoError.unsupportedAlgorithm("")) {
            try ECPublicKey(derRepresentation: KeyFixtures.secp256k1SPKI)
        }
        #expect(throws: CryptoError.invalidKey("")) { try ECPublicKey(derRepresentation: KeyFixtures.ed448SPKI) }
        #expect(
            try ECPublicKey(pemRepresentation: ECPublicKey(derRepresentation: KeyFixtures.p256SPKI).pemRepresentation)
                .derRepresentation == KeyFixtures.p256SPKI)
    }
}
