/// A parsed App Attest assertion, before any trust decision.
///
/// ```
/// { "signature": bstr (DER ECDSA-Sig-Value), "authenticatorData": bstr }
/// ```
/// (Apple, "Validating apps that connect to your server", "Verify the assertion".) Unknown keys are rejected.
public struct Assertion: Hashable {
    /// The DER ECDSA signature over SHA-256(authenticatorData ‖ clientDataHash).
    public let signature: [UInt8]
    /// The authenticator data: rpIdHash, flags and counter, sometimes an extension map.
    public let authenticatorData: AuthenticatorData

    /// The largest DER P-256 signature (two 33-byte integers in a sequence).
    public static let maximumSignatureByteCount = 72

    /// Parses an assertion.
    ///
    /// - Parameter bytes: The CBOR bytes `generateAssertion` returned.
    /// - Throws: ``AppAttestError`` with code `malformedCBOR` or `limitExceeded` for bad CBOR, `malformedAssertion`
    ///   for a missing, extra or mistyped member, `malformedAuthenticatorData` for bad authenticator data.
    public init(bytes: [UInt8]) throws {
        let root = try CBORDecoder().decode(bytes)
        guard let entries = root.mapEntries else {
            throw AppAttestError.malformedAssertion("the assertion is not a CBOR map")
        }
        let keys = Set(entries.compactMap { $0.key.textStringValue })
        guard entries.count == 2, keys == ["signature", "authenticatorData"] else {
            throw AppAttestError.malformedAssertion(
                "the assertion must hold exactly the keys authenticatorData and signature"
            )
        }
        guard let signature = root["signature"]?.byteStringValue,
            (1...Self.maximumSignatureByteCount).contains(signature.count)
        else {
            throw AppAttestError.malformedAssertion(
                "signature must be a byte string of 1...\(Self.maximumSignatureByteCount) bytes"
            )
        }
        guard let authData = root["authenticatorData"]?.byteStringValue else {
            throw AppAttestError.malformedAssertion("authenticatorData is not a byte string")
        }
        self.signature = signature
        self.authenticatorData = try AuthenticatorData(rawRepresentation: authData, context: .assertion)
    }
}

extension Assertion: Sendable {}
