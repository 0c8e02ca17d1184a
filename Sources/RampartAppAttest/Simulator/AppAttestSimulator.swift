public import Foundation
public import RampartCrypto
public import RampartX509

/// Plays Apple's side of App Attest for tests: a certificate authority shaped like Apple's (P-384 root → P-384
/// intermediate → P-256 credential certificate with the nonce extension 1.2.840.113635.100.8.2) that attests
/// ``SimulatedDevice`` keys in Apple's exact attestation-object format, with a CMS receipt, for either environment.
///
/// Verify the objects with an ``AppAttestVerifier`` whose trust anchor is ``rootCertificate`` (and receipts with a
/// ``ReceiptVerifier`` anchored there too).
///
/// - Warning: The simulator's root is a test anchor. Never configure it in production.
public struct AppAttestSimulator: Sendable {
    /// The simulator's self-signed root: the trust anchor for its attestations and receipts.
    public let rootCertificate: Certificate
    /// The intermediate that signs credential certificates and the receipt signer.
    public let intermediateCertificate: Certificate
    let intermediateKey: ECPrivateKey
    let receiptSignerCertificate: Certificate
    let receiptSignerKey: ECPrivateKey
    let clock: @Sendable () -> Date

    /// Creates a fresh certificate authority.
    ///
    /// The root and intermediate are valid from a year before the clock's time for ten years; each credential
    /// certificate is valid from a day before to two days after its attestation, like Apple's.
    ///
    /// - Parameter clock: The time attestations and receipts are made at; the system clock by default.
    /// - Throws: ``AppAttestError/Code/openSSLFailure`` if building the certificates fails.
    public init(clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.clock = clock
        let now = clock()
        let start = now.addingTimeInterval(-365 * 86_400)
        let end = now.addingTimeInterval(10 * 365 * 86_400)
        do {
            let rootKey = ECPrivateKey(curve: .p384)
            let rootName = try Self.name("Rampart Simulated App Attestation Root CA")
            var root = CertificateBuilder(
                subject: rootName,
                issuer: rootName,
                publicKey: rootKey.publicKey,
                notBefore: start,
                notAfter: end
            )
            root.basicConstraints = BasicConstraints(isCA: true)
            root.keyUsage = [.keyCertSign, .crlSign]
            rootCertificate = try root.sign(with: rootKey)

            intermediateKey = ECPrivateKey(curve: .p384)
            var intermediate = CertificateBuilder(
                subject: try Self.name("Rampart Simulated App Attestation CA 1"),
                issuer: rootName,
                publicKey: intermediateKey.publicKey,
                notBefore: start,
                notAfter: end
            )
            intermediate.basicConstraints = BasicConstraints(isCA: true, pathLengthConstraint: 0)
            intermediate.keyUsage = [.keyCertSign, .crlSign]
            intermediateCertificate = try intermediate.sign(with: rootKey)

            receiptSignerKey = ECPrivateKey(curve: .p256)
            var signer = CertificateBuilder(
                subject: try Self.name("Rampart Simulated Fraud Receipt Signing"),
                issuer: intermediateCertificate.subject,
                publicKey: receiptSignerKey.publicKey,
                notBefore: start,
                notAfter: end
            )
            signer.basicConstraints = BasicConstraints(isCA: false)
            signer.keyUsage = [.digitalSignature]
            receiptSignerCertificate = try signer.sign(with: intermediateKey)
        } catch {
            throw AppAttestError.openSSLFailure("building the simulator's CA failed", detail: String(describing: error))
        }
    }

    /// A CA from its parts (a kept folder, ``init(keptIn:clock:)``).
    init(
        rootCertificate: Certificate,
        intermediateCertificate: Certificate,
        intermediateKey: ECPrivateKey,
        receiptSignerCertificate: Certificate,
        receiptSignerKey: ECPrivateKey,
        clock: @escaping @Sendable () -> Date
    ) {
        self.rootCertificate = rootCertificate
        self.intermediateCertificate = intermediateCertificate
        self.intermediateKey = intermediateKey
        self.receiptSignerCertificate = receiptSignerCertificate
        self.receiptSignerKey = receiptSignerKey
        self.clock = clock
    }

    static func name(_ commonName: String) throws -> DistinguishedName {
        try DistinguishedName(attributes: [
            .init(.NameAttribute.commonName, commonName),
            .init(.NameAttribute.organizationName, "Rampart Simulator"),
            .init(.NameAttribute.stateOrProvinceName, "California"),
        ])
    }

    /// Attests a device's key as `attestKey(_:clientDataHash:)` would, in Apple's format:
    ///
    /// ```
    /// {"fmt": "apple-appattest",
    ///  "attStmt": {"x5c": [credCert, intermediate], "receipt": CMS},
    ///  "authData": rpIdHash ‖ 0x40 ‖ counter 0 ‖ aaguid ‖ 0x0020 ‖ keyId ‖ COSE_Key}
    /// ```
    ///
    /// - Parameters:
    ///   - device: The device whose key to attest.
    ///   - clientDataHash: What the app passes: normally SHA-256 of the server's challenge.
    /// - Returns: The CBOR attestation object.
    /// - Throws: ``AppAttestError/Code/openSSLFailure`` if signing fails.
    public func attestKey(of device: SimulatedDevice, clientDataHash: [UInt8]) throws -> [UInt8] {
        try attestKey(of: device, clientDataHash: clientDataHash, tampering: AttestationTampering())
    }

    /// Attests a key with some fields deliberately wrong, for negative tests.
    ///
    /// - Parameters:
    ///   - device: The device whose key to attest.
    ///   - clientDataHash: What the app passes.
    ///   - tampering: Which fields to falsify (the certificates are still validly signed).
    /// - Returns: The CBOR attestation object.
    /// - Throws: ``AppAttestError/Code/openSSLFailure`` if signing fails.
    @_spi(Testing)
    public func attestKey(
        of device: SimulatedDevice,
        clientDataHash: [UInt8],
        tampering: AttestationTampering
    ) throws -> [UInt8] {
        let now = clock()
        let publicKey = tampering.authenticatorDataKey ?? device.publicKeyX963
        var authData = tampering.rpIDHash ?? SHA256.hash(Array(device.appID.utf8))
        authData.append(tampering.extensions == nil ? 0x40 : tampering.flagExtensions ? 0xC0 : 0x40)
        authData += withUnsafeBytes(of: (tampering.counter ?? 0).bigEndian, Array.init)
        authData += tampering.aaguid ?? device.environment.aaguid
        let credentialID = tampering.credentialID ?? device.keyID
        authData += [UInt8(truncatingIfNeeded: credentialID.count >> 8), UInt8(truncatingIfNeeded: credentialID.count)]
        authData += credentialID
        authData += AttestedCredentialData.coseKey(x963: publicKey).encoded
        if let extensions = tampering.extensions {
            authData += CBORValue.map(extensions.map { CBORMapEntry(.textString($0.key), $0.value) }).encoded
        }
        let nonce = tampering.nonce ?? SHA256.hash(authData + clientDataHash)

        let credentialCertificate: Certificate
        do {
            var leaf = CertificateBuilder(
                subject: try DistinguishedName(attributes: [
                    .init(.NameAttribute.commonName, device.keyID.map { String(format: "%02x", $0) }.joined()),
                    .init(.NameAttribute.organizationalUnitName, "AAA Certification"),
                    .init(.NameAttribute.organizationName, "Rampart Simulator"),
                    .init(.NameAttribute.stateOrProvinceName, "California"),
                ]),
                issuer: tampering.issuer?.certificate.subject ?? intermediateCertificate.subject,
                publicKey: device.publicKey,
                notBefore: tampering.notBefore ?? now.addingTimeInterval(-86_400),
                notAfter: tampering.notAfter ?? now.addingTimeInterval(2 * 86_400)
            )
            leaf.basicConstraints = BasicConstraints(isCA: false)
            leaf.keyUsage = [.digitalSignature, .nonRepudiation, .keyEncipherment, .dataEncipherment]
            if !tampering.omitNonceExtension {
                var value = DERWriter()
                value.appendSequence { sequence in
                    sequence.appendExplicit(tag: 1) { $0.appendOctetString(nonce) }
                }
                leaf.extraExtensions.append(
                    Certificate.Extension(
                        oid: .AppAttest.nonce,
                        critical: false,
                        value: tampering.nonceExtensionValue ?? value.bytes
                    )
                )
            }
            leaf.extraExtensions += tampering.extraCredentialExtensions
            credentialCertificate = try leaf.sign(with: tampering.issuer?.key ?? intermediateKey, digest: .sha256)
        } catch {
            throw AppAttestError.openSSLFailure(
                "building the credential certificate failed",
                detail: String(describing: error)
            )
        }

        let receipt = try makeReceipt(
            for: device,
            credentialCertificate: credentialCertificate,
            clientDataHash: clientDataHash,
            at: now
        )
        return CBORValue.map([
            CBORMapEntry(.textString("fmt"), .textString(tampering.format ?? AttestationObject.format)),
            CBORMapEntry(
                .textString("attStmt"),
                .map([
                    CBORMapEntry(
                        .textString("x5c"),
                        .array(
                            [
                                .byteString(credentialCertificate.derBytes),
                                .byteString((tampering.issuer?.certificate ?? intermediateCertificate).derBytes),
                            ] + (tampering.appendRootToChain ? [.byteString(rootCertificate.derBytes)] : []))
                    ),
                    CBORMapEntry(.textString("receipt"), .byteString(receipt)),
                ])
            ),
            CBORMapEntry(.textString("authData"), .byteString(authData)),
        ]).encoded
    }

    /// A CMS SignedData receipt of type `ATTEST` with Apple's attributes, signed by the simulator's receipt signer.
    func makeReceipt(
        for device: SimulatedDevice,
        credentialCertificate: Certificate,
        clientDataHash: [UInt8],
        at now: Date
    ) throws -> [UInt8] {
        try signReceipt([
            (2, Array(device.appID.utf8)),
            (3, credentialCertificate.derBytes),
            (4, clientDataHash),
            (5, Array(Data(SecureRandom.bytes(count: 64)).base64EncodedString().utf8)),
            (6, Array("ATTEST".utf8)),
            (7, Array((device.environment == .development ? "sandbox" : "production").utf8)),
            (12, Array(Self.receiptTime.format(now).utf8)),
            (21, Array(Self.receiptTime.format(now.addingTimeInterval(90 * 86_400)).utf8)),
        ])
    }

    static let receiptTime = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// Signs `SET OF SEQUENCE { type, 1, OCTET STRING value }` as a CMS SignedData with the receipt signer.
    func signReceipt(_ attributes: [(Int, [UInt8])]) throws -> [UInt8] {
        var payload = DERWriter()
        payload.appendSetOf(
            attributes.map { type, value in
                var attribute = DERWriter()
                attribute.appendSequence { sequence in
                    sequence.appendInteger(type)
                    sequence.appendInteger(1)
                    sequence.appendOctetString(value)
                }
                return attribute.bytes
            }
        )
        return try signCMSSignedData(
            payload.bytes,
            signerCertificateDER: receiptSignerCertificate.derBytes,
            signerKeyPKCS8: receiptSignerKey.pkcs8DERRepresentation,
            chainDER: [intermediateCertificate.derBytes]
        )
    }

    /// Plays Apple's fraud-metric endpoint: a `RECEIPT`-type receipt for the same app and key as `receipt`, with a
    /// risk metric, refreshable a day later and valid for 90 days.
    ///
    /// - Parameters:
    ///   - receipt: A receipt this simulator issued (its signature is not checked here).
    ///   - riskMetric: The metric to report.
    /// - Returns: The new receipt.
    /// - Throws: ``AppAttestError/Code/malformedReceipt`` when `receipt` does not parse.
    public func fraudMetricReceipt(for receipt: [UInt8], riskMetric: Int = 1) throws -> [UInt8] {
        let previous = try Receipt(unverifiedBytes: receipt)
        let now = clock()
        var attributes: [(Int, [UInt8])] = [
            (2, Array(previous.appID.utf8)),
            (3, previous.attestedCertificate),
            (5, Array((previous.token ?? "").utf8)),
            (6, Array("RECEIPT".utf8)),
            (12, Array(Self.receiptTime.format(now).utf8)),
            (17, Array(String(riskMetric).utf8)),
            (19, Array(Self.receiptTime.format(now.addingTimeInterval(86_400)).utf8)),
            (21, Array(Self.receiptTime.format(now.addingTimeInterval(90 * 86_400)).utf8)),
        ]
        if let environment = previous.environment { attributes.append((7, Array(environment.utf8))) }
        return try signReceipt(attributes)
    }
}

/// Fields an ``AppAttestSimulator`` can falsify in an attestation, for negative tests.
@_spi(Testing)
public struct AttestationTampering: Sendable {
    /// The statement format instead of `apple-appattest`.
    public var format: String?
    /// The rpIdHash instead of SHA-256 of the App ID.
    public var rpIDHash: [UInt8]?
    /// The counter instead of 0.
    public var counter: UInt32?
    /// The AAGUID instead of the device environment's.
    public var aaguid: [UInt8]?
    /// The credential id instead of the key id.
    public var credentialID: [UInt8]?
    /// The X9.63 key written in the authenticator data instead of the device's.
    public var authenticatorDataKey: [UInt8]?
    /// An iOS 27 extension map to append.
    public var extensions: [(key: String, value: CBORValue)]?
    /// Whether the ED flag is set when ``extensions`` are appended (iOS 27 attestations leave it clear).
    public var flagExtensions = false
    /// The nonce the certificate attests instead of the right one.
    public var nonce: [UInt8]?
    /// Leave the nonce extension out.
    public var omitNonceExtension = false
    /// The nonce extension's raw value instead of `SEQUENCE { [1] EXPLICIT OCTET STRING }`.
    public var nonceExtensionValue: [UInt8]?
    /// More extensions for the credential certificate.
    public var extraCredentialExtensions: [Certificate.Extension] = []
    /// Send the root too, at the end of `x5c` (Apple does not; verifiers must cope).
    public var appendRootToChain = false
    /// Another issuer for the credential certificate (sent as the intermediate in `x5c`).
    public var issuer: (certificate: Certificate, key: ECPrivateKey)?
    /// The credential certificate's notBefore.
    public var notBefore: Date?
    /// The credential certificate's notAfter.
    public var notAfter: Date?

    /// No tampering.
    public init() {}
}

extension AppAttestSimulator: ReceiptRefreshing {
    /// Answers like Apple's fraud-metric endpoint, with risk metric 1.
    ///
    /// - Parameters:
    ///   - receipt: The stored receipt.
    ///   - environment: Ignored: the simulator serves both environments.
    /// - Returns: A `RECEIPT`-type receipt.
    /// - Throws: ``AppAttestError/Code/malformedReceipt`` when `receipt` does not parse.
    public func refreshedReceipt(for receipt: [UInt8], environment: AppAttestEnvironment) async throws -> [UInt8] {
        try fraudMetricReceipt(for: receipt)
    }
}
