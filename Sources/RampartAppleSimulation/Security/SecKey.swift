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
