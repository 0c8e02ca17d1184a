public import Foundation
public import RampartSecretStore
import Synchronization

/// The simulated device's keychain: the items every `SecItem` call reads and writes, and the device conditions those
/// calls see.
///
/// `SecItemAdd` and the other functions use ``current`` under ``conditions``; both are task-local, so parallel tests
/// each bind their own keychain (a fresh device) and conditions (the app's entitlements, the lock state, the user's
/// answer to a Face ID or passcode prompt):
///
/// ```swift
/// let keychain = SimulatedKeychain()
/// var locked = SimulatedKeychain.Conditions()
/// locked.lockState = .lockedAfterFirstUnlock
/// try await SimulatedKeychain.$current.withValue(keychain) {
///     try await SimulatedKeychain.$conditions.withValue(locked) { try await store.read(query) }
/// }
/// ```
@_spi(Testing)
public final class SimulatedKeychain: Sendable {
    /// What the device and the running app look like to a keychain call.
    public struct Conditions: Sendable {
        /// The running app's `keychain-access-groups` (the first is where items without a group go); unrestricted by
        /// default.
        public var entitlements: Entitlements = .unrestricted()
        /// The device's lock state: `WhenUnlocked` items are unavailable unless ``DeviceLockState/unlocked``.
        public var lockState: DeviceLockState = .unlocked
        /// The biometric enrollment (what changes when a finger or face is added), or nil when none is enrolled.
        public var biometryEnrollment: [UInt8]? = [1]
        /// Answers the Face ID, Touch ID or passcode prompt an access-controlled item or key shows; nil when no user
        /// can answer (the call fails with `errSecInteractionNotAllowed`).
        public var userAuthentication: (@Sendable (SecAccessControlCreateFlags) -> UserAuthenticationResult)?
        /// The clock for `kSecAttrCreationDate` and `kSecAttrModificationDate`.
        public var now: @Sendable () -> Date = { Date() }

        /// Conditions of an unlocked device with an enrolled biometry, an unrestricted app and no user at hand.
        public init() {}
    }

    /// How the user answered a prompt.
    public enum UserAuthenticationResult: Sendable {
        /// The user passed the check.
        case succeeded
        /// The check failed (`errSecAuthFailed`).
        case failed
        /// The user dismissed the prompt (`errSecUserCanceled`).
        case canceled
    }

    /// The keychain `SecItem` calls use; a process-wide one unless a test binds its own.
    @TaskLocal public static var current = SimulatedKeychain()
    /// The conditions `SecItem` and `SecKey` calls see.
    @TaskLocal public static var conditions = Conditions()

    let items = Mutex<[StoredItem]>([])

    /// An empty keychain: a new device.
    public init() {}

    /// How many items the keychain holds, in every access group.
    public var count: Int { items.withLock { $0.count } }
}

/// One stored item.
struct StoredItem: @unchecked Sendable {
    // @unchecked: `key` is an immutable SecKey (final class of lets); the rest are values.
    var itemClass: String
    var attributes: [String: AttributeValue]
    var accessGroup: String
    var synchronizable: Bool
    var protection: String
    var accessControl: SecAccessControl?
    var biometryBinding: [UInt8]?
    var data: Data
    var key: SecKey?
    var persistentRef: Data
    var created: Date
    var modified: Date

    /// The composite primary key: class, per-class attributes, access group and synchronizable.
    var primaryKey: [AttributeValue] {
        [.string(itemClass), .string(accessGroup), .number(synchronizable ? 1 : 0)]
            + (KeychainSchema.primaryKeys[itemClass] ?? []).map { attributes[$0] ?? KeychainSchema.empty($0) }
    }
}

/// A stored attribute value.
enum AttributeValue: Hashable, Sendable {
    case string(String)
    case data(Data)
    case number(Int)

    var any: Any {
        switch self {
        case .string(let value): value
        case .data(let value): value
        case .number(let value): value
        }
    }
}

/// Which attributes each class has and which form its primary key, as the class pages and `errSecDuplicateItem`'s
/// page list them.
enum KeychainSchema {
    static let classes: Set<String> = [
        kSecClassGenericPassword, kSecClassInternetPassword, kSecClassKey, kSecClassCertificate,
    ]
    static let passwordClasses: Set<String> = [kSecClassGenericPassword, kSecClassInternetPassword]

    /// https://developer.apple.com/documentation/security/ksecclassgenericpassword (and the other class pages).
    static let primaryKeys: [String: [String]] = [
        kSecClassGenericPassword: [kSecAttrAccount, kSecAttrService],
        kSecClassInternetPassword: [
            kSecAttrAccount, kSecAttrSecurityDomain, kSecAttrServer, kSecAttrProtocol, kSecAttrAuthenticationType,
            kSecAttrPort, kSecAttrPath,
        ],
        kSecClassKey: [
            kSecAttrKeyClass, kSecAttrApplicationLabel, kSecAttrApplicationTag, kSecAttrKeyType,
            kSecAttrKeySizeInBits,
        ],
        kSecClassCertificate: [kSecAttrCertificateType, kSecAttrIssuer, kSecAttrSerialNumber],
    ]

    static let attributes: [String: Set<String>] = [
        kSecClassGenericPassword: [kSecAttrLabel, kSecAttrAccount, kSecAttrService, kSecAttrGeneric],
        kSecClassInternetPassword: [
            kSecAttrLabel, kSecAttrAccount, kSecAttrServer, kSecAttrProtocol, kSecAttrPort, kSecAttrPath,
            kSecAttrSecurityDomain, kSecAttrAuthenticationType,
        ],
        kSecClassKey: [
            kSecAttrLabel, kSecAttrApplicationTag, kSecAttrApplicationLabel, kSecAttrKeyType, kSecAttrKeyClass,
            kSecAttrKeySizeInBits, kSecAttrTokenID,
        ],
        kSecClassCertificate: [kSecAttrLabel, kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrCertificateType],
    ]

    // How securityd stores each attribute, and so what a query gives back (apple-oss-distributions/Security,
    // keychain/securityd/SecItemSchema.c, SECDB_ATTR kinds; keychain/securityd/SecDbItem.c, SecDbItemSetValue and
    // copyBlob, copyData, copyNumber, copyString):
    // - Blob (labl, acct, svce, gena, sdmn, srvr, atyp, path, atag; SecItemSchema.c:84-138): kept as given, a string
    //   as a string and data as data;
    // - Data (issr, slnr, klbl; SecItemSchema.c:126-137): data; a string becomes its UTF-8 bytes (copyData, :74);
    // - Number (ptcl, port, ctyp, kcls, type, bsiz; SecItemSchema.c:105-157): a number; a Boolean becomes 0 or 1, and a
    //   string becomes a number when it prints back the same ("73" does, "htps" and "007" do not; copyNumber, :131),
    //   so `kSecAttrKeyTypeECSECPrimeRandom` ("73") and `kSecAttrKeyClassPrivate` ("1") come back as numbers.

    static let dataAttributes: Set<String> = [kSecAttrIssuer, kSecAttrSerialNumber, kSecAttrApplicationLabel]
    static let numberAttributes: Set<String> = [
        kSecAttrProtocol, kSecAttrPort, kSecAttrCertificateType, kSecAttrKeyClass, kSecAttrKeyType,
        kSecAttrKeySizeInBits,
    ]
    static let stringAttributes: Set<String> = [kSecAttrTokenID]

    /// Keys every class accepts besides its attributes.
    static let common: Set<String> = [
        kSecClass, kSecAttrAccessGroup, kSecAttrAccessible, kSecAttrAccessControl, kSecAttrSynchronizable,
        kSecUseDataProtectionKeychain, kSecValueData, kSecValueRef, kSecValuePersistentRef, kSecReturnData,
        kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef, kSecMatchLimit, kSecAttrIsPermanent,
    ]

    /// The value an unset primary-key attribute is stored with.
    static func empty(_ name: String) -> AttributeValue {
        if dataAttributes.contains(name) { return .data(Data()) }
        if numberAttributes.contains(name) { return .number(0) }
        return .string("")
    }

    /// Reads the class's attributes out of a dictionary, converting each as securityd does.
    ///
    /// - Returns: The attributes, or the status to fail with (`errSecNoSuchAttr` for another class's attribute,
    ///   `errSecParam` for a value securityd cannot convert).
    static func attributes(of dictionary: [String: Any], itemClass: String) -> Result<[String: AttributeValue], Status>
    {
        let allowed = attributes[itemClass] ?? []
        var result: [String: AttributeValue] = [:]
        for (name, value) in dictionary where !common.contains(name) {
            guard allowed.contains(name) else { return .failure(Status(errSecNoSuchAttr)) }
            guard let converted = convert(value, for: name) else { return .failure(Status(errSecParam)) }
            result[name] = converted
        }
        return .success(result)
    }

    /// `value` as securityd stores it for attribute `name` (copyBlob, copyData, copyNumber, copyString in
    /// keychain/securityd/SecDbItem.c:61-152); nil when it cannot be converted.
    static func convert(_ value: Any, for name: String) -> AttributeValue? {
        if dataAttributes.contains(name) {
            if let data = value as? Data { return .data(data) }
            if let text = value as? String { return .data(Data(text.utf8)) }
            return nil
        }
        if numberAttributes.contains(name) {
            if let flag = value as? Bool { return .number(flag ? 1 : 0) }
            if let number = value as? Int { return .number(number) }
            if let text = value as? String {
                // CFStringGetIntValue, printed back with "%ld": a number only when the text is exactly that.
                if let number = Int32(text), String(number) == text { return .number(Int(number)) }
                return .string(text)
            }
            return nil
        }
        if stringAttributes.contains(name) {
            if let text = value as? String { return .string(text) }
            if let data = value as? Data { return String(data: data, encoding: .utf8).map(AttributeValue.string) }
            return nil
        }
        if let text = value as? String { return .string(text) }
        if let data = value as? Data { return .data(data) }
        if let number = value as? Int { return .number(number) }
        return nil
    }
}

/// A failing `OSStatus`, so rule checks can throw it.
struct Status: Error {
    let code: OSStatus
    init(_ code: OSStatus) { self.code = code }
}
