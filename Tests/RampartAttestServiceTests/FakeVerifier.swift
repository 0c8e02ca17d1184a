import RampartAttestService
import RampartCrypto

/// A stand-in for the App Attest verifier in tests of the service's own logic (challenges, state, risk, races):
/// an "attestation" is the bytes `attest:` ‖ keyID and registers keyID as the public key; an "assertion" is the
/// 4-byte big-endian counter ‖ clientDataHash ‖ publicKey; the bytes `malformed` are a malformed object. It checks
/// nothing cryptographic — the end-to-end tests
/// use RampartAppAttest's real verifier and device simulator.
struct FakeVerifier: AppAttestVerifying {
    func verifyAttestation(
        _ attestationObject: [UInt8], keyID: [UInt8], clientDataHash: [UInt8]
    ) throws
        -> AttestationCheck
    {
        if attestationObject == Array("malformed".utf8) {
            throw AttestServiceError.invalidField("'attestationObject' is not well-formed (fake)")
        }
        if attestationObject == Array("development-only".utf8) {
            return .invalid(Refusal(.wrongEnvironment, "development object"))
        }
        guard attestationObject == Array("attest:".utf8) + keyID else {
            return .invalid(Refusal(.invalidAttestation, "not attested"))
        }
        return .valid(publicKey: keyID, environment: "production", receipt: [1, 2, 3])
    }

    func verifyAssertion(
        _ assertion: [UInt8], clientDataHash: [UInt8], publicKey: [UInt8], previousCounter: UInt32
    )
        throws -> AssertionCheck
    {
        if assertion == Array("malformed".utf8) {
            throw AttestServiceError.invalidField("'assertion' is not well-formed (fake)")
        }
        guard assertion.count == 4 + clientDataHash.count + publicKey.count,
            Array(assertion[4...]) == clientDataHash + publicKey
        else { return .invalid(Refusal(.invalidAssertion, "signature")) }
        let counter = assertion[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        // Past the signature: the key made it. Counter 0xFFFFFFFF stands for another app's rpIdHash.
        if counter == Self.otherAppCounter { return .invalidSigned(Refusal(.invalidAssertion, "rpIdHash")) }
        guard counter > previousCounter else { return .invalidSigned(Refusal(.counterReplay, "counter")) }
        return .valid(counter: counter)
    }

    /// The counter that makes the fake answer "signed, but by another app" (an rpIdHash mismatch).
    static let otherAppCounter = UInt32.max

    static func attestation(keyID: [UInt8]) -> [UInt8] { Array("attest:".utf8) + keyID }

    static func assertion(counter: UInt32, clientData: [UInt8], keyID: [UInt8]) -> [UInt8] {
        withUnsafeBytes(of: counter.bigEndian) { Array($0) } + SHA256.hash(clientData) + keyID
    }
}

extension AttestationService {
    /// Registers a fresh key for `subject` with FakeVerifier's attestation, over a challenge issued for it.
    func registerFakeKey(subject: String) async throws -> [UInt8] {
        let keyID = SecureRandom.bytes(count: 32)
        let challenge = try await self.issueChallenge(purpose: .attestation, subject: subject).challenge
        let outcome = try await self.register(
            AttestationSubmission(
                subject: subject, keyID: keyID, attestationObject: FakeVerifier.attestation(keyID: keyID),
                challenge: challenge))
        guard case .registered = outcome else { throw AttestServiceError.storeFailure("registration failed") }
        return keyID
    }
}
