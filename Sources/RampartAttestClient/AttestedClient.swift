import Foundation
import RampartCrypto
public import RampartRequestSigning
public import RampartSecretStore

/// The app side of App Attest: register a key once, then sign any HTTP request in the `rampart-request-v1` format.
///
/// ```swift
/// let client = AttestedClient(
///     transport: URLSessionTransport(baseURL: api), device: DeviceCheckAppAttestDevice(), secrets: KeychainStore(),
///     headers: { [HTTPField(name: "Authorization", value: "Bearer \(try await session.token())")] })
/// let answer = try await client.send("POST", "/api/points/use", json: .object(["amount": .number(1000)]))
/// ```
///
/// The app never names its user: the backend knows who is signed in from its own authentication, which the
/// `headers` provider adds to every request the client makes (challenges, registration, signed requests).
///
/// The first protected request generates a key, gets an `attestation` challenge (`POST /v1/challenges
/// {"purpose":"attestation"}`), attests the key over SHA-256(challenge) and registers it (`POST /v1/attestations
/// {"keyId","attestationObject","challenge"}`); the key id is kept in the secret store under ``keyIDService`` and
/// the client's ``account``, so later launches reuse it. Each protected request is signed with the headers of
/// `RequestSignature` (RampartRequestSigning): an assertion over the method, the request target, a one-time challenge and the
/// `Content-Digest` of the body as sent. The challenge is the `Rampart-Next-Challenge` of the previous answer when
/// there is one (one round trip per request), else a fresh `assertion` challenge.
///
/// ``send(_:_:headers:body:)`` acts on the server's error code (the body's `error`, or the `Rampart-Error` header a
/// gateway sets):
///
/// | answer | what the client does |
/// |---|---|
/// | `unknownKey`, `keyBlocked` (or the device lost the key: ``AttestedClientError/Code/invalidKey``) | forgets the key, attests a new one, retries once |
/// | `challengeUsed`, `challengeExpired`, `counterReplay` | signs again over a fresh challenge (a new counter) and retries once |
/// | `invalidAssertion` and every other refusal | returns the answer, no retry |
/// | 429 | waits (`Retry-After`, bounded by ``RetryPolicy``), signs again, retries; ``AttestedClientError/Code/rateLimited`` past the budget |
///
/// Requests signed with one key are signed and sent one at a time (across every client in the process that uses
/// the key), so their counters reach the server in order.
public actor AttestedClient {
    /// The secret store service under which key ids are kept (account: ``account``).
    public static let keyIDService = "rampart.appattest.keyid"
    /// The account used when none is given.
    public static let defaultAccount = "default"

    /// The header lines the app adds to every request: its own authentication to its backend.
    public typealias HeaderProvider = @Sendable () async throws -> [HTTPField]

    let transport: any AttestedClientTransport
    let device: any AppAttestDevice
    let secrets: any SecretStore
    /// The name the key id is kept under in the secret store: a local name the app chooses (one key per account).
    public let account: String
    /// How 429 answers are waited out.
    public let retryPolicy: RetryPolicy
    let headers: HeaderProvider
    let turns: KeyTurns
    private var nextChallenges: [String: String] = [:]
    private var registration: Task<String, any Error>?

    /// Creates a client.
    ///
    /// - Parameters:
    ///   - transport: How to reach the server.
    ///   - device: App Attest (the real service on iOS, the simulator on Linux).
    ///   - secrets: Where the key id is kept (the Keychain in an app).
    ///   - account: The secret store account of the key id; one key per account. A local name, not the user's
    ///     identity: the server takes the subject from the app's authentication.
    ///   - retryPolicy: How long to wait out rate limits.
    ///   - headers: The app's authentication headers (for example `Authorization: Bearer <session token>`), asked
    ///     for before every request; a header of the same name given to a single request wins.
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        account: String = AttestedClient.defaultAccount, retryPolicy: RetryPolicy = RetryPolicy(),
        headers: @escaping HeaderProvider = { [] }
    ) {
        self.init(
            transport: transport, device: device, secrets: secrets, account: account, retryPolicy: retryPolicy,
            headers: headers, turns: .shared)
    }

    init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        account: String, retryPolicy: RetryPolicy, headers: @escaping HeaderProvider, turns: KeyTurns
    ) {
        self.transport = transport
        self.device = device
        self.secrets = secrets
        self.account = account
        self.retryPolicy = retryPolicy
        self.headers = headers
        self.turns = turns
    }

    // MARK: Keys

    /// The registered key id, registering a new key first when none is kept.
    ///
    /// - Returns: The key id (standard base64).
    /// - Throws: ``AttestedClientError``.
    public func registeredKeyID() async throws -> String {
        if let kept = try await keptKeyID() { return kept }
        return try await register()
    }

    /// Generates a key, attests it over a fresh challenge and registers it; keeps its id.
    ///
    /// Concurrent calls share one registration.
    ///
    /// - Returns: The new key id.
    /// - Throws: ``AttestedClientError`` (`registrationRefused` with the server's code, `deviceFailure`, …).
    @discardableResult
    public func register() async throws -> String {
        if let registration { return try await registration.value }
        let task = Task { try await self.registerNewKey() }
        registration = task
        defer { registration = nil }
        return try await task.value
    }

    /// Attests `keyID` over a fresh `attestation` challenge and posts it, returning the server's answer as is.
    ///
    /// - Parameter keyID: A key from the device.
    /// - Returns: The answer to `POST /v1/attestations`.
    /// - Throws: ``AttestedClientError``.
    public func attest(keyID: String) async throws -> ServerAnswer {
        let challenge = try await freshChallenge(purpose: "attestation")
        let object = try await deviceCall {
            try await self.device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        }
        let body = JSONValue.object([
            "keyId": .string(keyID), "attestationObject": .string(Data(object).base64EncodedString()),
            "challenge": .string(challenge),
        ])
        return try await exchange(Self.jsonRequest("POST", "/v1/attestations", body))
    }

    /// Forgets the kept key id (and its next challenge), so the next protected request registers a new key.
    ///
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`).
    public func forgetKey() async throws {
        if let kept = try await keptKeyID() { nextChallenges[kept] = nil }
        do {
            try await secrets.deleteSecret(service: Self.keyIDService, account: account)
        } catch {
            throw AttestedClientError.secretStoreFailure(
                "could not forget the key id kept under \(Self.keyIDService)/\(account): \(error)")
        }
    }

    /// Keeps a key id that was registered elsewhere (a tool restoring a saved device, a test).
    ///
    /// - Parameter keyID: The key id (standard base64), known to the device and the server.
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`).
    public func keep(keyID: String) async throws {
        do {
            try await secrets.setSecret(Array(keyID.utf8), service: Self.keyIDService, account: account)
        } catch {
            throw AttestedClientError.secretStoreFailure(
                "could not keep the key id under \(Self.keyIDService)/\(account): \(error)")
        }
    }

    // MARK: Next challenges

    /// The `Rampart-Next-Challenge` kept for `keyID`, which the next request signed with it uses.
    ///
    /// - Parameter keyID: The key id.
    /// - Returns: The challenge, or nil.
    public func nextChallenge(for keyID: String) -> String? { nextChallenges[keyID] }

    /// Keeps (or, with nil, drops) the challenge the next request signed with `keyID` uses.
    ///
    /// The client does this itself with every answer's `Rampart-Next-Challenge`; a tool that saves its state
    /// between runs (`rampart device`) restores it here.
    ///
    /// - Parameters:
    ///   - challenge: The challenge as the server issued it.
    ///   - keyID: The key id.
    public func keepNextChallenge(_ challenge: String?, for keyID: String) { nextChallenges[keyID] = challenge }

    // MARK: Signing and sending

    /// Signs a request without sending it, with the kept next challenge or a fresh one.
    ///
    /// Nothing orders requests signed this way: send them in the order they were signed (or the later counters
    /// make the earlier ones stale), and hand each answer to ``send(_:)`` or ``keepNextChallenge(_:for:)``. A test
    /// uses this to replay a request, alter it after signing, or hold it back.
    ///
    /// - Parameters:
    ///   - method: The method; sent and signed upper-cased.
    ///   - target: The request target: path and query as they will be sent, percent-encoded, starting with `/`.
    ///   - headers: Header lines of this request (e.g. `Content-Type`).
    ///   - body: The body as it will be sent.
    ///   - keyID: The key to sign with; the registered one by default.
    /// - Returns: The signed request.
    /// - Throws: ``AttestedClientError`` (`invalidRequest` before anything is sent, `deviceFailure`, …).
    public func sign(
        _ method: String, _ target: String, headers: [HTTPField] = [], body: [UInt8] = [], keyID: String? = nil
    ) async throws -> SignedRequest {
        let key: String
        if let keyID { key = keyID } else { key = try await registeredKeyID() }
        let challenge = try await takeChallenge(for: key, fresh: false)
        return try await sign(method, target, headers: headers, body: body, keyID: key, challenge: challenge)
    }

    /// Sends a signed request as it is (no retry), keeping the answer's `Rampart-Next-Challenge` for its key.
    ///
    /// - Parameter request: The request.
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError`` (`transportFailure`, `credentialsUnavailable`).
    public func send(_ request: SignedRequest) async throws -> ServerAnswer {
        let answer = try await exchange(request.transportRequest, waitOutRateLimits: false)
        if let next = answer.nextChallenge { nextChallenges[request.keyID] = next }
        return answer
    }

    /// Signs and sends a request, acting on the server's answer: a new key for `unknownKey` or `keyBlocked`, a
    /// fresh challenge for `challengeUsed`, `challengeExpired` or `counterReplay` (each once), waiting out 429s.
    ///
    /// - Parameters:
    ///   - method: The method, e.g. `POST`.
    ///   - target: The request target: path and query as sent, percent-encoded, starting with `/`.
    ///   - headers: Header lines of this request; they win over the client's header provider.
    ///   - body: The body as sent (empty for none).
    /// - Returns: The server's answer (check ``ServerAnswer/status``; refusals are answers, not errors).
    /// - Throws: ``AttestedClientError`` (`rateLimited` past the retry budget, `transportFailure`, …).
    public func send(
        _ method: String, _ target: String, headers: [HTTPField] = [], body: [UInt8] = []
    ) async throws -> ServerAnswer {
        var attestedAgain = false
        var freshChallengeUsed = false
        var rateLimitedTries = 0
        while true {
            let key = try await registeredKeyID()
            await turns.acquire(key)
            let answer: ServerAnswer
            do {
                // The key may have been replaced while this request waited for its turn.
                guard try await keptKeyID() == key else {
                    await turns.release(key)
                    continue
                }
                let challenge = try await takeChallenge(for: key, fresh: freshChallengeUsed)
                let request = try await sign(
                    method, target, headers: headers, body: body, keyID: key, challenge: challenge)
                answer = try await send(request)
            } catch let error as AttestedClientError where error.code == .invalidKey && !attestedAgain {
                // The device no longer has the key (DCError.invalidKey after a reinstall or a restore).
                await turns.release(key)
                attestedAgain = true
                try await forget(key)
                continue
            } catch {
                await turns.release(key)
                throw error
            }
            await turns.release(key)
            switch answer.errorCode {
            case "unknownKey", "keyBlocked":
                guard !attestedAgain else { return answer }
                attestedAgain = true
                try await forget(key)
                continue
            case "challengeUsed", "challengeExpired", "counterReplay":
                // Refused before it was acted on: signing again gives a new challenge and a higher counter.
                guard !freshChallengeUsed else { return answer }
                freshChallengeUsed = true
                continue
            default:
                break
            }
            guard answer.status == 429 else { return answer }
            rateLimitedTries += 1
            try await retryPolicy.waitOut(answer, tries: rateLimitedTries, for: "\(method.uppercased()) \(target)")
        }
    }

    /// Signs and sends a JSON request (`Content-Type: application/json`), as ``send(_:_:headers:body:)``.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request target.
    ///   - json: The body, sent as its RFC 8785 canonical bytes.
    ///   - headers: Header lines of this request.
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError``.
    public func send(
        _ method: String, _ target: String, json: JSONValue, headers: [HTTPField] = []
    ) async throws -> ServerAnswer {
        try await send(
            method, target, headers: headers + [HTTPField(name: "Content-Type", value: "application/json")],
            body: CanonicalJSON.canonicalBytes(of: json))
    }

    // MARK: Internals

    func sign(
        _ method: String, _ target: String, headers: [HTTPField], body: [UInt8], keyID: String, challenge: String
    ) async throws -> SignedRequest {
        let upper = String(decoding: method.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
        guard target.hasPrefix("/") else {
            throw AttestedClientError.invalidRequest(
                "the request target '\(target)' does not start with '/'; pass the path and query as sent")
        }
        let digest = RequestSignature.digestValue(of: body)
        let hash: [UInt8]
        do {
            hash = try RequestSignature.clientDataHash(
                method: upper, target: target, challenge: challenge, digest: digest)
        } catch let error as RequestSigningError {
            throw AttestedClientError.invalidRequest(
                "the request cannot be signed: \(error.reason)", detail: "\(error.code)")
        }
        let assertion = try await deviceCall { try await self.device.generateAssertion(keyID, clientDataHash: hash) }
        let signedNames = Set(SignedRequest.signatureHeaderNames.map { $0.lowercased() })
        return SignedRequest(
            method: upper, target: target, headers: headers.filter { !signedNames.contains($0.name.lowercased()) },
            body: body, keyID: keyID, challenge: challenge, contentDigest: "sha-256=:\(digest):", assertion: assertion)
    }

    /// The challenge for the next request signed with `key`: the kept next challenge (consumed), unless `fresh`.
    func takeChallenge(for key: String, fresh: Bool) async throws -> String {
        let kept = nextChallenges.removeValue(forKey: key)
        if !fresh, let kept { return kept }
        return try await freshChallenge(purpose: "assertion")
    }

    /// Forgets `key` unless it was already replaced (by a concurrent request that got the same refusal).
    private func forget(_ key: String) async throws {
        nextChallenges[key] = nil
        if try await keptKeyID() == key { try await forgetKey() }
    }

    private func registerNewKey() async throws -> String {
        guard device.isSupported else {
            throw AttestedClientError.deviceUnsupported(
                "App Attest is not supported on this device; apply the server's policy for unattested clients")
        }
        let keyID = try await deviceCall { try await self.device.generateKey() }
        let answer = try await attest(keyID: keyID)
        guard answer.status == 201 else {
            throw AttestedClientError.registrationRefused(
                "the server refused the key (\(answer.errorCode ?? "HTTP \(answer.status)")): \(answer.message ?? "")")
        }
        try await keep(keyID: keyID)
        return keyID
    }

    /// The kept key id, without registering one.
    ///
    /// - Returns: The key id, or nil when none is kept.
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`).
    public func keptKeyID() async throws -> String? {
        do {
            return try await secrets.secret(service: Self.keyIDService, account: account).map {
                String(decoding: $0, as: UTF8.self)
            }
        } catch {
            throw AttestedClientError.secretStoreFailure(
                "could not read the key id kept under \(Self.keyIDService)/\(account): \(error)")
        }
    }

    private func freshChallenge(purpose: String) async throws -> String {
        let answer = try await exchange(
            Self.jsonRequest("POST", "/v1/challenges", .object(["purpose": .string(purpose)])))
        guard answer.status == 200, let value = answer.field("challenge") else {
            let code = answer.errorCode.map { " \($0)" } ?? ""
            throw AttestedClientError.unexpectedResponse(
                "POST /v1/challenges answered \(answer.status)\(code) instead of a challenge: \(answer.message ?? "")"
                    + "; check the server URL and the app's authentication headers")
        }
        return value
    }

    /// Sends `request` with the app's headers, waiting out 429s when asked.
    func exchange(_ request: TransportRequest, waitOutRateLimits: Bool = true) async throws -> ServerAnswer {
        var request = request
        let extra = try await providedHeaders(for: "\(request.method) \(request.target)")
        let given = Set(request.headers.map { $0.name.lowercased() })
        request.headers += extra.filter { !given.contains($0.name.lowercased()) }
        var tries = 0
        while true {
            let answer = ServerAnswer(try await transport.send(request))
            guard waitOutRateLimits, answer.status == 429 else { return answer }
            tries += 1
            try await retryPolicy.waitOut(answer, tries: tries, for: "\(request.method) \(request.target)")
        }
    }

    /// The header provider's lines, its failure as ``AttestedClientError/Code/credentialsUnavailable``.
    func providedHeaders(for request: String = "the request") async throws -> [HTTPField] {
        do {
            return try await headers()
        } catch let error as AttestedClientError {
            throw error
        } catch {
            throw AttestedClientError.credentialsUnavailable(
                "the app's header provider failed, so \(request) was not sent; sign the user in again",
                detail: "\(error)")
        }
    }

    static func jsonRequest(_ method: String, _ target: String, _ body: JSONValue) -> TransportRequest {
        TransportRequest(
            method: method, target: target, headers: [HTTPField(name: "Content-Type", value: "application/json")],
            body: CanonicalJSON.canonicalBytes(of: body))
    }

    func deviceCall<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AttestedClientError {
            throw error
        } catch {
            throw AttestedClientError.deviceFailure("App Attest failed on the device: \(error)")
        }
    }
}
