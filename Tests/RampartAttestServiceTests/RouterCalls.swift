import Foundation
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// In-process calls to a router and the steps every router test takes (a challenge, a registered key, a signed
/// request), shared by the router suites. The subject is the `X-User-Id` header, as a proxy would set it.
protocol RouterCalls {
    /// Answers `method path` with `json` as the body and `headers`.
    func call(_ method: String, _ path: String, _ json: String, headers: [String: String]) async -> HTTPResponse
}

/// The header the test routers take the subject from.
let subjectHeader = "X-User-Id"

extension RouterCalls {
    func errorCode(_ response: HTTPResponse) -> String? {
        guard case .object(let fields)? = try? JSONValue(parsing: response.body),
            case .string(let code)? = fields["error"], case .string? = fields["message"]
        else { return nil }
        return code
    }

    func field(_ response: HTTPResponse, _ name: String) -> JSONValue? {
        guard case .object(let fields)? = try? JSONValue(parsing: response.body) else { return nil }
        return fields[name]
    }

    func challenge(_ purpose: String, subject: String = "alice") async throws -> String {
        let response = await call(
            "POST", "/v1/challenges", #"{"purpose":"\#(purpose)"}"#, headers: [subjectHeader: subject])
        guard case .string(let value)? = field(response, "challenge") else {
            throw AttestServiceError.invalidJSON("no challenge in \(response.bodyText)")
        }
        return value
    }

    func register(subject: String = "alice") async throws -> [UInt8] {
        let keyID = SecureRandom.bytes(count: 32)
        let body = #"""
            {"keyId":"\#(Data(keyID).base64EncodedString())",\#
            "attestationObject":"\#(Data(FakeVerifier.attestation(keyID: keyID)).base64EncodedString())",\#
            "challenge":"\#(try await challenge("attestation", subject: subject))"}
            """#
        let response = await call("POST", "/v1/attestations", body, headers: [subjectHeader: subject])
        #expect(response.status == 201, "\(response.bodyText)")
        return keyID
    }

    /// The signed-request headers of FakeVerifier's assertion over `method target` with `body`.
    func signedHeaders(
        keyID: [UInt8], counter: UInt32, method: String, target: String, body: [UInt8] = [], challenge: String
    ) throws -> [String: String] {
        let digest = RequestSignature.digestValue(of: body)
        let clientData = try RequestSignature.clientData(
            method: method, target: target, challenge: challenge, digest: digest)
        return [
            "Rampart-Key-Id": Data(keyID).base64EncodedString(), "Rampart-Challenge": challenge,
            "Rampart-Assertion": Data(FakeVerifier.assertion(counter: counter, clientData: clientData, keyID: keyID))
                .base64EncodedString(),
            "Content-Digest": "sha-256=:\(digest):",
        ]
    }

    /// A fresh assertion challenge for `subject`, signed over `method target` with `body`, plus the subject header.
    func signed(
        keyID: [UInt8], counter: UInt32, method: String = "POST", target: String, body: [UInt8] = [],
        subject: String = "alice"
    ) async throws -> [String: String] {
        let challenge = try await challenge("assertion", subject: subject)
        var headers = try signedHeaders(
            keyID: keyID, counter: counter, method: method, target: target, body: body, challenge: challenge)
        headers[subjectHeader] = subject
        return headers
    }
}
