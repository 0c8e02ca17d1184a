import Foundation
import RampartSQLite
import Synchronization

/// The embedded store: one SQLite file in WAL mode (the default for `rampart serve`).
///
/// One connection, confined to a serial queue, runs every transaction with `BEGIN IMMEDIATE`; each answer is sent
/// after `COMMIT` with `synchronous=FULL`, so a `kill -9` (or a power loss) never loses an acknowledged registration
/// or counter. Several processes may open the same file: SQLite's file lock serialises their writers.
public final class SQLiteAttestationStore: AttestationStore {
    private let connection: Mutex<SQLiteConnection?>
    private let queue = DispatchQueue(label: "rampart.store.sqlite")

    /// Opens (creating if needed) the database at `path` and creates, migrates or checks the tables.
    ///
    /// - Parameter path: A file path, or `:memory:` for a private in-memory database.
    /// - Throws: ``AttestServiceError`` with ``AttestServiceError/Code/storeFailure``, also when the file holds
    ///   `rampart_` tables that are not Rampart's schema (see the schema rules in RunningTheService).
    public init(path: String) throws {
        do {
            let opened = try SQLiteConnection(path: path)
            // BEGIN IMMEDIATE: two processes opening one new file create the tables once.
            try opened.transaction {
                try StoreSchema.prepare(
                    .sqlite, query: { try opened.query($0) }, script: { try opened.execute(unsafeScript: $0) })
            }
            connection = Mutex(opened)
        } catch let error as SQLiteError {
            throw AttestServiceError.storeFailure(
                "could not open the SQLite store at \(path): \(error.reason)", detail: "\(error)")
        }
    }

    /// Runs `body` in `BEGIN IMMEDIATE … COMMIT` on the store's queue.
    ///
    /// - Parameter body: The reads and writes.
    /// - Returns: What `body` returned, after the commit.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`).
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            queue.async {
                let result = Result<T, any Error> {
                    try self.connection.withLock { connection throws -> T in
                        guard let connection else {
                            throw AttestServiceError.storeFailure("the SQLite store is closed")
                        }
                        do {
                            return try connection.transaction {
                                // Refuses NUL in text as PostgreSQL must, so both stores keep one contract.
                                try body(
                                    SQLStoreTransaction(execute: { query in
                                        try query.refuseNULInText()
                                        return try connection.query(query)
                                    }))
                            }
                        } catch let error as SQLiteError {
                            throw AttestServiceError.storeFailure(
                                "the SQLite store failed (\(error.code)); nothing was acknowledged",
                                detail: error.reason)
                        }
                    }
                }
                continuation.resume(with: result)
            }
        }
    }

    /// Closes the connection after any running transaction.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.connection.withLock { $0 = nil }
                continuation.resume()
            }
        }
    }
}
