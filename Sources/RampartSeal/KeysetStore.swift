import Foundation
import RampartCrypto
public import RampartSecretStore

/// Keeps keysets in a secret store (a ``RampartVault/Vault`` over a file, the OS keyring, or memory in tests), so
/// key-encryption keys never sit next to the data they protect.
///
/// Each keyset is one generic-password item: service ``service``, account = the keyset's name, value = its
/// ``Keyset/serialized()`` bytes, accessibility `afterFirstUnlock` so background jobs can seal, and a random revision
/// tag in its `generic` attribute that changes on every write.
///
/// Every change is a compare-and-swap on that tag, retried when another process changed the keyset in between: a
/// keyset is created with an add that fails when one exists (the loser then reads the winner's keyset), and
/// ``modify(_:_:)`` (``rotate(_:)`` is one) writes only if the tag is still the one it read. Two processes rotating
/// the same keyset at once therefore each add their own key, and neither overwrites the other's. The swap is as atomic
/// as the store's update of a matched item: one SQLite transaction in the file vault, one replace under the
/// namespace's `flock` in the Secret Service backend, one lock in memory, `SecItemUpdate` in the Keychain.
///
/// ```swift
/// let store = KeysetStore(Vault(backend: try FileVault.open(at: "keys.vault", credential: .keyFile(at: "vault.key"))))
/// let keyset = try await store.keyset(named: "backups", createIfMissing: true)
/// try SealedFile.seal(input, to: output, key: .keyset(keyset))
/// let rotated = try await store.rotate("backups")              // new primary; old keys still open old files
/// try await store.commit(SealedFile.stageRewrap(at: output, using: rotated))   // checked against the store
/// ```
public struct KeysetStore: Sendable {
    /// The generic-password service under which keysets are stored.
    public static let service = "org.rampart.seal.keyset"

    /// How many times a change is tried when other writers keep changing the keyset in between (each retry follows
    /// a successful write by another process, so this bounds the writers racing, not the time).
    public static let maximumAttempts = 64

    /// The underlying secret store.
    public let store: any SecretStore

    /// Wraps a secret store.
    ///
    /// - Parameter store: Where keysets live.
    public init(_ store: any SecretStore) { self.store = store }

    /// Loads a keyset.
    ///
    /// When `createIfMissing` is true and two processes create the same keyset at once, one creation wins and both
    /// return the winner's keyset.
    ///
    /// - Parameters:
    ///   - name: The keyset's name.
    ///   - createIfMissing: Whether to create and store a fresh keyset when there is none.
    /// - Returns: The keyset as stored.
    /// - Throws: ``SealError/Code/keyStoreFailure`` when the store fails or holds no such keyset (and
    ///   `createIfMissing` is false); ``SealError/Code/malformedKeyset`` when the stored bytes are not a keyset.
    public func keyset(named name: String, createIfMissing: Bool = false) async throws -> Keyset {
        for _ in 0..<Self.maximumAttempts {
            if let stored = try await storedItem(name) { return try Self.keyset(in: stored, named: name) }
            guard createIfMissing else {
                throw SealError.keyStoreFailure(
                    "the secret store holds no keyset '\(name)'; seal a file with it first, or check the name")
            }
            let keyset = try Keyset(name: name)
            if try await add(keyset) { return keyset }
        }
        throw Self.contention(name)
    }

    /// Changes a stored keyset with a compare-and-swap, retrying from a fresh read when another writer changed it
    /// meanwhile, and returns the keyset as written.
    ///
    /// `change` may run more than once (once per attempt, each time on the keyset as then stored), so it must
    /// depend only on the keyset it is given.
    ///
    /// - Parameters:
    ///   - name: The keyset's name.
    ///   - change: Edits the keyset (``Keyset/rotate()``, ``Keyset/addKey()``, ``Keyset/removeKey(id:)`` …).
    /// - Returns: The keyset as stored after the change.
    /// - Throws: As ``keyset(named:createIfMissing:)``, what `change` throws, and ``SealError/Code/keyStoreFailure``
    ///   when other writers changed the keyset ``maximumAttempts`` times in a row.
    public func modify(_ name: String, _ change: (inout Keyset) throws -> Void) async throws -> Keyset {
        for _ in 0..<Self.maximumAttempts {
            guard let stored = try await storedItem(name) else {
                throw SealError.keyStoreFailure(
                    "the secret store holds no keyset '\(name)'; seal a file with it first, or check the name")
            }
            var keyset = try Self.keyset(in: stored, named: name)
            guard let revision = stored.attributes.generic, revision.count == Self.revisionByteCount else {
                // Written before revision tags: tag it (the value is left as it is) and start again from the tag.
                try await retag(name, from: nil)
                continue
            }
            try change(&keyset)
            if try await replace(name, revision: revision, with: keyset) { return keyset }
        }
        throw Self.contention(name)
    }

    /// Adds a fresh key to a stored keyset and makes it primary, as one compare-and-swap (``modify(_:_:)``).
    ///
    /// Files sealed before keep opening with their old key; ``SealedFile/rewrap(at:using:)`` moves them to the new
    /// primary without re-encrypting their bodies.
    ///
    /// - Parameter name: The keyset's name.
    /// - Returns: The rotated keyset, as stored.
    /// - Throws: As ``modify(_:_:)``, and ``SealError/Code/limitExceeded`` when the keyset is full.
    public func rotate(_ name: String) async throws -> Keyset {
        try await modify(name) { try $0.rotate() }
    }

    /// Stores (adds or replaces) a keyset, whatever the store held.
    ///
    /// - Warning: This overwrites the stored keyset: keys another process added since `keyset` was read are lost, and
    ///   files wrapped under them no longer open. Change a stored keyset with ``modify(_:_:)`` or ``rotate(_:)``;
    ///   use this only to import a keyset.
    /// - Parameter keyset: The keyset.
    /// - Throws: ``SealError/Code/keyStoreFailure`` when the store fails.
    public func save(_ keyset: Keyset) async throws {
        var item = Self.item(for: keyset)
        item.attributes.generic = SecureRandom.bytes(count: Self.revisionByteCount)
        do {
            _ = try await store.upsert(item)
        } catch {
            throw SealError.keyStoreFailure(
                "the secret store could not save keyset '\(keyset.name)'", detail: "\(error)")
        }
    }

    /// Checks that the keyset as stored now still opens `header`, then moves a staged file into place.
    ///
    /// This is the last step of sealing or re-wrapping under a keyset: if the stored keyset lost the key that wraps
    /// the new header (another process overwrote it with ``save(_:)`` or an older Rampart, or removed the key), the
    /// staged file is discarded and the file at its destination is left as it was.
    ///
    /// - Parameter staged: A file sealed or re-wrapped under one of this store's keysets.
    /// - Returns: The staged file's header.
    /// - Throws: ``SealError/Code/keyStoreFailure`` when the stored keyset no longer opens the header (nothing is
    ///   replaced), as ``checkOpens(_:)``, and ``SealError/Code/ioFailure`` when the rename fails.
    @discardableResult
    public func commit(_ staged: SealedFile.Staged) async throws -> SealHeader {
        do {
            try await checkOpens(staged.header)
        } catch {
            staged.discard()
            throw error
        }
        try staged.commit()
        return staged.header
    }

    /// Checks that the keyset as stored now unwraps the data key of `header`.
    ///
    /// - Parameter header: The header of a file sealed under a keyset of this store.
    /// - Throws: ``SealError/Code/keyStoreFailure`` when the store no longer holds the keyset or the key the header
    ///   names, or that key does not unwrap it; ``SealError/Code/invalidParameter`` for a header sealed with a
    ///   passphrase.
    public func checkOpens(_ header: SealHeader) async throws {
        guard let keyID = header.keyID, let slash = keyID.lastIndex(of: "/") else {
            throw SealError.invalidParameter("the header was not sealed under a keyset, so no keyset can vouch for it")
        }
        let name = String(keyID[..<slash])
        let keyset = try await keyset(named: name)
        do {
            _ = try SealKey.keyset(keyset).unwrapDataKey(of: header)
        } catch let error as SealError {
            throw SealError.keyStoreFailure(
                "keyset '\(name)' as stored no longer opens the new header (key '\(keyID)'): another process "
                    + "replaced or changed the keyset meanwhile; the file was left as it was, so run the command again",
                detail: "\(error)")
        }
    }

    // MARK: Compare-and-swap

    /// The length of the random revision tag kept in the item's `generic` attribute.
    static let revisionByteCount = 16

    private static func contention(_ name: String) -> SealError {
        SealError.keyStoreFailure(
            "keyset '\(name)' was changed by other processes \(maximumAttempts) times while this one tried to "
                + "change it; try again when fewer processes rotate it at once")
    }

    private static func item(for keyset: Keyset) -> VaultItem {
        VaultItem.genericPassword(
            service: service, account: keyset.name, value: keyset.serialized(), accessibility: .afterFirstUnlock)
    }

    private static func query(_ name: String, revision: [UInt8]? = nil) -> ItemQuery {
        var query = ItemQuery.genericPassword(service: service, account: name)
        query.attributes.generic = revision
        return query
    }

    private static func keyset(in item: VaultItem, named name: String) throws -> Keyset {
        let keyset = try Keyset(serialized: item.value)
        guard keyset.name == name else {
            throw SealError.malformedKeyset("the item for keyset '\(name)' holds keyset '\(keyset.name)'")
        }
        return keyset
    }

    /// The stored item of keyset `name`, or nil.
    private func storedItem(_ name: String) async throws -> VaultItem? {
        do {
            return try await store.readOne(Self.query(name))
        } catch let error as VaultError where error.code == .itemNotFound {
            return nil
        } catch {
            throw SealError.keyStoreFailure("the secret store could not read keyset '\(name)'", detail: "\(error)")
        }
    }

    /// Adds a new keyset; false when another writer added one first.
    private func add(_ keyset: Keyset) async throws -> Bool {
        var item = Self.item(for: keyset)
        item.attributes.generic = SecureRandom.bytes(count: Self.revisionByteCount)
        do {
            try await store.add(item)
            return true
        } catch let error as VaultError where error.code == .duplicateItem {
            return false
        } catch {
            throw SealError.keyStoreFailure(
                "the secret store could not save keyset '\(keyset.name)'", detail: "\(error)")
        }
    }

    /// Writes `keyset` with a fresh revision tag if the stored one is still `revision`; false when it changed.
    private func replace(_ name: String, revision: [UInt8], with keyset: Keyset) async throws -> Bool {
        let changes = ItemChanges(
            attributes: ItemAttributes(generic: SecureRandom.bytes(count: Self.revisionByteCount)),
            value: keyset.serialized())
        do {
            try await store.update(Self.query(name, revision: revision), with: changes)
            return true
        } catch let error as VaultError where error.code == .itemNotFound {
            return false
        } catch {
            throw SealError.keyStoreFailure("the secret store could not save keyset '\(name)'", detail: "\(error)")
        }
    }

    /// Gives an untagged keyset item a revision tag without changing its value. Safe against any concurrent writer:
    /// it never changes a keyset, and a writer whose tag it replaces reads again.
    private func retag(_ name: String, from revision: [UInt8]?) async throws {
        let changes = ItemChanges(
            attributes: ItemAttributes(generic: SecureRandom.bytes(count: Self.revisionByteCount)))
        do {
            try await store.update(Self.query(name, revision: revision), with: changes)
        } catch let error as VaultError where error.code == .itemNotFound {
            return
        } catch {
            throw SealError.keyStoreFailure("the secret store could not save keyset '\(name)'", detail: "\(error)")
        }
    }
}
