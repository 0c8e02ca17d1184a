import Foundation
import RampartAttestService
import RampartCrypto
import RampartRequestSigning
import Testing

/// In-process calls to a router and the steps every router test takes (a challenge, a registered key), shared by the
/// router suites.
protocol RouterCalls {
    /// Answers `method path` with `json` as the body.
    func call(_ method: String, _ path: String, _ json: String) async -> HTTPResponse
}

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
        let response = await call("POST", "/v1/challenges", #"{"purpose":"\#(purpose)","subject":"\#(subject)"}"#)
        guard case .string(let value)? = field(response, "challenge") else {
            throw AttestServiceError.invalidJSON("no challenge in \(response.bodyText)")
        }
        return value
    }

    func register(subject: String = "alice") async throws -> [UInt8] {
        let keyID = SecureRandom.bytes(count: 32)
        let body = #"""
            {"subject":"\#(subject)","keyId":"\#(Data(keyID).base64EncodedString())",\#
            "attestationObject":"\#(Data(FakeVerifier.attestation(keyID: keyID)).base64EncodedString())",\#
            "challenge":"\#(try await challenge("attestation", subject: subject))"}
            """#
        let response = await call("POST", "/v1/attestations", body)
        #expect(response.status == 201)
        return keyID
    }

}
