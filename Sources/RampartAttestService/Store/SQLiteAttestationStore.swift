import Foundation
import RampartSQLite
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The embedded store: one SQLite file in WAL mode (the default for `rampart serve`).
///
/// Writes go through one writer connection with group commit: the transactions submitted while the writer is busy
/// run together in one `BEGIN IMMEDIATE … COMMIT`, each body once, in its own `SAVEPOINT` (so one that throws is
/// rolled back alone), and the commit runs with `synchronous=FULL`; every
/// caller is answered after that commit, so a `kill -9` (or a power loss) never loses an acknowledged registration
/// or counter, and one fsync serves many requests.
/// Reads (``read(_:)``) use their own `query_only` connections and never wait for the writer (WAL readers see the
/// last commit). Several processes may open the same file: SQLite's file lock serialises their writers.
///
/// A new database file is created with mode 0600 (SQLite gives its `-wal` and `-shm` files the same mode): it holds
/// the registered keys, the spent challenges and, without configured challenge sealing keys, the keys that seal
/// challenges and sign access tokens. An existing file keeps its mode.
public final class SQLiteAttestationStore: AttestationStore {
    /// How many read connections a file store keeps.
    static let readerCount = 2

    private let writer: ConnectionSlot
    private let commits: GroupCommitQueue
    /// Read connections; empty for `:memory:` (a second connection would open another, empty, database), where
    /// reads run as transactions.
    private let readers: [ConnectionSlot]
    private let nextReader = Atomic<Int>(0)

    /// Opens (creating if needed) the database at `path` and creates, migrates or checks the tables.
    ///
    /// - Parameter path: A file path, or `:memory:` for a private in-memory database.
    /// - Throws: ``AttestServiceError`` with ``AttestServiceError/Code/storeFailure``, also when the file holds
    ///   `rampart_` tables that are not Rampart's schema (see the schema rules in RunningTheService).
    public init(path: String) throws {
        let writer: ConnectionSlot
        if path != ":memory:" && !path.isEmpty { try createPrivately(path) }
        do {
            let opened = try SQLiteConnection(path: path)
            // BEGIN IMMEDIATE: two processes opening one new file create the tables once.
            try opened.transaction {
                try StoreSchema.prepare(
                    .sqlite, query: { try opened.query($0) }, script: { try opened.execute(unsafeScript: $0) })
            }
            writer = ConnectionSlot(opened)
            var readers: [ConnectionSlot] = []
            if path != ":memory:" && !path.isEmpty {
                for _ in 0..<Self.readerCount {
                    let reader = try SQLiteConnection(
                        path: path, options: .init(mode: .readWriteExisting, journalMode: .unchanged))
                    try reader.execute(unsafeScript: "PRAGMA query_only=ON")
                    readers.append(ConnectionSlot(reader))
                }
            }
            self.readers = readers
        } catch let error as SQLiteError {
            throw AttestServiceError.storeFailure(
                "could not open the SQLite store at \(path): \(error.reason)", detail: "\(error)")
        }
        self.writer = writer
        commits = GroupCommitQueue(label: "rampart.store.sqlite") { [writer] batch in
            writer.connection.withLock { connection in
                guard let connection else {
                    let closed = AttestServiceError.storeFailure("the SQLite store is closed")
                    for member in batch { member.complete(failure: closed) }
                    return
                }
                Self.statements(connection).run(batch, transaction: Self.transaction(on: connection)) { error in
                    Self.storeFailure(error)
                }
            }
        }
    }

    private static func statements(_ connection: SQLiteConnection) -> GroupCommitStatements {
        GroupCommitStatements(
            begin: { try connection.execute(constant: "BEGIN IMMEDIATE") },
            savepoint: { try connection.execute(constant: "SAVEPOINT rampart_member") },
            release: { try connection.execute(constant: "RELEASE rampart_member") },
            rollbackToSavepoint: { try connection.execute(constant: "ROLLBACK TO rampart_member") },
            commit: { try connection.execute(constant: "COMMIT") },
            // Ignore a rollback failure: the transaction is already gone when COMMIT itself failed.
            rollback: { try? connection.execute(constant: "ROLLBACK") },
            isTransactionLost: { connection.isAutocommit })
    }

    private static func transaction(on connection: SQLiteConnection) -> SQLStoreTransaction {
        var transaction = SQLStoreTransaction(execute: checked { try connection.query($0) })
        // Counted by SQLite itself: no RETURNING pass for the spend and the counter advance.
        transaction.changes = checked { try connection.run($0) }
        return transaction
    }

    /// `run` with NUL in text refused (as PostgreSQL must, so both stores keep one contract) and SQLite's errors
    /// reported as the store's.
    private static func checked<T>(_ run: @escaping (SQLQuery) throws -> T) -> (SQLQuery) throws -> T {
        { query in
            try query.refuseNULInText()
            do {
                return try run(query)
            } catch let error as SQLiteError {
                throw storeFailure(error)
            }
        }
    }

    private static func storeFailure(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        return AttestServiceError.storeFailure(
            "the SQLite store failed (\(error.code)); nothing was acknowledged", detail: error.reason)
    }

    /// Runs `body` in the next group commit of the store's writer.
    ///
    /// - Parameter body: The reads and writes.
    /// - Returns: What `body` returned, after the commit.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`).
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            commits.submit(PendingTransaction.make(body, continuation))
        }
    }

    /// Runs `body` on a read connection, in `BEGIN DEFERRED … COMMIT` (one snapshot); it cannot write.
    ///
    /// The read runs on the caller's thread: a WAL reader does not wait for the writer, and a point lookup takes
    /// microseconds, less than a hop to another queue.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`, also for a body that writes).
    public func read<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        guard !readers.isEmpty else { return try await transaction(body) }
        let index = nextReader.add(1, ordering: .relaxed).newValue
        let reader = readers[(index % readers.count + readers.count) % readers.count]
        return try StageClock.measure(.store) {
            try reader.connection.withLock { connection throws -> T in
                guard let connection else { throw AttestServiceError.storeFailure("the SQLite store is closed") }
                do {
                    return try connection.transaction(.deferred) { try body(Self.transaction(on: connection)) }
                } catch let error as SQLiteError {
                    throw Self.storeFailure(error)
                }
            }
        }
    }

    /// How many commits the writer made and how many transactions they held.
    var groupCommitStatistics: (batches: Int, transactions: Int) { commits.statistics }

    /// How many transactions wait for the writer, plus one while it runs a batch.
    var writerBacklog: Int { commits.backlog }

    /// Closes the connections after any running transaction.
    public func close() async {
        for reader in readers { reader.connection.withLock { $0 = nil } }
        let writer = self.writer
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            commits.onWriter {
                writer.connection.withLock { $0 = nil }
                continuation.resume()
            }
        }
    }
}

/// A connection behind a lock, shared by the store and its writer's queue.
private final class ConnectionSlot: Sendable {
    let connection: Mutex<SQLiteConnection?>

    init(_ connection: sending SQLiteConnection) { self.connection = Mutex(connection) }
}

/// Creates an empty file with mode 0600 at `path` unless something is there already.
private func createPrivately(_ path: String) throws {
    // O_EXCL: another process creating the file first is fine (EEXIST); O_NOFOLLOW: a planted symbolic link is
    // not followed to create a file elsewhere.
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
        let code = errno
        if code == EEXIST { return }
        throw AttestServiceError.storeFailure(
            "could not create the SQLite store at \(path): \(String(cString: strerror(code))); check that its "
                + "directory exists and is writable")
    }
    // The umask can only remove bits; fchmod makes the mode exactly 0600 whatever it is.
    _ = fchmod(descriptor, 0o600)
    close(descriptor)
}
