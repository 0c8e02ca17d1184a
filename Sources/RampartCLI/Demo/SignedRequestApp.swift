public import Foundation
public import RampartAttestSimulation
import RampartCrypto
import RampartRequestSigning

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A simulated app that registers an App Attest key and signs HTTP requests in the `rampart-request-v1` format
/// (`docs/request-signature.md`): what `rampart demo` and the end-to-end tests drive against a running service.
///
/// It sends the headers a proxy would add after authenticating the user (``identityHeaders``, e.g. `X-User-Id`),
/// so the service takes the subject from them, never from a body.
public struct SignedRequestApp: Sendable {
    /// One answer: status, headers (lower-cased names) and body.
    public struct Answer: Sendable, Hashable {
        /// The HTTP status.
        public var status: Int
        /// The headers, by lower-cased name.
        public var headers: [String: String]
        /// The body.
        public var body: [UInt8]

        /// The body's `error` code, or the `Rampart-Error` header.
        public var errorCode: String? {
            if case .string(let code)? = field("error") { return code }
            return headers["rampart-error"]
        }

        /// The body's `message`.
        public var message: String? {
            if case .string(let text)? = field("message") { return text }
            return nil
        }

        /// A number field of the JSON body.
        ///
        /// - Parameter name: The field.
        /// - Returns: Its value, or nil.
        public func number(_ name: String) -> Double? {
            if case .number(let value)? = field(name) { return value }
            return nil
        }

        /// A string field of the JSON body.
        ///
        /// - Parameter name: The field.
        /// - Returns: Its value, or nil.
        public func string(_ name: String) -> String? {
            if case .string(let value)? = field(name) { return value }
            return nil
        }

        func field(_ name: String) -> JSONValue? {
            guard case .object(let fields)? = try? JSONValue(parsing: body) else { return nil }
            return fields[name]
        }
    }

    /// A signed request ready to send; change a part after signing to play an attacker.
    public struct Signed: Sendable, Hashable {
        /// The method.
        public var method: String
        /// The request target.
        public var target: String
        /// The body.
        public var body: [UInt8]
        /// The signed-request headers (`Rampart-Key-Id`, `Rampart-Challenge`, `Rampart-Assertion`, `Content-Digest`).
        public var headers: [String: String]
    }

    /// The service's base URL.
    public let baseURL: URL
    /// The simulated App Attest device.
    public let device: SimulatedAppAttestDevice
    /// Headers sent with every request, as the app's proxy would add them (`X-User-Id: user_123`).
    public let identityHeaders: [String: String]
    let session: URLSession

    /// Creates an app.
    ///
    /// - Parameters:
    ///   - baseURL: The service.
    ///   - device: The simulated device.
    ///   - identityHeaders: Headers naming the user, as a proxy would set them.
    public init(baseURL: URL, device: SimulatedAppAttestDevice, identityHeaders: [String: String]) {
        self.baseURL = baseURL
        self.device = device
        self.identityHeaders = identityHeaders
        session = URLSession(configuration: .ephemeral)
    }

    /// Sends one request.
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The path and query.
    ///   - headers: Extra headers.
    ///   - body: The body.
    /// - Returns: The answer.
    /// - Throws: A transport error.
    public func send(
        _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8] = []
    ) async throws -> Answer {
        guard let url = URL(string: target, relativeTo: baseURL) else {
            throw URLError(.badURL)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        for (name, value) in identityHeaders.merging(headers, uniquingKeysWith: { $1 }) {
            request.setValue(value, forHTTPHeaderField: name)
        }
        if !body.isEmpty || method == "POST" || method == "PUT" {
            request.httpBody = Data(body)
            if request.value(forHTTPHeaderField: "Content-Type") == nil {
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            }
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var answerHeaders: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { answerHeaders[name.lowercased()] = value }
        }
        return Answer(status: http.statusCode, headers: answerHeaders, body: Array(data))
    }

    /// A one-time challenge for `purpose` (`attestation` or `assertion`).
    ///
    /// - Parameter purpose: The purpose.
    /// - Returns: The challenge.
    /// - Throws: A transport error, or `URLError(.badServerResponse)` when the service gave none.
    public func challenge(_ purpose: String) async throws -> String {
        let answer = try await send("POST", "/v1/challenges", body: Array(#"{"purpose":"\#(purpose)"}"#.utf8))
        guard let challenge = answer.string("challenge") else { throw URLError(.badServerResponse) }
        return challenge
    }

    /// Generates a key, attests it over SHA-256 of a fresh attestation challenge, and registers it.
    ///
    /// - Returns: The key id (standard base64) and the service's answer (201 when registered).
    /// - Throws: A transport or device error.
    public func register() async throws -> (keyID: String, answer: Answer) {
        let keyID = try await device.generateKey()
        let challenge = try await challenge("attestation")
        let object = try await device.attestKey(keyID, clientDataHash: SHA256.hash(Array(challenge.utf8)))
        let body =
            #"{"keyId":"\#(keyID)","attestationObject":"\#(Data(object).base64EncodedString())","#
            + #""challenge":"\#(challenge)"}"#
        return (keyID, try await send("POST", "/v1/attestations", body: Array(body.utf8)))
    }

    /// Signs a request with `keyID` over `challenge` (a fresh assertion challenge when nil).
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The path and query as they will be sent.
    ///   - body: The body.
    ///   - keyID: The key id.
    ///   - given: The challenge to sign over (e.g. a `Rampart-Next-Challenge`), or nil to ask for one.
    /// - Returns: The signed request.
    /// - Throws: A transport, device or signing error.
    public func sign(
        _ method: String, _ target: String, body: [UInt8] = [], keyID: String, challenge given: String? = nil
    ) async throws -> Signed {
        let challenge: String
        if let given { challenge = given } else { challenge = try await self.challenge("assertion") }
        let digest = RequestSignature.digestValue(of: body)
        let hash = try RequestSignature.clientDataHash(
            method: method, target: target, challenge: challenge, digest: digest)
        let assertion = try await device.generateAssertion(keyID, clientDataHash: hash)
        return Signed(
            method: method, target: target, body: body,
            headers: [
                RequestSignature.keyIDHeader: keyID, RequestSignature.challengeHeader: challenge,
                RequestSignature.assertionHeader: Data(assertion).base64EncodedString(),
                RequestSignature.contentDigestHeader: "sha-256=:\(digest):",
            ])
    }

    /// Sends a signed request.
    ///
    /// - Parameter signed: The request.
    /// - Returns: The answer.
    /// - Throws: A transport error.
    public func send(_ signed: Signed) async throws -> Answer {
        try await send(signed.method, signed.target, headers: signed.headers, body: signed.body)
    }
}
