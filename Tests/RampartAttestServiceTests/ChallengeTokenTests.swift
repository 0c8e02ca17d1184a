import Foundation
import RampartAttestService
import RampartCrypto
import Testing

/// Sealed challenges: what a forged, altered or foreign one gets, key rotation, and the stored key's sharing.
struct ChallengeTokenTests {
    let clock = TestClock()
    let path = temporarySQLitePath()

    func service(keys: [SymmetricKey]? = nil) throws -> AttestationService {
        let clock = clock
        return AttestationService(
            store: try SQLiteAttestationStore(path: path), verifier: FakeVerifier(),
            configuration: .init(challengeLifetime: 300, limits: RequestLimits(failuresPerAddressPerMinute: 0)),
            sealingKeys: try keys.map { try ChallengeSealingKeys(keys: $0) }, clock: { clock.now })
    }

    /// Registers with `challenge` on `service`: the reason it was refused, or nil when registered.
    func register(_ service: AttestationService, challenge: String) async throws -> Refusal.Reason? {
        let keyID = SecureRandom.bytes(count: 32)
        let outcome = try await service.register(
            AttestationSubmission(
                subject: "alice", keyID: keyID, attestationObject: FakeVerifier.attestation(keyID: keyID),
                challenge: challenge))
        if case .refused(let refusal) = outcome { return refusal.reason }
        return nil
    }

    func issue(_ service: AttestationService, subject: String = "alice") async throws -> String {
        try await service.issueChallenge(purpose: .attestation, subject: subject).challenge
    }

    /// The challenge's bytes (it is unpadded base64url).
    func bytes(_ challenge: String) -> [UInt8] {
        var text = challenge.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map { Array($0) } ?? []
    }

    func text(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    @Test("a challenge altered anywhere, truncated, extended or made up is challengeUsed, and burns nothing")
    func forgeries() async throws {
        let service = try service()
        let genuine = try await issue(service)
        let raw = bytes(genuine)
        #expect(raw.count == 78)
        var forgeries: [String] = []
        for index in [0, 1, 5, 6, 13, 14, 29, 30, 45, 46, 77] {  // version, key id, purpose, expiry, nonce, tag, MAC
            var altered = raw
            altered[index] ^= 0x01
            forgeries.append(text(altered))
        }
        forgeries += [
            String(genuine.dropLast()), genuine + "A", String(genuine.prefix(43)), "",
            text(SecureRandom.bytes(count: 78)), String(repeating: "A", count: 104), genuine.uppercased(),
        ]
        for forgery in forgeries where forgery != genuine {
            #expect(try await register(service, challenge: forgery) == .challengeUsed, "\(forgery)")
        }
        // Altering only the MAC kept the nonce: had any forgery been spent, the genuine one would now be refused.
        #expect(try await register(service, challenge: genuine) == nil)
        #expect(try await register(service, challenge: genuine) == .challengeUsed)
    }

    @Test("the challenge does not carry the subject in the clear")
    func subjectNotReadable() async throws {
        let challenge = try await issue(try service(), subject: "alice@example.com")
        let raw = bytes(challenge)
        #expect(!Data(raw).contains(Data("alice".utf8)))
    }

    @Test("a challenge sealed with a key the service does not list is challengeUsed")
    func unlistedKey() async throws {
        let first = try service(keys: [SymmetricKey(randomByteCount: 32)])
        let second = try service(keys: [SymmetricKey(randomByteCount: 32)])
        let challenge = try await issue(first)
        #expect(try await register(second, challenge: challenge) == .challengeUsed)
        #expect(try await register(first, challenge: challenge) == nil)
    }

    @Test("rotation: the first listed key seals, every listed key opens, a dropped key opens nothing")
    func rotation() async throws {
        let old = SymmetricKey(randomByteCount: 32)
        let new = SymmetricKey(randomByteCount: 48)
        let before = try service(keys: [old])
        let during = try service(keys: [old, new])  // step 1: the new key opens
        let after = try service(keys: [new, old])  // step 2: the new key seals
        let retired = try service(keys: [new])  // step 3: the old key is dropped
        let sealedBefore = try await issue(before)
        let sealedAfter = try await issue(after)
        #expect(try await register(during, challenge: sealedBefore) == nil)
        #expect(try await register(during, challenge: sealedAfter) == nil)
        #expect(try await register(retired, challenge: try await issue(before)) == .challengeUsed)
        #expect(try await register(retired, challenge: try await issue(after)) == nil)
        #expect(try await register(before, challenge: try await issue(after)) == .challengeUsed)
    }

    @Test("without configured keys, instances on one database share the key the store keeps")
    func storedKeyIsShared() async throws {
        let first = try service()
        let second = try service()
        #expect(try await register(second, challenge: try await issue(first)) == nil)
        #expect(try await register(first, challenge: try await issue(second)) == nil)
    }

    @Test("a challenge one instance spent is spent for another on the same database")
    func spentAcrossInstances() async throws {
        let key = SymmetricKey(randomByteCount: 32)
        let first = try service(keys: [key])
        let second = try service(keys: [key])
        let challenge = try await issue(first)
        #expect(try await register(first, challenge: challenge) == nil)
        #expect(try await register(second, challenge: challenge) == .challengeUsed)
    }

    @Test("burning a presented challenge spends it; burning an expired or made-up one writes nothing and is fine")
    func burning() async throws {
        let service = try service()
        let challenge = try await issue(service)
        try await service.burnChallenge(challenge)
        #expect(try await register(service, challenge: challenge) == .challengeUsed)
        let expiring = try await issue(service)
        clock.advance(301)
        try await service.burnChallenge(expiring)
        try await service.burnChallenge("not-a-challenge")
        #expect(try await register(service, challenge: expiring) == .challengeExpired)
    }

    @Test("a challenge lives exactly its lifetime: accepted a millisecond before, challengeExpired at expiry")
    func expiryEdge() async throws {
        let service = try service()
        let early = try await service.issueChallenge(purpose: .attestation, subject: "alice")
        let late = try await issue(service)
        #expect(early.expiresAt == clock.now.addingTimeInterval(300))
        clock.advance(299.999)
        #expect(try await register(service, challenge: early.challenge) == nil)
        clock.advance(0.001)
        #expect(try await register(service, challenge: late) == .challengeExpired)
    }

    struct KeyCase: CustomTestStringConvertible, Sendable {
        let name: String
        let keys: [[UInt8]]
        let message: String
        var testDescription: String { name }
    }

    static let badKeys: [KeyCase] = [
        KeyCase(name: "no key", keys: [], message: "must list 1...8 keys (got 0)"),
        KeyCase(name: "nine keys", keys: (0..<9).map { _ in SecureRandom.bytes(count: 32) }, message: "(got 9)"),
        KeyCase(name: "a 31-byte key", keys: [SecureRandom.bytes(count: 31)], message: "key 1 has 31 bytes"),
        KeyCase(
            name: "a 65-byte key", keys: [SecureRandom.bytes(count: 32), SecureRandom.bytes(count: 65)],
            message: "key 2 has 65 bytes"),
        KeyCase(
            name: "a key listed twice", keys: [[UInt8](repeating: 7, count: 32), [UInt8](repeating: 7, count: 32)],
            message: "key 2 is listed twice"),
    ]

    @Test("sealing keys are refused with invalidConfiguration naming the problem", arguments: badKeys)
    func badSealingKeys(_ testCase: KeyCase) {
        let error = #expect(throws: AttestServiceError.self) {
            try ChallengeSealingKeys(keys: testCase.keys.map { SymmetricKey(bytes: $0) })
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains(testCase.message) == true, "\(error?.reason ?? "")")
    }

    @Test("sealing keys in base64: standard or URL-safe; anything else is invalidConfiguration naming the key")
    func base64Keys() throws {
        let key = SecureRandom.bytes(count: 32)
        _ = try ChallengeSealingKeys(base64Encoded: [
            Data(key).base64EncodedString(), text(SecureRandom.bytes(count: 40)),
        ])
        let error = #expect(throws: AttestServiceError.self) {
            try ChallengeSealingKeys(base64Encoded: [Data(key).base64EncodedString(), "not base64!"])
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains("key 2 is not base64") == true)
    }
}
