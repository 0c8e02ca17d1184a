/// When an item can be read, as Keychain Services' `kSecAttrAccessible`.
///
/// Items are sealed with keys that depend on the device's lock state: an item stored ``whenUnlocked`` cannot be read
/// while the device is locked (a background task woken by a push gets ``VaultError/Code/interactionNotAllowed``),
/// while ``afterFirstUnlock`` stays readable once the user has unlocked the device after boot. The `…ThisDeviceOnly`
/// variants never leave the device: they are excluded from sync and from backups, and cannot be combined with
/// ``VaultItem/synchronizable``.
public enum Accessibility: String, Hashable, CaseIterable, Codable {
    /// Readable while the device is unlocked (`kSecAttrAccessibleWhenUnlocked`, the Keychain's default).
    case whenUnlocked = "when-unlocked"
    /// Readable after the first unlock since boot, also while locked again (`kSecAttrAccessibleAfterFirstUnlock`).
    /// The right choice for tokens that background work uses.
    case afterFirstUnlock = "after-first-unlock"
    /// As ``whenUnlocked``, never synced or migrated (`kSecAttrAccessibleWhenUnlockedThisDeviceOnly`).
    case whenUnlockedThisDeviceOnly = "when-unlocked-this-device-only"
    /// As ``afterFirstUnlock``, never synced or migrated (`kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`).
    case afterFirstUnlockThisDeviceOnly = "after-first-unlock-this-device-only"
    /// Readable while unlocked and only while a passcode is set; deleted when the passcode is removed
    /// (`kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly`).
    case whenPasscodeSetThisDeviceOnly = "when-passcode-set-this-device-only"

    /// Whether the item is bound to this device (cannot sync, is not migrated by backups).
    public var isThisDeviceOnly: Bool {
        switch self {
        case .whenUnlocked, .afterFirstUnlock: false
        case .whenUnlockedThisDeviceOnly, .afterFirstUnlockThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: true
        }
    }

    /// Whether an item with this accessibility can be read in `state`.
    ///
    /// - Parameter state: The device's lock state.
    /// - Returns: `true` when the item's key is available.
    public func isReadable(in state: DeviceLockState) -> Bool {
        switch (self, state) {
        case (_, .unlocked): true
        case (.afterFirstUnlock, .lockedAfterFirstUnlock), (.afterFirstUnlockThisDeviceOnly, .lockedAfterFirstUnlock):
            true
        default: false
        }
    }
}

/// The device's lock state, which decides which ``Accessibility`` classes are readable.
///
/// Servers and tools are always ``unlocked``; tests inject the other states to check what a background task sees.
public enum DeviceLockState: String, Hashable, CaseIterable {
    /// Turned on, the passcode not yet entered: no item is readable.
    case beforeFirstUnlock = "before-first-unlock"
    /// Unlocked: everything is readable.
    case unlocked
    /// Locked again after having been unlocked since boot: only `afterFirstUnlock` items are readable.
    case lockedAfterFirstUnlock = "locked-after-first-unlock"
}

/// Conditions a reader must meet on each read, as `SecAccessControlCreateWithFlags`.
///
/// On Apple platforms the system shows Face ID, Touch ID or the passcode prompt; elsewhere the ``Vault`` asks its
/// ``Vault/UserAuthenticator``. Like a `…ThisDeviceOnly` accessibility, access control binds an item to the device,
/// so it cannot be combined with ``VaultItem/synchronizable``.
public struct AccessControl: OptionSet, Hashable, Codable {
    /// The flag bits (the values of `SecAccessControlCreateFlags`).
    public let rawValue: UInt32

    /// Wraps flag bits.
    ///
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Biometry or the device passcode (`.userPresence`).
    public static let userPresence = AccessControl(rawValue: 1 << 0)
    /// Any enrolled biometry (`.biometryAny`).
    public static let biometryAny = AccessControl(rawValue: 1 << 1)
    /// The biometry enrolled when the item was stored; enrolling a new finger or face makes the item unreadable
    /// (`.biometryCurrentSet`). ``Vault`` binds such items to its `biometryEnrollment` state and fails reads with
    /// ``VaultError/Code/authFailed`` once that state changes.
    public static let biometryCurrentSet = AccessControl(rawValue: 1 << 3)
    /// The device passcode (`.devicePasscode`).
    public static let devicePasscode = AccessControl(rawValue: 1 << 4)

    /// Every flag Rampart knows.
    public static let known: AccessControl = [.userPresence, .biometryAny, .biometryCurrentSet, .devicePasscode]
}

extension Accessibility: Sendable {}

extension DeviceLockState: Sendable {}

extension AccessControl: Sendable {}
