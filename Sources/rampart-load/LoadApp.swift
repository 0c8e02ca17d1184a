import Foundation
import RampartAppAttest
import RampartCrypto
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
        guard answer.status == 200, case .object(let fields) = try? JSONValue(parsing: answer.body),
            case .string(let challenge)? = fields["challenge"]
        else {
            throw LoadError(
                "POST /v1/challenges answered \(answer.status) \(answer.headers["rampart-error"] ?? "") instead of "
                    + "a challenge")
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
                "POST /v1/attestations answered \(answer.status) \(answer.headers["rampart-error"] ?? ""): "
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

    /// One protected request: the challenge (fetched, or the previous answer's next challenge in the one-round-trip
    /// flow), the assertion over the signed text, the signed request; keeps the answer's next challenge.
    func protectedRequest(_ key: inout LoadKey, on connection: LoadConnection) throws -> Outcome {
        var fetched = false
        let challenge: String
        if options.flow == .oneRoundTrip, let next = key.nextChallenge {
            challenge = next
        } else {
            challenge = try self.challenge("assertion", for: key, on: connection)
            fetched = true
        }
        key.nextChallenge = nil
        let hash = try RequestSignature.clientDataHash(
            method: "POST", target: options.target, challenge: challenge, digest: digest)
        let assertion = try key.device.generateAssertion(clientDataHash: hash)
        let answer = try connection.send(
            "POST", options.requestPath,
            headers: [
                (options.subjectHeader, key.subject), ("Content-Type", "application/json"),
                (RequestSignature.keyIDHeader, key.keyID), (RequestSignature.challengeHeader, challenge),
                (RequestSignature.assertionHeader, Data(assertion).base64EncodedString()),
                (RequestSignature.contentDigestHeader, contentDigest),
            ],
            body: body)
        if answer.status == 200 { key.nextChallenge = answer.headers["rampart-next-challenge"] }
        return Outcome(
            status: answer.status, code: answer.status == 200 ? nil : answer.headers["rampart-error"],
            fetchedChallenge: fetched)
    }
}
