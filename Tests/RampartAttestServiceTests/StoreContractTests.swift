import Foundation
import RampartAttestService
import TestSupport
import Testing

/// A fresh SQLite file in the test process's scratch directory.
func temporarySQLitePath() -> String { ScratchDirectory.uniquePath("store.db") }

/// The PostgreSQL test database, exported by `scripts/postgres.sh` (via `scripts/test.sh`).
let testPostgresURL = ProcessInfo.processInfo.environment["RAMPART_TEST_POSTGRES_URL"].flatMap {
    $0.isEmpty ? nil : $0
}

struct SQLiteStoreContractTests {
    let path = temporarySQLitePath()

    func store() throws -> SQLiteAttestationStore { try SQLiteAttestationStore(path: path) }

    @Test("a challenge is spent once") func oneTime() async throws {
        try await StoreContract.challengesAreSpentOnce(store())
    }

    @Test("50 concurrent spends of one challenge: exactly 1") func concurrentSpend() async throws {
        try await StoreContract.concurrentSpendingIsExactlyOnce(store())
    }

    @Test("grouped transactions stay isolated: one that throws keeps nothing and fails no other")
    func groupCommit() async throws {
        try await StoreContract.groupedTransactionsStayIsolated(store())
    }

    @Test("the sealing key is stored once and shared") func sealingKey() async throws {
        try await StoreContract.sealingKeyIsStoredOnce(store()) { try store() }
    }

    @Test("reads see committed writes") func reads() async throws {
        try await StoreContract.readsSeeCommittedWrites(store())
    }

    @Test("keys round-trip and ids are unique") func keys() async throws {
        try await StoreContract.keysRoundTripAndAreUnique(store())
    }

    @Test("Android keys keep their platform and SubjectPublicKeyInfo") func androidKeys() async throws {
        try await StoreContract.androidKeysRoundTrip(store())
    }

    @Test("counters only move forward") func counters() async throws {
        try await StoreContract.countersOnlyMoveForward(store())
    }

    @Test("50 concurrent advances to one counter: exactly 1") func concurrentAdvance() async throws {
        try await StoreContract.concurrentCounterAdvanceIsExactlyOnce(store())
    }

    @Test("spending a challenge and reading a key together answers as the two alone")
    func spendAndRead() async throws {
        try await StoreContract.spendingReadsTheKey(store())
    }

    @Test("risk accumulates") func risk() async throws { try await StoreContract.riskAccumulates(store()) }

    @Test("risk decays by whole intervals and resets") func riskDecay() async throws {
        try await StoreContract.riskDecaysAndResets(store())
    }

    @Test("subjects keep their bytes (NFC and NFD are two subjects)") func subjectBytes() async throws {
        try await StoreContract.subjectsKeepTheirBytes(store())
    }

    @Test("spent challenges past their expiry are purged") func purge() async throws {
        try await StoreContract.expiredSpentChallengesArePurged(store())
    }

    @Test("a throwing body keeps nothing") func rollback() async throws {
        try await StoreContract.aThrowingBodyKeepsNothing(store())
    }

    @Test("acknowledged writes survive reopening") func durable() async throws {
        try await StoreContract.acknowledgedWritesSurviveReopening(store()) { try store() }
    }

    @Test("text with a NUL is storeFailure and keeps nothing") func textWithNUL() async throws {
        try await StoreContract.textWithANULIsRefused(store())
    }

    @Test("a closed store fails with storeFailure") func closed() async throws {
        try await StoreContract.aClosedStoreFails(store())
    }

    @Test("two stores on one file: a challenge is spent by exactly one of them")
    func twoConnections() async throws {
        let first = try store()
        let second = try store()
        let nonce = StoreContract.nonce()
        async let a = first.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) }
        async let b = second.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) }
        let results = try await [a, b]
        #expect(results.filter { $0 }.count == 1)
    }

    @Test("a read connection refuses writes with storeFailure")
    func readsCannotWrite() async throws {
        let store = try store()
        let error = await #expect(throws: AttestServiceError.self) {
            try await store.read { try $0.spendChallenge(nonce: StoreContract.nonce(), expiresAt: Date()) }
        }
        #expect(error?.code == .storeFailure)
    }

    @Test("an unopenable path is storeFailure")
    func unopenable() {
        let error = #expect(throws: AttestServiceError.self) {
            try SQLiteAttestationStore(path: "/nonexistent/dir/rampart.db")
        }
        #expect(error?.code == .storeFailure)
    }
}

@Suite(
    .enabled(if: testPostgresURL != nil, "RAMPART_TEST_POSTGRES_URL is unset; run scripts/test.sh to start PostgreSQL"))
struct PostgresStoreContractTests {
    func store() throws -> PostgresAttestationStore {
        try PostgresAttestationStore(url: testPostgresURL ?? "", poolSize: 4)
    }

    @Test("a read connection refuses writes with storeFailure (SQLSTATE 25006), and spends nothing")
    func readsCannotWrite() async throws {
        let store = try store()
        let nonce = StoreContract.nonce()
        let error = await #expect(throws: AttestServiceError.self) {
            try await store.read { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) }
        }
        #expect(error?.code == .storeFailure)
        #expect(error?.description.contains("SQLSTATE 25006") == true)
        #expect(try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: StoreContract.future) })
        await store.close()
    }

    @Test("a challenge is spent once") func oneTime() async throws {
        try await StoreContract.challengesAreSpentOnce(store())
    }

    @Test("50 concurrent spends of one challenge: exactly 1") func concurrentSpend() async throws {
        try await StoreContract.concurrentSpendingIsExactlyOnce(store())
    }

    @Test("grouped transactions stay isolated: one that throws keeps nothing and fails no other")
    func groupCommit() async throws {
        try await StoreContract.groupedTransactionsStayIsolated(store())
    }

    @Test("the sealing key is stored once and shared") func sealingKey() async throws {
        try await StoreContract.sealingKeyIsStoredOnce(store()) { try store() }
    }

    @Test("reads see committed writes") func reads() async throws {
        try await StoreContract.readsSeeCommittedWrites(store())
    }

    @Test("keys round-trip and ids are unique") func keys() async throws {
        try await StoreContract.keysRoundTripAndAreUnique(store())
    }

    @Test("Android keys keep their platform and SubjectPublicKeyInfo") func androidKeys() async throws {
        try await StoreContract.androidKeysRoundTrip(store())
    }

    @Test("counters only move forward") func counters() async throws {
        try await StoreContract.countersOnlyMoveForward(store())
    }

    @Test("50 concurrent advances to one counter: exactly 1") func concurrentAdvance() async throws {
        try await StoreContract.concurrentCounterAdvanceIsExactlyOnce(store())
    }

    @Test("spending a challenge and reading a key together answers as the two alone")
    func spendAndRead() async throws {
        try await StoreContract.spendingReadsTheKey(store())
    }

    @Test("risk accumulates") func risk() async throws { try await StoreContract.riskAccumulates(store()) }

    @Test("risk decays by whole intervals and resets") func riskDecay() async throws {
        try await StoreContract.riskDecaysAndResets(store())
    }

    @Test("subjects keep their bytes (NFC and NFD are two subjects)") func subjectBytes() async throws {
        try await StoreContract.subjectsKeepTheirBytes(store())
    }

    @Test("spent challenges past their expiry are purged") func purge() async throws {
        try await StoreContract.expiredSpentChallengesArePurged(store())
    }

    @Test("a throwing body keeps nothing") func rollback() async throws {
        try await StoreContract.aThrowingBodyKeepsNothing(store())
    }

    @Test("acknowledged writes survive reopening") func durable() async throws {
        try await StoreContract.acknowledgedWritesSurviveReopening(store()) { try store() }
    }

    @Test("text with a NUL is storeFailure and keeps nothing") func textWithNUL() async throws {
        try await StoreContract.textWithANULIsRefused(store())
    }

    @Test("a closed store fails with storeFailure") func closed() async throws {
        try await StoreContract.aClosedStoreFails(store())
    }

    @Test("an unreachable server is storeFailure")
    func unreachable() {
        let error = #expect(throws: AttestServiceError.self) {
            try PostgresAttestationStore(url: "postgres://nobody:x@127.0.0.1:1/none?connect_timeout=2")
        }
        #expect(error?.code == .storeFailure)
    }
}
