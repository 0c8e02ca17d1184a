import Foundation
public import RampartCrypto
import RampartSeal
public import RampartSecretStore

#if canImport(Security)
import Security
#else
import RampartAppleSimulation
#endif

/// A P-256 key created in the Secure Enclave, used to wrap RampartSeal data keys: the guide's "keys kept out of the
/// app's files".
///
/// The private key never leaves the enclave; reading it needs the device in the state its accessibility names and,
/// with ``AccessControl`` flags, Face ID, Touch ID or the passcode on every unwrap. ``wrap(_:)`` needs only the public
/// key (no prompt); ``unwrap(_:)`` does an ECDH in the enclave (`SecKeyCopyKeyExchangeResult`,
/// `ecdhKeyExchangeStandard`).
///
/// ```swift
/// let kek = try SecureEnclaveKey.load(tag: "com.example.kek")
///     ?? SecureEnclaveKey.create(tag: "com.example.kek", accessControl: .biometryCurrentSet)
/// let dataKey = RampartCrypto.SymmetricKey(randomByteCount: 32)
/// let wrapped = try kek.wrap(dataKey)            // store next to the sealed files
/// let sealed = try Box.seal(document, using: dataKey)
/// let opened = try Box.open(sealed, using: try kek.unwrap(wrapped))   // prompts
/// ```
///
/// The wrapped form is `0x01 ‖ ephemeral P-256 public key (65 bytes, X9.63) ‖ Box`: the ``Box`` (RampartSeal's AES-256-GCM
/// combined format) holds the data key under SHA-256 HKDF of the ECDH secret, salted with both public keys, with
/// info `rampart.secure-enclave.wrap.v1`; the version byte and ephemeral key are its associated data.
///
/// Failures are ``VaultError``s, as for other keychain items: ``VaultError/Code/authFailed`` when the user fails or
/// cancels the prompt, ``VaultError/Code/interactionNotAllowed`` when no prompt can be shown or the device is locked,
/// ``VaultError/Code/integrityFailure`` when the bytes were not wrapped for this key or were altered.
public final class SecureEnclaveKey: @unchecked Sendable {
    // @unchecked: immutable after init; it holds a SecKey reference, which Security lets any thread use.
    private let privateKey: SecKey
    /// The application tag the key is stored under (`kSecAttrApplicationTag`).
    public let tag: String
    /// The public key as an X9.63 point, `04 ‖ X ‖ Y`.
    public let publicKeyX963: [UInt8]

    /// The version byte of the wrapped form.
    static let version: UInt8 = 1
    /// The HKDF info string.
    static let info = Array("rampart.secure-enclave.wrap.v1".utf8)
    /// An X9.63 uncompressed P-256 point's length.
    static let pointByteCount = 65

    private init(privateKey: SecKey, tag: String) throws {
        guard let publicKey = SecKeyCopyPublicKey(privateKey) else {
            throw VaultError.ioFailure("the Secure Enclave key has no public key; delete it and create a new one")
        }
        var error: Unmanaged<CFError>?
        guard let bytes = SecKeyCopyExternalRepresentation(publicKey, &error) as Data? else {
            throw Self.failure(error, "exporting the Secure Enclave public key")
        }
        self.privateKey = privateKey
        self.tag = tag
        self.publicKeyX963 = Array(bytes)
    }

    /// Creates a permanent P-256 key in the Secure Enclave (`SecKeyCreateRandomKey` with
    /// `kSecAttrTokenIDSecureEnclave` and a `SecAccessControl`).
    ///
    /// - Parameters:
    ///   - tag: The application tag to store it under; use a reverse-DNS name.
    ///   - accessControl: What the user must pass on each unwrap (``AccessControl/biometryCurrentSet``,
    ///     ``AccessControl/devicePasscode``, ``AccessControl/userPresence``…); none by default.
    ///   - accessibility: When the key is usable; must be a `…ThisDeviceOnly` class, as Secure Enclave keys never
    ///     leave the device.
    /// - Returns: The key.
    /// - Throws: ``VaultError/Code/invalidParameters`` for a synchronizable-capable accessibility,
    ///   ``VaultError/Code/duplicateItem`` when a key is already stored under `tag`, or the mapped Security error.
    public static func create(
        tag: String, accessControl: AccessControl = [], accessibility: Accessibility = .whenUnlockedThisDeviceOnly
    ) throws -> SecureEnclaveKey {
        guard accessibility.isThisDeviceOnly else {
            throw VaultError.invalidParameters(
                "a Secure Enclave key cannot leave the device: choose a ThisDeviceOnly accessibility, not "
                    + accessibility.rawValue)
        }
        // Each new key is its own keychain item (its kSecAttrApplicationLabel, the public key's hash, is part of the
        // primary key; OSX/sec/Security/SecCTKKey.m:555-558), so Security would store a second key under the tag
        // without complaint, and load(tag:) would then find either: refuse instead.
        var existing = query(tag)
        existing[kSecReturnPersistentRef as String] = true
        var found: CFTypeRef?
        let lookup = SecItemCopyMatching(existing as CFDictionary, &found)
        guard lookup == errSecItemNotFound else {
            try KeychainStore.check(lookup, "looking for a Secure Enclave key under \(tag)")
            throw VaultError.duplicateItem(
                "a Secure Enclave key is already stored under \(tag): load it with SecureEnclaveKey.load(tag:), or "
                    + "delete it first (data keys wrapped with it are then lost)")
        }
        var flags: SecAccessControlCreateFlags = [.privateKeyUsage]
        if accessControl.contains(.userPresence) { flags.insert(.userPresence) }
        if accessControl.contains(.biometryAny) { flags.insert(.biometryAny) }
        if accessControl.contains(.biometryCurrentSet) { flags.insert(.biometryCurrentSet) }
        if accessControl.contains(.devicePasscode) { flags.insert(.devicePasscode) }
        var error: Unmanaged<CFError>?
        guard
            let control = SecAccessControlCreateWithFlags(
                nil, KeychainStore.accessible(accessibility) as CFTypeRef, flags, &error)
        else { throw failure(error, "creating the key's access control") }
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
            kSecAttrTokenID as String: kSecAttrTokenIDSecureEnclave,
            kSecPrivateKeyAttrs as String: [
                kSecAttrIsPermanent as String: true, kSecAttrApplicationTag as String: Data(tag.utf8),
                kSecAttrAccessControl as String: control,
            ] as [String: Any],
        ]
        guard let key = SecKeyCreateRandomKey(attributes as CFDictionary, &error) else {
            throw failure(error, "creating a Secure Enclave key")
        }
        return try SecureEnclaveKey(privateKey: key, tag: tag)
    }

    /// The key stored under `tag`, or nil when there is none.
    ///
    /// - Parameter tag: The application tag.
    /// - Returns: The key, or nil.
    /// - Throws: The mapped Security error.
    public static func load(tag: String) throws -> SecureEnclaveKey? {
        var query = query(tag)
        query[kSecReturnRef as String] = true
        var result: CFTypeRef?
        let status = SecItemCopyMatching(query as CFDictionary, &result)
        if status == errSecItemNotFound { return nil }
        try KeychainStore.check(status, "loading the Secure Enclave key \(tag)")
        guard let result else { throw KeychainStore.unexpected(result) }
        // swift-format-ignore: NeverForceUnwrap
        // A kSecReturnRef query for a key returns a SecKey (a Core Foundation type: a conditional cast always succeeds).
        return try SecureEnclaveKey(privateKey: result as! SecKey, tag: tag)
    }

    /// Deletes the key stored under `tag`; data keys wrapped with it can no longer be unwrapped.
    ///
    /// - Parameter tag: The application tag.
    /// - Throws: ``VaultError/Code/itemNotFound`` when there is none, or the mapped Security error.
    public static func delete(tag: String) throws {
        try KeychainStore.check(SecItemDelete(query(tag) as CFDictionary), "deleting the Secure Enclave key \(tag)")
    }

    static func query(_ tag: String) -> [String: Any] {
        [
            kSecClass as String: kSecClassKey, kSecAttrApplicationTag as String: Data(tag.utf8),
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeyClass as String: kSecAttrKeyClassPrivate, kSecUseDataProtectionKeychain as String: true,
        ]
    }

    /// Wraps a data key for this Secure Enclave key; no prompt (only the public key is used).
    ///
    /// - Parameter key: The data key (16, 24 or 32 bytes; RampartSeal's are 32).
    /// - Returns: The wrapped bytes.
    /// - Throws: The mapped Security error, or RampartSeal's error for a key of a wrong size.
    public func wrap(_ key: RampartCrypto.SymmetricKey) throws -> [UInt8] {
        var error: Unmanaged<CFError>?
        let parameters: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom, kSecAttrKeySizeInBits as String: 256,
        ]
        guard let ephemeral = SecKeyCreateRandomKey(parameters as CFDictionary, &error),
            let ephemeralPublic = SecKeyCopyPublicKey(ephemeral)
        else { throw Self.failure(error, "creating an ephemeral key") }
        guard let ephemeralPoint = SecKeyCopyExternalRepresentation(ephemeralPublic, &error) as Data? else {
            throw Self.failure(error, "exporting the ephemeral key")
        }
        let recipient = try Self.publicKey(publicKeyX963)
        guard
            let secret = SecKeyCopyKeyExchangeResult(
                ephemeral, .ecdhKeyExchangeStandard, recipient, [:] as CFDictionary, &error) as Data?
        else { throw Self.failure(error, "agreeing on a wrapping key") }
        let header = [Self.version] + Array(ephemeralPoint)
        let wrappingKey = try wrappingKey(secret, ephemeralPoint: Array(ephemeralPoint))
        let plaintext = key.withUnsafeBytes { Array($0) }
        return header + (try Box.seal(plaintext, using: wrappingKey, authenticating: header))
    }

    /// Unwraps a data key wrapped with ``wrap(_:)``; the Secure Enclave asks the user when the key has access control.
    ///
    /// - Parameter wrapped: The wrapped bytes.
    /// - Returns: The data key, ready for `SealKey.key(_:id:)` or ``Box``.
    /// - Throws: ``VaultError/Code/integrityFailure`` when the bytes were not wrapped for this key or were altered;
    ///   ``VaultError/Code/authFailed`` or ``VaultError/Code/interactionNotAllowed`` when the user check fails.
    public func unwrap(_ wrapped: [UInt8]) throws -> RampartCrypto.SymmetricKey {
        let headerCount = 1 + Self.pointByteCount
        guard wrapped.count >= headerCount + Box.overhead, wrapped.first == Self.version else {
            throw VaultError.integrityFailure(
                "these bytes are not a data key wrapped by SecureEnclaveKey (version \(Self.version), at least "
                    + "\(headerCount + Box.overhead) bytes); got \(wrapped.count) bytes")
        }
        let header = Array(wrapped.prefix(headerCount))
        let ephemeralPoint = Array(header.dropFirst())
        let ephemeral = try Self.publicKey(ephemeralPoint)
        var error: Unmanaged<CFError>?
        guard
            let secret = SecKeyCopyKeyExchangeResult(
                privateKey, .ecdhKeyExchangeStandard, ephemeral, [:] as CFDictionary, &error) as Data?
        else { throw Self.failure(error, "using the Secure Enclave key \(tag)") }
        let wrappingKey = try wrappingKey(secret, ephemeralPoint: ephemeralPoint)
        do {
            return RampartCrypto.SymmetricKey(
                bytes: try Box.open(Array(wrapped.dropFirst(headerCount)), using: wrappingKey, authenticating: header))
        } catch {
            throw VaultError.integrityFailure(
                "the data key was not wrapped for the Secure Enclave key \(tag), or the bytes were altered; unwrap it "
                    + "with the key that wrapped it")
        }
    }

    private func wrappingKey(_ secret: Data, ephemeralPoint: [UInt8]) throws -> RampartCrypto.SymmetricKey {
        RampartCrypto.SymmetricKey(
            bytes: try HKDF.deriveKey(
                inputKeyMaterial: RampartCrypto.SymmetricKey(bytes: secret), salt: ephemeralPoint + publicKeyX963,
                info: Self.info,
                outputByteCount: 32))
    }

    private static func publicKey(_ point: [UInt8]) throws -> SecKey {
        var error: Unmanaged<CFError>?
        let attributes: [String: Any] = [
            kSecAttrKeyType as String: kSecAttrKeyTypeECSECPrimeRandom,
            kSecAttrKeyClass as String: kSecAttrKeyClassPublic,
        ]
        guard let key = SecKeyCreateWithData(Data(point) as CFData, attributes as CFDictionary, &error) else {
            throw VaultError.integrityFailure("the wrapped key's ephemeral public key is not a P-256 point")
        }
        return key
    }

    /// The ``VaultError`` for a Security function's `CFError`, whose domain may be LocalAuthentication's or
    /// CryptoTokenKit's for a Secure Enclave key (``KeychainStore/status(of:)``).
    static func failure(_ error: Unmanaged<CFError>?, _ operation: String) -> VaultError {
        guard let error = error?.takeRetainedValue() else {
            return VaultError.ioFailure("\(operation) failed without an error from Security")
        }
        return KeychainStore.error(KeychainStore.status(of: error), operation)
    }
}
