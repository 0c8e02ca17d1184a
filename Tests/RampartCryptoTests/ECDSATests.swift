import RampartCrypto
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
