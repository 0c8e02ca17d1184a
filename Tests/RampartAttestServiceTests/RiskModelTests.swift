import Foundation
import RampartAttestService
import RampartCrypto
import Testing

/// Who can raise which key's risk, what an unauthenticated client can cost, and identities compared as bytes.
struct RiskModelTests {
    let clock = TestClock()
    let service: AttestationService

    init() throws {
        try self.init(limits: RequestLimits(failuresPerAddressPerMinute: 0))
    }

    init(limits: RequestLimits, decay: TimeInterval? = 3600) throws {
        let clock = clock
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier(),
            configuration: .init(
                challengeLifetime: 300, riskBlockThreshold: 5, riskDecayInterval: decay, counterReorderWindow: 16,
                limits: limits),
            clock: { clock.now })
    }

    func register(_ subject: String = "alice") async throws -> [UInt8] {
        try await service.registerFakeKey(subject: subject)
    }

    func assertion(
        _ keyID: [UInt8], counter: UInt32, subject: String = "alice", address: String? = nil,
        assertionBytes: [UInt8]? = nil
    ) async throws -> AssertionSubmission {
        let challenge = try await service.issueChallenge(purpose: .assertion, subject: subject).challenge
        let clientData = Array("{\"challenge\":\"\(challenge)\",\"payload\":{}}".utf8)
        return AssertionSubmission(
            subject: subject, keyID: keyID,
            assertion: assertionBytes ?? FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID),
            challenge: challenge, clientData: clientData, clientAddress: address)
    }

    func reason(_ outcome: AssertionOutcome) -> Refusal.Reason? {
        if case .refused(let refusal) = outcome { return refusal.reason }
        return nil
    }

    func risk(_ keyID: [UInt8]) async throws -> Int? {
        try await service.key(id: keyID).map { service.riskScore(of: $0) }
    }

    @Test("requests naming a victim's key with another subject or a junk assertion never raise its risk")
    func strangersCannotBlock() async throws {
        let victim = try await register("victim")
        for _ in 0..<8 {
            let wrongSubject = try await assertion(victim, counter: 1, subject: "mallory")
            #expect(reason(try await service.authorize(wrongSubject)) == .wrongSubject)
            // Mallory can get a challenge for the victim's subject too, but cannot sign with the victim's key.
            var junk = try await assertion(victim, counter: 9, subject: "victim")
            junk.assertion = SecureRandom.bytes(count: junk.assertion.count)
            #expect(reason(try await service.authorize(junk)) == .invalidAssertion)
        }
        #expect(try await risk(victim) == 0)
        #expect(reason(try await service.authorize(try await assertion(victim, counter: 1, subject: "victim"))) == nil)
    }

    @Test("the genuine app's requests arriving out of order are refused without risk, five pairs and more")
    func outOfOrder() async throws {
        let keyID = try await register()
        var counter: UInt32 = 0
        for _ in 0..<6 {
            // Two requests signed in order (counter n+1, n+2), arriving in reverse.
            let first = try await assertion(keyID, counter: counter + 1)
            let second = try await assertion(keyID, counter: counter + 2)
            #expect(reason(try await service.authorize(second)) == nil)
            #expect(reason(try await service.authorize(first)) == .counterReplay)
            counter += 2
        }
        #expect(try await risk(keyID) == 0)
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: counter + 1))) == nil)
        #expect(service.metrics.prometheusText.contains("reason=\"counterReordered\"} 6"))
    }

    @Test("signed evidence raises risk: a repeated counter, one far below the window, another app's rpIdHash")
    func keyEvidence() async throws {
        let keyID = try await register()
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 100))) == nil)
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 100))) == .counterReplay)
        #expect(try await risk(keyID) == 1)
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 84))) == .counterReplay)
        #expect(try await risk(keyID) == 1, "16 below is within the window")
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 83))) == .counterReplay)
        #expect(try await risk(keyID) == 2)
        let otherApp = try await assertion(keyID, counter: FakeVerifier.otherAppCounter)
        #expect(reason(try await service.authorize(otherApp)) == .invalidAssertion)
        #expect(try await risk(keyID) == 3)
    }

    @Test("a blocked key recovers as risk decays, or at once when an operator unblocks it")
    func decayAndUnblock() async throws {
        let keyID = try await register()
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 10))) == nil)
        for _ in 0..<5 {
            _ = try await service.authorize(try await assertion(keyID, counter: 10))
        }
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 11))) == .keyBlocked)
        let blocked = try #require(try await service.key(id: keyID))
        #expect(service.isBlocked(blocked))
        clock.advance(3600)  // one point of decay: 4 < 5
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 12))) == nil)
        #expect(try await risk(keyID) == 4)
        _ = try await service.authorize(try await assertion(keyID, counter: 12))  // 5 again
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 13))) == .keyBlocked)
        let unblocked = try #require(try await service.unblock(keyID: keyID))
        #expect(unblocked.riskScore == 0)
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 13))) == nil)
        #expect(try await service.unblock(keyID: SecureRandom.bytes(count: 32)) == nil)
    }

    @Test("unauthenticated failures are charged to the address: 429 with a retry time, other addresses unaffected")
    func failuresChargeTheAddress() async throws {
        let limited = try RiskModelTests(limits: RequestLimits(failuresPerAddressPerMinute: 3))
        let victim = try await limited.register("victim")
        for _ in 0..<3 {
            let attack = try await limited.assertion(victim, counter: 1, subject: "mallory", address: "192.0.2.66")
            #expect(limited.reason(try await limited.service.authorize(attack)) == .wrongSubject)
        }
        let error = await #expect(throws: AttestServiceError.self) {
            try await limited.service.authorize(
                try await limited.assertion(victim, counter: 1, subject: "mallory", address: "192.0.2.66"))
        }
        #expect(error?.code == .rateLimited)
        #expect(error?.retryAfterSeconds == 20)  // 3 a minute: one token every 20 s
        let again = await #expect(throws: AttestServiceError.self) {
            try await limited.service.issueChallenge(purpose: .assertion, subject: "x", clientAddress: "192.0.2.66")
        }
        #expect(again?.code == .rateLimited)
        let genuine = try await limited.assertion(victim, counter: 1, subject: "victim", address: "198.51.100.7")
        #expect(limited.reason(try await limited.service.authorize(genuine)) == nil)
        #expect(try await limited.risk(victim) == 0)
        limited.clock.advance(20)
        let afterWait = try await limited.assertion(victim, counter: 1, subject: "mallory", address: "192.0.2.66")
        #expect(limited.reason(try await limited.service.authorize(afterWait)) == .wrongSubject)
    }

    @Test("a malformed assertion or attestation burns its challenge: the same challenge is then challengeUsed")
    func malformedBurns() async throws {
        let keyID = try await register()
        let malformed = try await assertion(keyID, counter: 1, assertionBytes: Array("malformed".utf8))
        await #expect(throws: AttestServiceError.invalidField("")) { try await service.authorize(malformed) }
        var retry = malformed
        retry.assertion = FakeVerifier.assertion(counter: 1, clientData: malformed.clientData, keyID: keyID)
        #expect(reason(try await service.authorize(retry)) == .challengeUsed)

        let challenge = try await service.issueChallenge(purpose: .attestation, subject: "alice").challenge
        let newKey = SecureRandom.bytes(count: 32)
        let bad = AttestationSubmission(
            subject: "alice", keyID: newKey, attestationObject: Array("malformed".utf8), challenge: challenge)
        await #expect(throws: AttestServiceError.invalidField("")) { try await service.register(bad) }
        var good = bad
        good.attestationObject = FakeVerifier.attestation(keyID: newKey)
        #expect(try await service.register(good) == .refused(Refusal(.challengeUsed, "")))
        #expect(service.metrics.prometheusText.contains("kind=\"assertion\",reason=\"invalidField\"} 1"))
    }

    @Test("subjects compare as bytes: NFC and NFD spellings of café are two subjects")
    func subjectsAreBytes() async throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd, "Swift's == is canonical equivalence; the service must not use it")
        let keyID = try await register(nfc)
        #expect(
            reason(try await service.authorize(try await assertion(keyID, counter: 1, subject: nfd))) == .wrongSubject)
        let issuedToNFC = try await service.issueChallenge(purpose: .assertion, subject: nfc).challenge
        var crossed = try await assertion(keyID, counter: 2, subject: nfd)
        crossed.challenge = issuedToNFC
        crossed.clientData = Array("{\"challenge\":\"\(issuedToNFC)\",\"payload\":{}}".utf8)
        crossed.assertion = FakeVerifier.assertion(counter: 2, clientData: crossed.clientData, keyID: keyID)
        #expect(reason(try await service.authorize(crossed)) == .challengeMismatch)
        #expect(reason(try await service.authorize(try await assertion(keyID, counter: 3, subject: nfc))) == nil)
    }

    @Test("issuance is limited per address and per subject with a retry time")
    func issuanceLimits() async throws {
        let limited = try RiskModelTests(
            limits: RequestLimits(challengesPerAddressPerMinute: 4, challengesPerSubjectPerMinute: 6))
        for index in 0..<4 {
            _ = try await limited.service.issueChallenge(
                purpose: .assertion, subject: "s\(index)", clientAddress: "192.0.2.1")
        }
        let perAddress = await #expect(throws: AttestServiceError.self) {
            try await limited.service.issueChallenge(purpose: .assertion, subject: "s9", clientAddress: "192.0.2.1")
        }
        #expect(perAddress?.code == .rateLimited)
        #expect(perAddress?.retryAfterSeconds == 15)
        #expect(perAddress?.reason.contains("this address") == true)
        for index in 0..<6 {
            _ = try await limited.service.issueChallenge(
                purpose: .assertion, subject: "Kelvin", clientAddress: "198.51.100.\(index)")
        }
        let perSubject = await #expect(throws: AttestServiceError.self) {
            try await limited.service.issueChallenge(
                purpose: .assertion, subject: "Kelvin", clientAddress: "203.0.113.1")
        }
        #expect(perSubject?.code == .rateLimited)
        #expect(perSubject?.reason.contains("this subject") == true)
        // U+212A KELVIN SIGN is canonically equivalent to "K" but is another subject, with its own allowance.
        #expect("\u{212A}elvin" == "Kelvin")
        _ = try await limited.service.issueChallenge(purpose: .assertion, subject: "\u{212A}elvin", clientAddress: nil)
    }

    @Test(
        "outstanding challenges cost no storage: each stays usable once until its expiry (no per-subject trimming)")
    func outstandingChallengesAreBoundedByExpiry() async throws {
        let service = try RiskModelTests(limits: RequestLimits()).service
        var issued: [String] = []
        for _ in 0..<6 {
            issued.append(try await service.issueChallenge(purpose: .attestation, subject: "alice").challenge)
        }
        func attempt(_ challenge: String) async throws -> RegistrationOutcome {
            let keyID = SecureRandom.bytes(count: 32)
            return try await service.register(
                AttestationSubmission(
                    subject: "alice", keyID: keyID, attestationObject: FakeVerifier.attestation(keyID: keyID),
                    challenge: challenge))
        }
        for challenge in issued {
            guard case .registered = try await attempt(challenge) else {
                Issue.record("an outstanding challenge was refused")
                continue
            }
            #expect(try await attempt(challenge) == .refused(Refusal(.challengeUsed, "")))
        }
    }
}
