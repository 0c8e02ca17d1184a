import RampartCrypto

/// The stored credential keys already imported into the crypto backend, keyed by their X9.63 bytes.
///
/// Importing a P-256 point (`EVP_PKEY_fromdata`, which checks that it lies on the curve) costs about half a verify;
/// an assertion's key is the same bytes request after request. The cache is keyed by the bytes themselves, so a key
/// whose stored bytes change is imported anew, never served from an older import. It holds at most ``capacity``
/// keys in two generations: a hit in the older one moves the key to the newer, and when the newer fills the older
/// is dropped, so the keys in use stay and the memory stays bounded (a DoS bound: each import is about 1 KB, plus the
/// verification contexts the OpenSSL backend keeps with a key it has verified with: about 0.6 KB each, at most 4).
final class PublicKeyCache: Sendable {
    /// The most keys held.
    static let capacity = 1024

    private let keys = BoundedCache<[UInt8], ECPublicKey>(capacity: capacity)

    /// The P-256 key of `x963Representation`, imported once.
    ///
    /// - Parameter x963Representation: The stored point.
    /// - Returns: The imported key.
    /// - Throws: As ``ECPublicKey/init(x963Representation:curve:)`` when the bytes are not a P-256 point (never
    ///   cached).
    func p256Key(_ x963Representation: [UInt8]) throws -> ECPublicKey {
        if let found = keys.value(for: x963Representation) { return found }
        // Imported outside the lock: two requests racing on a new key each import it, and the last insert wins.
        let key = try ECPublicKey(x963Representation: x963Representation, curve: .p256)
        keys.insert(key, for: x963Representation)
        return key
    }

    /// How many keys are held (for tests).
    var count: Int { keys.count }
}
