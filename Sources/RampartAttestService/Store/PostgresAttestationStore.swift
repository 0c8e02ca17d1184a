import Dispatch
import Foundation
import RampartPostgres
import RampartSQLite
import Synchronization

/// The shared store: a PostgreSQL database that several `rampart serve` processes use at once.
///
/// The guarantees come from the statements, not from the process: a challenge is spent with
/// `INSERT … ON CONFLICT DO NOTHING` on the spent set's primary key (of concurrent spenders, PostgreSQL lets one
/// insert), a counter advances with `UPDATE … WHERE counter < $new`, and every answer follows the `COMMIT` that holds
/// its work.
///
/// Connections are pooled (``defaultPoolSize``); each has its own serial queue, so blocking libpq calls never run on
/// Swift's cooperative threads, and its own group commit: the transactions that arrive while the connection is busy
/// run together in one `BEGIN … COMMIT`, each body once, in its own `SAVEPOINT` (so one that throws is rolled back
/// alone). A new transaction joins a busy connection's next batch until 16 wait for it, and only then goes to an idle
/// connection. Commands without results (`BEGIN`, `SAVEPOINT`, `RELEASE`, `ROLLBACK TO`) travel in one libpq
/// pipeline with the next statement, and the last `RELEASE` with `COMMIT`, so a member costs one round trip per
/// statement and a batch one more for its commit. Each statement text is prepared once per connection. Reads
/// (``read(_:)``) run on connections of their own, outside any transaction, so a read's round trip never waits
/// behind a batch, nor a batch behind it.
public final class PostgresAttestationStore: AttestationStore {
    /// How many connections the pool opens by default.
    public static let defaultPoolSize = 8

    private let slots: [Slot]

    private final class Slot: Sendable {
        let connection: Mutex<PostgresConnection?>

        init(_ connection: sending PostgresConnection) { self.connection = Mutex(connection) }
    }

    private let writers: [GroupCommitQueue]
    /// The connections of ``read(_:)``, each with its own serial queue (libpq blocks).
    private let readers: [Reader]
    private let nextReader = Atomic<Int>(0)

    private final class Reader: Sendable {
        let queue: DispatchQueue
        let connection: Mutex<PostgresConnection?>

        init(_ connection: sending PostgresConnection, label: String) {
            queue = DispatchQueue(label: label)
            self.connection = Mutex(connection)
        }
    }

    /// How many read connections a pool of `poolSize` connections for transactions adds: half as many, at least one.
    static func readerCount(poolSize: Int) -> Int { max(poolSize / 2, 1) }

    /// Connects `poolSize` times to `url` for transactions (and half as many times for reads) and creates, migrates
    /// or checks the tables.
    ///
    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database`.
    ///   - poolSize: How many connections for transactions (and concurrent transactions) to keep.
    /// - Throws: ``AttestServiceError`` with ``AttestServiceError/Code/storeFailure``.
    public init(url: String, poolSize: Int = defaultPoolSize) throws {
        guard poolSize >= 1 else { throw AttestServiceError.invalidConfiguration("the pool needs a connection") }
        var slots: [Slot] = []
        var readers: [Reader] = []
        do {
            for index in 0..<poolSize {
                let connection = try PostgresConnection(url: url, roundTrips: roundTrips)
                if index == 0 {
                    // A session advisory lock keeps two processes starting together from racing on CREATE TABLE.
                    try connection.execute(unsafeScript: "SELECT pg_advisory_lock(727172)")
                    defer { try? connection.execute(unsafeScript: "SELECT pg_advisory_unlock(727172)") }
                    try Self.prepareSchema(on: connection)
                }
                slots.append(Slot(connection))
            }
            for index in 0..<Self.readerCount(poolSize: poolSize) {
                let connection = try PostgresConnection(url: url, readOnly: true, roundTrips: roundTrips)
                readers.append(Reader(connection, label: "rampart.store.postgres.read.\(index)"))
            }
        } catch {
            throw Self.storeFailure(error)
        }
        self.slots = slots
        self.readers = readers
        writers = slots.enumerated().map { index, slot in
            GroupCommitQueue(label: "rampart.store.postgres.\(index)", maximumBatch: Self.maximumBatch) { batch in
                Self.run(batch, on: slot)
            }
        }
    }

    /// The most transactions in one batch: each member's savepoint is a subtransaction, and a backend caches the ids
    /// of at most 64 (`PGPROC_MAX_CACHED_SUBXIDS`); beyond that every other session's snapshot of the database must
    /// look subtransactions up in `pg_subtrans`.
    static let maximumBatch = 64

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

    /// Runs one batch on the slot's connection as one group commit.
    private static func run(_ batch: [PendingTransaction], on slot: Slot) {
        slot.connection.withLock { connection in
            guard let connection else {
                let closed = AttestServiceError.storeFailure("the PostgreSQL store is closed")
                for member in batch { member.complete(failure: closed) }
                return
            }
            connection.resetIfBroken()
            let transaction = Self.transaction(on: connection)
            let statements = GroupCommitStatements(
                begin: { connection.deferCommand(unsafeScript: "BEGIN") },
                savepoint: { connection.deferCommand(unsafeScript: "SAVEPOINT rampart_member") },
                release: { connection.deferCommand(unsafeScript: "RELEASE rampart_member") },
                rollbackToSavepoint: { connection.deferCommand(unsafeScript: "ROLLBACK TO rampart_member") },
                commit: { try connection.commit() },
                rollback: { connection.rollback() },
                isTransactionLost: { connection.hasLostTransaction })
            statements.run(batch, transaction: transaction) { Self.storeFailure($0) }
        }
    }

    /// The store's operations on `connection`, with its failures reported as the store's.
    private static func transaction(on connection: PostgresConnection) -> SQLStoreTransaction {
        SQLStoreTransaction(execute: { query in
            // Refused before sending, as the SQLite store refuses it, so both keep one contract.
            try query.refuseNULInText()
            do {
                return try connection.query(query)
            } catch {
                throw Self.storeFailure(error)
            }
        })
    }

    /// A connection's failure as the store's: ``AttestServiceError`` (`storeFailure`) with the same reason and the
    /// server's message as its detail; any other error unchanged.
    private static func storeFailure(_ error: any Error) -> any Error {
        guard let error = error as? PostgresError else { return error }
        return AttestServiceError.storeFailure(error.reason, detail: error.detail)
    }

    /// How many transactions wait for the pool's writers, plus one for each writer running a batch.
    var writerBacklog: Int { writers.reduce(0) { $0 + $1.backlog } }

    /// How many transactions a busy connection gathers for its next batch before an idle one is put to work.
    static let gatheringBeforeSpreading = 16

    /// The index of the writer a new transaction joins, given each writer's load: the first busy one still
    /// gathering its next batch (fewer than ``gatheringBeforeSpreading`` waiting), else the first idle one, else
    /// the one with the least work waiting.
    ///
    /// Filling a busy connection's next batch before starting another keeps batches large. Each batch costs one
    /// `COMMIT` (a WAL flush) and its round trip whatever it holds, so spreading load over idle connections, one
    /// transaction each, would cost the database a commit per request (the RunningTheService article says what that
    /// cost on a local PostgreSQL). A connection is added only when the busy ones have a batch's worth waiting, so a
    /// slow database (a long round trip or flush) still gets parallel connections as the load needs them.
    ///
    /// - Parameter loads: Each writer's state, in pool order; not empty. Read lazily: the first writer still
    ///   gathering is chosen without reading the ones after it.
    /// - Returns: An index into `loads`.
    static func writerIndex(among loads: some Sequence<(draining: Bool, pending: Int)>) -> Int {
        var idle: Int?
        var best = 0
        var bestBacklog = Int.max
        for (index, load) in loads.enumerated() {
            if load.draining && load.pending < gatheringBeforeSpreading { return index }
            if !load.draining && load.pending == 0 {
                if idle == nil { idle = index }
                continue
            }
            let backlog = load.pending + (load.draining ? 1 : 0)
            if backlog < bestBacklog {
                best = index
                bestBacklog = backlog
            }
        }
        return idle ?? best
    }

    /// The round trips the pool's connections made (for tests).
    let roundTrips = RoundTripCount()

    /// How many transactions wait for each writer, plus one for a writer running a batch, in pool order.
    var writerBacklogs: [Int] { writers.map(\.backlog) }

    private var chosenWriter: GroupCommitQueue { writers[Self.writerIndex(among: writers.lazy.map(\.load))] }

    /// Runs `body` in the next group commit of a pooled connection: a busy one still gathering, else an idle one.
    ///
    /// - Parameter body: The reads and writes.
    /// - Returns: What `body` returned, after the commit.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`).
    public func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        let writer = chosenWriter
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            writer.submit(PendingTransaction.make(body, continuation))
        }
    }

    /// Runs `body` on one of the read connections (in turn), outside any transaction: each statement sees what was
    /// committed when it ran. The connections are read-only: a body that writes fails with ``AttestServiceError``
    /// (`storeFailure`), as on the SQLite store.
    ///
    /// - Parameter body: The reads.
    /// - Returns: What `body` returned.
    /// - Throws: What `body` threw, or ``AttestServiceError`` (`storeFailure`).
    public func read<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        let index = nextReader.add(1, ordering: .relaxed).newValue
        let reader = readers[(index % readers.count + readers.count) % readers.count]
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            reader.queue.async {
                continuation.resume(
                    with: Result {
                        try StageClock.measure(.store) {
                            try reader.connection.withLock { connection throws -> T in
                                guard let connection else {
                                    throw AttestServiceError.storeFailure("the PostgreSQL store is closed")
                                }
                                connection.resetIfBroken()
                                return try body(Self.transaction(on: connection))
                            }
                        }
                    })
            }
        }
    }

    /// Closes every connection after the transactions and reads running on it.
    public func close() async {
        for reader in readers {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                reader.queue.async {
                    reader.connection.withLock { $0 = nil }
                    continuation.resume()
                }
            }
        }
        for (slot, writer) in zip(slots, writers) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                writer.onWriter {
                    slot.connection.withLock { $0 = nil }
                    continuation.resume()
                }
            }
        }
    }
}
