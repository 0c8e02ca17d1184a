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

    @Test("challenges are one-time") func oneTime() async throws {
        try await StoreContract.challengesAreOneTime(store())
    }

    @Test("50 concurrent consumptions of one challenge: exactly 1") func concurrentTake() async throws {
        try await StoreContract.concurrentConsumptionIsExactlyOnce(store())
    }

    @Test("keys round-trip and ids are unique") func keys() async throws {
        try await StoreContract.keysRoundTripAndAreUnique(store())
    }

    @Test("counters only move forward") func counters() async throws {
        try await StoreContract.countersOnlyMoveForward(store())
    }

    @Test("50 concurrent advances to one counter: exactly 1") func concurrentAdvance() async throws {
        try await StoreContract.concurrentCounterAdvanceIsExactlyOnce(store())
    }

    @Test("risk accumulates") func risk() async throws { try await StoreContract.riskAccumulates(store()) }

    @Test("risk decays by whole intervals and resets") func riskDecay() async throws {
        try await StoreContract.riskDecaysAndResets(store())
    }

    @Test("challenges are trimmed per subject, newest kept") func trim() async throws {
        try await StoreContract.challengesAreTrimmedPerSubject(store())
    }

    @Test("subjects keep their bytes (NFC and NFD are two subjects)") func subjectBytes() async throws {
        try await StoreContract.subjectsKeepTheirBytes(store())
    }

    @Test("expired challenges are purged") func purge() async throws {
        try await StoreContract.expiredChallengesArePurged(store())
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

    @Test("two stores on one file: a challenge inserted by one is consumed by the other exactly once")
    func twoConnections() async throws {
        let first = try store()
        let second = try store()
        let record = StoreContract.challenge()
        try await first.transaction { try $0.insertChallenge(record) }
        async let a = first.transaction { try $0.takeChallenge(digest: record.digest) != nil }
        async let b = second.transaction { try $0.takeChallenge(digest: record.digest) != nil }
        let results = try await [a, b]
        #expect(results.filter { $0 }.count == 1)
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

    @Test("challenges are one-time") func oneTime() async throws {
        try await StoreContract.challengesAreOneTime(store())
    }

    @Test("50 concurrent consumptions of one challenge: exactly 1") func concurrentTake() async throws {
        try await StoreContract.concurrentConsumptionIsExactlyOnce(store())
    }

    @Test("keys round-trip and ids are unique") func keys() async throws {
        try await StoreContract.keysRoundTripAndAreUnique(store())
    }

    @Test("counters only move forward") func counters() async throws {
        try await StoreContract.countersOnlyMoveForward(store())
    }

    @Test("50 concurrent advances to one counter: exactly 1") func concurrentAdvance() async throws {
        try await StoreContract.concurrentCounterAdvanceIsExactlyOnce(store())
    }

    @Test("risk accumulates") func risk() async throws { try await StoreContract.riskAccumulates(store()) }

    @Test("risk decays by whole intervals and resets") func riskDecay() async throws {
        try await StoreContract.riskDecaysAndResets(store())
    }

    @Test("challenges are trimmed per subject, newest kept") func trim() async throws {
        try await StoreContract.challengesAreTrimmedPerSubject(store())
    }

    @Test("subjects keep their bytes (NFC and NFD are two subjects)") func subjectBytes() async throws {
        try await StoreContract.subjectsKeepTheirBytes(store())
    }

    @Test("expired challenges are purged") func purge() async throws {
        try await StoreContract.expiredChallengesArePurged(store())
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
