import Foundation
import RampartHTTP

extension ServiceRouter {
    /// The fields `POST /v1/challenges` and `POST /v1/attestations` read on each listener.
    enum RegistrationFields {
        static let publicChallenge = ["purpose"]
        static let internalChallenge = ["purpose", "subject"]
        static let publicAttestation = ["keyId", "attestationObject", "challenge", "platform"]
        static let internalAttestation = ["keyId", "attestationObject", "challenge", "platform", "subject"]
        static let publicAndroidAttestation = ["platform", "certificateChain", "challenge"]
        static let internalAndroidAttestation = ["platform", "certificateChain", "challenge", "subject"]
    }

    /// The answer to an Android registration: the key id (SHA-256 of the leaf's SubjectPublicKeyInfo), the
    /// environment of the service that registered it, and `android`.
    struct AndroidAttestationBody: Encodable {
        let keyId: String
        let environment: String
        let platform: String
    }

    /// The subject of a challenge or registration request: from the body on the internal listener (the caller is
    /// the trusted backend), from the ``SubjectSource`` on the public one, where a `subject` field is refused.
    ///
    /// - Returns: The subject, or the refusal to answer.
    func registrationSubject(
        _ fields: RequestFields, _ request: HTTPRequest
    ) throws -> SubjectResolver.Resolution {
        if listener == .admin {
            if case .refused(let refusal) = SubjectResolver.checked(try fields.string("subject"), from: "'subject'") {
                throw AttestServiceError.invalidField(refusal.message)
            }
            return .subject(try fields.string("subject"))
        }
        if fields.values["subject"] != nil {
            throw AttestServiceError.invalidField(
                "'subject' is not accepted from the app: \(subjects.source.explanation). Remove it from the body")
        }
        return subjects.resolve(request.headers, fromTrustedPeer: isTrustedPeer(request))
    }

    /// `POST /v1/challenges`.
    func challenge(_ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        try challenge(request, &outcome, sealingWith: try await service.sealingKeys())
    }

    /// `POST /v1/challenges` with the sealing keys at hand: it never waits.
    func challenge(
        _ request: HTTPRequest, _ outcome: inout Outcome, sealingWith keys: ChallengeSealingKeys
    ) throws -> HTTPResponse {
        let fields = try RequestFields(body: request.body)
        let subject: String
        switch try registrationSubject(fields, request) {
        case .subject(let value): subject = value
        case .refused(let refusal):
            outcome.code = refusal.code
            return HTTPResponseError.body(status: refusal.status, code: refusal.code, message: refusal.message)
        }
        try fields.refuseUnknownFields(
            allowing: listener == .admin ? RegistrationFields.internalChallenge : RegistrationFields.publicChallenge)
        // The backend asks on behalf of all its users: only the per-subject limits apply to it.
        let issued = try service.issueChallenge(
            purpose: fields.purpose(), subject: subject,
            clientAddress: listener == .admin ? nil : forwardedClient(request), chargingLimits: true,
            sealingWith: keys)
        outcome.code = "issued"
        return JSONBody.response(status: 200, ChallengeBody(challenge: issued.challenge, expiresAt: issued.expiresAt))
    }

    /// `POST /v1/attestations`.
    func attestation(_ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        let fields = try RequestFields(body: request.body)
        let clientAddress = listener == .admin ? nil : forwardedClient(request)
        let resolution = try await spendingChallenge(of: fields, request) { try registrationSubject(fields, request) }
        let subject: String
        switch resolution {
        case .subject(let value): subject = value
        case .refused(let refusal):
            if let challenge = fields.presentedChallenge {
                try await service.burnChallenge(challenge, clientAddress: clientAddress)
            }
            outcome.code = refusal.code
            return HTTPResponseError.body(status: refusal.status, code: refusal.code, message: refusal.message)
        }
        let platform = try await spendingChallenge(of: fields, request) { try fields.platform() }
        if platform == .android {
            return try await androidAttestation(fields, request, subject: subject, clientAddress, &outcome)
        }
        let submission = try await spendingChallenge(of: fields, request) {
            try fields.refuseUnknownFields(
                allowing: listener == .admin
                    ? RegistrationFields.internalAttestation : RegistrationFields.publicAttestation)
            return AttestationSubmission(
                subject: subject, keyID: try fields.keyID(),
                attestationObject: try fields.base64(
                    "attestationObject", maximumByteCount: RequestFields.maximumAttestationByteCount),
                challenge: try fields.challenge(), clientAddress: clientAddress)
        }
        outcome.keyFingerprint = Self.fingerprint(keyID: submission.keyID)
        switch try await service.register(submission) {
        case .registered(let key):
            outcome.code = "accepted"
            return JSONBody.response(status: 201, AttestationBody(keyId: key.keyID, environment: key.environment))
        case .refused(let refusal):
            outcome.code = refusal.reason.description
            return HTTPResponseError.response(for: refusal)
        }
    }

    /// `POST /v1/attestations` with `"platform": "android"`: a Key Attestation chain instead of an App Attest object.
    private func androidAttestation(
        _ fields: RequestFields, _ request: HTTPRequest, subject: String, _ clientAddress: String?,
        _ outcome: inout Outcome
    ) async throws -> HTTPResponse {
        let submission = try await spendingChallenge(of: fields, request) {
            try fields.refuseUnknownFields(
                allowing: listener == .admin
                    ? RegistrationFields.internalAndroidAttestation : RegistrationFields.publicAndroidAttestation)
            return KeyAttestationSubmission(
                subject: subject, certificateChain: try fields.certificateChain(), challenge: try fields.challenge(),
                clientAddress: clientAddress)
        }
        switch try await service.register(submission) {
        case .registered(let key):
            outcome.code = "accepted"
            if let bytes = Data(base64Encoded: key.keyID) {
                outcome.keyFingerprint = Self.fingerprint(keyID: Array(bytes))
            }
            return JSONBody.response(
                status: 201,
                AndroidAttestationBody(keyId: key.keyID, environment: key.environment, platform: key.platform.rawValue))
        case .refused(let refusal):
            outcome.code = refusal.reason.description
            return HTTPResponseError.response(for: refusal)
        }
    }
}
