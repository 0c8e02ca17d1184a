/// A parsed App Attest attestation object, before any trust decision.
///
/// ```
/// {
///   "fmt": "apple-appattest",
///   "attStmt": { "x5c": [ credCert, intermediateCert, ... ], "receipt": bstr },
///   "authData": bstr
/// }
/// ```
/// (Apple, "Validating apps that connect to your server"; WebAuthn section 6.5.4.) Unknown keys are rejected, so a
/// changed key is never silently ignored.
public struct AttestationObject: Hashable {
    /// The only statement format App Attest produces.
    public static let format = "apple-appattest"
    /// The most certificates accepted in `x5c` (DoS bound): Apple sends two.
    public static let maximumCertificateCount = 4

    /// The attestation statement format; always ``format``.
    public let fmt: String
    /// The DER certificates of `x5c`, credential certificate first.
    public let certificateChain: [[UInt8]]
    /// Apple's receipt: a CMS SignedData the server can later exchange for a fraud-metric receipt.
    public let receipt: [UInt8]
    /// The authenticator data.
    public let authenticatorData: AuthenticatorData

    /// Parses an attestation object.
    ///
    /// - Parameter bytes: The CBOR bytes `attestKey` returned.
    /// - Throws: ``AppAttestError`` with code `malformedCBOR` or `limitExceeded` for bad CBOR,
    ///   `malformedAttestationObject` for a missing, extra or mistyped member, `unsupportedFormat` when `fmt` is not
    ///   `apple-appattest`, and `malformedAuthenticatorData` for bad authenticator data.
    public init(bytes: [UInt8]) throws {
        let root = try CBORDecoder().decode(bytes)
        guard let entries = root.mapEntries else {
            throw AppAttestError.malformedAttestationObject("the attestation object is not a CBOR map")
        }
        try Self.requireExactKeys(entries, ["fmt", "attStmt", "authData"], in: "the attestation object")
        guard let fmt = root["fmt"]?.textStringValue else {
            throw AppAttestError.malformedAttestationObject("fmt is not a text string")
        }
        guard fmt == Self.format else {
            throw AppAttestError.unsupportedFormat(
                "the attestation statement format is not \(Self.format); only App Attest objects are accepted"
            )
        }
        guard let statement = root["attStmt"], let statementEntries = statement.mapEntries else {
            throw AppAttestError.malformedAttestationObject("attStmt is not a CBOR map")
        }
        try Self.requireExactKeys(statementEntries, ["x5c", "receipt"], in: "attStmt")
        guard let x5c = statement["x5c"]?.arrayElements else {
            throw AppAttestError.malformedAttestationObject("attStmt.x5c is not an array")
        }
        guard (1...Self.maximumCertificateCount).contains(x5c.count) else {
            throw AppAttestError.malformedAttestationObject(
                "attStmt.x5c holds \(x5c.count) certificates; expected 1...\(Self.maximumCertificateCount)"
            )
        }
        var chain: [[UInt8]] = []
        for element in x5c {
            guard let der = element.byteStringValue, !der.isEmpty else {
                throw AppAttestError.malformedAttestationObject("an x5c element is not a non-empty byte string")
            }
            chain.append(der)
        }
        guard let receipt = statement["receipt"]?.byteStringValue else {
            throw AppAttestError.malformedAttestationObject("attStmt.receipt is not a byte string")
        }
        guard let authData = root["authData"]?.byteStringValue else {
            throw AppAttestError.malformedAttestationObject("authData is not a byte string")
        }
        self.fmt = fmt
        self.certificateChain = chain
        self.receipt = receipt
        self.authenticatorData = try AuthenticatorData(rawRepresentation: authData, context: .attestation)
    }

    static func requireExactKeys(_ entries: [CBORMapEntry], _ keys: Set<String>, in place: String) throws {
        let present = Set(entries.compactMap { $0.key.textStringValue })
        guard entries.count == keys.count, present == keys else {
            let expected = keys.sorted().joined(separator: ", ")
            throw AppAttestError.malformedAttestationObject(
                "\(place) must hold exactly the keys \(expected)"
            )
        }
    }
}

extension AttestationObject: Sendable {}
