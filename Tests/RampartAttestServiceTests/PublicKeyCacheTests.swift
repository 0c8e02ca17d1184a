import RampartCrypto
import Testing

@testable import RampartAttestService

/// The imported-key cache of ``AppAttestVerifierAdapter``: keyed by the stored bytes, bounded, never caching a
/// failed import.
struct PublicKeyCacheTests {
    @Test("each stored point gets its own import; changed bytes never reuse an older one")
    func keyedByBytes() throws {
        let cache = PublicKeyCache()
        let first = ECPrivateKey()
        let second = ECPrivateKey()
        let message = Array("message".utf8)
        let signature = try second.signature(for: message)
        let a = try cache.p256Key(first.publicKey.x963Representation)
        #expect(try cache.p256Key(first.publicKey.x963Representation).x963Representation == a.x963Representation)
        let b = try cache.p256Key(second.publicKey.x963Representation)
        #expect(b.x963Representation == second.publicKey.x963Representation)
        #expect(b.isValidSignature(signature, for: message))
        #expect(!a.isValidSignature(signature, for: message))
        #expect(cache.count == 2)
    }

    @Test("bytes that are not a P-256 point throw, every time, and are not cached")
    func invalidPoint() throws {
        let cache = PublicKeyCache()
        var bytes = ECPrivateKey().publicKey.x963Representation
        bytes[64] ^= 1
        #expect(throws: CryptoError.self) { try cache.p256Key(bytes) }
        #expect(throws: CryptoError.self) { try cache.p256Key(bytes) }
        #expect(throws: CryptoError.self) { try cache.p256Key(Array(bytes.prefix(33))) }
        #expect(cache.count == 0)
    }

    @Test("the cache holds at most its capacity")
    func bounded() throws {
        let cache = PublicKeyCache()
        let kept = ECPrivateKey().publicKey.x963Representation
        for _ in 0..<(PublicKeyCache.capacity + 10) {
            _ = try cache.p256Key(ECPrivateKey().publicKey.x963Representation)
            _ = try cache.p256Key(kept)
            #expect(cache.count <= PublicKeyCache.capacity)
        }
        #expect(cache.count <= PublicKeyCache.capacity)
    }
}
