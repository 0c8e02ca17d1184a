import Foundation
import RampartCrypto
import RampartSecretStore
import Synchronization

// https://developer.apple.com/documentation/security/secitemadd(_:_:)
/// Adds one or more items to a keychain (Apple: `func SecItemAdd(_ attributes: CFDictionary,
/// _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus`).
///
/// As documented: `errSecDuplicateItem` when an item with the same composite primary key exists; `errSecParam`
/// without a known `kSecClass`, with `kSecAttrSynchronizableAny`, with both `kSecAttrAccessible` and
/// `kSecAttrAccessControl`, or with a synchronizable item that is `…ThisDeviceOnly` or access-controlled;
/// `errSecMissingEntitlement` for an access group the app is not entitled to; `errSecInteractionNotAllowed` when the
/// item's protection class is unavailable in the device's lock state.
///
/// - Parameters:
///   - attributes: The item's class, attributes and `kSecValueData`.
///   - result: Receives what the `kSecReturn…` keys ask for, or pass nil.
/// - Returns: A result code.
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    KeychainEngine.run { try KeychainEngine.add(attributes, result) }
}

// https://developer.apple.com/documentation/security/secitemcopymatching(_:_:)
/// Returns one or more keychain items that match a search query, or copies attributes of specific keychain items
/// (Apple: `func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) ->
/// OSStatus`).
///
/// As documented: one match unless `kSecMatchLimit` says otherwise (then an array; but a limit of 1, as
/// `kSecMatchLimitOne` or the number 1, gives the match itself, as securityd does: keychain/securityd/SecItemDb.c:1052);
/// a dictionary when more than one `kSecReturn…` key is set; numeric attributes (`kSecAttrKeyType`,
/// `kSecAttrKeyClass`, `kSecAttrPort`, `kSecAttrSynchronizable`, …) come back as numbers (``KeychainSchema``);
/// the shapes `KeychainEngine.output` describes; without `kSecAttrSynchronizable` only
/// non-synchronizable items match. The documentation advises against `kSecReturnData` with `kSecMatchLimitAll` on
/// password items, but securityd does not refuse it.
///
/// - Parameters:
///   - query: The class, attribute filters, `kSecMatchLimit` and `kSecReturn…` keys.
///   - result: Receives the match or matches.
/// - Returns: A result code (`errSecItemNotFound` when nothing matches).
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus {
    KeychainEngine.run { try KeychainEngine.copyMatching(query, result) }
}

// https://developer.apple.com/documentation/security/secitemupdate(_:_:)
/// Modifies items that match a search query (Apple: `func SecItemUpdate(_ query: CFDictionary,
/// _ attributesToUpdate: CFDictionary) -> OSStatus`).
///
/// - Parameters:
///   - query: Which items.
///   - attributesToUpdate: The new attribute values and `kSecValueData`.
/// - Returns: A result code (`errSecItemNotFound`, `errSecDuplicateItem` when a new primary key is taken; all or
///   nothing).
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus {
    KeychainEngine.run { try KeychainEngine.update(query, attributesToUpdate) }
}

// https://developer.apple.com/documentation/security/secitemdelete(_:)
/// Deletes items that match a search query (Apple: `func SecItemDelete(_ query: CFDictionary) -> OSStatus`).
///
/// - Parameter query: Which items.
/// - Returns: A result code (`errSecItemNotFound` when nothing matches).
public func SecItemDelete(_ query: CFDictionary) -> OSStatus {
    KeychainEngine.run { try KeychainEngine.delete(query) }
}

/// The rules behind the four `SecItem` functions.
enum KeychainEngine {
    static func run(_ body: () throws -> Void) -> OSStatus {
        do {
            try body()
            return errSecSuccess
        } catch let status as Status {
            return status.code
        } catch {
            return errSecParam
        }
    }

    static var conditions: SimulatedKeychain.Conditions { SimulatedKeychain.conditions }

    // MARK: Add

    static func add(_ given: [String: Any], _ result: UnsafeMutablePointer<CFTypeRef?>?) throws {
        // A key added by kSecValueRef brings its own attributes (class, type, size, and kSecAttrApplicationLabel, the
        // public key's hash), each unless the dictionary names it: SecItemAttributesPrepare merges the key's
        // attribute dictionary in (OSX/sec/Security/SecItem.m:1377-1395).
        var attributes = given
        if let key = given[kSecValueRef] as? SecKey {
            attributes.merge(key.keychainAttributes) { named, _ in named }
        }
        let itemClass = try itemClass(of: attributes)
        var stored = try KeychainSchema.attributes(of: attributes, itemClass: itemClass).get()
        for name in KeychainSchema.primaryKeys[itemClass] ?? [] where stored[name] == nil {
            stored[name] = KeychainSchema.empty(name)
        }
        if attributes[kSecAttrSynchronizable] as? String == kSecAttrSynchronizableAny { throw Status(errSecParam) }
        let synchronizable = try flag(attributes[kSecAttrSynchronizable]) ?? false
        let group: String
        if let named = attributes[kSecAttrAccessGroup] {
            guard let named = named as? String else { throw Status(errSecParam) }
            group = named
        } else {
            guard let first = conditions.entitlements.defaultGroup else { throw Status(errSecMissingEntitlement) }
            group = first
        }
        guard conditions.entitlements.allows(group) else { throw Status(errSecMissingEntitlement) }
        let (protection, accessControl) = try protection(of: attributes, default: kSecAttrAccessibleWhenUnlocked)
        let key = attributes[kSecValueRef].map { $0 as? SecKey }
        if case .some(.none) = key { throw Status(errSecParam) }
        if key != nil, KeychainSchema.passwordClasses.contains(itemClass) { throw Status(errSecParam) }
        let data: Data
        if let value = attributes[kSecValueData] {
            guard let value = value as? Data else { throw Status(errSecParam) }
            data = value
        } else {
            data = Data()
        }
        let date = conditions.now()
        var item = StoredItem(
            itemClass: itemClass, attributes: stored, accessGroup: group, synchronizable: synchronizable,
            protection: protection, accessControl: accessControl, biometryBinding: nil, data: data, key: key ?? nil,
            persistentRef: Data(SecureRandom.bytes(count: 16)), created: date, modified: date)
        try checkStorable(item)
        try checkWritable(item)
        item.biometryBinding = try binding(for: accessControl)
        let added = item
        try SimulatedKeychain.current.items.withLock { items in
            guard !items.contains(where: { $0.primaryKey == added.primaryKey }) else {
                throw Status(errSecDuplicateItem)
            }
            items.append(added)
        }
        if let result { result.pointee = try output([added], for: attributes, limit: 1, single: true) }
    }

    // MARK: Copy matching

    static func copyMatching(_ query: [String: Any], _ result: UnsafeMutablePointer<CFTypeRef?>?) throws {
        let itemClass = try itemClass(of: query)
        let (limit, single) = try matchLimit(query)
        // securityd refuses neither kSecReturnData with kSecMatchLimitAll on password items (the documentation only
        // advises against it) nor kSecReturnRef on them: SecServerItemCopyMatchingWithCustomDb has no such check
        // (keychain/securityd/SecItemServer.c:2542-2650), and every value comes back.
        let returnsData = try flag(query[kSecReturnData]) ?? false
        let returnsRef = try flag(query[kSecReturnRef]) ?? false
        let filter = try Filter(query, itemClass: itemClass)
        let matched = Array(SimulatedKeychain.current.items.withLock { $0.filter(filter.matches) }.prefix(limit))
        guard !matched.isEmpty else { throw Status(errSecItemNotFound) }
        // A reference needs the item's data too (handle_result asks for it with kSecReturnRef,
        // keychain/securityd/SecItemDb.c:257), so a password read by reference passes its checks like a data read.
        let decrypts = returnsData || (returnsRef && KeychainSchema.passwordClasses.contains(itemClass))
        if decrypts { for item in matched { try checkReadable(item) } }
        let value = try output(matched, for: query, limit: limit, single: single)
        result?.pointee = value
    }

    // MARK: Update

    static func update(_ query: [String: Any], _ changes: [String: Any]) throws {
        let itemClass = try itemClass(of: query)
        // An update returns nothing: any kSecReturn… key is refused (errSecReturnDataUnsupported and its siblings,
        // which base/SecBasePriv.h:78-81 defines as errSecParam; keychain/securityd/SecItemServer.c:3192-3200).
        for key in [kSecReturnData, kSecReturnAttributes, kSecReturnRef, kSecReturnPersistentRef]
        where try flag(query[key]) == true {
            throw Status(errSecParam)
        }
        guard changes[kSecClass] == nil, changes[kSecAttrSynchronizable] as? String != kSecAttrSynchronizableAny
        else { throw Status(errSecParam) }
        let filter = try Filter(query, itemClass: itemClass)
        let newAttributes = try KeychainSchema.attributes(of: changes, itemClass: itemClass).get()
        let newGroup = try changes[kSecAttrAccessGroup].map { value -> String in
            guard let group = value as? String else { throw Status(errSecParam) }
            guard conditions.entitlements.allows(group) else { throw Status(errSecMissingEntitlement) }
            return group
        }
        let newSynchronizable = try flag(changes[kSecAttrSynchronizable])
        let newData = try changes[kSecValueData].map { value -> Data in
            guard let data = value as? Data else { throw Status(errSecParam) }
            return data
        }
        let hasProtection = changes[kSecAttrAccessible] != nil || changes[kSecAttrAccessControl] != nil
        let newProtection = hasProtection ? try protection(of: changes, default: kSecAttrAccessibleWhenUnlocked) : nil
        let newBinding = try newProtection.map { try binding(for: $0.1) }
        let date = conditions.now()
        try SimulatedKeychain.current.items.withLock { items in
            let indices = items.indices.filter { filter.matches(items[$0]) }
            guard !indices.isEmpty else { throw Status(errSecItemNotFound) }
            var updated = items
            for index in indices {
                let old = items[index]
                try checkWritable(old)
                var new = old
                new.attributes.merge(newAttributes) { _, changed in changed }
                if let newGroup { new.accessGroup = newGroup }
                if let newSynchronizable { new.synchronizable = newSynchronizable }
                if let newData { new.data = newData }
                if let (protection, accessControl) = newProtection {
                    new.protection = protection
                    if changes[kSecAttrAccessControl] != nil {
                        new.accessControl = accessControl
                        new.biometryBinding = newBinding ?? nil
                    }
                }
                try checkStorable(new)
                new.modified = date
                updated[index] = new
            }
            let keys = updated.map(\.primaryKey)
            guard Set(keys).count == keys.count else { throw Status(errSecDuplicateItem) }
            items = updated
        }
    }

    // MARK: Delete

    static func delete(_ query: [String: Any]) throws {
        let itemClass = try itemClass(of: query)
        // A delete takes every match: a kSecMatchLimit other than all is errSecMatchLimitUnsupported, which
        // base/SecBasePriv.h:85 defines as errSecParam (keychain/securityd/SecItemServer.c:3292).
        if query[kSecMatchLimit] != nil, try matchLimit(query).0 != Int.max { throw Status(errSecParam) }
        let filter = try Filter(query, itemClass: itemClass)
        try SimulatedKeychain.current.items.withLock { items in
            let before = items.count
            items.removeAll(where: filter.matches)
            guard items.count < before else { throw Status(errSecItemNotFound) }
        }
    }

    // MARK: Rules

    static func itemClass(of dictionary: [String: Any]) throws -> String {
        guard let itemClass = dictionary[kSecClass] as? String, KeychainSchema.classes.contains(itemClass) else {
            throw Status(errSecParam)
        }
        return itemClass
    }

    /// A Boolean key's value; `errSecParam` for a non-Boolean.
    static func flag(_ value: Any?) throws -> Bool? {
        guard let value else { return nil }
        guard let flag = value as? Bool else { throw Status(errSecParam) }
        return flag
    }

    /// The protection class and access control of a dictionary that sets `kSecAttrAccessible` or
    /// `kSecAttrAccessControl` (never both: `errSecParam`).
    static func protection(of dictionary: [String: Any], default: String) throws -> (String, SecAccessControl?) {
        switch (dictionary[kSecAttrAccessible], dictionary[kSecAttrAccessControl]) {
        case (.some, .some): throw Status(errSecParam)
        case (.some(let value), nil):
            guard let protection = value as? String, KeychainProtection(protection) != nil else {
                throw Status(errSecParam)
            }
            return (protection, nil)
        case (nil, .some(let value)):
            guard let accessControl = value as? SecAccessControl else { throw Status(errSecParam) }
            return (accessControl.protection, accessControl)
        case (nil, nil): return (`default`, nil)
        }
    }

    /// `…ThisDeviceOnly` and access-controlled items cannot be synchronizable.
    static func checkStorable(_ item: StoredItem) throws {
        guard item.synchronizable else { return }
        let thisDeviceOnly = KeychainProtection(item.protection)?.thisDeviceOnly ?? true
        let userChecks = item.accessControl.map { !$0.flags.userChecks.isEmpty } ?? false
        if thisDeviceOnly || userChecks { throw Status(errSecParam) }
    }

    static func isAvailable(_ protection: String) -> Bool {
        switch (KeychainProtection(protection)?.availability, conditions.lockState) {
        case (_, .unlocked): true
        case (.afterFirstUnlock, .lockedAfterFirstUnlock): true
        default: false
        }
    }

    /// The protection class's key must be available to write.
    static func checkWritable(_ item: StoredItem) throws {
        guard isAvailable(item.protection) else { throw Status(errSecInteractionNotAllowed) }
    }

    /// The data of an item is readable when its class key is available and the user passes its checks.
    static func checkReadable(_ item: StoredItem) throws {
        try checkWritable(item)
        guard let accessControl = item.accessControl else { return }
        try authenticate(accessControl, binding: item.biometryBinding)
    }

    /// Asks the simulated user to pass `accessControl`'s checks.
    static func authenticate(_ accessControl: SecAccessControl, binding: [UInt8]?) throws {
        let checks = accessControl.flags.userChecks
        guard !checks.isEmpty else { return }
        if checks.contains(.biometryCurrentSet) {
            guard let binding, let enrollment = conditions.biometryEnrollment,
                ConstantTime.isEqual(binding, RampartCrypto.SHA256.hash(enrollment))
            else { throw Status(errSecAuthFailed) }
        }
        guard let answer = conditions.userAuthentication else { throw Status(errSecInteractionNotAllowed) }
        switch answer(checks) {
        case .succeeded: return
        case .failed: throw Status(errSecAuthFailed)
        case .canceled: throw Status(errSecUserCanceled)
        }
    }

    /// The enrollment digest a `biometryCurrentSet` item is bound to.
    static func binding(for accessControl: SecAccessControl?) throws -> [UInt8]? {
        guard let accessControl, accessControl.flags.contains(.biometryCurrentSet) else { return nil }
        // Not documented by Apple: with no biometry enrolled the item could never be read, so the simulation refuses
        // to create it.
        guard let enrollment = conditions.biometryEnrollment else { throw Status(errSecInteractionNotAllowed) }
        return RampartCrypto.SHA256.hash(enrollment)
    }

    /// `kSecMatchLimit`: how many, and whether a single value (not an array) comes back.
    ///
    /// As securityd reads it (apple-oss-distributions/Security): `kSecMatchLimitOne` and the number 1 both set the
    /// limit to 1 (keychain/securityd/SecDbQuery.c:476-484), and a limit of 1 gives the one result itself, not an
    /// array (keychain/securityd/SecItemDb.c:680 and 1052); `kSecMatchLimitAll` and -1 (`kSecMatchUnlimited`, which is
    /// `kCFNotFound`) give every match; any other number stops at the first row that reaches it (SecItemDb.c:1078),
    /// so 0 and negative limits give an array of one item.
    static func matchLimit(_ query: [String: Any]) throws -> (Int, Bool) {
        guard let value = query[kSecMatchLimit] else { return (1, true) }
        if let text = value as? String {
            if text == kSecMatchLimitOne { return (1, true) }
            if text == kSecMatchLimitAll { return (Int.max, false) }
            throw Status(errSecParam)
        }
        guard let count = value as? Int else { throw Status(errSecParam) }
        if count == -1 { return (Int.max, false) }
        return (max(count, 1), count == 1)
    }

    /// What a query or add returns for `items`, shaped as securityd's `handle_result` builds it
    /// (keychain/securityd/SecItemDb.c:456-540) and the client's `SecItemResultCopyPrepared` finishes it
    /// (OSX/sec/Security/SecItem.m:1093-1300):
    /// - one `kSecReturn…` key: the data, the persistent reference or the reference itself; a password item has no
    ///   reference on iOS (`SecItemCreateFromAttributeDictionary` makes keys and certificates only, SecItem.m:442-468),
    ///   so `kSecReturnRef` alone gives nothing, and such items are left out of an array (SecItem.m:1319-1325);
    /// - several: a dictionary of the attributes securityd returns, which carries `kSecClass` only when a reference
    ///   is asked for (SecItemDb.c:494-495), `kSecAttrSynchronizable` as the number 0 or 1 (the `sync` column is a
    ///   number, SecItemSchema.c:88, SecDbItem.c:944-948 `copyNumber`), the data when asked for, and with
    ///   `kSecReturnRef` the reference as `kSecValueRef`, the data then removed unless asked for (SecItem.m:1270-1281;
    ///   a password, having no reference, keeps it).
    static func output(_ items: [StoredItem], for query: [String: Any], limit: Int, single: Bool) throws -> CFTypeRef? {
        let wantsData = try flag(query[kSecReturnData]) ?? false
        let wantsAttributes = try flag(query[kSecReturnAttributes]) ?? false
        let wantsRef = try flag(query[kSecReturnRef]) ?? false
        let wantsPersistentRef = try flag(query[kSecReturnPersistentRef]) ?? false
        let count = [wantsData, wantsAttributes, wantsRef, wantsPersistentRef].filter { $0 }.count
        guard count > 0 else { return nil }
        func value(_ item: StoredItem) -> Any? {
            if count == 1 {
                if wantsData { return item.data }
                if wantsPersistentRef { return item.persistentRef }
                if wantsRef { return item.key }
            }
            var dictionary: [String: Any] = [:]
            // A reference asks securityd for the attributes too (SecItemDb.c:257-258).
            if wantsAttributes || wantsRef {
                for (name, value) in item.attributes { dictionary[name] = value.any }
                dictionary[kSecAttrAccessGroup] = item.accessGroup
                dictionary[kSecAttrAccessible] = item.protection
                dictionary[kSecAttrSynchronizable] = item.synchronizable ? 1 : 0
                dictionary[kSecAttrCreationDate] = item.created
                dictionary[kSecAttrModificationDate] = item.modified
                if let accessControl = item.accessControl { dictionary[kSecAttrAccessControl] = accessControl }
            }
            if wantsRef {
                dictionary[kSecClass] = item.itemClass
                if let key = item.key { dictionary[kSecValueRef] = key }
            }
            if wantsData || (wantsRef && item.key == nil) { dictionary[kSecValueData] = item.data }
            if wantsPersistentRef { dictionary[kSecValuePersistentRef] = item.persistentRef }
            return dictionary
        }
        if single { return items.first.flatMap(value).map { $0 as AnyObject } }
        return items.prefix(limit).compactMap(value) as AnyObject
    }

    /// A query's filters.
    struct Filter {
        let itemClass: String
        let attributes: [String: AttributeValue]
        let groups: Set<String>?
        let synchronizable: Bool?
        let persistentRef: Data?

        init(_ query: [String: Any], itemClass: String) throws {
            self.itemClass = itemClass
            attributes = try KeychainSchema.attributes(of: query, itemClass: itemClass).get()
            let entitlements = KeychainEngine.conditions.entitlements
            if let group = query[kSecAttrAccessGroup] {
                guard let group = group as? String else { throw Status(errSecParam) }
                guard entitlements.allows(group) else { throw Status(errSecMissingEntitlement) }
                groups = [group]
            } else {
                groups = entitlements.isUnrestricted ? nil : Set(entitlements.accessGroups)
            }
            if query[kSecAttrSynchronizable] as? String == kSecAttrSynchronizableAny {
                synchronizable = nil
            } else {
                synchronizable = try KeychainEngine.flag(query[kSecAttrSynchronizable]) ?? false
            }
            persistentRef = try query[kSecValuePersistentRef].map { value in
                guard let data = value as? Data else { throw Status(errSecParam) }
                return data
            }
        }

        func matches(_ item: StoredItem) -> Bool {
            guard item.itemClass == itemClass else { return false }
            for (name, value) in attributes where (item.attributes[name] ?? KeychainSchema.empty(name)) != value {
                return false
            }
            if let groups, !groups.contains(item.accessGroup) { return false }
            if let synchronizable, item.synchronizable != synchronizable { return false }
            if let persistentRef, item.persistentRef != persistentRef { return false }
            return true
        }
    }
}
