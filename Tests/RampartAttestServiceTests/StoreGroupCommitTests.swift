import Dispatch
import Foundation
import RampartCrypto
import RampartPostgres
import RampartSQLite
import Synchronization
import Testing

@testable import RampartAttestService

/// Group commit with a statement that the database itself fails in the middle of a batch, and PostgreSQL specifics
/// (schema migration, two pools on one database).
enum StoreGroupCommit {
    /// Of 45 concurrent transactions, every third spends its nonce and then runs a statement the database refuses:
    /// that one is rolled back to its savepoint and answered with storeFailure; every other one commits.
    static func aFailingStatementFailsOnlyItsTransaction(_ store: any AttestationStore) async throws {
        let nonces = (0..<45).map { _ in SecureRandom.bytes(count: 16) }
        let outcomes = await withTaskGroup(of: (Int, AttestServiceError.Code?).self) { group in
            for (index, nonce) in nonces.enumerated() {
                group.addTask {
                    do {
                        try await store.transaction { transaction in
                            _ = try transaction.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
                            if index % 3 == 0, let sql = transaction as? SQLStoreTransaction {
                                _ = try sql.execute("SELECT missing_column FROM rampart_keys")
                            }
                        }
                        return (index, nil)
                    } catch let error as AttestServiceError {
                        return (index, error.code)
                    } catch {
                        return (index, .serverFailure)
                    }
                }
            }
            return await group.reduce(into: [Int: AttestServiceError.Code?]()) { $0[$1.0] = $1.1 }
        }
        for (index, nonce) in nonces.enumerated() {
            let expected: AttestServiceError.Code? = index % 3 == 0 ? .storeFailure : nil
            #expect(outcomes[index] == expected, "transaction \(index)")
            let spendable = try await store.transaction {
                try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
            }
            #expect(spendable == (index % 3 == 0), "nonce \(index)")
        }
    }

    /// How many times each of a batch's bodies ran.
    final class RunCounts: Sendable {
        private let counts: Mutex<[Int]>

        init(_ count: Int) { counts = Mutex(Array(repeating: 0, count: count)) }

        func ran(_ index: Int) { counts.withLock { $0[index] += 1 } }

        var values: [Int] { counts.withLock { $0 } }
    }

    /// Submits three transactions that the caller's held writer gathers into one batch: each spends a fresh nonce,
    /// and when `conflict` is set the middle one then inserts the first one's nonce itself (a unique violation).
    /// Returns once all three are queued, in order; `outcomes` awaits their answers.
    static func submitThree(
        to store: any AttestationStore, conflict: Bool, queued: @escaping @Sendable () -> Int
    ) async throws -> (nonces: [[UInt8]], counts: RunCounts, outcomes: Task<[AttestServiceError.Code?], Never>) {
        let nonces = (0..<3).map { _ in StoreContract.nonce() }
        let counts = RunCounts(3)
        let before = queued()
        var tasks: [Task<AttestServiceError.Code?, Never>] = []
        for (index, nonce) in nonces.enumerated() {
            tasks.append(
                Task {
                    do {
                        try await store.transaction { transaction in
                            counts.ran(index)
                            _ = try transaction.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
                            if conflict && index == 1, let sql = transaction as? SQLStoreTransaction {
                                _ = try sql.execute(
                                    """
                                    INSERT INTO rampart_spent_challenges (nonce, expires_at) \
                                    VALUES (\(nonces[0]), \(Int64(StoreContract.future.timeIntervalSince1970 * 1000)))
                                    """)
                            }
                        }
                        return nil
                    } catch let error as AttestServiceError {
                        return error.code
                    } catch {
                        return .serverFailure
                    }
                })
            // In submission order, so the conflicting member is the middle one of the batch.
            while queued() < before + index + 1 { try await Task.sleep(for: .milliseconds(2)) }
        }
        let outcomes = Task {
            var codes: [AttestServiceError.Code?] = []
            for task in tasks { codes.append(await task.value) }
            return codes
        }
        return (nonces, counts, outcomes)
    }

    /// After ``submitThree(to:conflict:queued:)``'s batch: which nonces it kept spent.
    /// Starts a transaction that holds `store`'s writer until `gate` is signalled, and returns once it holds it.
    static func holdWriter(
        of store: any AttestationStore
    ) async -> (gate: DispatchSemaphore, held: Task<Void, any Error>) {
        let gate = DispatchSemaphore(value: 0)
        let holding = DispatchSemaphore(value: 0)
        let held = Task {
            try await store.transaction { _ in
                holding.signal()
                gate.wait()
            }
        }
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                holding.wait()
                continuation.resume()
            }
        }
        return (gate, held)
    }

    /// Three transactions gathered behind a held writer, the middle one spending the first one's nonce when
    /// `conflict`: each body runs once, and with the conflict only the middle member fails (storeFailure), rolled
    /// back to its savepoint. `queued` is the store's writer backlog; `afterBatch` runs once the batch is answered,
    /// before the nonces are read back.
    static func aConflictingMemberFailsOnlyItself(
        _ store: any AttestationStore, conflict: Bool, queued: @escaping @Sendable () -> Int,
        afterBatch: () -> Void = {}
    ) async throws {
        let (gate, held) = await holdWriter(of: store)
        let (nonces, counts, outcomes) = try await submitThree(to: store, conflict: conflict, queued: queued)
        gate.signal()
        try await held.value
        let codes = await outcomes.value
        #expect(codes == (conflict ? [nil, .storeFailure, nil] : [nil, nil, nil]))
        #expect(counts.values == [1, 1, 1])
        afterBatch()
        #expect(try await spentNonces(nonces, in: store) == [true, !conflict, true])
    }

    /// Five transactions gathered into one batch behind a held writer, each counting its runs: the second throws
    /// its own error after spending, the fourth runs a statement the database refuses after spending. Every body
    /// runs exactly once; the two failing members keep nothing and get their own errors; the others commit.
    static func aBodyRunsOnceBesideFailingMembers(
        _ store: any AttestationStore, queued: @escaping @Sendable () -> Int
    ) async throws {
        struct OwnFailure: Error {}
        let nonces = (0..<5).map { _ in StoreContract.nonce() }
        let counts = RunCounts(5)
        let (gate, held) = await holdWriter(of: store)
        let before = queued()
        var tasks: [Task<String?, Never>] = []
        for (index, nonce) in nonces.enumerated() {
            tasks.append(
                Task {
                    do {
                        try await store.transaction { transaction in
                            counts.ran(index)
                            _ = try transaction.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
                            if index == 1 { throw OwnFailure() }
                            if index == 3, let sql = transaction as? SQLStoreTransaction {
                                _ = try sql.execute("SELECT missing_column FROM rampart_keys")
                            }
                        }
                        return nil
                    } catch is OwnFailure {
                        return "own"
                    } catch let error as AttestServiceError {
                        return error.code.description
                    } catch {
                        return "\(error)"
                    }
                })
            while queued() < before + index + 1 { try await Task.sleep(for: .milliseconds(2)) }
        }
        gate.signal()
        try await held.value
        var outcomes: [String?] = []
        for task in tasks { outcomes.append(await task.value) }
        #expect(outcomes == [nil, "own", nil, AttestServiceError.Code.storeFailure.description, nil])
        #expect(counts.values == [1, 1, 1, 1, 1])
        #expect(try await spentNonces(nonces, in: store) == [true, false, true, false, true])
    }

    static func spentNonces(_ nonces: [[UInt8]], in store: any AttestationStore) async throws -> [Bool] {
        var kept: [Bool] = []
        for nonce in nonces {
            kept.append(
                !(try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) })
            )
        }
        return kept
    }
}

@Suite struct PostgresWriterChoiceTests {
    typealias Load = (draining: Bool, pending: Int)

    @Test("the first busy connection still gathering is chosen, before any idle one")
    func gatheringFirst() {
        let loads: [Load] = [(false, 0), (true, 16), (true, 3), (true, 0)]
        #expect(PostgresAttestationStore.writerIndex(among: loads) == 2)
    }

    @Test("with every busy connection's next batch full, the first idle connection is chosen")
    func idleWhenFull() {
        let loads: [Load] = [(true, 16), (false, 0), (true, 40), (false, 0)]
        #expect(PostgresAttestationStore.writerIndex(among: loads) == 1)
    }

    @Test("with no connection idle or gathering, the least backlog is chosen (the first of equals)")
    func leastBacklogOtherwise() {
        let loads: [Load] = [(true, 30), (true, 17), (true, 17), (true, 90)]
        #expect(PostgresAttestationStore.writerIndex(among: loads) == 1)
    }

    @Test("an idle pool starts on its first connection")
    func idlePool() {
        let loads: [Load] = [(false, 0), (false, 0)]
        #expect(PostgresAttestationStore.writerIndex(among: loads) == 0)
        #expect(PostgresAttestationStore.writerIndex(among: [(false, 0)]) == 0)
    }
}

struct SQLiteGroupCommitTests {
    @Test("a statement SQLite refuses mid-batch fails only its own transaction")
    func failingStatement() async throws {
        try await StoreGroupCommit.aFailingStatementFailsOnlyItsTransaction(
            SQLiteAttestationStore(path: temporarySQLitePath()))
    }

    @Test("transactions submitted while the writer is busy share one commit, and each waits for it")
    func batching() async throws {
        let path = temporarySQLitePath()
        let store = try SQLiteAttestationStore(path: path)
        let gate = DispatchSemaphore(value: 0)
        let first = Task {
            try await store.transaction { transaction in
                gate.wait()  // holds the writer until the others are queued
                return try transaction.spendChallenge(nonce: StoreContract.nonce(), expiresAt: StoreContract.future)
            }
        }
        while store.groupCommitStatistics.batches == 0 { await Task.yield() }
        let nonces = (0..<20).map { _ in StoreContract.nonce() }
        let others = Task {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for nonce in nonces {
                    group.addTask {
                        try await store.transaction {
                            try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
        }
        while store.writerBacklog < 21 { try await Task.sleep(for: .milliseconds(5)) }  // all 20 behind the writer
        gate.signal()
        #expect(try await first.value)
        #expect(try await others.value == 20)
        let statistics = store.groupCommitStatistics
        #expect(statistics.transactions == 21)
        #expect(statistics.batches == 2, "the 20 transactions queued behind the first should share one commit")
        // Their commit was durable: another connection sees every spend.
        let reopened = try SQLiteAttestationStore(path: path)
        for nonce in nonces {
            #expect(
                try await reopened.transaction {
                    try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
                } == false)
        }
    }

    @Test("each body of a batch runs once; a unique violation mid-batch fails only its member")
    func conflictingMember() async throws {
        for conflict in [false, true] {
            let store = try SQLiteAttestationStore(path: temporarySQLitePath())
            try await StoreGroupCommit.aConflictingMemberFailsOnlyItself(
                store, conflict: conflict, queued: { store.writerBacklog },
                afterBatch: {
                    #expect(store.groupCommitStatistics.batches == 2, "the held transaction, then the three together")
                })
            await store.close()
        }
    }

    @Test("a body runs exactly once beside members that throw or whose statement fails; only those keep nothing")
    func runsOnce() async throws {
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        try await StoreGroupCommit.aBodyRunsOnceBesideFailingMembers(store, queued: { store.writerBacklog })
        await store.close()
    }

    @Test("an in-memory store works (reads run on the writer, which holds the only copy)")
    func inMemory() async throws {
        let store = try SQLiteAttestationStore(path: ":memory:")
        try await StoreContract.readsSeeCommittedWrites(store)
        try await StoreContract.groupedTransactionsStayIsolated(store)
    }
}

@Suite(
    .enabled(if: testPostgresURL != nil, "RAMPART_TEST_POSTGRES_URL is unset; run scripts/test.sh to start PostgreSQL"))
struct PostgresGroupCommitTests {
    let url = testPostgresURL ?? ""

    @Test("a statement PostgreSQL refuses mid-batch fails only its own transaction (ROLLBACK TO in the pipeline)")
    func failingStatement() async throws {
        try await StoreGroupCommit.aFailingStatementFailsOnlyItsTransaction(
            PostgresAttestationStore(url: url, poolSize: 2))
    }

    @Test("a new transaction joins a busy connection's next batch until 16 wait, then an idle connection takes one")
    func fillsABatchBeforeSpreading() async throws {
        let store = try PostgresAttestationStore(url: url, poolSize: 4)
        let (gate, held) = await StoreGroupCommit.holdWriter(of: store)
        #expect(store.writerBacklogs == [1, 0, 0, 0])
        let gathered = (0..<PostgresAttestationStore.gatheringBeforeSpreading).map { _ in
            let nonce = StoreContract.nonce()
            return (
                nonce,
                Task {
                    try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) }
                }
            )
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while store.writerBacklogs.reduce(0, +) < 17 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(store.writerBacklogs == [17, 0, 0, 0])  // every one joined the held connection's next batch
        // The 17th finds that batch full and goes to an idle connection: it commits while the first is still held.
        let overflow = StoreContract.nonce()
        #expect(try await store.transaction { try $0.spendChallenge(nonce: overflow, expiresAt: StoreContract.future) })
        #expect(store.writerBacklogs[0] == 17)
        gate.signal()
        try await held.value
        for (_, task) in gathered { #expect(try await task.value) }
        #expect(try await StoreGroupCommit.spentNonces(gathered.map(\.0) + [overflow], in: store).allSatisfy { $0 })
        await store.close()
    }

    @Test("two pools on one database (two instances): a challenge is spent by exactly one, the sealing key shared")
    func twoInstances() async throws {
        let first = try PostgresAttestationStore(url: url, poolSize: 2)
        let second = try PostgresAttestationStore(url: url, poolSize: 2)
        for _ in 0..<20 {
            let nonce = StoreContract.nonce()
            async let a = first.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) }
            async let b = second.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) }
            let results = try await [a, b]
            #expect(results.filter { $0 }.count == 1)
        }
        let firstKey = try await first.transaction {
            try $0.challengeSealingKey(proposing: SecureRandom.bytes(count: 32), createdAt: Date())
        }
        let secondKey = try await second.transaction {
            try $0.challengeSealingKey(proposing: SecureRandom.bytes(count: 32), createdAt: Date())
        }
        #expect(firstKey == secondKey)
    }

    @Test("16 racing requests of one key on PostgreSQL: accepted or counterReplay, no risk, counter 16")
    func racingRequests() async throws {
        let service = AttestationService(
            store: try PostgresAttestationStore(url: url, poolSize: 4), verifier: FakeVerifier())
        let keyID = try await service.registerFakeKey(subject: "alice")
        var requests: [AssertionSubmission] = []
        for counter in UInt32(1)...16 {
            let challenge = try await service.issueChallenge(purpose: .assertion, subject: "alice").challenge
            let clientData = Array("{\"challenge\":\"\(challenge)\",\"payload\":{}}".utf8)
            requests.append(
                AssertionSubmission(
                    subject: "alice", keyID: keyID,
                    assertion: FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID),
                    challenge: challenge, clientData: clientData))
        }
        let reasons = try await withThrowingTaskGroup(of: Refusal.Reason?.self) { group in
            for request in requests {
                group.addTask {
                    if case .refused(let refusal) = try await service.authorize(request) { return refusal.reason }
                    return nil
                }
            }
            return try await group.reduce(into: [Refusal.Reason?]()) { $0.append($1) }
        }
        #expect(reasons.allSatisfy { $0 == nil || $0 == .counterReplay })
        let key = try await service.key(id: keyID)
        #expect(key?.counter == 16)
        #expect(key?.riskScore == 0)
    }

    /// Gathers `bodies` into one batch behind a held writer of a one-connection store, runs it, and returns each
    /// body's outcome (nil, or the error code) and the round trips the batch took.
    static func gatheredBatch(
        _ store: PostgresAttestationStore,
        _ bodies: [@Sendable (any AttestationStoreTransaction) throws -> Void]
    ) async throws -> (codes: [AttestServiceError.Code?], roundTrips: Int) {
        let (gate, held) = await StoreGroupCommit.holdWriter(of: store)
        var tasks: [Task<AttestServiceError.Code?, Never>] = []
        for (index, body) in bodies.enumerated() {
            tasks.append(
                Task {
                    do {
                        try await store.transaction(body)
                        return nil
                    } catch let error as AttestServiceError {
                        return error.code
                    } catch {
                        Issue.record("not an AttestServiceError: \(error)")
                        return nil
                    }
                })
            while store.writerBacklog < index + 2 { try await Task.sleep(for: .milliseconds(2)) }  // in order
        }
        let before = store.roundTrips.value  // the held batch sends nothing: it ran no statement
        gate.signal()
        try await held.value
        var codes: [AttestServiceError.Code?] = []
        for task in tasks { codes.append(await task.value) }
        return (codes, store.roundTrips.value - before)
    }

    @Test("commands without results ride with the next statement: 10 spends in a batch cost 11 round trips")
    func roundTripsPerBatch() async throws {
        let store = try PostgresAttestationStore(url: url, poolSize: 1)
        let nonces = (0..<10).map { _ in StoreContract.nonce() }
        let bodies = nonces.map { nonce -> @Sendable (any AttestationStoreTransaction) throws -> Void in
            { transaction in
                guard try transaction.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) else {
                    throw AttestServiceError.storeFailure("spent twice")
                }
            }
        }
        // BEGIN and each SAVEPOINT travel with a spend, each RELEASE with the next spend or COMMIT.
        let (codes, roundTrips) = try await Self.gatheredBatch(store, bodies)
        #expect(codes == Array(repeating: nil, count: 10))
        #expect(roundTrips == 11)
        #expect(try await StoreGroupCommit.spentNonces(nonces, in: store) == Array(repeating: true, count: 10))
        await store.close()
    }

    @Test("a body runs exactly once beside members that throw or whose statement fails; only those keep nothing")
    func runsOnce() async throws {
        let store = try PostgresAttestationStore(url: url, poolSize: 1)
        try await StoreGroupCommit.aBodyRunsOnceBesideFailingMembers(store, queued: { store.writerBacklog })
        await store.close()
    }

    @Test("a first statement PostgreSQL refuses fails only its member; the others commit")
    func firstStatementRefused() async throws {
        let store = try PostgresAttestationStore(url: url, poolSize: 1)
        let kept = [StoreContract.nonce(), StoreContract.nonce()]
        let bodies: [@Sendable (any AttestationStoreTransaction) throws -> Void] = [
            { _ = try $0.spendChallenge(nonce: kept[0], expiresAt: StoreContract.future) },
            { transaction in
                if let sql = transaction as? SQLStoreTransaction {
                    _ = try sql.execute("SELECT missing_column FROM rampart_keys")
                }
            },
            { _ = try $0.spendChallenge(nonce: kept[1], expiresAt: StoreContract.future) },
        ]
        let (codes, _) = try await Self.gatheredBatch(store, bodies)
        #expect(codes == [nil, .storeFailure, nil])
        #expect(try await StoreGroupCommit.spentNonces(kept, in: store) == [true, true])
        await store.close()
    }

    /// Starts a transaction that holds `store`'s only writer until `gate` is signalled, so the transactions
    /// submitted meanwhile gather into one batch; returns once it holds the writer.
    @Test("the last member of a batch failing rolls back only itself: the batch before it still commits")
    func lastMemberFails() async throws {
        let store = try PostgresAttestationStore(url: url, poolSize: 1)
        let (gate, held) = await StoreGroupCommit.holdWriter(of: store)
        let kept = StoreContract.nonce()
        let undone = StoreContract.nonce()
        let first = Task {
            try await store.transaction { _ = try $0.spendChallenge(nonce: kept, expiresAt: StoreContract.future) }
        }
        while store.writerBacklog < 2 { try await Task.sleep(for: .milliseconds(5)) }
        let last = Task { () -> AttestServiceError.Code? in
            do {
                try await store.transaction { transaction in
                    _ = try transaction.spendChallenge(nonce: undone, expiresAt: StoreContract.future)
                    if let sql = transaction as? SQLStoreTransaction {
                        _ = try sql.execute("SELECT missing_column FROM rampart_keys")
                    }
                }
                return nil
            } catch let error as AttestServiceError {
                return error.code
            }
        }
        while store.writerBacklog < 3 { try await Task.sleep(for: .milliseconds(5)) }  // both wait: one batch
        gate.signal()
        try await held.value
        try await first.value  // committed although the member after it failed
        #expect(try await last.value == .storeFailure)
        #expect(!(try await store.transaction { try $0.spendChallenge(nonce: kept, expiresAt: StoreContract.future) }))
        #expect(try await store.transaction { try $0.spendChallenge(nonce: undone, expiresAt: StoreContract.future) })
        await store.close()
    }

    @Test("each body of a batch runs once; a unique violation fails only its member")
    func conflictingMember() async throws {
        for conflict in [false, true] {
            let store = try PostgresAttestationStore(url: url, poolSize: 1)
            try await StoreGroupCommit.aConflictingMemberFailsOnlyItself(
                store, conflict: conflict, queued: { store.writerBacklog })
            await store.close()
        }
    }

    @Test("a connection lost mid-batch fails every transaction of that batch, none is acknowledged, and it reconnects")
    func connectionLostMidBatch() async throws {
        let store = try PostgresAttestationStore(url: url, poolSize: 1)
        let (gate, held) = await StoreGroupCommit.holdWriter(of: store)
        let nonces = (0..<3).map { _ in StoreContract.nonce() }
        let outcomes = Task {
            await withTaskGroup(of: AttestServiceError.Code?.self) { group in
                for (index, nonce) in nonces.enumerated() {
                    group.addTask {
                        do {
                            try await store.transaction { transaction in
                                _ = try transaction.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
                                if index == 1, let sql = transaction as? SQLStoreTransaction {
                                    _ = try sql.execute("SELECT pg_terminate_backend(pg_backend_pid())")
                                }
                            }
                            return nil
                        } catch let error as AttestServiceError {
                            return error.code
                        } catch {
                            return .serverFailure
                        }
                    }
                }
                return await group.reduce(into: [AttestServiceError.Code?]()) { $0.append($1) }
            }
        }
        while store.writerBacklog < 4 { try await Task.sleep(for: .milliseconds(5)) }  // the three wait: one batch
        gate.signal()
        try await held.value
        #expect(await outcomes.value == [.storeFailure, .storeFailure, .storeFailure])
        for nonce in nonces {
            let spendable = try await store.transaction {
                try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future)
            }
            #expect(spendable, "a transaction of the lost batch was kept")
        }
    }

    @Test("a version 2 PostgreSQL database is migrated through every later migration, keeping its keys")
    func migrationFrom2() async throws {
        let schema = "h5_migration_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let admin = try PostgresConnection(url: url)
        try admin.execute(unsafeScript: "CREATE SCHEMA \(schema)")
        defer { try? admin.execute(unsafeScript: "DROP SCHEMA \(schema) CASCADE") }
        try admin.execute(
            unsafeScript: """
                SET search_path TO \(schema);
                CREATE TABLE rampart_schema (version BIGINT NOT NULL);
                INSERT INTO rampart_schema (version) VALUES (2);
                CREATE TABLE rampart_challenges (
                    digest BYTEA PRIMARY KEY, purpose TEXT NOT NULL, subject TEXT NOT NULL, expires_at BIGINT NOT NULL);
                CREATE INDEX rampart_challenges_expiry ON rampart_challenges (expires_at);
                CREATE INDEX rampart_challenges_subject ON rampart_challenges (subject, expires_at);
                CREATE TABLE rampart_keys (
                    key_id TEXT PRIMARY KEY, subject TEXT NOT NULL, public_key BYTEA NOT NULL, environment TEXT NOT NULL,
                    counter BIGINT NOT NULL CHECK (counter >= 0 AND counter <= 4294967295), receipt BYTEA NOT NULL,
                    registered_at BIGINT NOT NULL, risk_score BIGINT NOT NULL DEFAULT 0, last_used_at BIGINT,
                    risk_updated_at BIGINT);
                INSERT INTO rampart_keys (key_id, subject, public_key, environment, counter, receipt, registered_at)
                    VALUES ('a2V5', 'alice', '\\x04', 'production', 11, '\\x00', 1790000000000);
                SET search_path TO DEFAULT;
                """)
        let scoped = url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        let store = try PostgresAttestationStore(url: scoped, poolSize: 1)
        #expect(try await store.transaction { try $0.key(id: "a2V5") }?.counter == 11)
        #expect(try await store.transaction { try $0.spendChallenge(nonce: [9], expiresAt: Date()) })
        await store.close()
        let version = try admin.query(SQLQuery(unsafeSQL: "SELECT version FROM \(schema).rampart_schema"))
        #expect(version.first?.integer(0) == StoreSchema.version)
        let reopened = try PostgresAttestationStore(url: scoped, poolSize: 1)
        await reopened.close()
    }
}
