// https://developer.apple.com/documentation/security/secaccesscontrol
/// An access control instance: an item's protection (one `kSecAttrAccessible…` value) and the checks a reader must
/// pass (Apple: `class SecAccessControl`).
public final class SecAccessControl: Sendable {
    /// The protection class, one of the `kSecAttrAccessible…` values.
    let protection: CFString
    /// The conditions.
    let flags: SecAccessControlCreateFlags

    init(protection: CFString, flags: SecAccessControlCreateFlags) {
        self.protection = protection
        self.flags = flags
    }
}

// https://developer.apple.com/documentation/security/secaccesscontrolcreateflags
/// Access control constants that dictate how a keychain item may be used (Apple:
/// `struct SecAccessControlCreateFlags: OptionSet`, raw values of `CFOptionFlags`).
public struct SecAccessControlCreateFlags: OptionSet, Sendable {
    /// The flag bits.
    public let rawValue: CFOptionFlags

    /// Wraps flag bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: CFOptionFlags) { self.rawValue = rawValue }

    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/userpresence
    /// Constraint to access an item with either biometry or passcode.
    public static let userPresence = SecAccessControlCreateFlags(rawValue: 1 << 0)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometryany
    /// Constraint to access an item with Touch ID for any enrolled fingers, or Face ID.
    public static let biometryAny = SecAccessControlCreateFlags(rawValue: 1 << 1)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/biometrycurrentset
    /// Constraint to access an item with Touch ID for currently enrolled fingers, or from Face ID with the currently
    /// enrolled user.
    public static let biometryCurrentSet = SecAccessControlCreateFlags(rawValue: 1 << 3)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/devicepasscode
    /// Constraint to access an item with a passcode.
    public static let devicePasscode = SecAccessControlCreateFlags(rawValue: 1 << 4)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/or
    /// Indicates that at least one constraint must be satisfied.
    public static let or = SecAccessControlCreateFlags(rawValue: 1 << 14)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/and
    /// Indicates that all constraints must be satisfied.
    public static let and = SecAccessControlCreateFlags(rawValue: 1 << 15)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/privatekeyusage
    /// Enable a private key to be used in signing a block of data or verifying a signed block.
    public static let privateKeyUsage = SecAccessControlCreateFlags(rawValue: 1 << 30)
    // https://developer.apple.com/documentation/security/secaccesscontrolcreateflags/applicationpassword
    /// Option to use an application-provided password for data encryption key generation.
    public static let applicationPassword = SecAccessControlCreateFlags(rawValue: 1 << 31)

    /// The user checks among the flags (what a prompt asks for).
    var userChecks: SecAccessControlCreateFlags {
        intersection([.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode])
    }
}

// https://developer.apple.com/documentation/security/secaccesscontrolcreatewithflags(_:_:_:_:)
/// Creates a new access control object with the specified protection type and flags.
///
/// As documented, `protection` must be one of the `kSecAttrAccessible…` values; anything else fails with an
/// `errSecParam` error and returns nil. As Security's implementation does (OSX/sec/Security/SecAccessControl.m:164-182),
/// it also refuses `.or` with `.and`, `.biometryAny` with `.biometryCurrentSet`, and `.userPresence` with any flag but
/// `.applicationPassword` and `.privateKeyUsage`.
///
/// - Parameters:
///   - allocator: Ignored (pass nil).
///   - protection: One of the `kSecAttrAccessible…` values.
///   - flags: The conditions.
///   - error: Receives a `CFError` on failure.
/// - Returns: The access control, or nil.
public func SecAccessControlCreateWithFlags(
    _ allocator: CFAllocator?,
    _ protection: CFTypeRef,
    _ flags: SecAccessControlCreateFlags,
    _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?
) -> SecAccessControl? {
    guard let protection = protection as? String, KeychainProtection(protection) != nil else {
        CFError.osStatus(errSecParam, "protection must be a kSecAttrAccessible value").store(in: error)
        return nil
    }
    // The combinations Security refuses, in its order (apple-oss-distributions/Security,
    // OSX/sec/Security/SecAccessControl.m:164-182), each an errSecParam CFError.
    if flags.contains(.or) && flags.contains(.and) {
        CFError.osStatus(errSecParam, "only one logical operation can be set").store(in: error)
        return nil
    }
    if flags.isSuperset(of: [.biometryAny, .biometryCurrentSet]) {
        CFError.osStatus(errSecParam, "only one bio constraint can be set").store(in: error)
        return nil
    }
    if flags.contains(.userPresence),
        !flags.subtracting([.userPresence, .applicationPassword, .privateKeyUsage]).isEmpty
    {
        CFError.osStatus(
            errSecParam,
            "kSecAccessControlUserPresence can be combined only with kSecAccessControlApplicationPassword and "
                + "kSecAccessControlPrivateKeyUsage"
        ).store(in: error)
        return nil
    }
    return SecAccessControl(protection: protection, flags: flags)
}

/// The five protection classes, and when each is available.
struct KeychainProtection {
    /// When the class key is available.
    enum Availability { case whenUnlocked, afterFirstUnlock, whenPasscodeSet }

    let availability: Availability
    /// Whether the class is bound to this device (`…ThisDeviceOnly`).
    let thisDeviceOnly: Bool

    init?(_ value: String) {
        switch value {
        case kSecAttrAccessibleWhenUnlocked: (availability, thisDeviceOnly) = (.whenUnlocked, false)
        case kSecAttrAccessibleAfterFirstUnlock: (availability, thisDeviceOnly) = (.afterFirstUnlock, false)
        case kSecAttrAccessibleWhenUnlockedThisDeviceOnly: (availability, thisDeviceOnly) = (.whenUnlocked, true)
        case kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly:
            (availability, thisDeviceOnly) = (.afterFirstUnlock, true)
        case kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly: (availability, thisDeviceOnly) = (.whenPasscodeSet, true)
        default: return nil
        }
    }
}
