import Foundation
import RampartAttestService
import RampartCrypto
import RampartSQLite
import Synchronization
import Testing

/// A store that runs a hook once, right after the next read: the moment between the service's read of a key (and
/// its signature check) and the transaction that spends the challenge and sets the counter.
final class InterposingStore: AttestationStore {
    let base: any AttestationStore
    private let hook = Mutex<(@Sendable () async throws -> Void)?>(nil)
    init(_ base: any AttestationStore) { self.base = base }

    func afterNextRead(_ action: @escaping @Sendable () async throws -> Void) { hook.withLock { $0 = action } }

    func transaction<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T { try await base.transaction(body) }

    func read<T: Sendable>(
        _ body: @escaping @Sendable (any AttestationStoreTransaction) throws -> T
    ) async throws -> T {
        let value = try await base.read(body)
        if let action = hook.withLock({ current -> (@Sendable () async throws -> Void)? in
            defer { current = nil }
            return current
        }) {
            try await action()
        }
        return value
    }

    func close() async { await base.close() }
}

/// A key that changes between the read the signature is checked against and the transaction that decides.
struct AssertionRaceTests {
    let clock = TestClock()
    let path = temporarySQLitePath()
    let store: InterposingStore
    let service: AttestationService

    init() throws {
        let clock = clock
        store = InterposingStore(try SQLiteAttestationStore(path: path))
        service = AttestationService(
            store: store, verifier: FakeVerifier(),
            configuration: .init(challengeLifetime: 300, riskBlockThreshold: 3, counterReorderWindow: 16),
            clock: { clock.now })
    }

    func assertion(_ keyID: [UInt8], counter: UInt32, subject: String = "alice") async throws -> AssertionSubmission {
        let challenge = try await service.issueChallenge(purpose: .assertion, subject: subject).challenge
        let clientData = Array("{\"challenge\":\"\(challenge)\",\"payload\":{}}".utf8)
        return AssertionSubmission(
            subject: subject, keyID: keyID,
            assertion: FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID),
            challenge: challenge, clientData: clientData)
    }

    func reason(_ outcome: AssertionOutcome) -> Refusal.Reason? {
        if case .refused(let refusal) = outcome { return refusal.reason }
        return nil
    }

    func id(_ keyID: [UInt8]) -> String { Data(keyID).base64EncodedString() }

    @Test("the counter advanced past it meanwhile (a later request won): counterReplay without risk")
    func counterAdvancedMeanwhile() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        let slow = try await assertion(keyID, counter: 5)
        let fast = try await assertion(keyID, counter: 6)
        let service = service
        store.afterNextRead {
            let outcome = try await service.authorize(fast)
            #expect(self.reason(outcome) == nil)
        }
        #expect(reason(try await service.authorize(slow)) == .counterReplay)
        let key = try await service.key(id: keyID)
        #expect(key?.counter == 6)
        #expect(key?.riskScore == 0)
    }

    @Test("the counter reached the same value meanwhile: counterReplay, and the key's risk rises")
    func sameCounterMeanwhile() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        let request = try await assertion(keyID, counter: 5)
        let store = store
        let id = id(keyID)
        store.afterNextRead {
            _ = try await store.transaction { try $0.advanceCounter(keyID: id, to: 5, usedAt: Date()) }
        }
        #expect(reason(try await service.authorize(request)) == .counterReplay)
        #expect(try await service.key(id: keyID)?.riskScore == 1)
    }

    @Test("the key was blocked meanwhile: keyBlocked, and the counter stays")
    func blockedMeanwhile() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        let request = try await assertion(keyID, counter: 1)
        let store = store
        let id = id(keyID)
        let now = clock.now
        store.afterNextRead {
            _ = try await store.transaction { try $0.raiseRisk(keyID: id, by: 3, at: now, decayInterval: nil) }
        }
        #expect(reason(try await service.authorize(request)) == .keyBlocked)
        #expect(try await service.key(id: keyID)?.counter == 0)
    }

    @Test("the key was deleted meanwhile: unknownKey, and nothing is written for it")
    func deletedMeanwhile() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        let request = try await assertion(keyID, counter: 1)
        let path = path
        let id = id(keyID)
        store.afterNextRead {
            try SQLiteConnection(path: path).run("DELETE FROM rampart_keys WHERE key_id = \(id)")
        }
        #expect(reason(try await service.authorize(request)) == .unknownKey)
        #expect(try await service.key(id: keyID) == nil)
        // The challenge was spent all the same.
        #expect(reason(try await service.authorize(request)) == .challengeUsed)
    }

    @Test("the key was replaced meanwhile (another public key under its id): unknownKey, counter untouched")
    func replacedMeanwhile() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        let request = try await assertion(keyID, counter: 1)
        let path = path
        let id = id(keyID)
        let other = SecureRandom.bytes(count: 32)
        store.afterNextRead {
            try SQLiteConnection(path: path).run("UPDATE rampart_keys SET public_key = \(other) WHERE key_id = \(id)")
        }
        #expect(reason(try await service.authorize(request)) == .unknownKey)
        #expect(try await service.key(id: keyID)?.counter == 0)
    }

    @Test("the challenge was spent meanwhile (a copy of the request won): challengeUsed, the copy's counter stands")
    func spentMeanwhile() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        let request = try await assertion(keyID, counter: 4)
        let service = service
        store.afterNextRead {
            let outcome = try await service.authorize(request)
            #expect(self.reason(outcome) == nil)
        }
        #expect(reason(try await service.authorize(request)) == .challengeUsed)
        #expect(try await service.key(id: keyID)?.counter == 4)
    }

    @Test("16 racing requests of one key, counters 1...16 (in the reorder window): accepted or counterReplay, no risk")
    func racingGenuineRequests() async throws {
        let keyID = try await service.registerFakeKey(subject: "alice")
        var requests: [AssertionSubmission] = []
        for counter in 1...16 { requests.append(try await assertion(keyID, counter: UInt32(counter))) }
        let service = service
        let reasons = try await withThrowingTaskGroup(of: Refusal.Reason?.self) { group in
            for request in requests {
                group.addTask { self.reason(try await service.authorize(request)) }
            }
            return try await group.reduce(into: [Refusal.Reason?]()) { $0.append($1) }
        }
        #expect(reasons.allSatisfy { $0 == nil || $0 == .counterReplay })
        #expect(reasons.contains { $0 == nil })
        let key = try await service.key(id: keyID)
        #expect(key?.counter == 16)
        #expect(key?.riskScore == 0)
    }

    // MARK: A key in use, changed by another process

    /// Registers a key and has one assertion (counter 1) accepted.
    func keyInUse() async throws -> [UInt8] {
        let keyID = try await service.registerFakeKey(subject: "alice")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 1))) == nil)
        return keyID
    }

    /// Runs `sql` on the database from another connection: what another process on it would do.
    func elsewhere(_ sql: SQLQuery) throws { _ = try SQLiteConnection(path: path).run(sql) }

    @Test(
        "in use, then advanced elsewhere: a counter below the stored one is counterReplay, no risk; above it, accepted")
    func heldThenAdvancedElsewhere() async throws {
        let keyID = try await keyInUse()
        try elsewhere("UPDATE rampart_keys SET counter = \(Int64(5)) WHERE key_id = \(id(keyID))")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 3))) == .counterReplay)
        #expect(try await service.key(id: keyID)?.riskScore == 0)
        let outcome = try await service.authorize(try await assertion(keyID, counter: 6))
        guard case .accepted(let key) = outcome else { return #expect(Bool(false), "refused: \(outcome)") }
        #expect(key.counter == 6)
        #expect(try await service.key(id: keyID)?.counter == 6)
    }

    @Test("in use, then blocked elsewhere: keyBlocked, and the counter stays")
    func heldThenBlockedElsewhere() async throws {
        let keyID = try await keyInUse()
        try elsewhere("UPDATE rampart_keys SET risk_score = \(Int64(3)) WHERE key_id = \(id(keyID))")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 2))) == .keyBlocked)
        #expect(try await service.key(id: keyID)?.counter == 1)
    }

    @Test("a key refused as blocked, unblocked elsewhere, its next request is accepted")
    func blockedThenUnblockedElsewhere() async throws {
        let keyID = try await keyInUse()
        try elsewhere("UPDATE rampart_keys SET risk_score = \(Int64(3)) WHERE key_id = \(id(keyID))")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 2))) == .keyBlocked)
        try elsewhere("UPDATE rampart_keys SET risk_score = \(Int64(0)) WHERE key_id = \(id(keyID))")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 3))) == nil)
    }

    @Test("in use, then deleted elsewhere: unknownKey, and nothing is written for it")
    func heldThenDeletedElsewhere() async throws {
        let keyID = try await keyInUse()
        try elsewhere("DELETE FROM rampart_keys WHERE key_id = \(id(keyID))")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 2))) == .unknownKey)
        #expect(try await service.key(id: keyID) == nil)
    }

    @Test(
        "in use, then registered again elsewhere (another time): accepted as stored now; another environment: refused")
    func heldThenRegisteredAgainElsewhere() async throws {
        let keyID = try await keyInUse()
        try elsewhere(
            "UPDATE rampart_keys SET registered_at = registered_at + \(Int64(1000)) WHERE key_id = \(id(keyID))")
        let stored = try #require(try await service.key(id: keyID))
        let outcome = try await service.authorize(try await assertion(keyID, counter: 2))
        guard case .accepted(let key) = outcome else { return #expect(Bool(false), "refused: \(outcome)") }
        #expect(key.registeredAt == stored.registeredAt)
        // Registered again by a development service on the same database: this production service refuses it,
        // although the key it last accepted was a production one.
        try elsewhere("UPDATE rampart_keys SET environment = 'development' WHERE key_id = \(id(keyID))")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 3))) == .wrongEnvironment)
        #expect(try await service.key(id: keyID)?.counter == 2)
    }

    @Test("in use by one subject, registered to another elsewhere: the new subject's request is accepted, not refused")
    func heldThenOtherSubjectElsewhere() async throws {
        let keyID = try await keyInUse()
        try elsewhere("UPDATE rampart_keys SET subject = 'bob' WHERE key_id = \(id(keyID))")
        let outcome = try await service.authorize(try await assertion(keyID, counter: 2, subject: "bob"))
        guard case .accepted(let key) = outcome else { return #expect(Bool(false), "refused: \(outcome)") }
        #expect(key.subject == "bob")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 3))) == .wrongSubject)
    }
}
