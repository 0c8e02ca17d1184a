/// The access groups a caller may use: the model of the `keychain-access-groups` entitlement.
///
/// On Apple platforms the groups come from the app's code signature; a caller cannot claim a group it was not signed
/// with. Items are visible only to callers entitled to their group: an add, query or update naming another group fails
/// with ``VaultError/Code/missingEntitlement``, and queries without a group search only the entitled ones. Group names
/// start with the developer's team identifier, so apps from different teams can never share items.
public struct Entitlements: Hashable {
    /// The groups, in order; the first is where items without an explicit group are added.
    public let accessGroups: [String]
    /// Whether every group is visible (a tool operating on a whole vault, such as `rampart vault`).
    public let isUnrestricted: Bool

    /// A caller entitled to exactly these groups.
    ///
    /// - Parameter accessGroups: The groups; the first is the default. An empty list can read and write nothing.
    public init(accessGroups: [String]) {
        self.accessGroups = accessGroups
        self.isUnrestricted = false
    }

    /// An app's groups as Apple assigns them: its shared groups (`keychain-access-groups`) then its own application
    /// identifier, each prefixed with the team identifier.
    ///
    /// - Parameters:
    ///   - teamIdentifier: The ten-character team ID, e.g. `ABCDE12345`.
    ///   - bundleIdentifier: The app's bundle ID, e.g. `com.example.app`.
    ///   - sharedGroups: Groups shared with the team's other apps, without the team prefix.
    public init(teamIdentifier: String, bundleIdentifier: String, sharedGroups: [String] = []) {
        self.init(accessGroups: (sharedGroups + [bundleIdentifier]).map { "\(teamIdentifier).\($0)" })
    }

    private init(unrestrictedWithDefault group: String) {
        self.accessGroups = [group]
        self.isUnrestricted = true
    }

    /// A caller that sees every group and adds to `defaultGroup`.
    ///
    /// - Parameter defaultGroup: Where items without an explicit group go.
    /// - Returns: The entitlements.
    public static func unrestricted(defaultGroup: String = "default") -> Entitlements {
        Entitlements(unrestrictedWithDefault: defaultGroup)
    }

    /// Where items without an explicit group are added; nil when the caller has no group.
    public var defaultGroup: String? { accessGroups.first }

    /// Whether the caller may use `group`.
    ///
    /// - Parameter group: An access group.
    /// - Returns: `true` when entitled.
    public func allows(_ group: String) -> Bool { isUnrestricted || accessGroups.contains(group) }

    /// The groups a query without an explicit group searches; nil for all.
    var visibleGroups: Set<String>? { isUnrestricted ? nil : Set(accessGroups) }
}

extension Entitlements: Sendable {}
