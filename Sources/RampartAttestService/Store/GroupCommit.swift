import Dispatch
import Synchronization

/// One caller's transaction body, waiting for the group commit that will run it and make it durable.
final class PendingTransaction: Sendable {
    private let runBody: @Sendable (any AttestationStoreTransaction) -> Bool
    private let complete: @Sendable ((any Error)?) -> Void

    private init(
        run: @escaping @Sendable (any AttestationStoreTransaction) -> Bool,
        complete: @escaping @Sendable ((any Error)?) -> Void
    ) {
        runBody = run
        self.complete = complete
    }

    /// A pending transaction that resumes `continuation` when it completes.
    static func make<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T,
        _ continuation: CheckedContinuation<T, any Error>
    ) -> PendingTransaction {
        let outcome = ResultBox<T>()
        return PendingTransaction(
            run: { transaction in
                do {
                    let value = try body(transaction)
                    outcome.value.withLock { $0 = .success(value) }
                    return true
                } catch {
                    outcome.value.withLock { $0 = .failure(error) }
                    return false
                }
            },
            complete: { failure in
                let result = outcome.value.withLock { $0 }
                switch (result, failure) {
                case (.failure(let error)?, _): continuation.resume(throwing: error)  // its own work was rolled back
                case (_, let failure?): continuation.resume(throwing: failure)
                case (.success(let value)?, nil): continuation.resume(returning: value)
                case (nil, nil):
                    continuation.resume(throwing: AttestServiceError.storeFailure("the transaction never ran"))
                }
            })
    }

    /// Runs the body; whether it returned (rather than threw). Called once per member.
    func run(_ transaction: any AttestationStoreTransaction) -> Bool { runBody(transaction) }

    /// Answers the caller: the body's error if it threw, else `failure` if the commit failed, else its value.
    func complete(failure: (any Error)?) { complete(failure) }
}

private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
}

/// A writer that gathers the transactions submitted while it was busy and runs them as one batch.
///
/// Submitting never blocks; the first submitter with the writer idle starts a drain on the writer's queue, which
/// takes everything pending (up to `maximumBatch`), runs it, and repeats until nothing is pending. While one batch
/// commits (a `synchronous=FULL` fsync, a PostgreSQL round trip), the next gathers.
final class GroupCommitQueue: Sendable {
    /// The most transactions in one commit by default (bounds the latency one batch adds to its members).
    static let defaultMaximumBatch = 128

    private struct State {
        var pending: [PendingTransaction] = []
        var draining = false
    }

    private let state = Mutex(State())
    private let batches = Atomic<Int>(0)
    private let members = Atomic<Int>(0)
    private let queue: DispatchQueue
    private let maximumBatch: Int
    private let runBatch: @Sendable ([PendingTransaction]) -> Void

    /// A writer on a serial queue named `label` that hands each batch of at most `maximumBatch` transactions to
    /// `runBatch`.
    init(
        label: String, maximumBatch: Int = defaultMaximumBatch,
        runBatch: @escaping @Sendable ([PendingTransaction]) -> Void
    ) {
        queue = DispatchQueue(label: label)
        self.maximumBatch = max(maximumBatch, 1)
        self.runBatch = runBatch
    }

    /// Adds a transaction to the next batch.
    func submit(_ transaction: PendingTransaction) {
        let start = state.withLock { state -> Bool in
            state.pending.append(transaction)
            guard !state.draining else { return false }
            state.draining = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    /// How many transactions wait for the writer, plus one while it runs a batch.
    var backlog: Int { state.withLock { $0.pending.count + ($0.draining ? 1 : 0) } }

    /// Whether the writer is running a batch, and how many transactions wait for the next one (for choosing among
    /// several writers).
    var load: (draining: Bool, pending: Int) { state.withLock { ($0.draining, $0.pending.count) } }

    /// How many batches ran and how many transactions they held, since the writer started.
    var statistics: (batches: Int, transactions: Int) {
        (batches.load(ordering: .relaxed), members.load(ordering: .relaxed))
    }

    /// Runs `work` on the writer's queue after the batches already started.
    func onWriter(_ work: @escaping @Sendable () -> Void) { queue.async(execute: work) }

    private func drain() {
        while true {
            let batch = state.withLock { state -> [PendingTransaction] in
                guard !state.pending.isEmpty else {
                    state.draining = false
                    return []
                }
                let count = min(state.pending.count, maximumBatch)
                let batch = Array(state.pending.prefix(count))
                state.pending.removeFirst(count)
                return batch
            }
            if batch.isEmpty { return }
            batches.add(1, ordering: .relaxed)
            members.add(batch.count, ordering: .relaxed)
            StageClock.measureEvery(.store) { runBatch(batch) }
        }
    }
}

/// The statements a group commit runs around its members, for one connection.
struct GroupCommitStatements {
    var begin: () throws -> Void
    var savepoint: () throws -> Void
    var release: () throws -> Void
    var rollbackToSavepoint: () throws -> Void
    var commit: () throws -> Void
    var rollback: () -> Void
    /// Whether the transaction is gone although it was begun: SQLite drops it by itself on some I/O errors, and a
    /// PostgreSQL connection that dropped takes it along.
    var isTransactionLost: () -> Bool = { false }

    /// Runs `batch` as one transaction, each member's body exactly once inside its own savepoint, and completes every
    /// member after the commit (or its failure).
    ///
    /// A member whose body throws (its own error, or a statement the database refused) is rolled back to its
    /// savepoint and answered with its own error; the others commit. When the transaction itself fails (`BEGIN`, a
    /// savepoint statement, `COMMIT`, or a transaction the database dropped), every member that ran in it is
    /// answered with that failure (as is a member whose savepoint failed, before its body ran): nothing of it was
    /// committed, and no body runs again. The members not yet run then go on in a new transaction.
    ///
    /// - Parameters:
    ///   - batch: The members, in submission order.
    ///   - transaction: The operations the bodies use on this connection.
    ///   - failure: Turns a database error into what the members are answered with.
    func run(
        _ batch: [PendingTransaction], transaction: any AttestationStoreTransaction,
        failure: (any Error) -> any Error
    ) {
        var remaining = batch[...]
        while !remaining.isEmpty {
            do {
                try begin()
            } catch {
                let failed = failure(error)
                for member in remaining { member.complete(failure: failed) }
                return
            }
            var ran: [PendingTransaction] = []
            var broken: (any Error)?
            while let member = remaining.first {
                remaining = remaining.dropFirst()
                ran.append(member)
                do {
                    try savepoint()
                } catch {
                    broken = failure(error)  // answered with the others: its body never ran
                    break
                }
                let succeeded = member.run(transaction)
                if isTransactionLost() {
                    broken = Self.lostTransaction
                    break
                }
                do {
                    if !succeeded { try rollbackToSavepoint() }
                    try release()
                } catch {
                    broken = failure(error)
                    break
                }
            }
            if let broken {
                rollback()
                for member in ran { member.complete(failure: broken) }
                continue
            }
            commitAndAnswer(ran, failure: failure)
        }
    }

    private static var lostTransaction: AttestServiceError {
        AttestServiceError.storeFailure(
            "the database rolled back a group of transactions after an error; nothing was acknowledged")
    }

    /// Commits the open transaction and answers `members`: with success, or every one with the commit's failure.
    private func commitAndAnswer(_ members: [PendingTransaction], failure: (any Error) -> any Error) {
        do {
            try commit()
        } catch {
            rollback()
            let failed = failure(error)
            for member in members { member.complete(failure: failed) }
            return
        }
        for member in members { member.complete(failure: nil) }
    }
}
