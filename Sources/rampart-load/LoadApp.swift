import Foundation
import RampartAppAttest
import RampartCrypto
import RampartLoadReport
import RampartRequestSigning

/// One simulated app instance: a user (the subject the proxy would name), its App Attest key, and the next
/// challenge the server handed it.
struct LoadKey: Sendable {
    var subject: String
    var device: SimulatedDevice
    var keyID: String
    var nextChallenge: String?

    init(subject: String, teamID: String, bundleID: String) {
        self.subject = subject
        device = SimulatedDevice(teamID: teamID, bundleID: bundleID, environment: .development)
        keyID = Data(device.keyID).base64EncodedString()
    }
}

/// The protocol as an app speaks it: challenges, registration and signed requests (docs/request-signature.md).
struct LoadApp: Sendable {
    let options: LoadOptions
    let simulator: AppAttestSimulator
    let body: [UInt8]
    let contentDigest: String
    let digest: String

    init(options: LoadOptions, simulator: AppAttestSimulator) {
        self.options = options
        self.simulator = simulator
        body = Array(options.body.utf8)
        contentDigest = RequestSignature.contentDigest(of: body)
        digest = RequestSignature.digestValue(of: body)
    }

    /// `POST /v1/challenges {"purpose": purpose}` as `key`'s user.
    func challenge(_ purpose: String, for key: LoadKey, on connection: LoadConnection) throws -> String {
        let answer = try connection.send(
            "POST", "/v1/challenges",
            headers: [(options.subjectHeader, key.subject), ("Content-Type", "application/json")],
            body: Array(#"{"purpose":"\#(purpose)"}"#.utf8))
        return try Self.challenge(from: answer)
    }

    /// The challenge of a `POST /v1/challenges` answer.
    ///
    /// - Parameter answer: The answer.
    /// - Returns: The challenge.
    /// - Throws: ``LoadError`` when the answer is not a 200 with a challenge.
    static func challenge(from answer: LoadResponse) throws -> String {
        guard answer.status == 200, let challenge = LoadChallengeBody.challenge(in: answer.body) else {
            throw LoadError(
                "POST /v1/challenges answered \(answer.status) \(answer.rampartError ?? "") instead of a challenge")
        }
        return challenge
    }

    /// Attests `key` over a fresh challenge and registers it (`POST /v1/attestations`).
    func register(_ key: LoadKey, on connection: LoadConnection) throws {
        let challenge = try challenge("attestation", for: key, on: connection)
        let object = try simulator.attestKey(of: key.device, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        let json = JSONValue.object([
            "keyId": .string(key.keyID), "attestationObject": .string(Data(object).base64EncodedString()),
            "challenge": .string(challenge),
        ])
        let answer = try connection.send(
            "POST", "/v1/attestations",
            headers: [(options.subjectHeader, key.subject), ("Content-Type", "application/json")],
            body: CanonicalJSON.canonicalBytes(of: json))
        guard answer.status == 201 else {
            throw LoadError(
                "POST /v1/attestations answered \(answer.status) \(answer.rampartError ?? ""): "
                    + String(decoding: answer.body.prefix(300), as: UTF8.self))
        }
    }

    /// What one protected request did.
    struct Outcome: Equatable {
        /// The status of the signed request.
        var status: Int
        /// Its `Rampart-Error`, when refused.
        var code: String?
        /// Whether a `POST /v1/challenges` was made for it.
        var fetchedChallenge: Bool
    }

    /// The challenge a protected request of `key` signs without fetching one: in the one-round-trip flow, the
    /// previous answer's next challenge (taken, so it is signed once); otherwise nil.
    func takeNextChallenge(_ key: inout LoadKey) -> String? {
        guard options.flow == .oneRoundTrip, let next = key.nextChallenge else { return nil }
        key.nextChallenge = nil
        return next
    }

    /// Signs a fresh assertion over the rampart-request-v1 text of the protected request with `challenge` and
    /// writes the whole signed request to `output` (emptied first).
    ///
    /// - Parameters:
    ///   - key: The key; its counter moves on.
    ///   - challenge: The challenge the request carries.
    ///   - requests: The key's request bytes for the connection's server.
    ///   - output: The request's bytes.
    /// - Throws: When the challenge cannot be signed (``RequestSignature`` refuses it) or signing fails.
    func writeSignedRequest(
        _ key: inout LoadKey, challenge: String, requests: LoadRequestBytes, into output: inout [UInt8]
    ) throws {
        key.nextChallenge = nil
        let hash = try RequestSignature.clientDataHash(
            method: "POST", target: options.target, challenge: challenge, digest: digest)
        let assertion = try key.device.generateAssertion(clientDataHash: hash)
        output.removeAll(keepingCapacity: true)
        output += requests.signedPrefix
        output += challenge.utf8
        output += LoadRequestBytes.assertionField
        LoadBase64.append(assertion, to: &output)
        output += requests.signedSuffix
    }

    /// The outcome of a signed request's answer; keeps the answer's next challenge when it was allowed.
    static func outcome(of answer: LoadResponse, key: inout LoadKey, fetchedChallenge: Bool) -> Outcome {
        if answer.status == 200 { key.nextChallenge = answer.nextChallenge }
        return Outcome(
            status: answer.status, code: answer.status == 200 ? nil : answer.rampartError,
            fetchedChallenge: fetchedChallenge)
    }

    /// One protected request on a blocking connection: the challenge (fetched, or the previous answer's next
    /// challenge in the one-round-trip flow), the assertion over the signed text, the signed request; keeps the
    /// answer's next challenge. ``LoadEventLoop`` makes the same steps without blocking.
    func protectedRequest(_ key: inout LoadKey, on connection: LoadConnection) throws -> Outcome {
        let requests = LoadRequestBytes(key: key, server: connection.address, app: self)
        var fetched = false
        let challenge: String
        if let next = takeNextChallenge(&key) {
            challenge = next
        } else {
            challenge = try Self.challenge(from: try connection.send(requests.challenge))
            fetched = true
        }
        var request: [UInt8] = []
        try writeSignedRequest(&key, challenge: challenge, requests: requests, into: &request)
        let answer = try connection.send(request)
        return Self.outcome(of: answer, key: &key, fetchedChallenge: fetched)
    }
}
