import Foundation
import RampartSQLite
import Synchronization

/// The shared store: a PostgreSQL database that several `rampart serve` processes use at once.
///
/// The guarantees come from the statements, not from the process: a challenge is consumed with
/// `DELETE … RETURNING` (of concurrent consumers, PostgreSQL gives the row to one), a counter advances with
/// `UPDATE … WHERE counter < $new`, and each request is one transaction whose `COMMIT` precedes the answer.
/// Connections are pooled; each has its own serial queue, so blocking libpq calls never run on Swift's cooperative
/// threads.
public final class PostgresAttestationStore: AttestationStore {
    /// How many connections the pool opens by default.
    public static let defaultPoolSize = 8

    private let slots: [Slot]
    private let next = Atomic<Int>(0)

    private final class Slot: Sendable {
        let connection: Mutex<PostgresConnection?>
        let queue: DispatchQueue

        init(_ connection: sending PostgresConnection, index: Int) {
            self.connection = Mutex(connection)
            self.queue = DispatchQueue(label: "rampart.store.postgres.\(index)")
        }
    }

    /// Connects `poolSize` times to `url` and creates, migrates or checks the tables.
    ///
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database`.
    ///   - poolSize: How many connections (and concurrent transactions) to keep.
    /// - Throws: ``AttestServiceError`` with ``AttestServiceError/Code/storeFailure``.
    public init(url: String, poolSize: Int = defaultPoolSize) throws {
        guard poolSize >= 1 else { throw AttestServiceError.invalidConfiguration("the pool needs a connection") }
        var slots: [Slot] = []
        for index in 0..<poolSize {
            let connection = try PostgresConnection(url: url)
            if index == 0 {
                // A session advisory lock keeps two processes starting together from racing on CREATE TABLE.
                try connection.execute(unsafeScript: "SELECT pg_advisory_lock(727172)")
                defer { try? connection.execute(unsafeScript: "SELECT pg_advisory_unlock(727172)") }
                try Self.prepareSchema(on: connection)
            }
            slots.append(Slot(connection, index: index))
        }
        self.slots = slots
    }

    /// Creates, migrates or checks the tables in one transaction (the caller holds the advisory lock).
    private static func prepareSchema(on connection: borrowing PostgresConnection) throws {
        try connection.execute(unsafeScript: "BEGIN")
        do {
            try StoreSchema.prepare(
                .postgres, query: { try connection.query($0) }, script: { try connection.execute(unsafeScript: $0) })
            try connection.execute(unsafeScript: "COMMIT")
        } catch {
            try? connection.execute(unsafeScript: "ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in `BEGIN … COMMIT` on the next pooled connection.
    ///
    /// - Parameter body: The reads and writes.
    /// - Returns: What `body` returned, after the commit.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`).
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        let index = next.add(1, ordering: .relaxed).newValue
        let slot = slots[(index % slots.count + slots.count) % slots.count]
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            slot.queue.async {
                let result = Result<T, any Error> {
                    try slot.connection.withLock { connection throws -> T in
                        guard let connection else {
                            throw AttestServiceError.storeFailure("the PostgreSQL store is closed")
                        }
                        connection.resetIfBroken()
                        try connection.execute(unsafeScript: "BEGIN")
                        do {
                            let value = try body(SQLStoreTransaction(execute: { try connection.query($0) }))
                            try connection.execute(unsafeScript: "COMMIT")
                            return value
                        } catch {
                            try? connection.execute(unsafeScript: "ROLLBACK")
                            throw error
                        }
                    }
                }
                continuation.resume(with: result)
            }
        }
    }

    /// Closes every connection after the transactions running on it.
    public func close() async {
        for slot in slots {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                slot.queue.async {
                    slot.connection.withLock { $0 = nil }
                    continuation.resume()
                }
            }
        }
    }
}
