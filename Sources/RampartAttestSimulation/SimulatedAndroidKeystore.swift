public import Foundation
public import RampartCrypto
public import RampartKeyAttestation
public import RampartX509

/// Plays an Android device's Keystore and Google's attestation CA for tests: a P-384 test root, a P-256
/// intermediate and, for each key, a P-256 leaf whose KeyDescription (OID 1.3.6.1.4.1.11129.2.1.17) carries the
/// challenge, the app's package name and signing-certificate digest, the security level and the boot state, in the
/// shape real devices produce (source.android.com, "Key and ID attestation").
///
/// Verify its chains with a ``KeyAttestationVerifier`` given ``rootCertificate`` as an extra root; without it they are
/// refused (`untrustedRoot`), as they must be.
///
/// - Warning: The simulator's root is a test anchor. Never configure it in production.
public struct SimulatedAndroidKeystore: Sendable {
    /// What the simulated device and app report in a key's KeyDescription. The defaults are a locked, verified phone
    /// with a TEE; change a field to make the key a negative test.
    public struct Device: Sendable {
        /// The app's package name.
        public var packageName: String
        /// SHA-256 digests of the app's signing certificates.
        public var signingCertificateDigests: [[UInt8]]
        /// Where the key lives and the attestation is made.
        public var securityLevel: SecurityLevel = .trustedEnvironment
        /// The boot state in the RootOfTrust.
        public var verifiedBootState: VerifiedBootState = .verified
        /// Whether the bootloader is locked.
        public var deviceLocked = true
        /// Whether the hardware-enforced list carries a RootOfTrust at all.
        public var includesRootOfTrust = true
        /// The hardware-enforced OS patch level, `YYYYMM`.
        public var osPatchLevel: Int64 = 202_511
        /// The key's origin.
        public var origin: KeyOrigin = .generated
        /// The key's purposes (KeyMint `KeyPurpose`; 2 is SIGN).
        public var purposes: [Int64] = [KeyPurpose.sign]
        /// Whether the OS adds attestationApplicationId.
        public var includesApplicationID = true

        /// Describes a device and the app on it.
        ///
        /// - Parameters:
        ///   - packageName: The app's package name.
        ///   - signingCertificateDigests: SHA-256 digests of the app's signing certificates.
        public init(packageName: String, signingCertificateDigests: [[UInt8]]) {
            self.packageName = packageName
            self.signingCertificateDigests = signingCertificateDigests
        }
    }

    /// The simulator's self-signed P-384 root: configure it as an extra root of the verifier under test.
    public let rootCertificate: Certificate
    /// The P-256 intermediate that signs attested keys' certificates.
    public let intermediateCertificate: Certificate
    /// The root's private key, for tests that forge variants of a chain (an intermediate that is not a CA, …).
    public let rootKey: ECPrivateKey
    /// The intermediate's private key, for tests that re-sign a leaf.
    public let intermediateKey: ECPrivateKey
    let clock: @Sendable () -> Date

    /// Creates a fresh test CA, valid from a year before the clock's time for ten years.
    ///
    /// - Parameter clock: The time the CA and each key's creation time are made at; the system clock by default.
    /// - Throws: ``RampartX509/X509Error`` or `CryptoError` when building a certificate fails.
    public init(clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.clock = clock
        let now = clock()
        let (start, end) = (now.addingTimeInterval(-365 * 86_400), now.addingTimeInterval(10 * 365 * 86_400))
        rootKey = ECPrivateKey(curve: .p384)
        let rootName = try DistinguishedName(attributes: [
            .init(.NameAttribute.commonName, "Rampart Simulated Key Attestation Root"),
            .init(.NameAttribute.organizationName, "Rampart Simulator"),
        ])
        var root = CertificateBuilder(
            subject: rootName, issuer: rootName, publicKey: rootKey.publicKey, notBefore: start, notAfter: end)
        root.basicConstraints = BasicConstraints(isCA: true)
        root.keyUsage = [.keyCertSign, .crlSign]
        rootCertificate = try root.sign(with: rootKey)

        intermediateKey = ECPrivateKey(curve: .p256)
        var intermediate = CertificateBuilder(
            subject: try DistinguishedName(attributes: [
                .init(.NameAttribute.commonName, "Rampart Simulated Keystore TEE"),
                .init(.NameAttribute.organizationName, "Rampart Simulator"),
            ]),
            issuer: rootName, publicKey: intermediateKey.publicKey, notBefore: start, notAfter: end)
        intermediate.basicConstraints = BasicConstraints(isCA: true, pathLengthConstraint: 0)
        intermediate.keyUsage = [.keyCertSign]
        intermediateCertificate = try intermediate.sign(with: rootKey)
    }

    /// Restores a CA made by ``init(clock:)`` from its certificates and keys (as `rampart device init --android`
    /// keeps them).
    ///
    /// - Parameters:
    ///   - rootCertificate: The root.
    ///   - rootKey: The root's private key.
    ///   - intermediateCertificate: The intermediate the root signed.
    ///   - intermediateKey: The intermediate's private key.
    ///   - clock: The time each key's creation time is made at.
    /// - Throws: ``RampartX509/X509Error`` (`invalidCertificate`) when a key is not its certificate's.
    public init(
        rootCertificate: Certificate, rootKey: ECPrivateKey, intermediateCertificate: Certificate,
        intermediateKey: ECPrivateKey, clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard rootCertificate.subjectPublicKeyInfoBytes == rootKey.publicKey.derRepresentation,
            intermediateCertificate.subjectPublicKeyInfoBytes == intermediateKey.publicKey.derRepresentation
        else {
            throw X509Error.invalidCertificate(
                "the simulated Key Attestation CA's keys are not its certificates' keys; make a new device")
        }
        self.rootCertificate = rootCertificate
        self.rootKey = rootKey
        self.intermediateCertificate = intermediateCertificate
        self.intermediateKey = intermediateKey
        self.clock = clock
    }

    /// Generates a P-256 signing key attested with `challenge`, as `KeyPairGenerator` with
    /// `setAttestationChallenge(challenge)` does on a device.
    ///
    /// - Parameters:
    ///   - challenge: The server's challenge, as bytes.
    ///   - device: What the device and app report.
    /// - Returns: The key and its certificate chain, leaf first.
    /// - Throws: ``RampartX509/X509Error`` or `CryptoError` when building the certificate fails.
    public func generateKey(challenge: [UInt8], device: Device) throws -> SimulatedAndroidKey {
        let key = ECPrivateKey(curve: .p256)
        var leaf = CertificateBuilder(
            subject: try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Android Keystore Key")]),
            issuer: intermediateCertificate.subject, publicKey: key.publicKey,
            notBefore: Date(timeIntervalSince1970: 0), notAfter: Date(timeIntervalSince1970: 2_461_449_600),
            serialNumber: [1])
        leaf.keyUsage = [.digitalSignature]
        leaf.extraExtensions = [
            Certificate.Extension(
                oid: .KeyAttestation.keyDescription, critical: false,
                value: keyDescription(challenge: challenge, device: device).derEncoded)
        ]
        let certificate = try leaf.sign(with: intermediateKey)
        return SimulatedAndroidKey(
            privateKey: key, certificateChain: [certificate, intermediateCertificate, rootCertificate])
    }

    /// The KeyDescription a device would write for a key made now with `challenge`.
    ///
    /// - Parameters:
    ///   - challenge: The attestation challenge.
    ///   - device: What the device and app report.
    /// - Returns: The description.
    public func keyDescription(challenge: [UInt8], device: Device) -> KeyDescription {
        var software = AuthorizationList()
        software.creationDateTime = Int64(clock().timeIntervalSince1970 * 1000)
        if device.includesApplicationID {
            software.attestationApplicationID = AttestationApplicationID(
                packages: [.init(name: device.packageName, version: 1)],
                signatureDigests: device.signingCertificateDigests)
        }
        var hardware = AuthorizationList()
        hardware.purposes = device.purposes
        hardware.algorithm = 3  // KeyMint Algorithm.EC
        hardware.keySize = 256
        hardware.digests = [4]  // Digest.SHA_2_256
        hardware.ecCurve = 1  // EcCurve.P_256
        hardware.noAuthRequired = true
        hardware.origin = device.origin
        if device.includesRootOfTrust {
            hardware.rootOfTrust = RootOfTrust(
                verifiedBootKey: SHA256.hash(Array("rampart simulated boot key".utf8)),
                deviceLocked: device.deviceLocked, verifiedBootState: device.verifiedBootState,
                verifiedBootHash: SHA256.hash(Array("rampart simulated boot image".utf8)))
        }
        hardware.osVersion = 160_000
        hardware.osPatchLevel = device.osPatchLevel
        return KeyDescription(
            attestationVersion: 300, attestationSecurityLevel: device.securityLevel, keyMintVersion: 300,
            keyMintSecurityLevel: device.securityLevel, attestationChallenge: challenge,
            softwareEnforced: software, hardwareEnforced: hardware)
    }
}

/// A simulated Keystore key: its private key and its attestation chain.
public struct SimulatedAndroidKey: Sendable {
    /// The P-256 private key (on a device it never leaves the secure hardware).
    public let privateKey: ECPrivateKey
    /// The chain, leaf first: leaf, intermediate, root (as `KeyStore.getCertificateChain` returns it).
    public let certificateChain: [Certificate]

    /// The chain as DER certificates, leaf first.
    public var certificateChainDER: [[UInt8]] { certificateChain.map(\.derBytes) }

    /// Signs `message` with ECDSA P-256 and SHA-256, DER-encoded, as `Signature.getInstance("SHA256withECDSA")`
    /// does.
    ///
    /// - Parameter message: The bytes to sign.
    /// - Returns: The DER `ECDSA-Sig-Value`.
    /// - Throws: `CryptoError` when signing fails.
    public func signature(for message: [UInt8]) throws -> [UInt8] {
        try privateKey.signature(for: message, digest: .sha256)
    }
}
