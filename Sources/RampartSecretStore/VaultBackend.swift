/// Where a ``Vault`` keeps its items: the one protocol every backend implements.
///
/// A backend stores and finds items; it does not apply the Keychain rules (entitlements, accessibility,
/// synchronizable restrictions, match limits), which ``Vault`` enforces the same way for every backend. Each
/// operation is atomic: a failure leaves the store as it was. The shared contract suite in the tests runs against
/// every backend through ``Vault``.
public protocol VaultBackend: Sendable {
    /// Stores a new item.
    ///
    /// - Parameter item: The item, with its access group and dates already resolved.
    /// - Throws: ``VaultError/Code/duplicateItem`` when an item with the same ``PrimaryKey`` exists.
    func insert(_ item: VaultItem) async throws

    /// Returns every stored item the filter matches, with values.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: The items, in any order.
    /// - Throws: ``VaultError/Code/integrityFailure`` when a stored item fails authentication.
    func items(matching filter: ItemFilter) async throws -> [VaultItem]

    /// Replaces every matched item with `transform` of it, all or nothing.
    ///
    /// - Parameters:
    ///   - filter: What to match.
    ///   - transform: Computes the new item; when it throws, nothing is changed and the error is rethrown.
    /// - Returns: How many items were changed.
    /// - Throws: ``VaultError/Code/duplicateItem`` when a new primary key is taken by another item.
    func update(matching filter: ItemFilter, _ transform: @Sendable (VaultItem) throws -> VaultItem) async throws -> Int

    /// Removes every matched item.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: How many items were removed.
    /// - Throws: A backend failure.
    func delete(matching filter: ItemFilter) async throws -> Int
}

/// The backend-level form of a query: class, attribute filters, visible groups and synchronizable flag.
public struct ItemFilter: Hashable {
    /// The class to match.
    public var itemClass: ItemClass
    /// Equality filters.
    public var attributes: ItemAttributes
    /// The groups to search; nil for all.
    public var accessGroups: Set<String>?
    /// The synchronizable flag to match; nil for either.
    public var synchronizable: Bool?

    /// Creates a filter.
    ///
    /// - Parameters:
    ///   - itemClass: The class.
    ///   - attributes: Equality filters.
    ///   - accessGroups: Groups to search; nil for all.
    ///   - synchronizable: The flag to match; nil for either.
    public init(
        itemClass: ItemClass,
        attributes: ItemAttributes = ItemAttributes(),
        accessGroups: Set<String>? = nil,
        synchronizable: Bool? = nil
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.accessGroups = accessGroups
        self.synchronizable = synchronizable
    }

    /// Whether `item` matches. Backends may narrow their search first but must confirm with this.
    ///
    /// - Parameter item: A stored item.
    /// - Returns: `true` on a match.
    public func matches(_ item: VaultItem) -> Bool {
        guard item.itemClass == itemClass, attributes.isMatched(by: item.attributes) else { return false }
        if let accessGroups {
            guard let group = item.accessGroup, accessGroups.contains(group) else { return false }
        }
        if let synchronizable, item.synchronizable != synchronizable { return false }
        return true
    }
}

extension ItemFilter: Sendable {}
