import RampartCrypto

/// The client data of a protected request, shared by the app and the server so both hash the same bytes.
///
/// The client data is the RFC 8785 canonical JSON of `{"challenge": <challenge>, "payload": <payload>}`; its SHA-256
/// is the `clientDataHash` the app passes to `generateAssertion` and the server feeds to
/// `AppAttestVerifier.verifyAssertion` (RampartAppAttest). Key order, whitespace, number
/// spelling and Unicode escapes in the payload do not change the bytes.
public enum RequestCanonicalization {
    /// The canonical client data for a challenge and a payload.
    ///
    /// - Parameters:
    ///   - challenge: The one-time challenge the server issued, as the string the app received.
    ///   - payload: The request payload.
    /// - Returns: The canonical UTF-8 bytes.
    public static func clientData(challenge: String, payload: JSONValue) -> [UInt8] {
        CanonicalJSON.canonicalBytes(of: .object(["challenge": .string(challenge), "payload": payload]))
    }

    /// The canonical client data for a challenge and a payload given as JSON text.
    ///
    /// - Parameters:
    ///   - challenge: The one-time challenge.
    ///   - payloadJSON: The payload, a JSON object as UTF-8 text in any formatting.
    /// - Returns: The canonical UTF-8 bytes.
    /// - Throws: ``RequestSigningError/Code/malformedJSON`` when the payload is not an I-JSON object,
    ///   ``RequestSigningError/Code/inexactNumber`` for a number whose canonical form would be another number (it is read
    ///   with ``JSONValue/NumberPolicy/exact``, so two different payloads never share client data).
    public static func clientData(challenge: String, payloadJSON: [UInt8]) throws -> [UInt8] {
        let payload = try JSONValue(parsing: payloadJSON, numbers: .exact)
        guard case .object = payload else {
            throw RequestSigningError.malformedJSON("the request payload must be a JSON object")
        }
        return clientData(challenge: challenge, payload: payload)
    }

    /// SHA-256 of the canonical client data: the `clientDataHash` of the request's assertion.
    ///
    /// - Parameters:
    ///   - challenge: The one-time challenge.
    ///   - payload: The request payload.
    /// - Returns: 32 bytes.
    public static func clientDataHash(challenge: String, payload: JSONValue) -> [UInt8] {
        SHA256.hash(clientData(challenge: challenge, payload: payload))
    }
}
