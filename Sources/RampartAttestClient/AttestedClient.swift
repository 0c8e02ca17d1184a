public import Foundation
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
/// The app never names its user to the server: the backend knows who is signed in from its own authentication,
/// which the `headers` (or `credentials`) provider adds to every request the client makes (challenges,
/// registration, signed requests, tokens).
///
/// A key is registered to the user who was signed in when it was attested, so on a device where several people
/// sign in, the app also tells the client locally who is signed in (``Credentials/user``): the client keeps one key
/// per user and signs each request with the key of the user the request authenticates as. A client that is not
/// told (the `headers` initializer) keeps one key and attests a new one when the server answers `wrongSubject`.
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
/// | `unknownKey`, `keyBlocked`, `wrongSubject` (or the device lost the key: ``AttestedClientError/Code/invalidKey``) | forgets the key, attests a new one, retries once |
/// | `challengeUsed`, `challengeExpired`, `counterReplay`, `challengeMismatch` | signs again over a fresh challenge (a new counter) and retries once |
/// | `invalidAssertion` and every other refusal | returns the answer, no retry |
/// | 429 | waits (`Retry-After`, bounded by ``RetryPolicy``), signs again, retries; ``AttestedClientError/Code/rateLimited`` past the budget |
///
/// Requests signed with one key are signed and sent one at a time (across every client in the process that uses
/// the key), so their counters reach the server in order.
public actor AttestedClient {
    /// The secret store service under which key ids are kept (account: ``account``) when the app does not name
    /// its users; a user's key id is kept under `keyIDService/<account>` with the user as the account.
    public static let keyIDService = "rampart.appattest.keyid"
    /// The account used when none is given.
    public static let defaultAccount = "default"

    /// The header lines the app adds to every request: its own authentication to its backend.
    public typealias HeaderProvider = @Sendable () async throws -> [HTTPField]
    /// Who is signed in and the header lines that authenticate them, asked for before each request.
    public typealias CredentialsProvider = @Sendable () async throws -> Credentials

    let transport: any AttestedClientTransport
    let device: any AppAttestDevice
    let secrets: any SecretStore
    /// The name the key id is kept under in the secret store: a local name the app chooses (one key per account).
    public let account: String
    /// How 429 answers are waited out.
    public let retryPolicy: RetryPolicy
    let credentials: CredentialsProvider
    let turns: KeyTurns
    let clock: @Sendable () -> Date
    private var nextChallenges: [String: String] = [:]
    private var registrations: [KeySlot: Task<String, any Error>] = [:]
    var accessTokens: [KeySlot: AccessToken] = [:]
    var accessTokenFetches: [KeySlot: Task<AccessToken, any Error>] = [:]

    /// Creates a client for an app that does not tell it who is signed in: one key, whoever signs in.
    ///
    /// After another user signs in on the device, the first request answers `wrongSubject` (the key is registered
    /// to the earlier user) and the client attests a new key for the new user. An app where users switch should
    /// use ``init(transport:device:secrets:account:retryPolicy:credentials:)`` instead, which keeps a key per user.
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
            credentials: { Credentials(user: nil, headers: try await headers()) }, turns: .shared, clock: { Date() })
    }

    /// Creates a client that keeps one key per signed-in user.
    ///
    /// The provider says, before each request, who is signed in (the app's own user id, kept on the device and
    /// never sent) and the headers that authenticate them to the backend. Each user's key id is kept under
    /// `keyIDService/<account>` and the user's id, so switching back and forth between users on one device signs
    /// each user's requests with that user's key, attested once.
    ///
    /// ```swift
    /// let client = AttestedClient(
    ///     transport: transport, device: DeviceCheckAppAttestDevice(), secrets: KeychainStore(),
    ///     credentials: {
    ///         guard let session = try await sessions.load() else { throw SignedOut() }
    ///         let authorization = HTTPField(name: "Authorization", value: session.authorization)
    ///         return .init(user: session.userID, headers: [authorization])
    ///     })
    /// ```
    ///
    /// - Parameters:
    ///   - transport: How to reach the server.
    ///   - device: App Attest.
    ///   - secrets: Where the key ids are kept.
    ///   - account: The local name the keys are kept under.
    ///   - retryPolicy: How long to wait out rate limits.
    ///   - credentials: Who is signed in and their authentication headers; throw when nobody is (the request is
    ///     not sent: ``AttestedClientError/Code/credentialsUnavailable``).
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        account: String = AttestedClient.defaultAccount, retryPolicy: RetryPolicy = RetryPolicy(),
        credentials: @escaping CredentialsProvider
    ) {
        self.init(
            transport: transport, device: device, secrets: secrets, account: account, retryPolicy: retryPolicy,
            credentials: credentials, turns: .shared, clock: { Date() })
    }

    /// Creates a client whose access-token cache reads `clock` instead of the system clock.
    ///
    /// - Parameters:
    ///   - transport: How to reach the server.
    ///   - device: App Attest.
    ///   - secrets: Where the key ids are kept.
    ///   - account: The local name the keys are kept under.
    ///   - retryPolicy: How long to wait out rate limits.
    ///   - clock: The current time.
    ///   - credentials: Who is signed in and their authentication headers.
    @_spi(Testing)
    public init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        account: String = AttestedClient.defaultAccount, retryPolicy: RetryPolicy = RetryPolicy(),
        clock: @escaping @Sendable () -> Date, credentials: @escaping CredentialsProvider
    ) {
        self.init(
            transport: transport, device: device, secrets: secrets, account: account, retryPolicy: retryPolicy,
            credentials: credentials, turns: .shared, clock: clock)
    }

    init(
        transport: any AttestedClientTransport, device: any AppAttestDevice, secrets: any SecretStore,
        account: String, retryPolicy: RetryPolicy, credentials: @escaping CredentialsProvider, turns: KeyTurns,
        clock: @escaping @Sendable () -> Date
    ) {
        self.transport = transport
        self.device = device
        self.secrets = secrets
        self.account = account
        self.retryPolicy = retryPolicy
        self.credentials = credentials
        self.turns = turns
        self.clock = clock
    }

    // MARK: Keys

    /// The registered key id of the signed-in user, registering a new key first when none is kept.
    ///
    /// - Returns: The key id (standard base64).
    /// - Throws: ``AttestedClientError``.
    public func registeredKeyID() async throws -> String {
        let credentials = try await currentCredentials()
        return try await registeredKeyID(credentials)
    }

    /// Generates a key, attests it over a fresh challenge and registers it for the signed-in user; keeps its id.
    ///
    /// Concurrent calls for one user share one registration.
    ///
    /// - Returns: The new key id.
    /// - Throws: ``AttestedClientError`` (`registrationRefused` with the server's code, `deviceFailure`, …).
    @discardableResult
    public func register() async throws -> String {
        let credentials = try await currentCredentials()
        return try await register(credentials)
    }

    /// Attests `keyID` over a fresh `attestation` challenge and posts it, returning the server's answer as is.
    ///
    /// - Parameter keyID: A key from the device.
    /// - Returns: The answer to `POST /v1/attestations`.
    /// - Throws: ``AttestedClientError``.
    public func attest(keyID: String) async throws -> ServerAnswer {
        try await attest(keyID: keyID, try await currentCredentials())
    }

    /// Forgets the signed-in user's kept key id (and its next challenge and access token), so their next protected
    /// request registers a new key.
    ///
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`, `credentialsUnavailable`).
    public func forgetKey() async throws {
        try await forgetKey(slot(for: try await currentCredentials()))
    }

    /// Keeps a key id that was registered elsewhere (a tool restoring a saved device, a test) for the signed-in
    /// user.
    ///
    /// - Parameter keyID: The key id (standard base64), known to the device and the server.
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`, `credentialsUnavailable`).
    public func keep(keyID: String) async throws {
        try await keep(keyID: keyID, in: slot(for: try await currentCredentials()))
    }

    /// The signed-in user's kept key id, without registering one.
    ///
    /// - Returns: The key id, or nil when none is kept.
    /// - Throws: ``AttestedClientError`` (`secretStoreFailure`, `credentialsUnavailable`).
    public func keptKeyID() async throws -> String? {
        try await keptKeyID(slot(for: try await currentCredentials()))
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
    ///   - keyID: The key to sign with; the signed-in user's registered one by default.
    /// - Returns: The signed request.
    /// - Throws: ``AttestedClientError`` (`invalidRequest` before anything is sent, `deviceFailure`, …).
    public func sign(
        _ method: String, _ target: String, headers: [HTTPField] = [], body: [UInt8] = [], keyID: String? = nil
    ) async throws -> SignedRequest {
        let credentials = try await currentCredentials()
        let key: String
        if let keyID { key = keyID } else { key = try await registeredKeyID(credentials) }
        let challenge = try await takeChallenge(for: key, fresh: false, credentials)
        return try await sign(method, target, headers: headers, body: body, keyID: key, challenge: challenge)
    }

    /// Sends a signed request as it is (no retry), keeping the answer's `Rampart-Next-Challenge` for its key.
    ///
    /// - Parameter request: The request.
    /// - Returns: The answer.
    /// - Throws: ``AttestedClientError`` (`transportFailure`, `credentialsUnavailable`).
    public func send(_ request: SignedRequest) async throws -> ServerAnswer {
        try await send(request, try await currentCredentials(for: "\(request.method) \(request.target)"))
    }

    /// Signs and sends a request, acting on the server's answer: a new key for `unknownKey`, `keyBlocked` or
    /// `wrongSubject`, a fresh challenge for `challengeUsed`, `challengeExpired`, `counterReplay` or
    /// `challengeMismatch` (each once), waiting out 429s.
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
        try await send(method, target, headers: headers, body: body, as: nil)
    }

    /// ``send(_:_:headers:body:)`` for the user of `pinned` on every attempt, or the signed-in user of each.
    func send(
        _ method: String, _ target: String, headers: [HTTPField], body: [UInt8], as pinned: Credentials?
    ) async throws -> ServerAnswer {
        var attestedAgain = false
        var freshChallengeUsed = false
        var rateLimitedTries = 0
        while true {
            // Asked once per attempt: the key, the challenge and the request all belong to the same user.
            let credentials: Credentials
            if let pinned {
                credentials = pinned
            } else {
                credentials = try await currentCredentials(for: "\(method.uppercased()) \(target)")
            }
            let slot = slot(for: credentials)
            let key = try await registeredKeyID(credentials)
            await turns.acquire(key)
            let answer: ServerAnswer
            do {
                // The key may have been replaced while this request waited for its turn.
                guard try await keptKeyID(slot) == key else {
                    await turns.release(key)
                    continue
                }
                let challenge = try await takeChallenge(for: key, fresh: freshChallengeUsed, credentials)
                let request = try await sign(
                    method, target, headers: headers, body: body, keyID: key, challenge: challenge)
                answer = try await send(request, credentials)
            } catch let error as AttestedClientError where error.code == .invalidKey && !attestedAgain {
                // The device no longer has the key (DCError.invalidKey after a reinstall or a restore).
                await turns.release(key)
                attestedAgain = true
                try await forget(key, in: slot)
                continue
            } catch {
                await turns.release(key)
                throw error
            }
            await turns.release(key)
            switch answer.errorCode {
            case "unknownKey", "keyBlocked", "wrongSubject":
                // wrongSubject: the key is registered to another user, who signed in before this one without the
                // app telling the client (or under the same local user id).
                guard !attestedAgain else { return answer }
                attestedAgain = true
                try await forget(key, in: slot)
                continue
            case "challengeUsed", "challengeExpired", "counterReplay", "challengeMismatch":
                // Refused before it was acted on: signing again gives a new challenge (issued for the user signed
                // in now) and a higher counter.
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

    /// Where a user's key id is kept: `keyIDService`/``account`` without a user, `keyIDService/<account>`/user
    /// with one (so no two pairs share a place, whatever characters the names hold).
    struct KeySlot: Hashable, Sendable, CustomStringConvertible {
        let service: String
        let account: String

        var description: String { "\(service)/\(account)" }
    }

    func slot(for credentials: Credentials) -> KeySlot {
        guard let user = credentials.user else { return KeySlot(service: Self.keyIDService, account: account) }
        return KeySlot(service: "\(Self.keyIDService)/\(account)", account: user)
    }

    func registeredKeyID(_ credentials: Credentials) async throws -> String {
        if let kept = try await keptKeyID(slot(for: credentials)) { return kept }
        return try await register(credentials)
    }

    func register(_ credentials: Credentials) async throws -> String {
        let slot = slot(for: credentials)
        if let registration = registrations[slot] { return try await registration.value }
        let task = Task { try await self.registerNewKey(credentials) }
        registrations[slot] = task
        defer { registrations[slot] = nil }
        return try await task.value
    }

    func send(_ request: SignedRequest, _ credentials: Credentials) async throws -> ServerAnswer {
        let answer = try await exchange(request.transportRequest, credentials, waitOutRateLimits: false)
        if let next = answer.nextChallenge { nextChallenges[request.keyID] = next }
        return answer
    }

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
    func takeChallenge(for key: String, fresh: Bool, _ credentials: Credentials) async throws -> String {
        let kept = nextChallenges.removeValue(forKey: key)
        if !fresh, let kept { return kept }
        return try await freshChallenge(purpose: "assertion", credentials)
    }

    /// Forgets `key` unless it was already replaced (by a concurrent request that got the same refusal).
    private func forget(_ key: String, in slot: KeySlot) async throws {
        nextChallenges[key] = nil
        if try await keptKeyID(slot) == key { try await forgetKey(slot) }
    }

    private func forgetKey(_ slot: KeySlot) async throws {
        if let kept = try await keptKeyID(slot) { nextChallenges[kept] = nil }
        accessTokens[slot] = nil
        do {
            try await secrets.deleteSecret(service: slot.service, account: slot.account)
        } catch {
            throw AttestedClientError.secretStoreFailure("could not forget the key id kept under \(slot): \(error)")
        }
    }

    private func keep(keyID: String, in slot: KeySlot) async throws {
        do {
            try await secrets.setSecret(Array(keyID.utf8), service: slot.service, account: slot.account)
        } catch {
            throw AttestedClientError.secretStoreFailure("could not keep the key id under \(slot): \(error)")
        }
    }

    func keptKeyID(_ slot: KeySlot) async throws -> String? {
        do {
            return try await secrets.secret(service: slot.service, account: slot.account).map {
                String(decoding: $0, as: UTF8.self)
            }
        } catch {
            throw AttestedClientError.secretStoreFailure("could not read the key id kept under \(slot): \(error)")
        }
    }

    private func attest(keyID: String, _ credentials: Credentials) async throws -> ServerAnswer {
        let challenge = try await freshChallenge(purpose: "attestation", credentials)
        let object = try await deviceCall {
            try await self.device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        }
        let body = JSONValue.object([
            "keyId": .string(keyID), "attestationObject": .string(Data(object).base64EncodedString()),
            "challenge": .string(challenge),
        ])
        return try await exchange(Self.jsonRequest("POST", "/v1/attestations", body), credentials)
    }

    private func registerNewKey(_ credentials: Credentials) async throws -> String {
        guard device.isSupported else {
            throw AttestedClientError.deviceUnsupported(
                "App Attest is not supported on this device; apply the server's policy for unattested clients")
        }
        let keyID = try await deviceCall { try await self.device.generateKey() }
        let answer = try await attest(keyID: keyID, credentials)
        guard answer.status == 201 else {
            throw AttestedClientError.registrationRefused(
                "the server refused the key (\(answer.errorCode ?? "HTTP \(answer.status)")): \(answer.message ?? "")")
        }
        try await keep(keyID: keyID, in: slot(for: credentials))
        return keyID
    }

    private func freshChallenge(purpose: String, _ credentials: Credentials) async throws -> String {
        let answer = try await exchange(
            Self.jsonRequest("POST", "/v1/challenges", .object(["purpose": .string(purpose)])), credentials)
        guard answer.status == 200, let value = answer.field("challenge") else {
            let code = answer.errorCode.map { " \($0)" } ?? ""
            throw AttestedClientError.unexpectedResponse(
                "POST /v1/challenges answered \(answer.status)\(code) instead of a challenge: \(answer.message ?? "")"
                    + "; check the server URL and the app's authentication headers")
        }
        return value
    }

    /// Sends `request` with the app's headers, waiting out 429s when asked.
    func exchange(
        _ request: TransportRequest, _ credentials: Credentials, waitOutRateLimits: Bool = true
    ) async throws -> ServerAnswer {
        var request = request
        let given = Set(request.headers.map { $0.name.lowercased() })
        request.headers += credentials.headers.filter { !given.contains($0.name.lowercased()) }
        var tries = 0
        while true {
            let answer = ServerAnswer(try await transport.send(request))
            guard waitOutRateLimits, answer.status == 429 else { return answer }
            tries += 1
            try await retryPolicy.waitOut(answer, tries: tries, for: "\(request.method) \(request.target)")
        }
    }

    /// The credentials provider's answer, its failure as ``AttestedClientError/Code/credentialsUnavailable``.
    func currentCredentials(for request: String = "the request") async throws -> Credentials {
        do {
            return try await credentials()
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
