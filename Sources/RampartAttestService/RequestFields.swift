import RampartCrypto
import RampartKeyAttestation
import RampartRequestSigning

/// The fields of a JSON request body, parsed once with RampartAppAttest's strict I-JSON reader (bounded depth, no
/// duplicate keys, no trailing bytes, numbers only where a double holds them exactly), then read by name with typed
/// accessors that say which field was wrong.
struct RequestFields {
    /// The longest accepted challenge string.
    static let maximumChallengeLength = 128
    /// The largest accepted attestation object (real ones are about 5 KiB).
    static let maximumAttestationByteCount = 32 * 1024
    /// The largest accepted assertion (real ones are under 200 bytes).
    static let maximumAssertionByteCount = 4 * 1024

    let values: [String: JSONValue]

    /// Parses `body`, which must be a JSON object.
    ///
    /// A number whose RFC 8785 canonical form is another number (`1234567890123456789`, `1e-400`) is refused: the
    /// payload is signed in its canonical form, so reading it to the nearest double would let two different bodies
    /// share one signature.
    ///
    /// - Throws: ``AttestServiceError`` (`invalidJSON`; `invalidField` naming an inexact number).
    init(body: [UInt8]) throws {
        let value: JSONValue
        do {
            value = try StageClock.measure(.json) { try JSONValue(parsing: body, numbers: .exact) }
        } catch let error as RequestSigningError where error.code == .inexactNumber {
            throw AttestServiceError.invalidField(error.reason)
        } catch let error as RequestSigningError {
            throw AttestServiceError.invalidJSON("the body is not valid JSON (\(error.code)); send a JSON object")
        }
        guard case .object(let values) = value else {
            throw AttestServiceError.invalidJSON("the body must be a JSON object")
        }
        self.values = values
    }

    /// Refuses a field the route does not read: a typo (`challange`) or a field meant for another route would
    /// otherwise be ignored silently, and the OpenAPI document says `additionalProperties: false`.
    ///
    /// - Parameter allowed: The route's fields.
    /// - Throws: ``AttestServiceError`` (`invalidField`) naming the first unknown field (printable ASCII only).
    func refuseUnknownFields(allowing allowed: [String]) throws {
        for name in values.keys.sorted() where !allowed.contains(where: { $0.hasSameUTF8(as: name) }) {
            let shown = name.unicodeScalars.prefix(40).map { (0x20...0x7E).contains($0.value) ? String($0) : "?" }
            throw AttestServiceError.invalidField(
                "unknown field '\(shown.joined())'; this route reads \(allowed.joined(separator: ", "))")
        }
    }

    /// The fields each route reads.
    enum Allowed {
        static let challenge = ["purpose", "subject"]
        static let attestation = ["subject", "keyId", "attestationObject", "challenge"]
        static let assertion = ["subject", "keyId", "challenge", "assertion", "payload"]
    }

    func string(_ name: String) throws -> String {
        guard let value = values[name] else { throw AttestServiceError.missingField("'\(name)' is required") }
        guard case .string(let text) = value else {
            throw AttestServiceError.invalidField("'\(name)' must be a string")
        }
        return text
    }

    func object(_ name: String) throws -> JSONValue {
        guard let value = values[name] else { throw AttestServiceError.missingField("'\(name)' is required") }
        guard case .object = value else { throw AttestServiceError.invalidField("'\(name)' must be a JSON object") }
        return value
    }

    func base64(_ name: String, maximumByteCount: Int) throws -> [UInt8] {
        try Base64Field.decode(string(name), field: "'\(name)'", maximumByteCount: maximumByteCount)
    }

    func keyID() throws -> [UInt8] {
        let bytes = try base64("keyId", maximumByteCount: 64)
        guard bytes.count == 32 else {
            throw AttestServiceError.invalidField(
                "'keyId' must be 32 bytes (the SHA-256 key id DCAppAttestService gave)")
        }
        return bytes
    }

    func challenge() throws -> String {
        let text = try string("challenge")
        guard !text.isEmpty, text.utf8.count <= Self.maximumChallengeLength else {
            throw AttestServiceError.invalidField(
                "'challenge' must be the 1...\(Self.maximumChallengeLength)-character string POST /v1/challenges gave")
        }
        return text
    }

    /// `platform`: absent or `ios` for App Attest, `android` for Key Attestation.
    func platform() throws -> KeyPlatform {
        guard values["platform"] != nil else { return .ios }
        guard let platform = KeyPlatform(rawValue: try string("platform")) else {
            throw AttestServiceError.invalidField(
                "'platform' must be \"ios\" (App Attest, the default) or \"android\" (Key Attestation)")
        }
        return platform
    }

    /// The largest accepted certificate of an Android chain (real ones are under 2 KiB).
    static let maximumCertificateByteCount = 16 * 1024

    /// `certificateChain`: the DER certificates of an Android key, leaf first, each in base64.
    func certificateChain() throws -> [[UInt8]] {
        guard let value = values["certificateChain"] else {
            throw AttestServiceError.missingField(
                "'certificateChain' is required for an Android key: the base64 DER certificates of "
                    + "KeyStore.getCertificateChain, leaf first")
        }
        let limit = KeyAttestationVerifier.maximumChainLength
        guard case .array(let entries) = value, (1...limit).contains(entries.count) else {
            throw AttestServiceError.invalidField(
                "'certificateChain' must be an array of 1...\(limit) base64 DER certificates, leaf first")
        }
        return try entries.enumerated().map { index, entry in
            guard case .string(let text) = entry else {
                throw AttestServiceError.invalidField("'certificateChain'[\(index)] must be a base64 string")
            }
            return try Base64Field.decode(
                text, field: "'certificateChain'[\(index)]", maximumByteCount: Self.maximumCertificateByteCount)
        }
    }

    func purpose() throws -> ChallengePurpose {
        let text = try string("purpose")
        guard let purpose = ChallengePurpose(rawValue: text) else {
            throw AttestServiceError.invalidField("'purpose' must be \"attestation\" or \"assertion\"")
        }
        return purpose
    }

    /// The assertion fields of a protected request, with the canonical client data computed here.
    ///
    /// - Parameter clientAddress: The requester's address, carried into the submission.
    /// - Returns: The submission and the payload.
    /// - Throws: ``AttestServiceError`` naming the missing or malformed field.
    func assertionSubmission(clientAddress: String? = nil) throws -> (AssertionSubmission, payload: JSONValue) {
        let challenge = try challenge()
        let payload = try object("payload")
        let submission = AssertionSubmission(
            subject: try string("subject"), keyID: try keyID(),
            assertion: try base64("assertion", maximumByteCount: Self.maximumAssertionByteCount),
            challenge: challenge,
            clientData: RequestCanonicalization.clientData(challenge: challenge, payload: payload),
            clientAddress: clientAddress)
        return (submission, payload)
    }

    /// The challenge if the body carries a well-formed one: a request malformed elsewhere still spends it.
    var presentedChallenge: String? { try? challenge() }
}
