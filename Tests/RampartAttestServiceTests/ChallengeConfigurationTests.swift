import Foundation
import RampartAttestService
import RampartCrypto
import TestSupport
import Testing

/// `"challenges": {"sealingKeys": [...]}` and `RAMPART_CHALLENGE_KEYS`.
struct ChallengeConfigurationTests {
    static let first = Data(SecureRandom.bytes(count: 32)).base64EncodedString()
    static let second = Data(SecureRandom.bytes(count: 32)).base64EncodedString()

    func load(_ text: String) throws -> ServiceConfiguration {
        let path = ScratchDirectory.uniquePath("config.json")
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try ServiceConfiguration.load(path: path)
    }

    func sealedBy(_ keys: ChallengeSealingKeys?, openedBy other: ChallengeSealingKeys) async throws -> Bool {
        let store = try SQLiteAttestationStore(path: temporarySQLitePath())
        let issuing = AttestationService(store: store, verifier: FakeVerifier(), sealingKeys: keys)
        let opening = AttestationService(store: store, verifier: FakeVerifier(), sealingKeys: other)
        let challenge = try await issuing.issueChallenge(purpose: .attestation, subject: "alice").challenge
        let keyID = SecureRandom.bytes(count: 32)
        let outcome = try await opening.register(
            AttestationSubmission(
                subject: "alice", keyID: keyID, attestationObject: FakeVerifier.attestation(keyID: keyID),
                challenge: challenge))
        if case .registered = outcome { return true }
        return false
    }

    @Test("keys from the file: the first seals, both open")
    func fromFile() async throws {
        let configuration = try load(#"{"challenges":{"sealingKeys":["\#(Self.first)","\#(Self.second)"]}}"#)
        let keys = try #require(try configuration.challengeSealingKeys(environment: [:]))
        let firstOnly = try ChallengeSealingKeys(base64Encoded: [Self.first])
        let secondOnly = try ChallengeSealingKeys(base64Encoded: [Self.second])
        #expect(try await sealedBy(keys, openedBy: firstOnly))
        #expect(try await sealedBy(keys, openedBy: secondOnly) == false)
        #expect(try await sealedBy(secondOnly, openedBy: keys))
    }

    @Test("keys from RAMPART_CHALLENGE_KEYS, comma-separated")
    func fromEnvironment() async throws {
        let keys = try #require(
            try ServiceConfiguration().challengeSealingKeys(
                environment: ["RAMPART_CHALLENGE_KEYS": "\(Self.second),\(Self.first)"]))
        #expect(try await sealedBy(keys, openedBy: try ChallengeSealingKeys(base64Encoded: [Self.second])))
    }

    @Test("no keys anywhere: nil (the store's key is used)")
    func none() throws {
        #expect(try ServiceConfiguration().challengeSealingKeys(environment: [:]) == nil)
        #expect(try ServiceConfiguration().challengeSealingKeys(environment: ["RAMPART_CHALLENGE_KEYS": ""]) == nil)
    }

    @Test("keys in both the file and the environment are invalidConfiguration")
    func both() throws {
        let configuration = try load(#"{"challenges":{"sealingKeys":["\#(Self.first)"]}}"#)
        let error = #expect(throws: AttestServiceError.self) {
            try configuration.challengeSealingKeys(environment: ["RAMPART_CHALLENGE_KEYS": Self.second])
        }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains("set them in one place") == true)
    }

    @Test("a short key, an empty list, a non-base64 key or an unknown challenges key is invalidConfiguration")
    func invalid() throws {
        let short = Data(SecureRandom.bytes(count: 16)).base64EncodedString()
        for (text, message) in [
            (#"{"challenges":{"sealingKeys":["\#(short)"]}}"#, "key 1 has 16 bytes"),
            (#"{"challenges":{"sealingKeys":[]}}"#, "must list 1...8 keys"),
            (#"{"challenges":{"sealingKeys":["\#(Self.first)","%%%"]}}"#, "key 2 is not base64"),
        ] {
            let configuration = try load(text)
            let error = #expect(throws: AttestServiceError.self) {
                try configuration.challengeSealingKeys(environment: [:])
            }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.reason.contains(message) == true, "\(text)")
        }
        let unknown = #expect(throws: AttestServiceError.self) {
            try load(#"{"challenges":{"sealingKey":["\#(Self.first)"]}}"#)
        }
        #expect(unknown?.code == .invalidConfiguration)
        #expect(unknown?.reason.contains("'challenges.sealingKey'") == true)
        let environment = #expect(throws: AttestServiceError.self) {
            try ServiceConfiguration().challengeSealingKeys(environment: ["RAMPART_CHALLENGE_KEYS": "\(Self.first),"])
        }
        #expect(environment?.reason.contains("key 2 is not base64") == true)
    }

    @Test("the configuration's description never shows a sealing key")
    func redacted() throws {
        let configuration = try load(#"{"challenges":{"sealingKeys":["\#(Self.first)"]}}"#)
        #expect(!String(describing: configuration).contains(Self.first))
        #expect(!String(reflecting: configuration).contains(Self.first))
        #expect(String(describing: configuration.challenges) == "ChallengeSettings(1 sealing keys)")
    }
}
