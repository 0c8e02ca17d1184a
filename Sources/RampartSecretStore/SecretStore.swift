/// A store with Keychain semantics: add, update, read and delete items, as `SecItemAdd`, `SecItemUpdate`,
/// `SecItemCopyMatching` and `SecItemDelete`.
///
/// ``Vault`` is the implementation over any ``VaultBackend``. The extension adds ``upsert(_:)`` (the Keychain guide's
/// update-then-add pattern) and get/set/delete of a generic password by service and account.
public protocol SecretStore: Sendable {
    /// Adds an item; never overwrites.
    ///
    /// - Parameter item: The item.
    /// - Throws: ``VaultError/Code/duplicateItem`` when its primary key exists; ``VaultError/Code/invalidParameters``,
    ///   ``VaultError/Code/noSuchAttribute`` or ``VaultError/Code/missingEntitlement`` when it breaks a rule.
    func add(_ item: VaultItem) async throws

    /// Changes every item the query matches.
    ///
    /// - Parameters:
    ///   - query: Which items (its match limit is ignored).
    ///   - changes: What to change.
    /// - Throws: ``VaultError/Code/itemNotFound`` when nothing matches; ``VaultError/Code/duplicateItem`` when a
    ///   change collides with another item's primary key.
    func update(_ query: ItemQuery, with changes: ItemChanges) async throws

    /// Returns the items the query matches, up to its ``ItemQuery/matchLimit``, in a stable order.
    ///
    /// - Parameter query: What to find.
    /// - Returns: At least one item.
    /// - Throws: ``VaultError/Code/itemNotFound`` when nothing matches; ``VaultError/Code/interactionNotAllowed``
    ///   when a matched item is not readable now; ``VaultError/Code/integrityFailure`` when a stored item was altered.
    func read(_ query: ItemQuery) async throws -> [VaultItem]

    /// Deletes every item the query matches.
    ///
    /// - Parameter query: Which items (its match limit is ignored).
    /// - Throws: ``VaultError/Code/itemNotFound`` when nothing matches.
    func delete(_ query: ItemQuery) async throws
}

extension SecretStore {
    /// Updates the item with `item`'s primary key, or adds `item` when there is none.
    ///
    /// The Keychain guide's recommended pattern: try `SecItemUpdate`, and on `errSecItemNotFound` call `SecItemAdd`.
    /// If another writer adds the item in between, the update is retried.
    ///
    /// - Parameter item: The item to store.
    /// - Returns: `true` when the item was added, `false` when an existing one was updated.
    /// - Throws: Any rule violation from ``add(_:)`` or ``update(_:with:)``.
    @discardableResult
    public func upsert(_ item: VaultItem) async throws -> Bool {
        var query = ItemQuery(
            itemClass: item.itemClass,
            accessGroup: item.accessGroup,
            synchronizable: item.synchronizable ? .synchronizable : .notSynchronizable
        )
        let stored = item.attributes.withPrimaryKeyDefaults(for: item.itemClass)
        for name in item.itemClass.primaryKeyAttributes {
            query.attributes = query.attributes.merging(stored.only(name))
        }
        let changes = ItemChanges(
            attributes: item.attributes,
            value: item.value,
            accessibility: item.accessibility,
            accessControl: item.accessControl
        )
        do {
            try await update(query, with: changes)
            return false
        } catch let error as VaultError where error.code == .itemNotFound {
            do {
                try await add(item)
                return true
            } catch let error as VaultError where error.code == .duplicateItem {
                try await update(query, with: changes)
                return false
            }
        }
    }

    /// Reads the first item the query matches.
    ///
    /// - Parameter query: What to find; its match limit is replaced by ``MatchLimit/one``.
    /// - Returns: The item.
    /// - Throws: As ``read(_:)``.
    public func readOne(_ query: ItemQuery) async throws -> VaultItem {
        var query = query
        query.matchLimit = .one
        guard let item = try await read(query).first else { throw VaultError.itemNotFound() }
        return item
    }

    /// The secret stored as a generic password for `service` and `account`, or nil when there is none.
    ///
    /// - Parameters:
    ///   - service: The service, e.g. `api.example.com`.
    ///   - account: The account, e.g. `refresh_token`.
    /// - Returns: The secret, or nil.
    /// - Throws: Any failure other than "not found".
    public func secret(service: String, account: String) async throws -> [UInt8]? {
        do {
            return try await readOne(.genericPassword(service: service, account: account)).value
        } catch let error as VaultError where error.code == .itemNotFound {
            return nil
        }
    }

    /// Stores `value` as the generic password for `service` and `account`, replacing any previous value.
    ///
    /// - Parameters:
    ///   - value: The secret.
    ///   - service: The service.
    ///   - account: The account.
    ///   - accessibility: When it can be read; ``Accessibility/afterFirstUnlock`` by default, so background work can
    ///     use it.
    /// - Throws: A rule violation or backend failure.
    public func setSecret(
        _ value: [UInt8],
        service: String,
        account: String,
        accessibility: Accessibility = .afterFirstUnlock
    ) async throws {
        try await upsert(
            .genericPassword(service: service, account: account, value: value, accessibility: accessibility))
    }

    /// Deletes the generic password for `service` and `account`.
    ///
    /// - Parameters:
    ///   - service: The service.
    ///   - account: The account.
    /// - Returns: `true` when an item was deleted, `false` when there was none.
    /// - Throws: Any failure other than "not found".
    @discardableResult
    public func deleteSecret(service: String, account: String) async throws -> Bool {
        do {
            try await delete(.genericPassword(service: service, account: account))
            return true
        } catch let error as VaultError where error.code == .itemNotFound {
            return false
        }
    }
}

extension ItemAttributes {
    /// These attributes with every unset primary-key attribute of `itemClass` set to its empty value (`""`, no bytes,
    /// port 0), as Keychain Services stores them, so a primary key always has every field.
    ///
    /// - Parameter itemClass: The item's class.
    /// - Returns: The completed attributes.
    public func withPrimaryKeyDefaults(for itemClass: ItemClass) -> ItemAttributes {
        var result = self
        for name in itemClass.primaryKeyAttributes where bytes(of: name) == nil {
            switch Self.field(name) {
            case .text(let keyPath): result[keyPath: keyPath] = ""
            case .bytes(let keyPath): result[keyPath: keyPath] = []
            case .port: result.port = 0
            }
        }
        return result
    }

    /// These attributes with only `name` kept.
    func only(_ name: Name) -> ItemAttributes {
        var result = ItemAttributes()
        switch Self.field(name) {
        case .text(let keyPath): result[keyPath: keyPath] = self[keyPath: keyPath]
        case .bytes(let keyPath): result[keyPath: keyPath] = self[keyPath: keyPath]
        case .port: result.port = port
        }
        return result
    }
}
