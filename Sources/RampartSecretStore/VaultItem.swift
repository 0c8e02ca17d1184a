public import Foundation

/// One secret and the attributes that find it: a Keychain item.
///
/// `description` never shows ``value``.
public struct VaultItem: Hashable {
    /// The item's class, which decides its allowed attributes and primary key.
    public var itemClass: ItemClass
    /// The searchable attributes.
    public var attributes: ItemAttributes
    /// The secret. Empty in items read with ``ItemQuery/returnData`` off.
    public var value: [UInt8]
    /// The access group the item belongs to; nil when adding means the caller's default group
    /// (``Entitlements/defaultGroup``).
    public var accessGroup: String?
    /// When the item can be read.
    public var accessibility: Accessibility
    /// Whether the item is shared with the user's other devices (`kSecAttrSynchronizable`).
    ///
    /// - Important: Cannot be combined with a `…ThisDeviceOnly` ``accessibility`` or a non-empty
    ///   ``accessControl``: such an add or update fails with ``VaultError/Code/invalidParameters``.
    public var synchronizable: Bool
    /// Checks a reader must pass on each read.
    public var accessControl: AccessControl
    /// For ``AccessControl/biometryCurrentSet`` items: a SHA-256 digest of the biometric enrollment when the item was
    /// stored; set by ``Vault``. Once the enrollment changes the item can no longer be read.
    public var biometryBinding: [UInt8]?
    /// When the item was added; set by the store.
    public var creationDate: Date?
    /// When the item last changed; set by the store.
    public var modificationDate: Date?

    /// Creates an item.
    ///
    /// - Parameters:
    ///   - itemClass: The class.
    ///   - attributes: The searchable attributes.
    ///   - value: The secret.
    ///   - accessGroup: The access group; nil for the caller's default.
    ///   - accessibility: When it can be read; ``Accessibility/whenUnlocked`` by default, as on Apple platforms.
    ///   - synchronizable: Whether it syncs to the user's other devices.
    ///   - accessControl: Reader checks.
    public init(
        itemClass: ItemClass,
        attributes: ItemAttributes,
        value: [UInt8],
        accessGroup: String? = nil,
        accessibility: Accessibility = .whenUnlocked,
        synchronizable: Bool = false,
        accessControl: AccessControl = []
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.value = value
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.synchronizable = synchronizable
        self.accessControl = accessControl
        self.biometryBinding = nil
        self.creationDate = nil
        self.modificationDate = nil
    }

    /// A generic password: the usual way to keep a token or API key.
    ///
    /// - Parameters:
    ///   - service: The service, e.g. `api.example.com`.
    ///   - account: The account, e.g. `refresh_token`.
    ///   - value: The secret.
    ///   - accessibility: When it can be read.
    ///   - accessGroup: The access group; nil for the caller's default.
    /// - Returns: The item.
    public static func genericPassword(
        service: String,
        account: String,
        value: [UInt8],
        accessibility: Accessibility = .whenUnlocked,
        accessGroup: String? = nil
    ) -> VaultItem {
        VaultItem(
            itemClass: .genericPassword,
            attributes: ItemAttributes(service: service, account: account),
            value: value,
            accessGroup: accessGroup,
            accessibility: accessibility
        )
    }

    /// The item's primary key: its identity in the store.
    public var primaryKey: PrimaryKey { PrimaryKey(self) }
}

extension VaultItem: CustomStringConvertible, CustomDebugStringConvertible {
    /// The class, primary-key attributes and group; never the value.
    public var description: String {
        let names = itemClass.primaryKeyAttributes.compactMap { name -> String? in
            guard let bytes = attributes.bytes(of: name) else { return nil }
            return "\(name.rawValue)=\(bytes.count) bytes"
        }
        return "VaultItem(\(itemClass.rawValue), \(names.joined(separator: ", ")), group: \(accessGroup ?? "default"))"
    }

    /// As ``description``; the value is never shown.
    public var debugDescription: String { description }
}

/// The identity of an item: its class, primary-key attributes, access group and synchronizable flag, encoded
/// canonically.
///
/// Two items with equal primary keys cannot both exist (``VaultError/Code/duplicateItem``). The encoding is
/// `"rampart.vault.pk.1" ‖ class ‖ field…` where each field is `0x00` when unset or `0x01 ‖ u32be length ‖ bytes`,
/// so no two distinct keys share an encoding. The file vault binds it into each value's associated data.
public struct PrimaryKey: Hashable, Comparable {
    /// The canonical encoding.
    public let bytes: [UInt8]

    /// Computes an item's primary key.
    ///
    /// - Parameter item: The item; its ``VaultItem/accessGroup`` should already be resolved.
    public init(_ item: VaultItem) {
        var encoder = CanonicalEncoder(domain: "rampart.vault.pk.1")
        encoder.append(Array(item.itemClass.rawValue.utf8))
        for name in item.itemClass.primaryKeyAttributes {
            encoder.append(item.attributes.bytes(of: name))
        }
        encoder.append(item.accessGroup.map { Array($0.utf8) })
        encoder.append([item.synchronizable ? 1 : 0])
        self.bytes = encoder.bytes
    }

    /// Orders keys by their encoding, so listings are stable.
    public static func < (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

/// Writes fields unambiguously: `0x00` for absent, `0x01 ‖ u32be length ‖ bytes` for present.
package struct CanonicalEncoder {
    package private(set) var bytes: [UInt8]

    package init(domain: String) {
        bytes = []
        append(Array(domain.utf8))
    }

    package mutating func append(_ field: [UInt8]?) {
        guard let field else {
            bytes.append(0)
            return
        }
        bytes.append(1)
        let count = UInt32(clamping: field.count)
        bytes += [UInt8(count >> 24), UInt8(truncatingIfNeeded: count >> 16), UInt8(truncatingIfNeeded: count >> 8)]
        bytes.append(UInt8(truncatingIfNeeded: count))
        bytes += field
    }

    package mutating func append(_ text: String?) { append(text.map { Array($0.utf8) }) }

    package mutating func append(_ number: Int64) {
        append((0..<8).reversed().map { UInt8(truncatingIfNeeded: number >> ($0 * 8)) })
    }
}

extension VaultItem: Sendable {}

extension PrimaryKey: Sendable {}
