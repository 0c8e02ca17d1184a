import Foundation
import RampartCrypto

// https://developer.apple.com/documentation/security/seckey
/// An object that represents a cryptographic key (Apple: `class SecKey`).
///
/// The simulation's keys are P-256 (`kSecAttrKeyTypeECSECPrimeRandom`, 256 bits) over RampartCrypto; a private key
/// made with `kSecAttrTokenIDSecureEnclave` keeps its scalar inside the object, as the Secure Enclave keeps it out of
/// the app's reach.
public final class SecKey: Sendable {
    let privateKey: ECPrivateKey?
    let publicKey: ECPublicKey
    let accessControl: SecAccessControl?
    let isSecureEnclave: Bool
    /// For `biometryCurrentSet` keys: the enrollment digest when the key was made.
    let biometryBinding: [UInt8]?

    init(privateKey: ECPrivateKey, accessControl: SecAccessControl?, isSecureEnclave: Bool, biometryBinding: [UInt8]?) {
        self.privateKey = privateKey
        self.publicKey = privateKey.publicKey
        self.accessControl = accessControl
        self.isSecureEnclave = isSecureEnclave
        self.biometryBinding = biometryBinding
    }

    init(publicKey: ECPublicKey) {
        self.privateKey = nil
        self.publicKey = publicKey
        self.accessControl = nil
        self.isSecureEnclave = false
        self.biometryBinding = nil
    }
}

extension SecKey {
    /// The attributes the key brings to a keychain item, as `SecKeyCopyAttributes` gives them: the key class, type
    /// and size, and `kSecAttrApplicationLabel`, the SHA-1 of the public key (OSX/sec/Security/SecKey.m:132,
    /// SecCTKKey.m:555-558), so that every stored key has a primary key of its own.
    var keychainAttributes: [String: Any] {
        var attributes: [String: Any] = [
            kSecAttrKeyClass: privateKey == nil ? kSecAttrKeyClassPublic : kSecAttrKeyClassPrivate,
            kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256,
            // Not SHA-1 (RampartCrypto has none): 20 bytes of the point's SHA-256, which is what matters here, one
            // label per key, of SHA-1's length.
            kSecAttrApplicationLabel: Data(RampartCrypto.SHA256.hash(publicKey.x963Representation).prefix(20)),
        ]
        if isSecureEnclave { attributes[kSecAttrTokenID] = kSecAttrTokenIDSecureEnclave }
        return attributes
    }
}
