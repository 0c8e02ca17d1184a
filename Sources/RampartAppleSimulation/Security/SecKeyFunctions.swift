public import Foundation
import RampartCrypto

// https://developer.apple.com/documentation/security/seckeyalgorithm
/// The algorithms a `SecKey` operation uses (Apple: `struct SecKeyAlgorithm: RawRepresentable`, raw values
/// `CFString`).
public struct SecKeyAlgorithm: RawRepresentable, Hashable, Sendable {
    /// The algorithm's name.
    public let rawValue: CFString

    /// Wraps a name.
    ///
    /// - Parameter rawValue: The name.
    public init(rawValue: CFString) { self.rawValue = rawValue }

    // https://developer.apple.com/documentation/security/seckeyalgorithm/ecdhkeyexchangestandard
    /// Elliptic curve Diffie–Hellman key exchange (the shared secret is the x-coordinate, without a KDF).
    public static let ecdhKeyExchangeStandard = SecKeyAlgorithm(rawValue: "algid:keyexchange:ECDH")
}

// https://developer.apple.com/documentation/security/seckeycreaterandomkey(_:_:)
/// Generates a new public-private key pair (Apple: `func SecKeyCreateRandomKey(_ parameters: CFDictionary,
/// _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey?`).
///
/// The simulation makes P-256 keys only (`kSecAttrKeyTypeECSECPrimeRandom`, 256 bits; anything else is
/// `errSecParam`, as the Secure Enclave accepts nothing else). `kSecPrivateKeyAttrs` may hold `kSecAttrIsPermanent`,
/// `kSecAttrApplicationTag` and `kSecAttrAccessControl`; a permanent key is stored in the keychain as a
/// `kSecClassKey` item (private key class) whose `kSecValueRef` is the key.
///
/// - Parameters:
///   - parameters: The key's attributes.
///   - error: Receives a `CFError` on failure.
/// - Returns: The private key, or nil.
public func SecKeyCreateRandomKey(
    _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    guard parameters[kSecAttrKeyType] as? String == kSecAttrKeyTypeECSECPrimeRandom,
        parameters[kSecAttrKeySizeInBits] as? Int == 256
    else {
        CFError.osStatus(errSecParam, "only 256-bit kSecAttrKeyTypeECSECPrimeRandom keys are simulated").store(
            in: error)
        return nil
    }
    let isSecureEnclave = parameters[kSecAttrTokenID] as? String == kSecAttrTokenIDSecureEnclave
    let privateAttributes = parameters[kSecPrivateKeyAttrs] as? [String: Any] ?? [:]
    let accessControl = privateAttributes[kSecAttrAccessControl] as? SecAccessControl
    let binding: [UInt8]?
    do {
        binding = try KeychainEngine.binding(for: accessControl)
    } catch let status as Status {
        CFError.osStatus(status.code, "no biometry is enrolled to bind the key to").store(in: error)
        return nil
    } catch {
        return nil
    }
    let key = SecKey(
        privateKey: ECPrivateKey(curve: .p256), accessControl: accessControl, isSecureEnclave: isSecureEnclave,
        biometryBinding: binding)
    guard privateAttributes[kSecAttrIsPermanent] as? Bool == true else { return key }
    var item: [String: Any] = [
        kSecClass: kSecClassKey, kSecAttrKeyClass: kSecAttrKeyClassPrivate,
        kSecAttrKeyType: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits: 256, kSecValueRef: key,
    ]
    if let tag = privateAttributes[kSecAttrApplicationTag] { item[kSecAttrApplicationTag] = tag }
    if isSecureEnclave { item[kSecAttrTokenID] = kSecAttrTokenIDSecureEnclave }
    if let accessControl { item[kSecAttrAccessControl] = accessControl }
    if let group = parameters[kSecAttrAccessGroup] { item[kSecAttrAccessGroup] = group }
    let status = SecItemAdd(item as CFDictionary, nil)
    guard status == errSecSuccess else {
        CFError.osStatus(status, "storing the new key failed").store(in: error)
        return nil
    }
    return key
}

// https://developer.apple.com/documentation/security/seckeycopypublickey(_:)
/// Gets the public key associated with the given private key (Apple: `func SecKeyCopyPublicKey(_ key: SecKey) ->
/// SecKey?`).
///
/// - Parameter key: A private or public key.
/// - Returns: The public key.
public func SecKeyCopyPublicKey(_ key: SecKey) -> SecKey? { SecKey(publicKey: key.publicKey) }

// https://developer.apple.com/documentation/security/seckeycopyexternalrepresentation(_:_:)
/// Returns an external representation of the given key suitable for the key's type (Apple: `func
/// SecKeyCopyExternalRepresentation(_ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) ->
/// CFData?`).
///
/// A public key gives its X9.63 point `04 ‖ X ‖ Y`; a Secure Enclave private key cannot leave the enclave
/// (`errSecParam`).
///
/// - Parameters:
///   - key: The key.
///   - error: Receives a `CFError` on failure.
/// - Returns: The bytes, or nil.
public func SecKeyCopyExternalRepresentation(
    _ key: SecKey, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard let privateKey = key.privateKey else { return Data(key.publicKey.x963Representation) }
    guard !key.isSecureEnclave else {
        CFError.osStatus(errSecParam, "a Secure Enclave private key cannot be exported").store(in: error)
        return nil
    }
    return Data(key.publicKey.x963Representation + privateKey.rawRepresentation)
}

// https://developer.apple.com/documentation/security/seckeycreatewithdata(_:_:_:)
/// Restores a key from an external representation of that key (Apple: `func SecKeyCreateWithData(_ keyData: CFData,
/// _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey?`).
///
/// The simulation restores P-256 public keys (`kSecAttrKeyClassPublic`, an X9.63 point).
///
/// - Parameters:
///   - keyData: The X9.63 point.
///   - attributes: `kSecAttrKeyType` and `kSecAttrKeyClass`.
///   - error: Receives a `CFError` on failure.
/// - Returns: The key, or nil.
public func SecKeyCreateWithData(
    _ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecKey? {
    guard attributes[kSecAttrKeyType] as? String == kSecAttrKeyTypeECSECPrimeRandom,
        attributes[kSecAttrKeyClass] as? String == kSecAttrKeyClassPublic,
        let publicKey = try? ECPublicKey(x963Representation: Array(keyData), curve: .p256)
    else {
        CFError.osStatus(errSecParam, "not a P-256 public key in X9.63 form").store(in: error)
        return nil
    }
    return SecKey(publicKey: publicKey)
}

// https://developer.apple.com/documentation/security/seckeycopykeyexchangeresult(_:_:_:_:_:)
/// Performs the Diffie-Hellman style of key exchange with optional key-derivation steps (Apple: `func
/// SecKeyCopyKeyExchangeResult(_ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey,
/// _ parameters: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> CFData?`).
///
/// A private key with a `SecAccessControl` asks the simulated user first (``SimulatedKeychain/Conditions``): a
/// failed check is `errSecAuthFailed`, a canceled prompt `errSecUserCanceled`, no user `errSecInteractionNotAllowed`;
/// a key whose protection class is unavailable in the lock state is `errSecInteractionNotAllowed`. For a Secure
/// Enclave key those come as the device gives them, not as `OSStatus` codes: the operation runs in CryptoTokenKit's
/// token (OSX/sec/Security/SecCTKKey.m), whose authentication is LocalAuthentication's, so the `CFError` is in
/// `com.apple.LocalAuthentication` (`LAError.userCancel` -2, `.authenticationFailed` -1, `.notInteractive` -1004;
/// LAPublicDefines.h), the errors `SecErrorGetOSStatus` translates back (OSX/sec/Security/SecItem.m:203-215, 259).
///
/// - Parameters:
///   - privateKey: The private key.
///   - algorithm: ``SecKeyAlgorithm/ecdhKeyExchangeStandard``.
///   - publicKey: The peer's public key.
///   - parameters: Unused by the standard algorithm.
///   - error: Receives a `CFError` on failure.
/// - Returns: The shared secret, or nil.
public func SecKeyCopyKeyExchangeResult(
    _ privateKey: SecKey, _ algorithm: SecKeyAlgorithm, _ publicKey: SecKey, _ parameters: CFDictionary,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> CFData? {
    guard algorithm == .ecdhKeyExchangeStandard, let scalar = privateKey.privateKey else {
        CFError.osStatus(errSecParam, "the simulation supports ecdhKeyExchangeStandard with a private key")
            .store(in: error)
        return nil
    }
    do {
        if let accessControl = privateKey.accessControl {
            guard KeychainEngine.isAvailable(accessControl.protection) else {
                throw Status(errSecInteractionNotAllowed)
            }
            try KeychainEngine.authenticate(accessControl, binding: privateKey.biometryBinding)
        }
        let secret = try scalar.sharedSecretFromKeyAgreement(with: publicKey.publicKey)
        return secret.withUnsafeBytes { Data($0) }
    } catch let status as Status {
        if privateKey.isSecureEnclave {
            CFError.secureEnclave(status.code, "the Secure Enclave refused the key exchange").store(in: error)
        } else {
            CFError.osStatus(status.code, "the key exchange was refused").store(in: error)
        }
        return nil
    } catch let failure {
        CFError.osStatus(errSecParam, "the key exchange failed: \(failure)").store(in: error)
        return nil
    }
}
