import Foundation
import RampartCrypto
public import RampartRequestSigning
public import RampartSecretStore

/// The app side of the guide's flow: register an App Attest key once, then sign every protected request.
///
/// ```swift
/// let client = AttestedClient(
///     transport: URLSessionTransport(baseURL: server), device: device, secrets: keychain, subject: "user_123")
/// let answer = try await client.send("/v1/demo/points/use", payload: ["userId": "user_123", "amount": 1000])
/// ```
///
/// The first protected request generates a key, gets an `attestation` challenge, attests the key over
/// SHA-256(challenge) and registers it (`POST /v1/attestations`); the key id is kept in the ``RampartVault``
/// secret store, so later launches reuse it. Each protected request gets a fresh `assertion` challenge and signs the
/// RFC 8785 canonical JSON of `{"challenge", "payload"}` (``RequestCanonicalization``). When the server answers
/// `unknownKey` or `keyBlocked` (a reinstall, a wiped server, a key that failed too often) the client forgets the key,
/// registers a new one, and retries once — the guide's "새 기기 또는 앱 재설치 → 키 재등록". It does the same when
/// the device no longer has the kept key (a reinstall: ``AttestedClientError/Code/invalidKey``). Protected requests
/// sent with ``send(_:payload:)`` are signed and sent one at a time, so their counters reach the server in order.
public actor AttestedClient {
    /// The secret store service under which key ids are kept (account: the subject).
    public static let keyIDService = "rampart.appattest.keyid"

    let transport: any AttestedClientTransport
    let device: any AppAttestDevice
    let secrets: any SecretStore
    /// The user or session id requests are made for.
    public let subject: String
    private var isSending = false
    private var waitingSenders: [CheckedContinuation<Void, Never>] = []

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: How to reach the server.
    ///   - device: App Attest (the real service on iOS, the simulator on Linux).
    ///   - secrets: Where the key id is kept.
    ///   - subject: The user or session id.
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        subject: String
    ) {
        self.transport = transport
        self.device = device
        self.secrets = secrets
        self.subject = subject
    }

    /// The registered key id, registering a new key first when none is kept.
    ///
    /// - Returns: The key id (base64).
    /// - Throws: ``AttestedClientError``.
    public func registeredKeyID() async throws -> String {
        if let kept = try await keptKeyID() { return kept }
        return try await register()
    }

    /// Generates a key, attests it over a fresh challenge and registers it; keeps its id.
    ///
    /// - Returns: The new key id.
    /// - Throws: ``AttestedClientError`` (`registrationRefused` with the server's code, `deviceFailure`, …).
    @discardableResult
    public func register() async throws -> String {
        guard device.isSupported else {
            throw AttestedClientError.deviceUnsupported("App Attest is not supported on this device")
        }
        let keyID = try await deviceCall { try await self.device.generateKey() }
        let answer = try await attest(keyID: keyID)
        guard answer.status == 201 else {
            throw AttestedClientError.registrationRefused(
                "the server refused the key (\(answer.errorCode ?? "HTTP \(answer.status)")): \(answer.message ?? "")")
        }
        do {
            try await secrets.setSecret(Array(keyID.utf8), service: Self.keyIDService, account: subject)
        } catch {
            throw AttestedClientError.secretStoreFailure("could not keep the key id: \(error)")
        }
        return keyID
    }

    /// Attests `keyID` over a fresh `attestation` challenge and posts it, returning the server's answer as is.
    ///
    /// - Parameter keyID: A key from the device.
    /// - Returns: The answer to `POST /v1/attestations`.
    /// - Throws: ``AttestedClientError``.
    public func attest(keyID: String) async throws -> ServerAnswer {
        let challenge = try await challenge(purpose: "attestation")
        let object = try await deviceCall {
            try await self.device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        }
        let body = JSONValue.object([
            "subject": .string(subject), "keyId": .string(keyID),
            "attestationObject": .string(Data(object).base64EncodedString()), "challenge": .string(challenge),
        ])
        return try await post("/v1/attestations", body)
    }

    /// Builds a signed protected request without sending it: a fresh challenge, and an assertion over the canonical
    /// client data.
    ///
    /// - Parameters:
    ///   - payload: The request's payload object.
    ///   - keyID: The key to sign with; the registered one by default.
    /// - Returns: The request, ready for ``send(_:_:)``.
    /// - Throws: ``AttestedClientError`` (`invalidPayload` before anything is sent when a number in the payload
    ///   would not survive canonicalization exactly, which the server refuses).
    public func prepare(payload: JSONValue, keyID: String? = nil) async throws -> ProtectedRequest {
        do {
            _ = try JSONValue(parsing: CanonicalJSON.canonicalBytes(of: payload), numbers: .exact)
        } catch let error as RequestSigningError {
            throw AttestedClientError.invalidPayload(
                "the payload cannot be signed exactly: \(error.reason)", detail: "\(error.code)")
        }
        let key: String
        if let keyID { key = keyID } else { key = try await registeredKeyID() }
        let challenge = try await challenge(purpose: "assertion")
        let hash = RequestCanonicalization.clientDataHash(challenge: challenge, payload: payload)
        let assertion = try await deviceCall { try await self.device.generateAssertion(key, clientDataHash: hash) }
        return ProtectedRequest(
            subject: subject, keyID: key, challenge: challenge, payload: payload, assertion: assertion)
    }

    /// Posts a prepared request as it is.
    ///
    /// - Parameters:
    ///   - path: The protected route.
    ///   - request: The request.
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError`` (`transportFailure`, `unexpectedResponse`).
    public func send(_ path: String, _ request: ProtectedRequest) async throws -> ServerAnswer {
        try await post(path, request.json)
    }

    /// Signs and sends a protected request, re-registering once if the server no longer knows or trusts the key.
    ///
    /// - Parameters:
    ///   - path: The protected route, e.g. `/v1/demo/points/use`.
    ///   - payload: The payload object.
    /// - Returns: The server's answer (check ``ServerAnswer/status``; refusals are answers, not errors).
    /// - Throws: ``AttestedClientError``.
    public func send(_ path: String, payload: JSONValue) async throws -> ServerAnswer {
        // One protected request at a time: each assertion's counter is one more than the last, and the server refuses
        // a counter that is not above the last it saw, so signing and sending must not interleave.
        await acquireSendTurn()
        defer { releaseSendTurn() }
        let request: ProtectedRequest
        do {
            request = try await prepare(payload: payload)
        } catch let error as AttestedClientError where error.code == .invalidKey || error.code == .deviceFailure {
            // The kept key id names a key the device no longer has (DCError.invalidKey after a reinstall or a
            // restore): start over with a new key.
            try await forgetKey()
            try await register()
            return try await send(path, prepare(payload: payload))
        }
        let answer = try await send(path, request)
        guard answer.errorCode == "unknownKey" || answer.errorCode == "keyBlocked" else { return answer }
        try await forgetKey()
        try await register()
        return try await send(path, prepare(payload: payload))
    }

    /// Forgets the kept key id, so the next protected request registers a new key.
    ///
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`).
    public func forgetKey() async throws {
        do {
            try await secrets.deleteSecret(service: Self.keyIDService, account: subject)
        } catch {
            throw AttestedClientError.secretStoreFailure("could not forget the key id: \(error)")
        }
    }

    /// Waits until no other protected request is being signed and sent, then takes the turn (first come, first
    /// served).
    private func acquireSendTurn() async {
        guard isSending else {
            isSending = true
            return
        }
        await withCheckedContinuation { waitingSenders.append($0) }
    }

    /// Hands the turn to the next waiting request, if any.
    private func releaseSendTurn() {
        if waitingSenders.isEmpty {
            isSending = false
        } else {
            waitingSenders.removeFirst().resume()
        }
    }

    private func keptKeyID() async throws -> String? {
        do {
            return try await secrets.secret(service: Self.keyIDService, account: subject).map {
                String(decoding: $0, as: UTF8.self)
            }
        } catch {
            throw AttestedClientError.secretStoreFailure("could not read the kept key id: \(error)")
        }
    }

    private func challenge(purpose: String) async throws -> String {
        let answer = try await post(
            "/v1/challenges", .object(["purpose": .string(purpose), "subject": .string(subject)]))
        guard answer.status == 200, case .object(let fields)? = answer.json,
            case .string(let value)? =
                fields["challenge"]
        else {
            throw AttestedClientError.unexpectedResponse(
                "POST /v1/challenges answered \(answer.status) \(answer.errorCode ?? "") instead of a challenge")
        }
        return value
    }

    private func post(_ path: String, _ body: JSONValue) async throws -> ServerAnswer {
        ServerAnswer(try await transport.send("POST", path, body: CanonicalJSON.canonicalBytes(of: body)))
    }

    private func deviceCall<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AttestedClientError {
            throw error
        } catch {
            throw AttestedClientError.deviceFailure("App Attest failed on the device: \(error)")
        }
    }
}

/// A signed protected request: what the client sends, and what a tampering test changes.
public struct ProtectedRequest: Hashable {
    /// The user or session id.
    public var subject: String
    /// The key id (base64).
    public var keyID: String
    /// The one-time challenge the assertion covers.
    public var challenge: String
    /// The payload object the assertion covers.
    public var payload: JSONValue
    /// The CBOR assertion.
    public var assertion: [UInt8]

    /// The JSON body: `{"subject","keyId","challenge","payload","assertion"}`.
    public var json: JSONValue {
        .object([
            "subject": .string(subject), "keyId": .string(keyID), "challenge": .string(challenge),
            "payload": payload, "assertion": .string(Data(assertion).base64EncodedString()),
        ])
    }
}

/// A server's answer, with its error code parsed when it is an error body.
public struct ServerAnswer: Hashable {
    /// The HTTP status.
    public let status: Int
    /// The raw body.
    public let body: [UInt8]
    /// The body as JSON, when it is JSON.
    public let json: JSONValue?

    /// Wraps a transport answer.
    ///
    /// - Parameter response: The raw answer.
    public init(_ response: TransportResponse) {
        status = response.status
        body = response.body
        json = try? JSONValue(parsing: response.body)
    }

    /// The `error` code of an error body, e.g. `challengeUsed`.
    public var errorCode: String? { field("error") }

    /// The `message` of an error body.
    public var message: String? { field("message") }

    /// A string field of the JSON body.
    ///
    /// - Parameter name: The field.
    /// - Returns: Its value when it is a string.
    public func field(_ name: String) -> String? {
        guard case .object(let fields)? = json, case .string(let value)? = fields[name] else { return nil }
        return value
    }

    /// A number field of the JSON body.
    ///
    /// - Parameter name: The field.
    /// - Returns: Its value when it is a number.
    public func number(_ name: String) -> Double? {
        guard case .object(let fields)? = json, case .number(let value)? = fields[name] else { return nil }
        return value
    }
}

extension ProtectedRequest: Sendable {}

extension ServerAnswer: Sendable {}
