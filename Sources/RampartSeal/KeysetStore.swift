public import RampartSecretStore

/// Keeps keysets in a secret store (a ``RampartVault/Vault`` over a file, the OS keyring, or memory in tests), so
/// key-encryption keys never sit next to the data they protect.
///
/// Each keyset is one generic-password item: service ``service``, account = the keyset's name, value = its
/// ``Keyset/serialized()`` bytes, accessibility `afterFirstUnlock` so background jobs can seal.
///
/// ```swift
/// let store = KeysetStore(Vault(backend: try FileVault.open(at: "keys.vault", credential: .keyFile(at: "vault.key"))))
/// let keyset = try await store.keyset(named: "backups", createIfMissing: true)
/// try SealedFile.seal(input, to: output, key: .keyset(keyset))
/// let rotated = try await store.rotate("backups")              // new primary; old keys still open old files
/// try SealedFile.rewrap(at: output, using: rotated)            // re-wrap the data key, body untouched
/// ```
public struct KeysetStore: Sendable {
    /// The generic-password service under which keysets are stored.
    public static let service = "org.rampart.seal.keyset"

    /// The underlying secret store.
    public let store: any SecretStore

    /// Wraps a secret store.
    ///
    /// - Parameter store: Where keysets live.
    public init(_ store: any SecretStore) { self.store = store }

    /// Loads a keyset.
    ///
    /// - Parameters:
    ///   - name: The keyset's name.
    ///   - createIfMissing: Whether to create and store a fresh keyset when there is none.
    /// - Returns: The keyset.
    /// - Throws: ``SealError/Code/keyStoreFailure`` when the store fails or holds no such keyset (and
    ///   `createIfMissing` is false); ``SealError/Code/malformedKeyset`` when the stored bytes are not a keyset.
    public func keyset(named name: String, createIfMissing: Bool = false) async throws -> Keyset {
        let stored: [UInt8]?
        do {
            stored = try await store.secret(service: Self.service, account: name)
        } catch {
            throw SealError.keyStoreFailure("the secret store could not read keyset '\(name)'", detail: "\(error)")
        }
        if let stored {
            let keyset = try Keyset(serialized: stored)
            guard keyset.name == name else {
                throw SealError.malformedKeyset("the item for keyset '\(name)' holds keyset '\(keyset.name)'")
            }
            return keyset
        }
        guard createIfMissing else {
            throw SealError.keyStoreFailure(
                "the secret store holds no keyset '\(name)'; seal a file with it first, or check the name")
        }
        let keyset = try Keyset(name: name)
        try await save(keyset)
        return keyset
    }

    /// Stores (adds or replaces) a keyset.
    ///
    /// - Parameter keyset: The keyset.
    /// - Throws: ``SealError/Code/keyStoreFailure`` when the store fails.
    public func save(_ keyset: Keyset) async throws {
        do {
            try await store.setSecret(keyset.serialized(), service: Self.service, account: keyset.name)
        } catch {
            throw SealError.keyStoreFailure(
                "the secret store could not save keyset '\(keyset.name)'", detail: "\(error)")
        }
    }

    /// Adds a fresh key to a stored keyset, makes it primary, and saves it.
    ///
    /// Files sealed before keep opening with their old key; ``SealedFile/rewrap(at:using:)`` moves them to the new
    /// primary without re-encrypting their bodies.
    ///
    /// - Parameter name: The keyset's name.
    /// - Returns: The rotated keyset.
    /// - Throws: As ``keyset(named:createIfMissing:)`` and ``save(_:)``, and ``SealError/Code/limitExceeded`` when the
    ///   keyset is full.
    public func rotate(_ name: String) async throws -> Keyset {
        var keyset = try await keyset(named: name)
        try keyset.rotate()
        try await save(keyset)
        return keyset
    }
}
