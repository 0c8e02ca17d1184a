import Foundation
import RampartCrypto

/// A ``VaultBackend`` on the freedesktop Secret Service (GNOME Keyring, KWallet): the OS-held secret store of Linux
/// desktops, through libsecret.
///
/// Items go to the default collection (the user's login keyring), which the desktop encrypts and unlocks at login.
/// Each item carries the schema `dev.rampart.Vault` and string attributes: the namespace, class, access group,
/// synchronizable flag, accessibility, access-control flags, every ``ItemAttributes`` field that is set (bytes as hex)
/// and the dates; the value is the item's secret. Items of other applications, or of another ``namespace``, are never
/// matched.
///
/// Text may hold any Unicode, NUL included, as on every backend: libsecret keeps attribute values as C strings, which
/// would end at the first NUL (an account `alice\0evil` stored as `alice` makes every search for `alice` fail with
/// ``VaultError/Code/integrityFailure``). So a text attribute or access group that contains a NUL is stored as the
/// lowercase hex of its UTF-8, and its name is listed in the item's `hex-encoded` attribute (names separated by
/// spaces). Every other value is stored as is, byte for byte as older Rampart versions stored it, so items they wrote
/// are found and read unchanged; searches for a value with a NUL look for its hex form, and every match is confirmed
/// against the decoded item. An older Rampart version reads an item with a hex-encoded attribute as
/// ``VaultError/Code/integrityFailure`` (it could not have stored the value whole either).
///
/// - Important: The Secret Service has no transactions: insert checks for a duplicate and then stores, and update
///   deletes then stores. Writers of one namespace on one machine are serialised by an advisory lock file
///   (`flock`, in `$XDG_RUNTIME_DIR` or the temporary directory), so they cannot both add one primary key; writers
///   on other machines sharing the keyring, or a crash between update's delete and store, are not covered. Use
///   ``FileVault`` where that matters. A locked collection yields ``VaultError/Code/interactionNotAllowed`` (unlocking
///   needs a prompt, which this backend never shows).
public final class SecretServiceBackend: VaultBackend {
    /// The libsecret schema name of every item.
    public static let schemaName = "dev.rampart.Vault"

    /// Separates this application's items from everyone else's in the keyring.
    public let namespace: String

    private let connection: SecretServiceConnection
    private let lockPath: String

    /// Connects to the Secret Service on the session bus.
    ///
    /// - Parameter namespace: A name for this application's items, usually its reverse-DNS identifier.
    /// - Throws: ``VaultError/Code/invalidParameters`` for an empty namespace or one with a NUL (libsecret would cut
    ///   it there, and the application would share the items of the namespace before the NUL);
    ///   ``VaultError/Code/notAvailable`` when no Secret Service answers (no session bus, no keyring daemon).
    public init(namespace: String) throws {
        guard !namespace.isEmpty else { throw VaultError.invalidParameters("the namespace must not be empty") }
        guard !namespace.utf8.contains(0) else {
            throw VaultError.invalidParameters(
                "the namespace contains a NUL, where libsecret would cut it; use a reverse-DNS name such as "
                    + "com.example.app")
        }
        self.namespace = namespace
        connection = try SecretServiceConnection(schemaName: Self.schemaName, attributeNames: Self.attributeNames)
        let directory = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
        let tag = HexText.encode(Array(SHA256.hash(Array(namespace.utf8)).prefix(12)))
        lockPath = (directory as NSString).appendingPathComponent("rampart-secret-service-\(tag).lock")
    }

    /// Stores a new item.
    ///
    /// - Parameter item: The item.
    /// - Throws: ``VaultError/Code/duplicateItem`` when its primary key exists.
    public func insert(_ item: VaultItem) async throws {
        let primaryKey = Self.primaryKeyTag(item)
        try exclusively {
            guard try connection.search([Key.namespace: namespace, Key.primaryKey: primaryKey]).isEmpty else {
                throw VaultError.duplicateItem()
            }
            try store(item)
        }
    }

    /// Returns the matched items.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: The items.
    /// - Throws: ``VaultError/Code/interactionNotAllowed`` when the keyring is locked,
    ///   ``VaultError/Code/integrityFailure`` when a stored item's attributes are malformed.
    public func items(matching filter: ItemFilter) async throws -> [VaultItem] {
        try found(filter).map(\.item)
    }

    /// Replaces the matched items: checks every new primary key first, then deletes and stores each.
    ///
    /// - Parameters:
    ///   - filter: What to match.
    ///   - transform: The change.
    /// - Returns: How many changed.
    /// - Throws: ``VaultError/Code/duplicateItem`` on a collision (before anything changes), or what `transform`
    ///   throws.
    public func update(
        matching filter: ItemFilter,
        _ transform: @Sendable (VaultItem) throws -> VaultItem
    ) async throws -> Int {
        try exclusively { try replace(matching: filter, transform) }
    }

    private func replace(matching filter: ItemFilter, _ transform: (VaultItem) throws -> VaultItem) throws -> Int {
        let matched = try found(filter)
        let replacements = try matched.map { try transform($0.item) }
        let oldKeys = Set(matched.map { Self.primaryKeyTag($0.item) })
        var newKeys = Set<String>()
        for item in replacements {
            let key = Self.primaryKeyTag(item)
            guard newKeys.insert(key).inserted else { throw VaultError.duplicateItem() }
            if !oldKeys.contains(key),
                try !connection.search([Key.namespace: namespace, Key.primaryKey: key]).isEmpty
            {
                throw VaultError.duplicateItem()
            }
        }
        for entry in matched { try connection.delete(entry.handle) }
        for item in replacements { try store(item) }
        return matched.count
    }

    /// Removes the matched items.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: How many were removed.
    /// - Throws: A Secret Service failure.
    public func delete(matching filter: ItemFilter) async throws -> Int {
        try exclusively {
            let matched = try found(filter, requireSecrets: false)
            for entry in matched { try connection.delete(entry.handle) }
            return matched.count
        }
    }

    /// Runs `body` holding the namespace's advisory lock (`flock`), which serialises writers on this machine.
    private func exclusively<R>(_ body: () throws -> R) throws -> R {
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else {
            throw VaultError.ioFailure(
                "cannot open the lock file \(lockPath): \(String(cString: strerror(errno))); check XDG_RUNTIME_DIR")
        }
        // Closing the descriptor releases the lock, also when body throws.
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw VaultError.ioFailure("cannot lock \(lockPath): \(String(cString: strerror(errno)))")
            }
        }
        return try body()
    }

    // MARK: Mapping

    private enum Key {
        static let namespace = "rampart-namespace"
        static let itemClass = "class"
        static let primaryKey = "primary-key"
        static let accessGroup = "access-group"
        static let synchronizable = "synchronizable"
        static let accessibility = "accessibility"
        static let accessControl = "access-control"
        static let created = "created"
        static let modified = "modified"
        static let biometryBinding = "biometry-binding"
        /// The names of the attributes stored as hex because their text holds a NUL, separated by spaces.
        static let hexEncoded = "hex-encoded"
    }

    /// Every attribute name the schema declares.
    static let attributeNames =
        [
            Key.namespace, Key.itemClass, Key.primaryKey, Key.accessGroup, Key.synchronizable,
            Key.accessibility, Key.accessControl, Key.created, Key.modified, Key.biometryBinding, Key.hexEncoded,
        ]
        + ItemAttributes.Name.allCases.map(\.rawValue)

    /// SHA-256 of the primary key, hex: a fixed-size attribute to look duplicates up by.
    private static func primaryKeyTag(_ item: VaultItem) -> String {
        HexText.encode(SHA256.hash(item.primaryKey.bytes))
    }

    /// How a text value is stored: as is, or as the hex of its UTF-8 when it holds a NUL (which libsecret would cut).
    private static func storedText(_ text: String) -> (value: String, isHex: Bool) {
        text.utf8.contains(0) ? (HexText.encode(Array(text.utf8)), true) : (text, false)
    }

    private func store(_ item: VaultItem) throws {
        var hexNames: [String] = []
        func storable(_ name: String, _ value: String) -> String {
            let stored = Self.storedText(value)
            if stored.isHex { hexNames.append(name) }
            return stored.value
        }
        var attributes = [
            Key.namespace: namespace,
            Key.itemClass: item.itemClass.rawValue,
            Key.primaryKey: Self.primaryKeyTag(item),
            Key.accessGroup: storable(Key.accessGroup, item.accessGroup ?? ""),
            Key.synchronizable: item.synchronizable ? "true" : "false",
            Key.accessibility: item.accessibility.rawValue,
            Key.accessControl: String(item.accessControl.rawValue),
            Key.created: String(Self.milliseconds(item.creationDate)),
            Key.modified: String(Self.milliseconds(item.modificationDate)),
        ]
        if let binding = item.biometryBinding { attributes[Key.biometryBinding] = HexText.encode(binding) }
        // Text as is (hex when it holds a NUL), bytes as lowercase hex, the port in decimal.
        for name in ItemAttributes.Name.allCases {
            switch ItemAttributes.field(name) {
            case .text(let keyPath):
                if let text = item.attributes[keyPath: keyPath] {
                    attributes[name.rawValue] = storable(name.rawValue, text)
                }
            case .bytes(let keyPath):
                if let bytes = item.attributes[keyPath: keyPath] { attributes[name.rawValue] = HexText.encode(bytes) }
            case .port:
                if let port = item.attributes.port { attributes[name.rawValue] = String(port) }
            }
        }
        if !hexNames.isEmpty { attributes[Key.hexEncoded] = hexNames.sorted().joined(separator: " ") }
        // The display label is only shown (by Seahorse, for example), never read back: a NUL becomes U+FFFD.
        let label =
            (item.attributes.label
            ?? [item.attributes.service ?? item.attributes.server, item.attributes.account]
            .compactMap { $0 }.joined(separator: " / "))
            .replacingOccurrences(of: "\u{0}", with: "\u{FFFD}")
        try connection.store(
            attributes: attributes, label: label.isEmpty ? item.itemClass.rawValue : label,
            secret: item.value)
    }

    private func found(
        _ filter: ItemFilter, requireSecrets: Bool = true
    ) throws -> [(
        item: VaultItem, handle: SecretServiceConnection.ItemHandle
    )] {
        var query = [Key.namespace: namespace, Key.itemClass: filter.itemClass.rawValue]
        // Narrows the search only; every match is confirmed with `filter.matches` on the decoded item.
        if let service = filter.attributes.service {
            query[ItemAttributes.Name.service.rawValue] = Self.storedText(service).value
        }
        if let account = filter.attributes.account {
            query[ItemAttributes.Name.account.rawValue] = Self.storedText(account).value
        }
        var result: [(item: VaultItem, handle: SecretServiceConnection.ItemHandle)] = []
        for entry in try connection.search(query) {
            var item = try Self.decode(entry.attributes)
            guard filter.matches(item) else { continue }
            if let secret = entry.secret {
                item.value = secret
            } else if requireSecrets {
                throw VaultError.interactionNotAllowed(
                    "the keyring collection holding the item is locked; unlock it (for example by logging in)")
            }
            result.append((item, entry.handle))
        }
        return result
    }

    /// Rebuilds an item's metadata from its Secret Service attributes; anything malformed is an integrity failure.
    private static func decode(_ attributes: [String: String]) throws -> VaultItem {
        let hexNames = Set((attributes[Key.hexEncoded] ?? "").split(separator: " ").map(String.init))
        func decodedText(_ name: String) throws -> String? {
            guard let stored = attributes[name] else { return nil }
            guard hexNames.contains(name) else { return stored }
            guard let bytes = HexText.decode(stored), let text = String(validating: bytes, as: UTF8.self) else {
                throw VaultError.integrityFailure("a Secret Service item's hex-encoded \(name) attribute is malformed")
            }
            return text
        }
        guard let itemClass = attributes[Key.itemClass].flatMap(ItemClass.init(rawValue:)),
            let accessibility = attributes[Key.accessibility].flatMap(Accessibility.init(rawValue:)),
            let control = attributes[Key.accessControl].flatMap({ UInt32($0) }),
            let sync = attributes[Key.synchronizable], sync == "true" || sync == "false",
            let group = try decodedText(Key.accessGroup),
            let created = attributes[Key.created].flatMap({ Int64($0) }),
            let modified = attributes[Key.modified].flatMap({ Int64($0) })
        else {
            throw VaultError.integrityFailure("a Secret Service item has malformed Rampart attributes")
        }
        var fields = ItemAttributes()
        for name in ItemAttributes.Name.allCases {
            guard let text = try decodedText(name.rawValue) else { continue }
            switch ItemAttributes.field(name) {
            case .text(let keyPath):
                fields[keyPath: keyPath] = text
            case .bytes(let keyPath):
                guard let bytes = HexText.decode(text) else { throw VaultError.integrityFailure() }
                fields[keyPath: keyPath] = bytes
            case .port:
                guard let port = Int(text) else { throw VaultError.integrityFailure() }
                fields.port = port
            }
        }
        var item = VaultItem(
            itemClass: itemClass, attributes: fields, value: [], accessGroup: group.isEmpty ? nil : group,
            accessibility: accessibility, synchronizable: sync == "true",
            accessControl: AccessControl(rawValue: control))
        item.creationDate = Date(timeIntervalSince1970: Double(created) / 1000)
        item.modificationDate = Date(timeIntervalSince1970: Double(modified) / 1000)
        if let binding = attributes[Key.biometryBinding] {
            guard let bytes = HexText.decode(binding) else { throw VaultError.integrityFailure() }
            item.biometryBinding = bytes
        }
        guard primaryKeyTag(item) == attributes[Key.primaryKey] else {
            throw VaultError.integrityFailure("a Secret Service item's primary key does not match its attributes")
        }
        return item
    }

    private static func milliseconds(_ date: Date?) -> Int64 {
        Int64(((date ?? Date()).timeIntervalSince1970 * 1000).rounded())
    }
}

extension SecretServiceBackend: Sendable {}

/// Lowercase hexadecimal, for byte attributes the Secret Service can only hold as strings.
enum HexText {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 2)
        var index = 0
        while index + 1 < chars.count {
            guard let high = nibble(chars[index]), let low = nibble(chars[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
