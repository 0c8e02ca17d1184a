import RampartCrypto
import TestSupport
import Testing

struct Ed25519Tests {
    @Test("RFC 8032 section 7.1 test 1: key, public key and signature of the empty message")
    func rfc8032() throws {
        let seed = try #require(Hex.decode("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"))
        let key = try Ed25519PrivateKey(rawRepresentation: seed)
        #expect(
            Hex.encode(key.publicKey.rawRepresentation)
                == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
        let signature = try key.signature(for: [UInt8]())
        #expect(
            Hex.encode(signature)
                == "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
        #expect(key.publicKey.isValidSignature(signature, for: [UInt8]()))
        #expect(key.rawRepresentation == seed)
    }

    @Test("sign, verify, and the raw/SPKI/PEM forms round-trip")
    func roundTrip() throws {
        let key = Ed25519PrivateKey()
        let signature = try key.signature(for: [1, 2, 3])
        #expect(signature.count == 64)
        let publicKey = key.publicKey
        #expect(publicKey.isValidSignature(signature, for: [1, 2, 3]))
        #expect(!publicKey.isValidSignature(signature, for: [1, 2]))
        #expect(!publicKey.isValidSignature(signature.dropLast(), for: [1, 2, 3]))
        #expect(publicKey.derRepresentation.count == 44)
        #expect(
            try Ed25519PublicKey(derRepresentation: publicKey.derRepresentation).rawRepresentation
                == publicKey.rawRepresentation)
        #expect(
            try Ed25519PublicKey(pemRepresentation: publicKey.pemRepresentation).rawRepresentation
                == publicKey.rawRepresentation)
        #expect(String(describing: key) == "Ed25519PrivateKey")
    }

    @Test("wrong lengths and other key types are invalidKey")
    func rejections() {
        #expect(throws: CryptoError.invalidKey("")) {
            try Ed25519PublicKey(rawRepresentation: [UInt8](repeating: 1, count: 31))
        }
        #expect(throws: CryptoError.invalidKey("")) {
            try Ed25519PrivateKey(rawRepresentation: [UInt8](repeating: 1, count: 33))
        }
        #expect(throws: CryptoError.invalidKey("")) { try Ed25519PublicKey(derRepresentation: KeyFixtures.p256SPKI) }
        #expect(throws: CryptoError.invalidKey("")) { try Ed25519PublicKey(derRepresentation: KeyFixtures.ed448SPKI) }
        #expect(throws: CryptoError.invalidEncoding("")) { try Ed25519PublicKey(pemRepresentation: "not pem") }
    }
}
