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
/// `errSecParam`, as the Secure Enclave accepts nothing else). As Security does (OSX/sec/Security/SecKey.m:1697-1767),
/// each half's attributes are `kSecPrivateKeyAttrs` or `kSecPublicKeyAttrs` with the top-level ones merged in
/// (`merge_params`, SecKey.m:312-331); a half whose `kSecAttrIsPermanent` is true is stored in the keychain as a
/// `kSecClassKey` item whose `kSecValueRef` is the key, and a private key in a token (`kSecAttrTokenID`, the Secure
/// Enclave) is permanent unless it says otherwise (SecKey.m:1753). A stored key brings its class, type, size and
/// `kSecAttrApplicationLabel` to the item (``SecItemAdd(_:_:)``), so two keys under one tag are two items.
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
    func merged(_ half: String) -> [String: Any] {
        var attributes = parameters[half] as? [String: Any] ?? [:]
        attributes.merge(parameters) { own, _ in own }
        for name in [kSecPublicKeyAttrs, kSecPrivateKeyAttrs, kSecAttrKeyType, kSecAttrKeySizeInBits] {
            attributes[name] = nil
        }
        return attributes
    }
    let privateAttributes = merged(kSecPrivateKeyAttrs)
    var publicAttributes = merged(kSecPublicKeyAttrs)
    let isSecureEnclave = privateAttributes[kSecAttrTokenID] as? String == kSecAttrTokenIDSecureEnclave
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
    func store(_ half: SecKey, _ attributes: [String: Any]) -> Bool {
        var item = attributes
        item[kSecClass] = kSecClassKey
        item[kSecValueRef] = half
        item[kSecAttrIsPermanent] = nil
        let status = SecItemAdd(item as CFDictionary, nil)
        guard status == errSecSuccess else {
            CFError.osStatus(status, "storing the new key failed").store(in: error)
            return false
        }
        return true
    }
    if publicAttributes[kSecAttrIsPermanent] as? Bool == true {
        publicAttributes[kSecAttrTokenID] = nil
        publicAttributes[kSecAttrAccessControl] = nil
        guard store(SecKey(publicKey: key.publicKey), publicAttributes) else { return nil }
    }
    if privateAttributes[kSecAttrIsPermanent] as? Bool ?? isSecureEnclave {
        guard store(key, privateAttributes) else { return nil }
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
/// A public key gives its X9.63 point `04 ‖ X ‖ Y`, a software private key `04 ‖ X ‖ Y ‖ K`. A Secure Enclave
/// private key cannot leave the enclave: its CryptoTokenKit key class has no export (`kSecCTKKeyDescriptor`,
/// OSX/sec/Security/SecCTKKey.m:662-675), so the call fails with `errSecUnimplemented` (SecKey.m:1596-1603).
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
        CFError.osStatus(errSecUnimplemented, "export not implemented for a Secure Enclave key").store(in: error)
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
