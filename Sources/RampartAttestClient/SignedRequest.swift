import Foundation
import RampartRequestSigning

/// A request signed in the `rampart-request-v1` format: what the client sends, and what a tampering test changes.
///
/// Its ``transportRequest`` carries the four headers of `RequestSignature` (RampartRequestSigning): `Rampart-Key-Id` (the key id,
/// standard base64), `Rampart-Challenge`, `Rampart-Assertion` (the CBOR assertion, standard base64) and
/// `Content-Digest` (`sha-256=:<base64>:` of the body as signed). Changing ``method``, ``target`` or ``body`` after
/// signing leaves the signature over the original, which the server refuses.
public struct SignedRequest: Hashable {
    /// The names of the headers the signature adds; a caller's header of the same name is dropped.
    public static let signatureHeaderNames = [
        RequestSignature.keyIDHeader, RequestSignature.challengeHeader, RequestSignature.assertionHeader,
        RequestSignature.contentDigestHeader,
    ]

    /// The method, upper case.
    public var method: String
    /// The request target as signed and sent.
    public var target: String
    /// The request's own header lines (without the signature's).
    public var headers: [HTTPField]
    /// The body.
    public var body: [UInt8]
    /// The key id (standard base64).
    public var keyID: String
    /// The one-time challenge the assertion covers.
    public var challenge: String
    /// The `Content-Digest` value of the body that was signed.
    public var contentDigest: String
    /// The CBOR assertion.
    public var assertion: [UInt8]

    /// Creates a signed request from its parts (``AttestedClient/sign(_:_:headers:body:keyID:)`` makes them).
    ///
    /// - Parameters:
    ///   - method: The method.
    ///   - target: The request target.
    ///   - headers: The request's own header lines.
    ///   - body: The body.
    ///   - keyID: The key id.
    ///   - challenge: The challenge.
    ///   - contentDigest: The `Content-Digest` value.
    ///   - assertion: The assertion.
    public init(
        method: String, target: String, headers: [HTTPField], body: [UInt8], keyID: String, challenge: String,
        contentDigest: String, assertion: [UInt8]
    ) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.keyID = keyID
        self.challenge = challenge
        self.contentDigest = contentDigest
        self.assertion = assertion
    }

    /// The signature's header lines.
    public var signatureHeaders: [HTTPField] {
        [
            HTTPField(name: RequestSignature.keyIDHeader, value: keyID),
            HTTPField(name: RequestSignature.challengeHeader, value: challenge),
            HTTPField(name: RequestSignature.assertionHeader, value: Data(assertion).base64EncodedString()),
            HTTPField(name: RequestSignature.contentDigestHeader, value: contentDigest),
        ]
    }

    /// The request to send: its own headers, then the signature's.
    public var transportRequest: TransportRequest {
        TransportRequest(method: method, target: target, headers: headers + signatureHeaders, body: body)
    }
}

extension SignedRequest: Sendable {}
