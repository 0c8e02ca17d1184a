import Foundation
import RampartAttestService
import RampartCrypto
import Testing

/// The contract every ``AttestationStore`` must meet, written once and run against SQLite and PostgreSQL
/// (`SQLiteStoreContractTests`, `PostgresStoreContractTests`).
enum StoreContract {
    static let future = Date(timeIntervalSinceNow: 3600)

    static func nonce() -> [UInt8] { SecureRandom.bytes(count: 16) }

    static func key(counter: UInt32 = 0) -> RegisteredKey {
        RegisteredKey(
            keyID: Data(SecureRandom.bytes(count: 32)).base64EncodedString(), subject: "user-1",
            publicKey: SecureRandom.bytes(count: 65), environment: "development", counter: counter,
            receipt: SecureRandom.bytes(count: 100), registeredAt: Date(timeIntervalSince1970: 1_790_000_000.5))
    }

    static func challengesAreSpentOnce(_ store: any AttestationStore) async throws {
        let nonce = nonce()
        #expect(try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: future) })
        #expect(try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: future) } == false)
        let other = Self.nonce()
        #expect(try await store.transaction { try $0.spendChallenge(nonce: other, expiresAt: future) })
    }

    static func concurrentSpendingIsExactlyOnce(_ store: any AttestationStore) async throws {
        let nonce = nonce()
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: future) }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
    }

    /// Concurrent transactions share commits, but one that throws keeps nothing of its own and fails no other.
    static func groupedTransactionsStayIsolated(_ store: any AttestationStore) async throws {
        struct Abort: Error {}
        let nonces = (0..<60).map { _ in nonce() }
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for (index, nonce) in nonces.enumerated() {
                group.addTask {
                    do {
                        try await store.transaction { transaction in
                            _ = try transaction.spendChallenge(nonce: nonce, expiresAt: future)
                            if index % 3 == 0 { throw Abort() }
                        }
                        return (index, true)
                    } catch is Abort {
                        return (index, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        for (index, nonce) in nonces.enumerated() {
            #expect(results[index] == (index % 3 != 0), "transaction \(index)")
            // Spendable again exactly when its transaction threw (its insert was rolled back with it).
            let spendable = try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: future) }
            #expect(spendable == (index % 3 == 0), "nonce \(index)")
        }
    }

    /// Every caller gets the first stored sealing key, whatever it proposed; it survives reopening.
    static func sealingKeyIsStoredOnce(
        _ store: any AttestationStore, reopen: () throws -> any AttestationStore
    ) async throws {
        let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let candidate = SecureRandom.bytes(count: 32)
                    return try await store.transaction {
                        try $0.challengeSealingKey(proposing: candidate, createdAt: Date())
                    }
                }
            }
            return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
        }
        #expect(keys.count == 1)
        #expect(keys.first?.count == 32)
        let other = try reopen()
        let again = try await other.transaction {
            try $0.challengeSealingKey(proposing: SecureRandom.bytes(count: 32), createdAt: Date())
        }
        #expect(keys.first == again)
        await other.close()
    }

    /// A read sees what was committed before it.
    static func readsSeeCommittedWrites(_ store: any AttestationStore) async throws {
        let key = key()
        #expect(try await store.read { try $0.key(id: key.keyID) } == nil)
        _ = try await store.transaction { try $0.insertKey(key) }
        _ = try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: 3, usedAt: Date()) }
        #expect(try await store.read { try $0.key(id: key.keyID) }?.counter == 3)
    }

    static func keysRoundTripAndAreUnique(_ store: any AttestationStore) async throws {
        let key = key()
        #expect(try await store.transaction { try $0.insertKey(key) })
        var duplicate = key
        duplicate.subject = "someone-else"
        let sameID = duplicate
        #expect(try await store.transaction { try $0.insertKey(sameID) } == false)
        let loaded = try await store.transaction { try $0.key(id: key.keyID) }
        #expect(loaded == key)
        #expect(try await store.transaction { try $0.key(id: "missing") } == nil)
    }

    /// An Android key keeps its platform and SubjectPublicKeyInfo; an App Attest key reads back as `ios` without one.
    static func androidKeysRoundTrip(_ store: any AttestationStore) async throws {
        var android = key()
        android.platform = .android
        android.publicKeyInfo = [0x30, 0x59, 0x30, 0x13] + SecureRandom.bytes(count: 87)
        let stored = android
        #expect(try await store.transaction { try $0.insertKey(stored) })
        let loaded = try await store.read { try $0.key(id: stored.keyID) }
        #expect(loaded == stored)
        #expect(loaded?.platform == .android)
        #expect(loaded?.publicKeyInfo == stored.publicKeyInfo)
        let ios = key()
        #expect(try await store.transaction { try $0.insertKey(ios) })
        let loadedIOS = try await store.transaction {
            try $0.spendChallenge(nonce: nonce(), expiresAt: future, readingKey: ios.keyID)
        }
        #expect(loadedIOS.key?.platform == .ios)
        #expect(loadedIOS.key?.publicKeyInfo == nil)
        let spentAndroid = try await store.transaction {
            try $0.spendChallenge(nonce: nonce(), expiresAt: future, readingKey: stored.keyID)
        }
        #expect(spentAndroid.key == stored, "the one-statement spend-and-read reads the new columns too")
    }

    static func countersOnlyMoveForward(_ store: any AttestationStore) async throws {
        let key = key()
        _ = try await store.transaction { try $0.insertKey(key) }
        let now = Date(timeIntervalSince1970: 1_790_000_100)
        #expect(try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: 5, usedAt: now) })
        #expect(try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: 5, usedAt: now) } == false)
        #expect(try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: 3, usedAt: now) } == false)
        #expect(
            try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: UInt32.max, usedAt: now) })
        let loaded = try await store.transaction { try $0.key(id: key.keyID) }
        #expect(loaded?.counter == UInt32.max)
        #expect(loaded?.lastUsedAt == now)
        #expect(try await store.transaction { try $0.advanceCounter(keyID: "missing", to: 9, usedAt: now) } == false)
    }

    static func concurrentCounterAdvanceIsExactlyOnce(_ store: any AttestationStore) async throws {
        let key = key()
        _ = try await store.transaction { try $0.insertKey(key) }
        let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: 1, usedAt: Date()) }
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(winners == 1)
    }

    static func riskAccumulates(_ store: any AttestationStore) async throws {
        let key = key()
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        _ = try await store.transaction { try $0.insertKey(key) }
        #expect(
            try await store.transaction { try $0.raiseRisk(keyID: key.keyID, by: 1, at: start, decayInterval: 60) } == 1
        )
        #expect(
            try await store.transaction { try $0.raiseRisk(keyID: key.keyID, by: 2, at: start, decayInterval: 60) } == 3
        )
        #expect(
            try await store.transaction { try $0.raiseRisk(keyID: "missing", by: 1, at: start, decayInterval: 60) }
                == nil)
        let stored = try await store.transaction { try $0.key(id: key.keyID) }
        #expect(stored?.riskScore == 3)
        #expect(stored?.riskUpdatedAt == start)
        #expect(stored?.riskScore(at: start.addingTimeInterval(150), decayInterval: 60) == 1)
        #expect(stored?.riskScore(at: start.addingTimeInterval(150), decayInterval: nil) == 3)
        #expect(stored?.riskScore(at: start.addingTimeInterval(3600), decayInterval: 60) == 0)
    }

    /// The stored score decays by whole intervals before a raise, in the statement itself; no decay leaves it whole.
    static func riskDecaysAndResets(_ store: any AttestationStore) async throws {
        let key = key()
        let start = Date(timeIntervalSince1970: 1_790_000_000)
        _ = try await store.transaction { try $0.insertKey(key) }
        _ = try await store.transaction { try $0.raiseRisk(keyID: key.keyID, by: 4, at: start, decayInterval: 60) }
        let later = start.addingTimeInterval(150)  // two whole intervals: 4 - 2 + 1
        #expect(
            try await store.transaction { try $0.raiseRisk(keyID: key.keyID, by: 1, at: later, decayInterval: 60) } == 3
        )
        let muchLater = later.addingTimeInterval(10_000)  // decays to 0, never below
        #expect(
            try await store.transaction { try $0.raiseRisk(keyID: key.keyID, by: 1, at: muchLater, decayInterval: 60) }
                == 1)
        #expect(
            try await store.transaction {
                try $0.raiseRisk(keyID: key.keyID, by: 1, at: muchLater.addingTimeInterval(1e6), decayInterval: nil)
            } == 2)
        #expect(try await store.transaction { try $0.resetRisk(keyID: key.keyID, at: muchLater) })
        #expect(try await store.transaction { try $0.key(id: key.keyID) }?.riskScore == 0)
        #expect(try await store.transaction { try $0.resetRisk(keyID: "missing", at: muchLater) } == false)
    }

    /// Subjects come back byte for byte: the NFC and NFD spellings of one name are two subjects.
    static func subjectsKeepTheirBytes(_ store: any AttestationStore) async throws {
        for subject in ["caf\u{E9}", "cafe\u{301}", "\u{212A}elvin", "Kelvin"] {
            var key = key()
            key.subject = subject
            let stored = key
            _ = try await store.transaction { try $0.insertKey(stored) }
            let loaded = try await store.transaction { try $0.key(id: stored.keyID) }
            #expect(loaded.map { Array($0.subject.utf8) } == Array(subject.utf8))
        }
    }

    static func expiredSpentChallengesArePurged(_ store: any AttestationStore) async throws {
        let old = nonce()
        let fresh = nonce()
        // Expired 30 s ago: within the clock-skew allowance, so a service sharing the database (the tests' other
        // suites) does not purge it first; this test's own cut-off is later.
        try await store.transaction {
            _ = try $0.spendChallenge(nonce: old, expiresAt: Date(timeIntervalSinceNow: -30))
            _ = try $0.spendChallenge(nonce: fresh, expiresAt: future)
        }
        let purged = try await store.transaction {
            try $0.purgeSpentChallenges(expiredBefore: Date(timeIntervalSinceNow: -10))
        }
        #expect(purged >= 1)
        #expect(try await store.transaction { try $0.spendChallenge(nonce: old, expiresAt: future) })
        #expect(try await store.transaction { try $0.spendChallenge(nonce: fresh, expiresAt: future) } == false)
    }

    static func aThrowingBodyKeepsNothing(_ store: any AttestationStore) async throws {
        struct Abort: Error {}
        let nonce = nonce()
        let key = key()
        await #expect(throws: Abort.self) {
            try await store.transaction { transaction in
                _ = try transaction.spendChallenge(nonce: nonce, expiresAt: future)
                _ = try transaction.insertKey(key)
                throw Abort()
            }
        }
        #expect(try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: future) })
        #expect(try await store.transaction { try $0.key(id: key.keyID) } == nil)
    }

    static func acknowledgedWritesSurviveReopening(
        _ store: any AttestationStore, reopen: () throws -> any AttestationStore
    ) async throws {
        let key = key()
        _ = try await store.transaction { try $0.insertKey(key) }
        _ = try await store.transaction { try $0.advanceCounter(keyID: key.keyID, to: 42, usedAt: Date()) }
        let other = try reopen()
        let loaded = try await other.transaction { try $0.key(id: key.keyID) }
        #expect(loaded?.counter == 42)
        await other.close()
    }

    /// PostgreSQL `text` cannot hold a NUL, so both stores refuse one in any text value, stored or looked up, with
    /// `storeFailure` and keep nothing (the service refuses such input before it reaches a store).
    static func textWithANULIsRefused(_ store: any AttestationStore) async throws {
        var key = key()
        key.subject = "alice\u{0}evil"
        let keyWithNUL = key
        let attempts: [@Sendable (any AttestationStoreTransaction) throws -> Void] = [
            { _ = try $0.insertKey(keyWithNUL) },
            { _ = try $0.key(id: keyWithNUL.keyID + "\u{0}") },
            { _ = try $0.advanceCounter(keyID: "\u{0}", to: 1, usedAt: Date()) },
        ]
        for attempt in attempts {
            let error = await #expect(throws: AttestServiceError.self) { try await store.transaction(attempt) }
            #expect(error?.code == .storeFailure)
            #expect(error?.reason.contains("NUL") == true)
        }
        #expect(try await store.transaction { try $0.key(id: keyWithNUL.keyID) } == nil)
    }

    static func aClosedStoreFails(_ store: any AttestationStore) async throws {
        await store.close()
        let error = await #expect(throws: AttestServiceError.self) {
            try await store.transaction { try $0.key(id: "x") }
        }
        #expect(error?.code == .storeFailure)
    }

    /// A protected request's first step: the spend and the key's read together, as the two would answer alone.
    static func spendingReadsTheKey(_ store: any AttestationStore) async throws {
        let stored = key(counter: 3)
        _ = try await store.transaction { try $0.insertKey(stored) }
        let first = nonce()
        func spend(_ nonce: [UInt8], _ keyID: String) async throws -> (spent: Bool, key: RegisteredKey?) {
            try await store.transaction { try $0.spendChallenge(nonce: nonce, expiresAt: future, readingKey: keyID) }
        }
        let fresh = try await spend(first, stored.keyID)
        #expect(fresh.spent)
        #expect(fresh.key == (try await store.read { try $0.key(id: stored.keyID) }))
        #expect(fresh.key?.counter == 3)
        let again = try await spend(first, stored.keyID)
        #expect(!again.spent)
        #expect(again.key?.keyID == stored.keyID)
        let unknown = try await spend(nonce(), "missing")
        #expect(unknown.spent)
        #expect(unknown.key == nil)
        #expect(try await store.transaction { try $0.spendChallenge(nonce: first, expiresAt: future) } == false)
    }
}
