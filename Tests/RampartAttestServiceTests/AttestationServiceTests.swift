import Foundation
import RampartAttestService
import RampartCrypto
import Synchronization
import Testing

/// A settable clock.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_790_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

struct AttestationServiceTests {
    let clock = TestClock()
    let service: AttestationService

    init() throws {
        let clock = clock
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            configuration: .init(challengeLifetime: 300, riskBlockThreshold: 3), clock: { clock.now })
    }

    func register(subject: String = "alice") async throws -> [UInt8] {
        try await service.registerFakeKey(subject: subject)
    }

    func assertion(
        keyID: [UInt8], counter: UInt32, subject: String = "alice", challenge: String? = nil
    )
        async throws -> AssertionSubmission
    {
        let issued = try await service.issueChallenge(purpose: .assertion, subject: subject).challenge
        let clientData = Array("{\"challenge\":\"\(challenge ?? issued)\",\"payload\":{}}".utf8)
        return AssertionSubmission(
            subject: subject, keyID: keyID,
            assertion: FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID),
            challenge: challenge ?? issued, clientData: clientData)
    }

    func refusal(_ outcome: AssertionOutcome) -> Refusal.Reason? {
        if case .refused(let refusal) = outcome { return refusal.reason }
        return nil
    }

    @Test("a challenge is a 104-character base64url token, unique, and expires after the configured lifetime")
    func challenges() async throws {
        let first = try await service.issueChallenge(purpose: .assertion, subject: "alice")
        let second = try await service.issueChallenge(purpose: .assertion, subject: "alice")
        #expect(first.challenge != second.challenge)
        #expect(first.challenge.count == 104)
        #expect(first.challenge.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(first.expiresAt == clock.now.addingTimeInterval(300))
    }

    @Test("an empty or oversized subject is invalidField")
    func subjects() async throws {
        await #expect(throws: AttestServiceError.invalidField("")) {
            try await service.issueChallenge(purpose: .assertion, subject: "")
        }
        await #expect(throws: AttestServiceError.invalidField("")) {
            try await service.issueChallenge(purpose: .assertion, subject: String(repeating: "x", count: 257))
        }
    }

    @Test("register, then accepted assertions advance the counter; the key records it")
    func happyPath() async throws {
        let keyID = try await register()
        let outcome = try await service.authorize(try await assertion(keyID: keyID, counter: 1))
        guard case .accepted(let key) = outcome else { throw AttestServiceError.storeFailure("\(outcome)") }
        #expect(key.counter == 1)
        let stored = try await service.key(id: keyID)
        #expect(stored?.counter == 1)
        #expect(stored?.lastUsedAt == clock.now)
        #expect(stored?.environment == "production")
    }

    @Test("the same request twice: the second is challengeUsed")
    func replay() async throws {
        let keyID = try await register()
        let request = try await assertion(keyID: keyID, counter: 1)
        #expect(refusal(try await service.authorize(request)) == nil)
        #expect(refusal(try await service.authorize(request)) == .challengeUsed)
    }

    @Test("an expired challenge is challengeExpired, every time it is presented")
    func expired() async throws {
        let keyID = try await register()
        let request = try await assertion(keyID: keyID, counter: 1)
        clock.advance(301)
        #expect(refusal(try await service.authorize(request)) == .challengeExpired)
        #expect(refusal(try await service.authorize(request)) == .challengeExpired)
        #expect(try await service.key(id: keyID)?.counter == 0)
    }

    @Test("a challenge for another purpose or subject is challengeMismatch")
    func mismatch() async throws {
        let keyID = try await register()
        let attestationChallenge = try await service.issueChallenge(purpose: .attestation, subject: "alice")
        let wrongPurpose = try await assertion(keyID: keyID, counter: 1, challenge: attestationChallenge.challenge)
        #expect(refusal(try await service.authorize(wrongPurpose)) == .challengeMismatch)
        let bobs = try await service.issueChallenge(purpose: .assertion, subject: "bob")
        let wrongSubject = try await assertion(keyID: keyID, counter: 1, challenge: bobs.challenge)
        #expect(refusal(try await service.authorize(wrongSubject)) == .challengeMismatch)
    }

    @Test("an unknown key is unknownKey; a key used by another subject is wrongSubject")
    func keys() async throws {
        let unknown = try await assertion(keyID: SecureRandom.bytes(count: 32), counter: 1)
        #expect(refusal(try await service.authorize(unknown)) == .unknownKey)
        #expect(Refusal.Reason.unknownKey.requiresReattestation)
        let keyID = try await register()
        let asBob = try await assertion(keyID: keyID, counter: 1, subject: "bob")
        #expect(refusal(try await service.authorize(asBob)) == .wrongSubject)
    }

    @Test("a tampered payload is invalidAssertion; an old counter is counterReplay")
    func tampering() async throws {
        let keyID = try await register()
        var tampered = try await assertion(keyID: keyID, counter: 1)
        tampered.clientData = Array("{\"challenge\":\"\(tampered.challenge)\",\"payload\":{\"amount\":9}}".utf8)
        #expect(refusal(try await service.authorize(tampered)) == .invalidAssertion)
        #expect(refusal(try await service.authorize(try await assertion(keyID: keyID, counter: 5))) == nil)
        #expect(refusal(try await service.authorize(try await assertion(keyID: keyID, counter: 5))) == .counterReplay)
    }

    @Test("signatures that do not verify never raise the key's risk; signed duplicate counters do, until blocked")
    func risk() async throws {
        let keyID = try await register()
        for _ in 0..<5 {
            var bad = try await assertion(keyID: keyID, counter: 1)
            bad.assertion[10] ^= 1
            #expect(refusal(try await service.authorize(bad)) == .invalidAssertion)
        }
        #expect(try await service.key(id: keyID)?.riskScore == 0)
        #expect(refusal(try await service.authorize(try await assertion(keyID: keyID, counter: 1))) == nil)
        for _ in 0..<3 {
            #expect(
                refusal(try await service.authorize(try await assertion(keyID: keyID, counter: 1))) == .counterReplay)
        }
        #expect(try await service.key(id: keyID)?.riskScore == 3)
        #expect(refusal(try await service.authorize(try await assertion(keyID: keyID, counter: 2))) == .keyBlocked)
        #expect(Refusal.Reason.keyBlocked.requiresReattestation)
    }

    @Test("registration refusals: used challenge, wrong environment, invalid object, existing key")
    func registration() async throws {
        let keyID = SecureRandom.bytes(count: 32)
        func attempt(_ object: [UInt8], challenge: String? = nil) async throws -> RegistrationOutcome {
            let issued = try await service.issueChallenge(purpose: .attestation, subject: "alice").challenge
            return try await service.register(
                AttestationSubmission(
                    subject: "alice", keyID: keyID, attestationObject: object, challenge: challenge ?? issued))
        }
        #expect(try await attempt(Array("development-only".utf8)) == .refused(Refusal(.wrongEnvironment, "")))
        #expect(try await attempt([1, 2, 3]) == .refused(Refusal(.invalidAttestation, "")))
        #expect(
            try await attempt(FakeVerifier.attestation(keyID: keyID), challenge: "never-issued")
                == .refused(Refusal(.challengeUsed, "")))
        let assertionChallenge = try await service.issueChallenge(purpose: .assertion, subject: "alice")
        #expect(
            try await attempt(FakeVerifier.attestation(keyID: keyID), challenge: assertionChallenge.challenge)
                == .refused(Refusal(.challengeMismatch, "")))
        guard case .registered = try await attempt(FakeVerifier.attestation(keyID: keyID)) else {
            Issue.record("a valid attestation was refused")
            return
        }
        #expect(try await attempt(FakeVerifier.attestation(keyID: keyID)) == .refused(Refusal(.keyExists, "")))
    }

    @Test("50 concurrent copies of one valid assertion request: exactly 1 accepted")
    func concurrentCopies() async throws {
        let keyID = try await register()
        let request = try await assertion(keyID: keyID, counter: 1)
        let service = service
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    if case .accepted = try await service.authorize(request) { return true }
                    return false
                }
            }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 1)
    }

    @Test("verdicts are counted in the metrics")
    func metrics() async throws {
        let keyID = try await register()
        _ = try await service.authorize(try await assertion(keyID: keyID, counter: 1))
        let text = service.metrics.prometheusText
        #expect(text.contains("rampart_verdicts_total{kind=\"attestation\",reason=\"accepted\"} 1"))
        #expect(text.contains("rampart_verdicts_total{kind=\"assertion\",reason=\"accepted\"} 1"))
    }
}

struct SpentChallengePurgeTests {
    @Test("a spend purges the spent records past expiry and clock skew, at most once a second")
    func purgesOnceASecond() async throws {
        let clock = TestClock()
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        let service = AttestationService(store: store, verifier: FakeVerifier(), clock: { clock.now })
        let keyID = try await service.registerFakeKey(subject: "alice")  // no purge within the first second
        let start = clock.now
        let old = (nonce: StoreContract.nonce(), expiresAt: start.addingTimeInterval(-100))
        let recent = (nonce: StoreContract.nonce(), expiresAt: start.addingTimeInterval(-30))
        for record in [old, recent] {
            _ = try await store.transaction { try $0.spendChallenge(nonce: record.nonce, expiresAt: record.expiresAt) }
        }
        /// Whether the record is still there: spending it again fails (a purged one is spent anew).
        func isKept(_ record: (nonce: [UInt8], expiresAt: Date)) async throws -> Bool {
            try await store.transaction { try $0.spendChallenge(nonce: record.nonce, expiresAt: record.expiresAt) }
                == false
        }
        func authorize(counter: UInt32) async throws {
            let challenge = try await service.issueChallenge(purpose: .assertion, subject: "alice").challenge
            let clientData = Array("{\"challenge\":\"\(challenge)\",\"payload\":{}}".utf8)
            let outcome = try await service.authorize(
                AssertionSubmission(
                    subject: "alice", keyID: keyID,
                    assertion: FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID),
                    challenge: challenge, clientData: clientData))
            guard case .accepted = outcome else { throw AttestServiceError.storeFailure("\(outcome)") }
        }
        try await authorize(counter: 1)  // within the second of the last purge: none
        #expect(try await isKept(old))
        clock.advance(1)
        try await authorize(counter: 2)
        #expect(try await isKept(old) == false)
        #expect(try await isKept(recent))  // expired 31 s ago: within the clock-skew allowance
        await store.close()
    }
}
