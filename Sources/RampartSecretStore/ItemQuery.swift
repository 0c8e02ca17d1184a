/// What to find: a class, attribute filters and how many results, as a `SecItemCopyMatching` query.
///
/// A query matches synchronizable and non-synchronizable items alike unless ``synchronizable`` says otherwise, and
/// searches every access group the caller is entitled to unless ``accessGroup`` names one.
public struct ItemQuery: Hashable {
    /// The class to search.
    public var itemClass: ItemClass
    /// Equality filters: every attribute set here must match.
    public var attributes: ItemAttributes
    /// Limit the search to one access group (which the caller must be entitled to).
    public var accessGroup: String?
    /// Which items to match by their synchronizable flag; ``SynchronizableFilter/any`` by default.
    public var synchronizable: SynchronizableFilter
    /// How many items ``SecretStore/read(_:)`` returns; ``MatchLimit/all`` by default.
    public var matchLimit: MatchLimit
    /// Whether reads return values; when off, only attributes come back and no lock or access-control check is made.
    public var returnData: Bool
    /// The reason shown when an item's ``AccessControl`` asks the user to authenticate.
    public var authenticationPrompt: String

    /// Creates a query.
    ///
    /// - Parameters:
    ///   - itemClass: The class.
    ///   - attributes: Equality filters.
    ///   - accessGroup: One access group, or nil for all the caller may see.
    ///   - synchronizable: The synchronizable filter.
    ///   - matchLimit: How many to return.
    ///   - returnData: Whether to return values.
    ///   - authenticationPrompt: The reason for a user check.
    public init(
        itemClass: ItemClass,
        attributes: ItemAttributes = ItemAttributes(),
        accessGroup: String? = nil,
        synchronizable: SynchronizableFilter = .any,
        matchLimit: MatchLimit = .all,
        returnData: Bool = true,
        authenticationPrompt: String = "Authenticate to use a stored secret"
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.accessGroup = accessGroup
        self.synchronizable = synchronizable
        self.matchLimit = matchLimit
        self.returnData = returnData
        self.authenticationPrompt = authenticationPrompt
    }

    /// The generic password for `service` and `account`.
    ///
    /// - Parameters:
    ///   - service: The service.
    ///   - account: The account.
    ///   - accessGroup: One access group, or nil for all the caller may see.
    /// - Returns: The query.
    public static func genericPassword(service: String, account: String, accessGroup: String? = nil) -> ItemQuery {
        ItemQuery(
            itemClass: .genericPassword,
            attributes: ItemAttributes(service: service, account: account),
            accessGroup: accessGroup
        )
    }
}

/// Which items a query matches by their synchronizable flag (`kSecAttrSynchronizable`, or `…Any`).
public enum SynchronizableFilter: String, Hashable, CaseIterable {
    /// Both synchronizable and device-local items.
    case any
    /// Only synchronizable items.
    case synchronizable
    /// Only items that do not sync.
    case notSynchronizable = "not-synchronizable"

    var flag: Bool? {
        switch self {
        case .any: nil
        case .synchronizable: true
        case .notSynchronizable: false
        }
    }
}

/// How many items a read returns (`kSecMatchLimit`).
public enum MatchLimit: Hashable {
    /// The first match only (`kSecMatchLimitOne`).
    case one
    /// Every match (`kSecMatchLimitAll`).
    case all
    /// At most this many (a positive number).
    case count(Int)
}

/// New values for the items an update matches, as `SecItemUpdate`'s `attributesToUpdate`.
///
/// Unset fields keep their stored value. Changing a primary-key attribute, the access group or the synchronizable flag
/// moves the item to a new primary key, which fails with ``VaultError/Code/duplicateItem`` if taken.
public struct ItemChanges: Hashable {
    /// Attributes to replace.
    public var attributes: ItemAttributes
    /// A new secret.
    public var value: [UInt8]?
    /// A new access group (the caller must be entitled to it).
    public var accessGroup: String?
    /// A new accessibility.
    public var accessibility: Accessibility?
    /// A new synchronizable flag.
    public var synchronizable: Bool?
    /// New access-control flags.
    public var accessControl: AccessControl?

    /// Creates a set of changes.
    ///
    /// - Parameters:
    ///   - attributes: Attributes to replace.
    ///   - value: A new secret.
    ///   - accessGroup: A new access group.
    ///   - accessibility: A new accessibility.
    ///   - synchronizable: A new synchronizable flag.
    ///   - accessControl: New access-control flags.
    public init(
        attributes: ItemAttributes = ItemAttributes(),
        value: [UInt8]? = nil,
        accessGroup: String? = nil,
        accessibility: Accessibility? = nil,
        synchronizable: Bool? = nil,
        accessControl: AccessControl? = nil
    ) {
        self.attributes = attributes
        self.value = value
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.synchronizable = synchronizable
        self.accessControl = accessControl
    }
}

extension ItemQuery: Sendable {}

extension SynchronizableFilter: Sendable {}

extension MatchLimit: Sendable {}

extension ItemChanges: Sendable {}
