import Synchronization

/// A ``VaultBackend`` that keeps items in memory, for tests and short-lived processes.
///
/// Nothing is encrypted and nothing survives the process.
public final class InMemoryBackend: VaultBackend {
    private let storage = Mutex<[PrimaryKey: VaultItem]>([:])

    /// Creates an empty store.
    public init() {}

    /// Stores a new item.
    ///
    /// - Parameter item: The item.
    /// - Throws: ``VaultError/Code/duplicateItem`` when its primary key exists.
    public func insert(_ item: VaultItem) async throws {
        try storage.withLock { items in
            let key = item.primaryKey
            guard items[key] == nil else { throw VaultError.duplicateItem() }
            items[key] = item
        }
    }

    /// Returns the matched items.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: The items.
    /// - Throws: Never; the signature is the protocol's.
    public func items(matching filter: ItemFilter) async throws -> [VaultItem] {
        storage.withLock { items in items.values.filter(filter.matches) }
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
        try storage.withLock { items in
            var next = items
            let matched = items.filter { filter.matches($0.value) }
            for key in matched.keys { next[key] = nil }
            for item in matched.values {
                let new = try transform(item)
                let key = new.primaryKey
                guard next[key] == nil else { throw VaultError.duplicateItem() }
                next[key] = new
            }
            items = next
            return matched.count
        }
    }

    /// Removes the matched items.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: How many were removed.
    /// - Throws: Never; the signature is the protocol's.
    public func delete(matching filter: ItemFilter) async throws -> Int {
        storage.withLock { items in
            let keys = items.filter { filter.matches($0.value) }.keys
            for key in keys { items[key] = nil }
            return keys.count
        }
    }
}

extension InMemoryBackend: Sendable {}
