import Foundation
import Glibc
import RampartCrypto
import RampartSQLite
import Synchronization

/// The encrypted file vault: a ``VaultBackend`` in one SQLite file, the Linux default for servers and tools.
///
/// Each value is sealed with AES-256-GCM under a random 32-byte vault key. The associated data binds the vault's
/// identifier, the item's ``PrimaryKey`` and all its attributes, so a value moved to another row, a swapped pair of
/// rows or any altered attribute fails on read with ``VaultError/Code/integrityFailure``. The vault key itself is
/// stored wrapped (AES-256-GCM) under a key-encryption key derived from the ``VaultCredential``: Argon2id for a
/// passphrase (``Argon2Parameters/owasp`` by default), HKDF-SHA256 for a key file.
///
/// The file is created with mode 0600 (SQLite gives its `-wal` and `-shm` files the same mode). Opening never
/// writes until the credential is verified: an existing file is opened without creating, without following a
/// symbolic link and without changing its journal mode (see <doc:FileVaultFormat>). It uses write-ahead
/// logging with `synchronous=FULL`: each operation is one transaction, so a crash or `kill -9` leaves every
/// acknowledged item in place and nothing half-written, and several processes can write at once (writers queue on
/// SQLite's lock for up to ``busyTimeout``).
///
/// - Important: Attributes (service, account, label, …) are stored readable so they can be searched; only values are
///   encrypted, and each sealed value is exactly 28 bytes longer than the secret, so its length shows. Someone who
///   can write the file can delete rows, put back an older version of a row (a replaced token reappears), or roll
///   the whole file back to an older copy, and none of it is detected: each row is authenticated on its own. Keep the
///   file writable only by its owner; a key rotation re-encrypts every row, after which rows saved before no longer
///   open (see <doc:FileVaultFormat>).
public final class FileVault: VaultBackend {
    /// How long a writer waits for another process's lock before failing with ``VaultError/Code/ioFailure``.
    public static let busyTimeout: Duration = .seconds(30)

    /// The vault file's path.
    public let path: String

    private struct State: Sendable {
        /// `nonisolated(unsafe)`: a connection must be used by one thread at a time, and this one is: it is reached
        /// only inside ``FileVault/state``'s `withLock` (and in ``open(at:credential:create:kdf:)`` before the vault
        /// exists), and no `State` leaves the lock.
        nonisolated(unsafe) let database: SQLiteConnection
        var dataKey: SymmetricKey
        var generation: Int64
        let vaultID: [UInt8]
    }

    private let state: Mutex<State>
    /// The limits the vault was opened with; a rotation's new KDF must fit them.
    private let kdfLimits: KDFLimits

    private init(path: String, state: State, kdfLimits: KDFLimits) {
        self.path = path
        self.state = Mutex(state)
        self.kdfLimits = kdfLimits
    }

    /// Opens the vault at `path`, creating it when it does not exist and `create` is true.
    ///
    /// Opening never writes to an existing file until the credential has been verified.
    ///
    /// - Parameters:
    ///   - path: The vault file.
    ///   - credential: The passphrase or key.
    ///   - create: Whether to create a missing vault.
    ///   - kdf: Argon2id parameters for a new passphrase-protected vault; an existing vault keeps its own.
    ///   - kdfLimits: The most Argon2id memory and work the vault's header may ask for (it is read before anything
    ///     in it can be verified); ``KDFLimits/standard`` by default. A new vault's `kdf` must fit them too.
    /// - Returns: The open vault.
    /// - Throws: ``VaultError/Code/authFailed`` ("wrong passphrase or not a Rampart vault") when the credential does
    ///   not unwrap the vault key or the file is not a vault; ``VaultError/Code/itemNotFound`` when the file does not
    ///   exist and `create` is false; ``VaultError/Code/invalidParameters`` when the header (or `kdf`, creating)
    ///   asks for more than `kdfLimits`; ``VaultError/Code/ioFailure`` when the file cannot be opened.
    public static func open(
        at path: String,
        credential: VaultCredential,
        create: Bool = true,
        kdf: Argon2Parameters = .owasp,
        kdfLimits: KDFLimits = .standard
    ) throws -> FileVault {
        if create, case .passphrase = credential.backing { try kdfLimits.check(kdf, what: "the new vault's KDF") }
        let createdFile = try createFileIfMissing(path, allowed: create)
        let database: SQLiteConnection
        do {
            database = try SQLiteConnection(path: path, options: connectionOptions)
            // Freed space (deleted rows, replaced values, the old key wrap) is overwritten with zeros; a
            // per-connection setting that writes nothing.
            try database.execute(constant: "PRAGMA secure_delete = ON")
        } catch let error as SQLiteError where error.isNotADatabase {
            throw VaultError.authFailed()
        } catch {
            throw VaultError.ioFailure("cannot open the vault file \(path)", detail: "\(error)")
        }
        do {
            if try !isInitialized(database) {
                // An SQLite file without tables: new, or being initialised by another process right now
                // (``initialize`` re-checks under the write lock).
                guard createdFile || create else { throw VaultError.authFailed() }
                try initialize(database, credential: credential, kdf: kdf)
            }
            let unlocked = try unlock(database, credential: credential, kdfLimits: kdfLimits)
            return FileVault(path: path, state: unlocked, kdfLimits: kdfLimits)
        } catch let error as SQLiteError where error.isNotADatabase {
            throw VaultError.authFailed()
        } catch let error as SQLiteError {
            throw VaultError.ioFailure("cannot read the vault file \(path)", detail: "\(error)")
        }
    }

    /// How the vault opens its file: never creating it (``createFileIfMissing(_:allowed:)`` does, with mode 0600),
    /// never through a symbolic link, and without switching it to WAL (``initialize(_:credential:kdf:)`` does, for a
    /// new vault only), so that opening writes nothing before the credential is verified.
    private static let connectionOptions = SQLiteConnection.Options(
        mode: .readWriteExisting, journalMode: .unchanged, synchronous: .full, busyTimeout: busyTimeout,
        followsSymbolicLinks: false)

    // MARK: VaultBackend

    /// Seals and stores a new item.
    ///
    /// - Parameter item: The item.
    /// - Throws: ``VaultError/Code/duplicateItem`` when its primary key exists.
    public func insert(_ item: VaultItem) async throws {
        try write { state in
            try Self.insertRow(Self.row(for: item, state: state), into: state.database)
        }
    }

    /// Returns the matched items, each authenticated and decrypted.
    ///
    /// - Parameter filter: What to match.
    /// - Returns: The items.
    /// - Throws: ``VaultError/Code/integrityFailure`` when a row was altered.
    public func items(matching filter: ItemFilter) async throws -> [VaultItem] {
        try read { state in try Self.select(filter, state: state).map(\.item) }
    }

    /// Replaces the matched items in one transaction.
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
        try write(erasing: true) { state in
            let matched = try Self.select(filter, state: state)
            let replacements = try matched.map { try Self.row(for: transform($0.item), state: state) }
            for (rowID, _) in matched {
                try state.database.run("DELETE FROM items WHERE id = \(rowID)")
            }
            for row in replacements {
                try Self.insertRow(row, into: state.database)
            }
            return matched.count
        }
    }

    /// Removes the matched items (each is authenticated first, so a forged row cannot steer a delete).
    ///
    /// - Parameter filter: What to match.
    /// - Returns: How many were removed.
    /// - Throws: ``VaultError/Code/integrityFailure`` when a matched row was altered.
    public func delete(matching filter: ItemFilter) async throws -> Int {
        try write(erasing: true) { state in
            let matched = try Self.select(filter, state: state)
            for (rowID, _) in matched {
                try state.database.run("DELETE FROM items WHERE id = \(rowID)")
            }
            return matched.count
        }
    }

    // MARK: Key rotation

    /// Draws a new vault key, reseals every item under it and wraps it under a new credential, in one transaction:
    /// on any failure the vault is unchanged and the old credential still opens it.
    ///
    /// Afterwards the old credential opens neither this file nor anything added to it later, even together with a
    /// copy of the vault's header row from before the rotation. A copy of the whole file taken before the rotation
    /// still opens with the old credential and holds what the vault held then: rotation cuts off the old credential
    /// from the vault's future, not from copies already made.
    ///
    /// Other processes that have the vault open must reopen it afterwards: their operations fail with
    /// ``VaultError/Code/authFailed`` until they do.
    ///
    /// - Warning: With `reencryptItems` false only the wrap changes and the vault key stays: whoever kept the old
    ///   header row (a backup, a copy of the file) and the old credential can still unwrap the vault key and decrypt
    ///   every item, including items added after the rotation. Use it only when the credential changes for another
    ///   reason than its exposure.
    /// - Parameters:
    ///   - credential: The new passphrase or key.
    ///   - kdf: Argon2id parameters for a new passphrase.
    ///   - reencryptItems: Whether to draw a new vault key and reseal every item with it (the default).
    /// - Returns: How many items the vault holds (and, when `reencryptItems`, were resealed).
    /// - Throws: ``VaultError/Code/integrityFailure`` when an item fails authentication (nothing is changed);
    ///   ``VaultError/Code/invalidParameters`` when `kdf` exceeds the limits the vault was opened with.
    @discardableResult
    public func rotateKey(
        to credential: VaultCredential,
        kdf: Argon2Parameters = .owasp,
        reencryptItems: Bool = true
    ) throws -> Int {
        if case .passphrase = credential.backing { try kdfLimits.check(kdf, what: "the new vault KDF") }
        let header = try KeyHeader.make(credential: credential, kdf: kdf)
        return try write(erasing: true) { state in
            let rows = try state.database.query("SELECT \(raw: Self.columns) FROM items")
            let newKey = reencryptItems ? SymmetricKey(randomByteCount: 32) : state.dataKey
            var next = state
            next.dataKey = newKey
            next.generation = state.generation + 1
            for row in rows {
                let (rowID, item) = try Self.decode(row, state: state)
                guard reencryptItems else { continue }
                let sealed = try Self.row(for: item, state: next).sealed
                try state.database.run("UPDATE items SET sealed = \(sealed) WHERE id = \(rowID)")
            }
            let wrapped = try header.wrap(newKey, vaultID: state.vaultID, generation: next.generation)
            try state.database.run(
                """
                UPDATE rampart_vault SET kdf = \(header.kdfName), salt = \(header.salt),
                    memory_kib = \(Int64(header.parameters.memoryKiB)),
                    iterations = \(Int64(header.parameters.iterations)),
                    parallelism = \(Int64(header.parameters.parallelism)),
                    wrapped_key = \(wrapped), generation = \(next.generation)
                WHERE id = 1
                """)
            state = next
            return rows.count
        }
    }

    /// How many items the vault holds, whatever their group.
    ///
    /// - Returns: The count.
    /// - Throws: ``VaultError/Code/ioFailure``.
    public func count() throws -> Int {
        try read { state in
            Int(try state.database.query("SELECT count(*) FROM items").first?.integer(0) ?? 0)
        }
    }

    /// Writes a consistent copy of the vault to a new file (`VACUUM INTO`), with mode 0600 and flushed to disk.
    ///
    /// The copy holds the vault as of the last commit, opens with the same credential, and, being rebuilt rather than
    /// copied page by page, carries no free page: nothing deleted or replaced, and no earlier wrap of the vault key.
    /// Copying the file with `cp` instead can take a main file whose log was not yet checkpointed, or miss the log.
    ///
    /// - Parameter path: Where to write the copy; must not exist.
    /// - Throws: ``VaultError/Code/duplicateItem`` when `path` exists; ``VaultError/Code/authFailed`` when the key
    ///   was rotated since this vault was opened; ``VaultError/Code/ioFailure`` when the copy cannot be written
    ///   (nothing is left at `path`).
    public func backup(to path: String) throws {
        guard try Self.createFileIfMissing(path, allowed: true) else {
            throw VaultError.duplicateItem("\(path) exists; give the backup a new file name")
        }
        do {
            try state.withLock { state in
                try Self.mapSQLite {
                    try Self.checkGeneration(state)
                    _ = try state.database.run("VACUUM INTO \(path)")
                }
            }
            try Self.flush(path)
        } catch {
            unlink(path)
            throw error
        }
    }

    /// `fsync` of a file and of its directory.
    private static func flush(_ path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        for (target, flags) in [(path, O_RDONLY), (directory, O_RDONLY | O_DIRECTORY)] {
            let descriptor = Glibc.open(target, flags | O_CLOEXEC)
            guard descriptor >= 0 else {
                throw VaultError.ioFailure("cannot open \(target) to flush it: \(String(cString: strerror(errno)))")
            }
            defer { close(descriptor) }
            guard fsync(descriptor) == 0 else {
                throw VaultError.ioFailure("cannot flush \(target) to disk: \(String(cString: strerror(errno)))")
            }
        }
    }

    /// Decodes and authenticates every row of every class, for the fuzz target and tests.
    ///
    /// - Returns: The items.
    /// - Throws: ``VaultError/Code/integrityFailure`` for the first row that fails.
    @_spi(Testing)
    public func decodeAllRows() throws -> [VaultItem] {
        try read { state in
            try state.database.query("SELECT \(raw: Self.columns) FROM items").map {
                try Self.decode($0, state: state).item
            }
        }
    }

    // MARK: Transactions

    /// Runs `body` in one write transaction; with `erasing`, then checkpoints the whole log into the file (see
    /// ``checkpointFully(_:)``), because the transaction removed or replaced secrets.
    private func write<R: Sendable>(erasing: Bool = false, _ body: (inout State) throws -> R) throws -> R {
        try state.withLock { state in
            try Self.mapSQLite {
                let result = try state.database.transaction(.immediate) {
                    try Self.checkGeneration(state)
                    return try body(&state)
                }
                if erasing { try Self.checkpointFully(state.database) }
                return result
            }
        }
    }

    /// Copies every page of the write-ahead log into the main file and empties the log (`PRAGMA
    /// wal_checkpoint(TRUNCATE)`, which waits up to ``busyTimeout`` for other connections' reads to move to the latest
    /// commit). With `secure_delete` on, freed space was zeroed, so afterwards neither the file nor its log holds a
    /// removed or replaced value, or the vault key's previous wrap; a copy of the main file alone is the current
    /// vault. A checkpoint another process is running is waited for (``RampartSQLite`` retries it).
    private static func checkpointFully(_ database: SQLiteConnection) throws {
        guard try database.checkpointTruncating() else {
            throw VaultError.ioFailure(
                "the change is committed, but another process kept reading an older state of the vault for more than "
                    + "\(busyTimeout), so the removed or replaced values are still in the file's write-ahead log "
                    + "and the main file still holds the old state; close the other process, then run "
                    + "'rampart vault backup' or the change again to erase them")
        }
    }

    private func read<R: Sendable>(_ body: (State) throws -> R) throws -> R {
        try state.withLock { state in
            try Self.mapSQLite {
                try state.database.transaction(.deferred) {
                    try Self.checkGeneration(state)
                    return try body(state)
                }
            }
        }
    }

    private static func checkGeneration(_ state: State) throws {
        let generation = try state.database.query("SELECT generation FROM rampart_vault WHERE id = 1").first
        guard generation?.integer(0) == state.generation else {
            throw VaultError.authFailed(
                "the vault key was rotated by another process since this vault was opened; open it again")
        }
    }

    private static func mapSQLite<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as SQLiteError where error.isUniqueViolation {
            throw VaultError.duplicateItem()
        } catch let error as SQLiteError where error.code == .busy {
            throw VaultError.ioFailure(
                "another process held the vault locked for more than \(busyTimeout); try again", detail: "\(error)")
        } catch let error as SQLiteError {
            throw VaultError.ioFailure(detail: "\(error)")
        }
    }

    // MARK: Rows

    private struct Row {
        let item: VaultItem
        let primaryKey: [UInt8]
        let created: Int64
        let modified: Int64
        let sealed: [UInt8]
    }

    private static let columns: StaticString = """
        id, pk, class, access_group, synchronizable, accessibility, access_control, service, account, label, generic, \
        server, protocol, port, path, security_domain, authentication_type, application_tag, application_label, \
        key_type, issuer, serial_number, created, modified, biometry_binding, sealed
        """

    private static func row(for item: VaultItem, state: State) throws -> Row {
        let created = milliseconds(item.creationDate)
        let modified = milliseconds(item.modificationDate)
        let primaryKey = item.primaryKey.bytes
        let aad = associatedData(item, primaryKey: primaryKey, created: created, modified: modified, state: state)
        let box = try AEAD.seal(item.value, using: state.dataKey, authenticating: aad)
        return Row(item: item, primaryKey: primaryKey, created: created, modified: modified, sealed: box.combined)
    }

    private static func insertRow(_ row: Row, into database: SQLiteConnection) throws {
        let item = row.item
        let a = item.attributes
        try database.run(
            """
            INSERT INTO items (pk, class, access_group, synchronizable, accessibility, access_control, service, \
            account, label, generic, server, protocol, port, path, security_domain, authentication_type, \
            application_tag, application_label, key_type, issuer, serial_number, created, modified, biometry_binding, \
            sealed)
            VALUES (\(row.primaryKey), \(item.itemClass.rawValue), \(item.accessGroup), \(item.synchronizable), \
            \(item.accessibility.rawValue), \(Int64(item.accessControl.rawValue)), \(a.service), \(a.account), \
            \(a.label), \(a.generic), \(a.server), \(a.protocol), \(a.port), \(a.path), \(a.securityDomain), \
            \(a.authenticationType), \(a.applicationTag), \(a.applicationLabel), \(a.keyType), \(a.issuer), \
            \(a.serialNumber), \(row.created), \(row.modified), \(item.biometryBinding), \(row.sealed))
            """)
    }

    private static func select(_ filter: ItemFilter, state: State) throws -> [(rowID: Int64, item: VaultItem)] {
        let rows = try state.database.query(
            """
            SELECT \(raw: columns) FROM items WHERE class = \(filter.itemClass.rawValue)
            AND (\(filter.attributes.service) IS NULL OR service = \(filter.attributes.service))
            AND (\(filter.attributes.account) IS NULL OR account = \(filter.attributes.account))
            """)
        return try rows.map { try decode($0, state: state) }.filter { filter.matches($0.item) }
    }

    /// Rebuilds an item from a row and authenticates it; any malformed or altered column is an integrity failure.
    private static func decode(_ row: SQLRow, state: State) throws -> (rowID: Int64, item: VaultItem) {
        guard row.values.count == 26, let rowID = row.integer(0), let storedKey = row.blob(1),
            let itemClass = row.text(2).flatMap(ItemClass.init(rawValue:)), let group = row.text(3),
            let sync = row.integer(4), sync == 0 || sync == 1,
            let accessibility = row.text(5).flatMap(Accessibility.init(rawValue:)),
            let control = row.integer(6).flatMap(UInt32.init(exactly:)),
            let created = row.integer(22), let modified = row.integer(23), let sealed = row.blob(25)
        else { throw VaultError.integrityFailure() }
        var port: Int?
        if let value = row.integer(13) {
            guard let exact = Int(exactly: value) else { throw VaultError.integrityFailure() }
            port = exact
        }
        let attributes = ItemAttributes(
            service: row.text(7), account: row.text(8), label: row.text(9), generic: row.blob(10),
            server: row.text(11), protocol: row.text(12), port: port, path: row.text(14),
            securityDomain: row.text(15), authenticationType: row.text(16), applicationTag: row.blob(17),
            applicationLabel: row.blob(18), keyType: row.text(19), issuer: row.blob(20), serialNumber: row.blob(21))
        var item = VaultItem(
            itemClass: itemClass, attributes: attributes, value: [], accessGroup: group,
            accessibility: accessibility, synchronizable: sync == 1, accessControl: AccessControl(rawValue: control))
        item.creationDate = Date(timeIntervalSince1970: Double(created) / 1000)
        item.modificationDate = Date(timeIntervalSince1970: Double(modified) / 1000)
        switch row.values[24] {
        case .null: item.biometryBinding = nil
        case .blob(let binding): item.biometryBinding = binding
        default: throw VaultError.integrityFailure()
        }
        let primaryKey = item.primaryKey.bytes
        guard ConstantTime.isEqual(primaryKey, storedKey) else { throw VaultError.integrityFailure() }
        let aad = associatedData(item, primaryKey: primaryKey, created: created, modified: modified, state: state)
        do {
            item.value = try AEAD.open(SealedBox(combined: sealed), using: state.dataKey, authenticating: aad)
        } catch {
            throw VaultError.integrityFailure()
        }
        return (rowID, item)
    }

    /// `"rampart.vault.item.1" ‖ vault id ‖ primary key ‖ every attribute ‖ dates`, canonically encoded.
    private static func associatedData(
        _ item: VaultItem,
        primaryKey: [UInt8],
        created: Int64,
        modified: Int64,
        state: State
    ) -> [UInt8] {
        var encoder = CanonicalEncoder(domain: "rampart.vault.item.1")
        encoder.append(state.vaultID)
        encoder.append(primaryKey)
        encoder.append(item.accessibility.rawValue)
        encoder.append(Int64(item.accessControl.rawValue))
        encoder.append(item.biometryBinding)
        for name in ItemAttributes.Name.allCases {
            encoder.append(item.attributes.bytes(of: name))
        }
        encoder.append(created)
        encoder.append(modified)
        return encoder.bytes
    }

    private static func milliseconds(_ date: Date?) -> Int64 {
        Int64(((date ?? Date()).timeIntervalSince1970 * 1000).rounded())
    }

    // MARK: Creating and unlocking

    /// Creates an empty file with mode 0600 unless one exists; returns whether it did.
    private static func createFileIfMissing(_ path: String, allowed: Bool) throws -> Bool {
        if FileManager.default.fileExists(atPath: path) { return false }
        guard allowed else {
            throw VaultError.itemNotFound("there is no vault at \(path); add or set an item to create one")
        }
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if descriptor < 0 {
            if errno == EEXIST { return false }
            throw VaultError.ioFailure("cannot create the vault file \(path): \(String(cString: strerror(errno)))")
        }
        // The umask can only remove bits; fchmod makes the mode exactly 0600 whatever it is.
        fchmod(descriptor, 0o600)
        close(descriptor)
        return true
    }

    private static func isInitialized(_ database: SQLiteConnection) throws -> Bool {
        let rows = try database.query("SELECT count(*) FROM sqlite_master WHERE type = 'table'")
        let tables = rows.first?.integer(0) ?? 0
        guard tables > 0 else { return false }
        let ours = try database.query(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('rampart_vault', 'items')")
        guard ours.first?.integer(0) == 2 else { throw VaultError.authFailed() }
        return true
    }

    /// The tables of format 1 (see FileVaultFormat.md); constant SQL, run once when a vault is created.
    private static let schema = """
        CREATE TABLE rampart_vault (
            id INTEGER PRIMARY KEY CHECK (id = 1), format INTEGER NOT NULL, vault_id BLOB NOT NULL,
            kdf TEXT NOT NULL, salt BLOB NOT NULL, memory_kib INTEGER NOT NULL, iterations INTEGER NOT NULL,
            parallelism INTEGER NOT NULL, wrapped_key BLOB NOT NULL, generation INTEGER NOT NULL);
        CREATE TABLE items (
            id INTEGER PRIMARY KEY, pk BLOB NOT NULL UNIQUE, class TEXT NOT NULL, access_group TEXT NOT NULL,
            synchronizable INTEGER NOT NULL, accessibility TEXT NOT NULL, access_control INTEGER NOT NULL,
            service TEXT, account TEXT, label TEXT, generic BLOB, server TEXT, protocol TEXT, port INTEGER,
            path TEXT, security_domain TEXT, authentication_type TEXT, application_tag BLOB,
            application_label BLOB, key_type TEXT, issuer BLOB, serial_number BLOB,
            created INTEGER NOT NULL, modified INTEGER NOT NULL, biometry_binding BLOB, sealed BLOB NOT NULL);
        CREATE INDEX items_lookup ON items (class, service, account);
        """

    private static func initialize(
        _ database: SQLiteConnection, credential: VaultCredential, kdf: Argon2Parameters
    )
        throws
    {
        try database.switchToWAL()
        let header = try KeyHeader.make(credential: credential, kdf: kdf)
        try database.transaction(.immediate) {
            // Another process may have initialised the file while this one waited for the lock.
            guard try !isInitialized(database) else { return }
            try database.execute(unsafeScript: schema)
            let vaultID = SecureRandom.bytes(count: 16)
            let wrapped = try header.wrap(SymmetricKey(randomByteCount: 32), vaultID: vaultID, generation: 1)
            try database.run(
                """
                INSERT INTO rampart_vault (id, format, vault_id, kdf, salt, memory_kib, iterations, parallelism,
                    wrapped_key, generation)
                VALUES (1, 1, \(vaultID), \(header.kdfName), \(header.salt), \(Int64(header.parameters.memoryKiB)),
                    \(Int64(header.parameters.iterations)), \(Int64(header.parameters.parallelism)), \(wrapped), 1)
                """)
        }
    }

    private static func unlock(
        _ database: SQLiteConnection, credential: VaultCredential, kdfLimits: KDFLimits
    ) throws -> State {
        let rows = try database.query(
            """
            SELECT format, vault_id, kdf, salt, memory_kib, iterations, parallelism, wrapped_key, generation
            FROM rampart_vault WHERE id = 1
            """)
        guard let row = rows.first, row.values.count == 9, row.integer(0) == 1, let vaultID = row.blob(1),
            vaultID.count == 16, let kdfName = row.text(2), let salt = row.blob(3),
            let memory = row.integer(4).flatMap(UInt32.init(exactly:)),
            let iterations = row.integer(5).flatMap(UInt32.init(exactly:)),
            let parallelism = row.integer(6).flatMap(UInt32.init(exactly:)), let wrapped = row.blob(7),
            let generation = row.integer(8)
        else { throw VaultError.authFailed() }
        let header = KeyHeader(
            kdfName: kdfName, salt: salt,
            parameters: Argon2Parameters(memoryKiB: memory, iterations: iterations, parallelism: parallelism))
        // The header is not verified until the key unwraps: bound what it may cost before deriving.
        if kdfName == KeyHeader.passphraseKDF, case .passphrase = credential.backing {
            try kdfLimits.check(header.parameters, what: "the vault's header")
        }
        let dataKey = try header.unwrap(wrapped, credential: credential, vaultID: vaultID, generation: generation)
        return State(database: database, dataKey: dataKey, generation: generation, vaultID: vaultID)
    }
}

extension FileVault: Sendable {}

extension FileVault {
    /// The most Argon2id work a vault header may ask for before anything in it can be verified.
    ///
    /// The header's costs are bound into the key wrap, but that is checked only after deriving with them, so anyone
    /// who can write the file could make opening allocate gigabytes for minutes. Opening refuses costs above the
    /// limits with ``VaultError/Code/invalidParameters`` before deriving; creating a vault or rotating to a
    /// passphrase refuses them too, so no vault is made that the same limits would not open.
    public struct KDFLimits: Hashable, Sendable {
        /// The most memory, in KiB (Argon2id's m).
        public var maximumMemoryKiB: UInt32
        /// The most memory written and read over all passes, in KiB (m × t).
        public var maximumWorkKiB: UInt64

        /// 256 MiB of memory and 1 GiB of work (m × t): about a second on one core, and 13 times the default
        /// ``RampartCrypto/Argon2Parameters/owasp`` (19 MiB, t = 2).
        public static let standard = KDFLimits(maximumMemoryKiB: 256 * 1024, maximumWorkKiB: 1024 * 1024)

        /// Creates limits; lower ones bound what a tampered vault file can cost more tightly.
        ///
        /// - Warning: Limits above ``standard`` let a tampered header make opening take minutes and gigabytes.
        /// - Parameters:
        ///   - maximumMemoryKiB: The most memory, in KiB.
        ///   - maximumWorkKiB: The most memory × passes, in KiB.
        public init(maximumMemoryKiB: UInt32, maximumWorkKiB: UInt64) {
            self.maximumMemoryKiB = maximumMemoryKiB
            self.maximumWorkKiB = maximumWorkKiB
        }

        func check(_ parameters: Argon2Parameters, what: String) throws {
            let work = UInt64(parameters.memoryKiB) * UInt64(parameters.iterations)
            guard parameters.memoryKiB <= maximumMemoryKiB, work <= maximumWorkKiB else {
                throw VaultError.invalidParameters(
                    "\(what) asks Argon2id for m=\(parameters.memoryKiB) KiB, t=\(parameters.iterations): more than "
                        + "the \(maximumMemoryKiB) KiB of memory and \(maximumWorkKiB) KiB of work (m × t) these "
                        + "limits allow; a vault file someone else could write may be forged to stall the reader, and "
                        + "one made with these costs opens only with higher FileVault.KDFLimits")
            }
        }
    }
}

/// How the vault key is wrapped: the KDF, its salt and parameters, which are bound into the wrap's associated data.
struct KeyHeader {
    static let passphraseKDF = "argon2id"
    static let keyKDF = "hkdf-sha256"

    let kdfName: String
    let salt: [UInt8]
    let parameters: Argon2Parameters
    var keyEncryptionKey: SymmetricKey?

    init(kdfName: String, salt: [UInt8], parameters: Argon2Parameters, keyEncryptionKey: SymmetricKey? = nil) {
        self.kdfName = kdfName
        self.salt = salt
        self.parameters = parameters
        self.keyEncryptionKey = keyEncryptionKey
    }

    /// A fresh salt and the key-encryption key derived from `credential`.
    static func make(credential: VaultCredential, kdf: Argon2Parameters) throws -> KeyHeader {
        let salt = SecureRandom.bytes(count: 16)
        switch credential.backing {
        case .passphrase:
            var header = KeyHeader(kdfName: passphraseKDF, salt: salt, parameters: kdf)
            header.keyEncryptionKey = try header.derive(credential)
            return header
        case .key:
            var header = KeyHeader(
                kdfName: keyKDF, salt: salt, parameters: Argon2Parameters(memoryKiB: 0, iterations: 0, parallelism: 0))
            header.keyEncryptionKey = try header.derive(credential)
            return header
        }
    }

    func derive(_ credential: VaultCredential) throws -> SymmetricKey {
        switch (credential.backing, kdfName) {
        case (.passphrase(let passphrase), Self.passphraseKDF):
            guard parameters.isValid, salt.count == 16 else { throw VaultError.authFailed() }
            do {
                return try Argon2id.deriveKey(password: passphrase, salt: salt, parameters: parameters)
            } catch let error as CryptoError {
                throw VaultError.invalidParameters("the vault's key parameters are unusable: \(error.reason)")
            }
        case (.key(let key), Self.keyKDF):
            guard salt.count == 16 else { throw VaultError.authFailed() }
            return SymmetricKey(
                bytes: try HKDF.deriveKey(
                    inputKeyMaterial: key, salt: salt, info: Array("rampart.vault.kek.1".utf8), outputByteCount: 32))
        case (.passphrase, Self.keyKDF):
            throw VaultError.authFailed(Self.keyFileVaultReason)
        case (.key, Self.passphraseKDF):
            throw VaultError.authFailed(Self.passphraseVaultReason)
        default:
            throw VaultError.authFailed()
        }
    }

    /// The refusal of a passphrase for a vault whose key is wrapped for a key file.
    static let keyFileVaultReason = "this vault opens with a key file, not a passphrase"
    /// The refusal of a key file for a vault whose key is wrapped for a passphrase.
    static let passphraseVaultReason = "this vault opens with a passphrase, not a key file"

    func associatedData(vaultID: [UInt8], generation: Int64) -> [UInt8] {
        var encoder = CanonicalEncoder(domain: "rampart.vault.key.1")
        encoder.append(vaultID)
        encoder.append(kdfName)
        encoder.append(salt)
        encoder.append(Int64(parameters.memoryKiB))
        encoder.append(Int64(parameters.iterations))
        encoder.append(Int64(parameters.parallelism))
        encoder.append(generation)
        return encoder.bytes
    }

    func wrap(_ dataKey: SymmetricKey, vaultID: [UInt8], generation: Int64) throws -> [UInt8] {
        guard let keyEncryptionKey else { throw VaultError.invalidParameters("no key-encryption key") }
        let box = try dataKey.withUnsafeBytes { bytes in
            try AEAD.seal(
                Array(bytes), using: keyEncryptionKey,
                authenticating: associatedData(vaultID: vaultID, generation: generation))
        }
        return box.combined
    }

    func unwrap(
        _ wrapped: [UInt8], credential: VaultCredential, vaultID: [UInt8], generation: Int64
    ) throws
        -> SymmetricKey
    {
        let keyEncryptionKey = try derive(credential)
        do {
            let bytes = try AEAD.open(
                SealedBox(combined: wrapped), using: keyEncryptionKey,
                authenticating: associatedData(vaultID: vaultID, generation: generation))
            guard bytes.count == 32 else { throw VaultError.authFailed() }
            return SymmetricKey(bytes: bytes)
        } catch {
            throw VaultError.authFailed()
        }
    }
}
