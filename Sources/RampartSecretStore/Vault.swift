public import Foundation
import RampartCrypto

/// A ``SecretStore`` that applies the Keychain's rules over any ``VaultBackend``.
///
/// `Vault` is where the rules live, so every backend behaves the same:
/// - attributes must belong to the item's class (``VaultError/Code/noSuchAttribute``);
/// - unset primary-key attributes are stored empty, and the primary key is (class, primary-key attributes, access
///   group, synchronizable): label and accessibility are not part of it;
/// - `…ThisDeviceOnly` accessibility or access control cannot be synchronizable
///   (``VaultError/Code/invalidParameters``);
/// - access groups must be in the caller's ``Entitlements`` (``VaultError/Code/missingEntitlement``), and queries see
///   only entitled groups;
/// - values are readable only in the lock states their ``Accessibility`` allows
///   (``VaultError/Code/interactionNotAllowed``), and items with ``AccessControl`` ask the ``UserAuthenticator``;
/// - text attributes and access groups are kept whole, NUL included: `alice\0evil` is not `alice` on any backend
///   (see <doc:StoringSecrets>).
///
/// ```swift
/// let vault = Vault(backend: InMemoryBackend())
/// try await vault.setSecret(Array("r1.abc".utf8), service: "api.example.com", account: "refresh_token")
/// let token = try await vault.secret(service: "api.example.com", account: "refresh_token")
/// ```
public struct Vault: SecretStore {
    /// Asks the user to pass the checks an item's ``AccessControl`` names (Face ID, Touch ID, passcode); returns
    /// whether they did. The string is the query's ``ItemQuery/authenticationPrompt``.
    public typealias UserAuthenticator = @Sendable (AccessControl, String) async -> Bool

    /// Where items are kept.
    public let backend: any VaultBackend
    /// The caller's access groups.
    public let entitlements: Entitlements
    private let lockState: @Sendable () -> DeviceLockState
    private let authenticator: UserAuthenticator?
    private let biometryEnrollment: @Sendable () -> [UInt8]?
    private let now: @Sendable () -> Date

    /// Creates a vault.
    ///
    /// - Parameters:
    ///   - backend: Where items are kept.
    ///   - entitlements: The caller's access groups; unrestricted by default.
    ///   - lockState: The device's lock state; always unlocked by default (servers and tools).
    ///   - authenticator: Answers access-control checks; without one, reading an item with access control fails
    ///     with ``VaultError/Code/interactionNotAllowed``.
    ///   - biometryEnrollment: The current biometric enrollment state (what `LAContext.evaluatedPolicyDomainState`
    ///     gives on Apple platforms), or nil when none is enrolled. ``AccessControl/biometryCurrentSet`` items are
    ///     bound to it when stored and become unreadable when it changes.
    ///   - now: The clock for creation and modification dates.
    public init(
        backend: any VaultBackend,
        entitlements: Entitlements = .unrestricted(),
        lockState: @escaping @Sendable () -> DeviceLockState = { .unlocked },
        authenticator: UserAuthenticator? = nil,
        biometryEnrollment: @escaping @Sendable () -> [UInt8]? = { nil },
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.backend = backend
        self.entitlements = entitlements
        self.lockState = lockState
        self.authenticator = authenticator
        self.biometryEnrollment = biometryEnrollment
        self.now = now
    }

    /// Adds an item; never overwrites.
    ///
    /// - Parameter item: The item; a nil access group means ``Entitlements/defaultGroup``.
    /// - Throws: ``VaultError/Code/duplicateItem``, ``VaultError/Code/invalidParameters``,
    ///   ``VaultError/Code/noSuchAttribute``, ``VaultError/Code/missingEntitlement`` or
    ///   ``VaultError/Code/interactionNotAllowed`` (adding an item its accessibility forbids writing in this lock
    ///   state).
    public func add(_ item: VaultItem) async throws {
        var item = item
        try Self.checkAttributes(item.attributes, for: item.itemClass)
        item.attributes = item.attributes.withPrimaryKeyDefaults(for: item.itemClass)
        guard let group = item.accessGroup ?? entitlements.defaultGroup else {
            throw VaultError.missingEntitlement(
                "the caller has no access group to add to; give the Vault Entitlements with at least one group")
        }
        try checkEntitled(group)
        item.accessGroup = group
        try Self.checkStorable(item)
        guard item.accessibility.isReadable(in: lockState()) else {
            throw VaultError.interactionNotAllowed(
                "an item accessible \(item.accessibility.rawValue) cannot be written while the device is "
                    + "\(lockState().rawValue)")
        }
        item.biometryBinding = try binding(for: item.accessControl)
        let date = now()
        item.creationDate = date
        item.modificationDate = date
        try await backend.insert(item)
    }

    /// Changes every item the query matches.
    ///
    /// - Parameters:
    ///   - query: Which items.
    ///   - changes: What to change.
    /// - Throws: ``VaultError/Code/itemNotFound`` when nothing matches, ``VaultError/Code/duplicateItem`` on a
    ///   primary-key collision, or a rule violation.
    public func update(_ query: ItemQuery, with changes: ItemChanges) async throws {
        let filter = try filter(for: query)
        try Self.checkAttributes(changes.attributes, for: query.itemClass)
        if let group = changes.accessGroup { try checkEntitled(group) }
        let state = lockState()
        let date = now()
        let newBinding = try changes.accessControl.map { try binding(for: $0) }
        let count = try await backend.update(matching: filter) { old in
            guard old.accessibility.isReadable(in: state) else {
                throw VaultError.interactionNotAllowed(
                    "an item accessible \(old.accessibility.rawValue) cannot be changed while the device is "
                        + "\(state.rawValue)")
            }
            var new = old
            new.attributes = old.attributes.merging(changes.attributes)
            if let value = changes.value { new.value = value }
            if let group = changes.accessGroup { new.accessGroup = group }
            if let accessibility = changes.accessibility { new.accessibility = accessibility }
            if let synchronizable = changes.synchronizable { new.synchronizable = synchronizable }
            if let accessControl = changes.accessControl {
                new.accessControl = accessControl
                new.biometryBinding = newBinding ?? nil
            }
            try Self.checkStorable(new)
            new.modificationDate = date
            return new
        }
        guard count > 0 else { throw VaultError.itemNotFound() }
    }

    /// Returns the matched items, up to the match limit, ordered by creation date then primary key.
    ///
    /// - Parameter query: What to find.
    /// - Returns: At least one item; values are empty when ``ItemQuery/returnData`` is off.
    /// - Throws: ``VaultError/Code/itemNotFound``, ``VaultError/Code/interactionNotAllowed``,
    ///   ``VaultError/Code/authFailed`` (the user check failed), ``VaultError/Code/integrityFailure`` or a rule
    ///   violation.
    public func read(_ query: ItemQuery) async throws -> [VaultItem] {
        let filter = try filter(for: query)
        var items = try await backend.items(matching: filter).filter(filter.matches)
        guard !items.isEmpty else { throw VaultError.itemNotFound() }
        items.sort { lhs, rhs in
            let left = lhs.creationDate ?? .distantPast
            let right = rhs.creationDate ?? .distantPast
            return left != right ? left < right : lhs.primaryKey < rhs.primaryKey
        }
        switch query.matchLimit {
        case .one: items = Array(items.prefix(1))
        case .all: break
        case .count(let limit): items = Array(items.prefix(limit))
        }
        guard query.returnData else {
            return items.map { item in
                var item = item
                item.value = []
                return item
            }
        }
        let state = lockState()
        for item in items {
            guard item.accessibility.isReadable(in: state) else {
                throw VaultError.interactionNotAllowed(
                    "the item is accessible \(item.accessibility.rawValue) and the device is \(state.rawValue); "
                        + "store items that background work reads as after-first-unlock")
            }
            guard !item.accessControl.isEmpty else { continue }
            if item.accessControl.contains(.biometryCurrentSet) {
                guard let stored = item.biometryBinding, let current = biometryEnrollment(),
                    ConstantTime.isEqual(stored, SHA256.hash(current))
                else {
                    throw VaultError.authFailed(
                        "the biometric enrollment changed since this biometry-current-set item was stored, so it can "
                            + "no longer be read; sign the user in again and store a new item")
                }
            }
            guard let authenticator else {
                throw VaultError.interactionNotAllowed(
                    "the item requires user authentication and this Vault has no authenticator")
            }
            guard await authenticator(item.accessControl, query.authenticationPrompt) else {
                throw VaultError.authFailed("the user did not pass the authentication the item requires")
            }
        }
        return items
    }

    /// Deletes every item the query matches.
    ///
    /// - Parameter query: Which items.
    /// - Throws: ``VaultError/Code/itemNotFound`` when nothing matches, or a rule violation.
    public func delete(_ query: ItemQuery) async throws {
        let count = try await backend.delete(matching: try filter(for: query))
        guard count > 0 else { throw VaultError.itemNotFound() }
    }

    // MARK: Rules

    private func filter(for query: ItemQuery) throws -> ItemFilter {
        try Self.checkAttributes(query.attributes, for: query.itemClass)
        if case .count(let limit) = query.matchLimit, limit < 1 {
            throw VaultError.invalidParameters("a match limit must be at least 1; got \(limit)")
        }
        var groups = entitlements.visibleGroups
        if let group = query.accessGroup {
            try checkEntitled(group)
            groups = [group]
        }
        return ItemFilter(
            itemClass: query.itemClass,
            attributes: query.attributes,
            accessGroups: groups,
            synchronizable: query.synchronizable.flag
        )
    }

    /// The enrollment digest a new item with `accessControl` is bound to, or nil when it needs none.
    private func binding(for accessControl: AccessControl) throws -> [UInt8]? {
        guard accessControl.contains(.biometryCurrentSet) else { return nil }
        guard let enrollment = biometryEnrollment() else {
            throw VaultError.interactionNotAllowed(
                "no biometry is enrolled, so an item cannot be bound to the current biometric set")
        }
        return SHA256.hash(enrollment)
    }

    private func checkEntitled(_ group: String) throws {
        guard entitlements.allows(group) else {
            throw VaultError.missingEntitlement(
                "the caller is not entitled to access group '\(group)'; add it to the app's keychain-access-groups")
        }
    }

    /// Checks that `attributes` belong to `itemClass` and fit the limits (shared by every ``SecretStore``).
    package static func checkAttributes(_ attributes: ItemAttributes, for itemClass: ItemClass) throws {
        let allowed = itemClass.allowedAttributes
        for name in attributes.setNames {
            guard allowed.contains(name) else {
                throw VaultError.noSuchAttribute(
                    "\(itemClass.rawValue) items have no \(name.rawValue) attribute; allowed: "
                        + allowed.map(\.rawValue).sorted().joined(separator: ", "))
            }
            let count = attributes.bytes(of: name)?.count ?? 0
            guard count <= VaultLimits.maxAttributeByteCount else {
                throw VaultError.invalidParameters(
                    "the \(name.rawValue) attribute is \(count) bytes; the limit is \(VaultLimits.maxAttributeByteCount)"
                )
            }
        }
        if let port = attributes.port, !(0...65535).contains(port) {
            throw VaultError.invalidParameters("a port must be 0…65535; got \(port)")
        }
    }

    /// Checks an item's value size, access group, flags and synchronizable combination.
    package static func checkStorable(_ item: VaultItem) throws {
        guard item.value.count <= VaultLimits.maxValueByteCount else {
            throw VaultError.invalidParameters(
                "the value is \(item.value.count) bytes; the limit is \(VaultLimits.maxValueByteCount) (the vault is "
                    + "for small secrets: encrypt large data and store only its key)")
        }
        if let group = item.accessGroup {
            guard !group.isEmpty, group.utf8.count <= VaultLimits.maxAttributeByteCount else {
                throw VaultError.invalidParameters(
                    "an access group must be 1…\(VaultLimits.maxAttributeByteCount) bytes")
            }
        }
        guard AccessControl.known.isSuperset(of: item.accessControl) else {
            throw VaultError.invalidParameters("unknown access-control flags \(item.accessControl.rawValue)")
        }
        if item.synchronizable && item.accessibility.isThisDeviceOnly {
            throw VaultError.invalidParameters(
                "a \(item.accessibility.rawValue) item cannot be synchronizable; choose a non-ThisDeviceOnly "
                    + "accessibility or turn synchronizable off")
        }
        if item.synchronizable && !item.accessControl.isEmpty {
            throw VaultError.invalidParameters(
                "an item with access control cannot be synchronizable; turn synchronizable off")
        }
    }
}

/// The vault's size limits, checked before any work (a store for small secrets must not become a denial-of-service
/// vector).
public enum VaultLimits {
    /// The largest value: 256 KiB. Larger data belongs in a file encrypted with a key kept in the vault.
    public static let maxValueByteCount = 256 * 1024
    /// The largest attribute or access-group name: 4 KiB.
    public static let maxAttributeByteCount = 4096
}
