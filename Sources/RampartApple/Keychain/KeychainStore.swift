import Foundation
public import RampartSecretStore

#if canImport(Security)
import Security
#else
import RampartAppleSimulation
#endif

/// The ``SecretStore`` over the data protection keychain: `SecItemAdd`, `SecItemCopyMatching`, `SecItemUpdate` and
/// `SecItemDelete`.
///
/// Every call sets `kSecUseDataProtectionKeychain` (on macOS the iOS-style keychain, with access groups and
/// accessibility classes), maps ``ItemQuery/synchronizable`` to `kSecAttrSynchronizable` or
/// `kSecAttrSynchronizableAny`, ``VaultItem/accessibility`` to `kSecAttrAccessible`, ``VaultItem/accessControl`` to a
/// `SecAccessControl`, and each failing `OSStatus` to the ``VaultError`` code the other stores raise. The app's access
/// groups come from its `keychain-access-groups` entitlement, not from this type.
///
/// ```swift
/// let keychain = KeychainStore()
/// try await keychain.setSecret(Array(token.utf8), service: "api.example.com", account: "refresh_token")
/// let saved = try await keychain.secret(service: "api.example.com", account: "refresh_token")
/// ```
///
/// Where the Keychain differs from ``Vault``, this type translates:
/// - reading several password items with their values asks for attributes and persistent references first, then
///   each value by its reference, as Apple's `kSecReturnData` documentation advises (each item may need its own
///   authentication; securityd does not refuse `kSecReturnData` with `kSecMatchLimitAll`);
/// - items read back report an empty ``VaultItem/accessControl``: Security has no call that returns a
///   `SecAccessControl`'s flags;
/// - changing ``ItemChanges/accessControl`` without an ``ItemChanges/accessibility`` updates the matched items one by
///   one (each keeps its own protection class), so that change is not atomic across several items.
///
/// - Important: A read of an item with ``AccessControl`` blocks its thread while the system shows the Face ID, Touch
///   ID or passcode prompt; don't call it from the main actor.
public struct KeychainStore: SecretStore {
    /// A store over the app's keychain.
    public init() {}

    /// Adds an item (`SecItemAdd`).
    ///
    /// - Parameter item: The item; a nil access group means the app's default group.
    /// - Throws: ``VaultError`` with the code of the `OSStatus` (``VaultError/Code/duplicateItem``, …).
    public func add(_ item: VaultItem) async throws {
        try Vault.checkAttributes(item.attributes, for: item.itemClass)
        try Vault.checkStorable(item)
        var attributes = Self.base(item.itemClass)
        try attributes.merge(Self.dictionary(item.attributes)) { _, new in new }
        attributes[kSecValueData as String] = Data(item.value)
        if let group = item.accessGroup { attributes[kSecAttrAccessGroup as String] = group }
        attributes[kSecAttrSynchronizable as String] = item.synchronizable
        if item.accessControl.isEmpty {
            attributes[kSecAttrAccessible as String] = Self.accessible(item.accessibility)
        } else {
            attributes[kSecAttrAccessControl as String] = try Self.accessControl(
                item.accessControl, item.accessibility)
        }
        try Self.check(SecItemAdd(attributes as CFDictionary, nil), "adding \(item)")
    }

    /// Changes every matched item (`SecItemUpdate`).
    ///
    /// - Parameters:
    ///   - query: Which items (its match limit is ignored).
    ///   - changes: What to change.
    /// - Throws: ``VaultError`` (``VaultError/Code/itemNotFound``, ``VaultError/Code/duplicateItem``, …).
    public func update(_ query: ItemQuery, with changes: ItemChanges) async throws {
        try Vault.checkAttributes(query.attributes, for: query.itemClass)
        try Vault.checkAttributes(changes.attributes, for: query.itemClass)
        if let value = changes.value, value.count > VaultLimits.maxValueByteCount {
            throw VaultError.invalidParameters(
                "the value is \(value.count) bytes; the limit is \(VaultLimits.maxValueByteCount) (the keychain is "
                    + "for small secrets: encrypt large data and store only its key)")
        }
        var newValues = try Self.dictionary(changes.attributes)
        if let value = changes.value { newValues[kSecValueData as String] = Data(value) }
        if let group = changes.accessGroup { newValues[kSecAttrAccessGroup as String] = group }
        if let synchronizable = changes.synchronizable { newValues[kSecAttrSynchronizable as String] = synchronizable }
        switch (changes.accessControl, changes.accessibility) {
        case (let flags?, let accessibility?):
            newValues[kSecAttrAccessControl as String] = try Self.accessControl(flags, accessibility)
        case (nil, let accessibility?):
            newValues[kSecAttrAccessible as String] = Self.accessible(accessibility)
        case (let flags?, nil):
            // A SecAccessControl carries its protection class: give each matched item its own.
            for (reference, item) in try Self.references(matching: query) {
                var perItem = newValues
                perItem[kSecAttrAccessControl as String] = try Self.accessControl(flags, item.accessibility)
                try Self.check(
                    SecItemUpdate(
                        Self.byReference(reference, query.itemClass) as CFDictionary, perItem as CFDictionary),
                    "updating a \(query.itemClass.rawValue) item")
            }
            return
        case (nil, nil): break
        }
        try Self.check(
            SecItemUpdate(try Self.search(query) as CFDictionary, newValues as CFDictionary),
            "updating \(query.itemClass.rawValue) items")
    }

    /// Returns the matched items (`SecItemCopyMatching`).
    ///
    /// - Parameter query: What to find.
    /// - Returns: At least one item.
    /// - Throws: ``VaultError`` (``VaultError/Code/itemNotFound``, ``VaultError/Code/interactionNotAllowed`` while
    ///   locked, ``VaultError/Code/authFailed`` when the user fails or cancels the prompt, …).
    public func read(_ query: ItemQuery) async throws -> [VaultItem] {
        try Vault.checkAttributes(query.attributes, for: query.itemClass)
        var search = try Self.search(query)
        search[kSecReturnAttributes as String] = true
        if query.matchLimit == .one {
            search[kSecMatchLimit as String] = kSecMatchLimitOne
            if query.returnData { search[kSecReturnData as String] = true }
            var result: CFTypeRef?
            try Self.check(
                SecItemCopyMatching(search as CFDictionary, &result), "reading a \(query.itemClass.rawValue)")
            guard let found = result as? [String: Any] else { throw Self.unexpected(result) }
            return [Self.item(found, query.itemClass)]
        }
        var items: [VaultItem] = []
        for (reference, item) in try Self.references(matching: query) {
            var item = item
            if query.returnData {
                var lookup = Self.byReference(reference, query.itemClass)
                lookup[kSecReturnData as String] = true
                lookup[kSecMatchLimit as String] = kSecMatchLimitOne
                var result: CFTypeRef?
                try Self.check(
                    SecItemCopyMatching(lookup as CFDictionary, &result), "reading a \(query.itemClass.rawValue)")
                guard let data = result as? Data else { throw Self.unexpected(result) }
                item.value = Array(data)
            }
            items.append(item)
        }
        return items
    }

    /// Deletes every matched item (`SecItemDelete`).
    ///
    /// - Parameter query: Which items (its match limit is ignored).
    /// - Throws: ``VaultError`` (``VaultError/Code/itemNotFound``, …).
    public func delete(_ query: ItemQuery) async throws {
        try Vault.checkAttributes(query.attributes, for: query.itemClass)
        try Self.check(SecItemDelete(try Self.search(query) as CFDictionary), "deleting \(query.itemClass.rawValue)")
    }
}

extension KeychainStore {
    /// `kSecClass` and `kSecUseDataProtectionKeychain`.
    static func base(_ itemClass: ItemClass) -> [String: Any] {
        [kSecClass as String: classValue(itemClass), kSecUseDataProtectionKeychain as String: true]
    }

    /// The search dictionary of a query (without return keys).
    static func search(_ query: ItemQuery) throws -> [String: Any] {
        var search = base(query.itemClass)
        try search.merge(dictionary(query.attributes)) { _, new in new }
        if let group = query.accessGroup { search[kSecAttrAccessGroup as String] = group }
        switch query.synchronizable {
        case .any: search[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        case .synchronizable: search[kSecAttrSynchronizable as String] = true
        case .notSynchronizable: search[kSecAttrSynchronizable as String] = false
        }
        return search
    }

    /// One item by its persistent reference, synchronizable or not.
    static func byReference(_ reference: Data, _ itemClass: ItemClass) -> [String: Any] {
        var lookup = base(itemClass)
        lookup[kSecValuePersistentRef as String] = reference
        lookup[kSecAttrSynchronizable as String] = kSecAttrSynchronizableAny
        return lookup
    }

    /// The matched items' persistent references and attributes, up to the query's limit.
    static func references(matching query: ItemQuery) throws -> [(Data, VaultItem)] {
        var search = try search(query)
        search[kSecReturnAttributes as String] = true
        search[kSecReturnPersistentRef as String] = true
        switch query.matchLimit {
        case .one: search[kSecMatchLimit as String] = kSecMatchLimitOne
        case .all: search[kSecMatchLimit as String] = kSecMatchLimitAll
        case .count(let count):
            // securityd reads a limit below 1 as "stop at the first match" (keychain/securityd/SecItemDb.c:1078) and
            // -1 as unlimited; the other stores refuse both.
            guard count >= 1 else {
                throw VaultError.invalidParameters("a match limit must be at least 1; got \(count)")
            }
            search[kSecMatchLimit as String] = count
        }
        var result: CFTypeRef?
        try check(SecItemCopyMatching(search as CFDictionary, &result), "searching \(query.itemClass.rawValue) items")
        // A limit of 1 (kSecMatchLimitOne or the number 1) returns the match itself, not an array of one
        // (keychain/securityd/SecItemDb.c:680, 1052).
        let found: [[String: Any]]
        if let many = result as? [[String: Any]] {
            found = many
        } else if let one = result as? [String: Any] {
            found = [one]
        } else {
            throw unexpected(result)
        }
        return try found.map { attributes in
            guard let reference = attributes[kSecValuePersistentRef as String] as? Data else {
                throw unexpected(result)
            }
            return (reference, item(attributes, query.itemClass))
        }
    }

    /// Throws the ``VaultError`` for a failing status.
    static func check(_ status: OSStatus, _ operation: String) throws {
        guard status != errSecSuccess else { return }
        throw error(status, operation)
    }

    /// The ``VaultError`` for a failing `OSStatus`: what failed, and what to do.
    static func error(_ status: OSStatus, _ operation: String) -> VaultError {
        if status == errSecUserCanceled {
            return VaultError.authFailed(
                "\(operation): the user canceled the authentication prompt (errSecUserCanceled, \(status)); ask again "
                    + "when the user acts")
        }
        switch VaultError.Code(osStatus: status) {
        case .duplicateItem?:
            return VaultError.duplicateItem(
                "\(operation): an item with this primary key already exists (errSecDuplicateItem); use update or upsert"
            )
        case .itemNotFound?:
            return VaultError.itemNotFound("\(operation): no keychain item matches (errSecItemNotFound)")
        case .interactionNotAllowed?:
            return VaultError.interactionNotAllowed(
                "\(operation): the item is not available now (errSecInteractionNotAllowed): the device is locked or "
                    + "no prompt can be shown; store items that background work reads as after-first-unlock")
        case .missingEntitlement?:
            return VaultError.missingEntitlement(
                "\(operation): the app is not entitled to this access group (errSecMissingEntitlement); add it to "
                    + "keychain-access-groups")
        case .authFailed?:
            return VaultError.authFailed(
                "\(operation): the user did not pass the authentication the item requires (errSecAuthFailed)")
        case .invalidParameters?:
            return VaultError.invalidParameters(
                "\(operation): the keychain refused the parameters (errSecParam), e.g. a synchronizable item that is "
                    + "this-device-only or access-controlled, or a match limit below 1")
        case .noSuchAttribute?:
            return VaultError.noSuchAttribute(
                "\(operation): an attribute does not exist for the class (errSecNoSuchAttr)")
        case .integrityFailure?:
            return VaultError.integrityFailure("\(operation): the keychain could not decode the item (errSecDecode)")
        case .notAvailable?:
            return VaultError.notAvailable("\(operation): no keychain is available (errSecNotAvailable)")
        default:
            return VaultError.ioFailure(
                "\(operation): the keychain failed with OSStatus \(status)", detail: "OSStatus \(status)")
        }
    }

    static func unexpected(_ result: CFTypeRef?) -> VaultError {
        VaultError.ioFailure(
            "the keychain returned a result of an unexpected type; this is a bug in KeychainStore",
            detail: result.map { "\(type(of: $0))" } ?? "nil")
    }
}
