import RampartCrypto

/// A ``VaultBackend`` that keeps items in memory, for tests and short-lived processes.
///
/// Nothing is encrypted and nothing survives the process. Lookups by class, service and account use an index; other
/// filters scan.
public final class InMemoryBackend: VaultBackend {
    private struct NameKey: Hashable {
        let itemClass: ItemClass
        let service: String?
        let account: String?

        init(_ item: VaultItem) {
            itemClass = item.itemClass
            service = item.attributes.service
            account = item.attributes.account
        }

        init?(_ filter: ItemFilter) {
            guard let service = filter.attributes.service, let account = filter.attributes.account else { return nil }
            itemClass = filter.itemClass
            self.service = service
            self.account = account
        }
    }

    private struct Storage {
        var items: [PrimaryKey: VaultItem] = [:]
        var byName: [NameKey: Set<PrimaryKey>] = [:]

        mutating func insert(_ item: VaultItem, key: PrimaryKey) {
            items[key] = item
            byName[NameKey(item), default: []].insert(key)
        }

        mutating func remove(_ key: PrimaryKey) {
            guard let item = items.removeValue(forKey: key) else { return }
            byName[NameKey(item)]?.remove(key)
        }

        func matching(_ filter: ItemFilter) -> [PrimaryKey: VaultItem] {
            if let name = NameKey(filter) {
                var result: [PrimaryKey: VaultItem] = [:]
                for key in byName[name] ?? [] {
                    if let item = items[key], filter.matches(item) { result[key] = item }
                }
                return result
            }
            return items.filter { filter.matches($0.value) }
        }
    }

    private let storage = Locked(Storage())

    /// Creates an empty store.
    public init() {}

    /// Stores a new item.
    ///
    /// - Parameter item: The item.
    /// - Throws: ``VaultError/Code/duplicateItem`` when its primary key exists.
    public func insert(_ item: VaultItem) async throws {
        try storage.withLock { storage in
            let key = item.primaryKey
            guard storage.items[key] == nil else { throw VaultError.duplicateItem() }
            storage.insert(item, key: key)
        }
    }

    /// Returns the matched items.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: The items.
    /// - Throws: Never; the signature is the protocol's.
    public func items(matching filter: ItemFilter) async throws -> [VaultItem] {
        storage.withLock { storage in Array(storage.matching(filter).values) }
    }

    /// Replaces the matched items, all or nothing.
    ///
    /// - Parameters:
    ///   - filter: What to match.
    ///   - transform: The change.
    /// - Returns: How many changed.
    /// - Throws: ``VaultError/Code/duplicateItem`` on a collision, or what `transform` throws.
    public func update(
        matching filter: ItemFilter,
        _ transform: @Sendable (VaultItem) throws -> VaultItem
    ) async throws -> Int {
        try storage.withLock { storage in
            let matched = storage.matching(filter)
            var replacements: [PrimaryKey: VaultItem] = [:]
            for item in matched.values {
                let new = try transform(item)
                let key = new.primaryKey
                let taken = replacements[key] != nil || (storage.items[key] != nil && matched[key] == nil)
                guard !taken else { throw VaultError.duplicateItem() }
                replacements[key] = new
            }
            for key in matched.keys { storage.remove(key) }
            for (key, item) in replacements { storage.insert(item, key: key) }
            return matched.count
        }
    }

    /// Removes the matched items.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: How many were removed.
    /// - Throws: Never; the signature is the protocol's.
    public func delete(matching filter: ItemFilter) async throws -> Int {
        storage.withLock { storage in
            let keys = storage.matching(filter).keys
            for key in keys { storage.remove(key) }
            return keys.count
        }
    }
}

extension InMemoryBackend: Sendable {}
