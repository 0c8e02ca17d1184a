import Dispatch
import Synchronization

/// One caller's transaction body, waiting for the group commit that will run it and make it durable.
final class PendingTransaction: Sendable {
    /// Whether the body only reads: a writer that supports it runs such members outside the batch's transaction.
    let readOnly: Bool
    private let runBody: @Sendable (any AttestationStoreTransaction) -> Bool
    private let probeBody: @Sendable (any AttestationStoreTransaction) -> Void
    private let complete: @Sendable ((any Error)?) -> Void

    private init(
        readOnly: Bool, run: @escaping @Sendable (any AttestationStoreTransaction) -> Bool,
        probe: @escaping @Sendable (any AttestationStoreTransaction) -> Void,
        complete: @escaping @Sendable ((any Error)?) -> Void
    ) {
        self.readOnly = readOnly
        runBody = run
        probeBody = probe
        self.complete = complete
    }

    /// A pending transaction that resumes `continuation` when it completes.
    static func make<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T,
        _ continuation: CheckedContinuation<T, any Error>, readOnly: Bool = false
    ) -> PendingTransaction {
        let outcome = ResultBox<T>()
        return PendingTransaction(
            readOnly: readOnly,
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
            probe: { transaction in _ = try? body(transaction) },
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

    /// Runs the body; whether it returned (rather than threw).
    func run(_ transaction: any AttestationStoreTransaction) -> Bool { runBody(transaction) }

    /// Runs the body and forgets what it returned or threw: for a store that learns which statement a body starts
    /// with (see ``GroupCommitStatements/prefetch``). Bodies only compute from what the transaction reads, so this
    /// changes nothing but what `transaction` does.
    func probe(_ transaction: any AttestationStoreTransaction) { probeBody(transaction) }

    /// Answers the caller: the body's error if it threw, else `failure` if the commit failed, else its value.
    func complete(failure: (any Error)?) { complete(failure) }
}

private final class ResultBox<T: Sendable>: Sendable {
    let value = Mutex<Result<T, any Error>?>(nil)
}

/// A writer that gathers the transactions submitted while it was busy and runs them as one batch.
///
/// Submitting never blocks; the first submitter with the writer idle starts a drain on the writer's queue, which
/// takes everything pending (up to ``maximumBatch``), runs it, and repeats until nothing is pending. While one batch
/// commits (a `synchronous=FULL` fsync, a PostgreSQL round trip), the next gathers.
final class GroupCommitQueue: Sendable {
    /// The most transactions in one commit (bounds the latency one batch adds to its members).
    static let maximumBatch = 128

    private struct State {
        var pending: [PendingTransaction] = []
        var draining = false
    }

    private let state = Mutex(State())
    private let batches = Atomic<Int>(0)
    private let members = Atomic<Int>(0)
    private let queue: DispatchQueue
    private let runBatch: @Sendable ([PendingTransaction]) -> Void

    /// A writer on a serial queue named `label` that hands each batch to `runBatch`.
    init(label: String, runBatch: @escaping @Sendable ([PendingTransaction]) -> Void) {
        queue = DispatchQueue(label: label)
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
                let count = min(state.pending.count, Self.maximumBatch)
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
    /// Runs the first statement of each member of a batch up front, all together, just after `begin` (PostgreSQL:
    /// one pipeline, one round trip, instead of one per member); nil when the store runs statements one by one.
    var prefetch: ((ArraySlice<PendingTransaction>) -> PrefetchedBatch)?

    /// What ``prefetch`` made of a batch.
    enum PrefetchedBatch {
        /// Nothing was sent: the members run on the batch's transaction as they are.
        case none
        /// One transaction per member, in order, each answering its member's first statement from what was run up
        /// front. `allConsumed` tells, after the members ran, whether each one asked exactly for its prefetched
        /// statement first; if not, the batch is rolled back (something ran that no member asked for).
        case ready([any AttestationStoreTransaction], allConsumed: () -> Bool)
        /// A prefetched statement failed, which aborts the transaction: the batch is rolled back and runs again
        /// with savepoints, without a prefetch.
        case failed
    }

    /// Runs `batch` as one transaction and completes every member after the commit (or its failure).
    ///
    /// The members first run one after another with no savepoints: the common batch, where no body throws, costs
    /// `BEGIN`, the bodies' own statements and `COMMIT`, nothing else. When a body throws (its own error, or a
    /// statement the database refused), the transaction is rolled back and the same members run again, each in its
    /// own savepoint: a member whose body throws is rolled back to its savepoint and answered with its own error; the
    /// others commit. A body may therefore run twice; bodies only compute from what the transaction reads (see
    /// ``AttestationStore/transaction(_:)``). When the transaction itself fails (`BEGIN`, a savepoint statement,
    /// `COMMIT`, or a transaction the database dropped), every member in it is answered with that failure: nothing
    /// of it was committed. Members after a dropped transaction run in a new one. A batch of one runs without
    /// savepoints.
    ///
    /// With a ``prefetch``, the run without savepoints starts by running every member's first statement at once;
    /// each member then gets its own statement's answer and runs the rest of its statements as usual. So the
    /// members' first statements all run before any member's second: the interleaving that another process's
    /// transactions could cause anyway, which every body tolerates, since each statement is a self-contained check
    /// (a spend, a compare-and-set). If a prefetched statement fails, or a member does not ask for its own first,
    /// the batch is rolled back and runs with savepoints, without a prefetch.
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
        var withSavepoints = false
        while !remaining.isEmpty {
            do {
                try begin()
            } catch {
                let failed = failure(error)
                for member in remaining { member.complete(failure: failed) }
                return
            }
            if remaining.count > 1 && !withSavepoints {
                var transactions: [any AttestationStoreTransaction]?
                var allConsumed: () -> Bool = { true }
                switch prefetch?(remaining) ?? .none {
                case .none:
                    break
                case .ready(let prepared, let consumed):
                    transactions = prepared
                    allConsumed = consumed
                case .failed:
                    rollback()
                    withSavepoints = true
                    continue
                }
                switch runWithoutSavepoints(remaining, transaction: { transactions?[$0] ?? transaction }) {
                case .completed:
                    guard allConsumed() else {
                        rollback()
                        withSavepoints = true
                        continue
                    }
                    commitAndAnswer(remaining, failure: failure)
                    return
                case .memberFailed:
                    rollback()
                    withSavepoints = true
                case .lost(let count):
                    rollback()
                    let broken = Self.lostTransaction
                    for member in remaining.prefix(count) { member.complete(failure: broken) }
                    remaining = remaining.dropFirst(count)
                }
                continue
            }
            let alone = remaining.count == 1
            var members: [PendingTransaction] = []
            var broken: (any Error)?
            while let member = remaining.first {
                remaining = remaining.dropFirst()
                do {
                    if alone {
                        guard member.run(transaction) else {
                            rollback()
                            member.complete(failure: nil)
                            break
                        }
                        members.append(member)
                        continue
                    }
                    try savepoint()
                    members.append(member)
                    let succeeded = member.run(transaction)
                    if isTransactionLost() {
                        broken = Self.lostTransaction
                        break
                    }
                    if !succeeded { try rollbackToSavepoint() }
                    try release()
                } catch {
                    broken = failure(error)
                    break
                }
            }
            if let broken {
                rollback()
                for member in members { member.complete(failure: broken) }
                continue
            }
            guard !members.isEmpty else { continue }
            commitAndAnswer(members[...], failure: failure)
        }
    }

    private static var lostTransaction: AttestServiceError {
        AttestServiceError.storeFailure(
            "the database rolled back a group of transactions after an error; nothing was acknowledged")
    }

    /// How a run of members without savepoints ended.
    private enum UnprotectedRun {
        /// Every body returned; the transaction is open, ready for `COMMIT`.
        case completed
        /// A body threw with the transaction still open: roll back and run them again with savepoints.
        case memberFailed
        /// The database dropped the transaction during the first `count` members.
        case lost(count: Int)
    }

    private func runWithoutSavepoints(
        _ members: ArraySlice<PendingTransaction>, transaction: (Int) -> any AttestationStoreTransaction
    ) -> UnprotectedRun {
        var count = 0
        for member in members {
            let succeeded = member.run(transaction(count))
            count += 1
            if isTransactionLost() { return .lost(count: count) }
            if !succeeded { return .memberFailed }
        }
        return .completed
    }

    /// Commits the open transaction and answers `members`: with success, or every one with the commit's failure.
    private func commitAndAnswer(_ members: ArraySlice<PendingTransaction>, failure: (any Error) -> any Error) {
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
