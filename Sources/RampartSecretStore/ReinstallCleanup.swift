import Foundation

/// Deletes what a previous installation left in the store, the first time an app runs after being (re)installed.
///
/// On iOS, Keychain items survive deleting the app, because they live outside its sandbox; a reinstalled app then finds
/// the old user's refresh token and starts signed in. The usual remedy, which this type implements: keep a "has run"
/// marker with the app's own files (which are deleted with the app). When the marker is missing, this is a first run,
/// so delete every item the app can see — except in shared groups other apps still use — and then write the marker.
///
/// ```swift
/// let cleanup = ReinstallCleanup(markerPath: appSupport + "/.rampart-first-run", store: vault)
/// try await cleanup.runIfFirstLaunch()
/// ```
public struct ReinstallCleanup {
    /// The marker file, in the app's own data directory (never in the store).
    public let markerPath: String
    /// The store to clean, seen with the app's entitlements.
    public let store: any SecretStore
    /// Access groups whose items are kept (shared with the team's other apps, which still own them).
    public let keptGroups: Set<String>

    /// Creates the helper.
    ///
    /// - Parameters:
    ///   - markerPath: Where the first-run marker lives; it must be deleted with the app.
    ///   - store: The store, usually a ``Vault`` with the app's ``Entitlements``.
    ///   - keptGroups: Groups to leave alone.
    public init(markerPath: String, store: any SecretStore, keptGroups: Set<String> = []) {
        self.markerPath = markerPath
        self.store = store
        self.keptGroups = keptGroups
    }

    /// Whether the marker exists, that is whether the app has run since it was installed.
    public var hasRunBefore: Bool { FileManager.default.fileExists(atPath: markerPath) }

    /// On the first run after installation, deletes the leftovers and writes the marker; otherwise does nothing.
    ///
    /// The marker is written only after the cleanup succeeded, so an interrupted cleanup is retried next launch.
    ///
    /// - Returns: How many items were deleted (0 when the app had run before).
    /// - Throws: A store failure, or ``VaultError/Code/ioFailure`` when the marker cannot be written.
    @discardableResult
    public func runIfFirstLaunch() async throws -> Int {
        guard !hasRunBefore else { return 0 }
        var deleted = 0
        for itemClass in ItemClass.allCases {
            let leftovers: [VaultItem]
            do {
                leftovers = try await store.read(ItemQuery(itemClass: itemClass, returnData: false))
            } catch let error as VaultError where error.code == .itemNotFound {
                continue
            }
            for item in leftovers where !keptGroups.contains(item.accessGroup ?? "") {
                do {
                    try await store.delete(Self.exactQuery(for: item))
                    deleted += 1
                } catch let error as VaultError where error.code == .itemNotFound {
                    continue
                }
            }
        }
        try writeMarker()
        return deleted
    }

    /// A query matching exactly `item`'s primary key.
    static func exactQuery(for item: VaultItem) -> ItemQuery {
        var attributes = ItemAttributes()
        for name in item.itemClass.primaryKeyAttributes {
            attributes = attributes.merging(item.attributes.only(name))
        }
        return ItemQuery(
            itemClass: item.itemClass, attributes: attributes, accessGroup: item.accessGroup,
            synchronizable: item.synchronizable ? .synchronizable : .notSynchronizable)
    }

    private func writeMarker() throws {
        if let reason = Platform.createFile(atPath: markerPath, permissions: 0o600) {
            throw VaultError.ioFailure(
                "cannot write the first-run marker \(markerPath): \(reason); put it in a directory the app owns")
        }
    }
}

extension ReinstallCleanup: Sendable {}
