import RampartX509

/// What the bootloader told the secure hardware about the device's boot (`RootOfTrust`, Android's "Key and ID
/// attestation" schema):
///
/// ```
/// RootOfTrust ::= SEQUENCE {
///     verifiedBootKey            OCTET_STRING,
///     deviceLocked               BOOLEAN,
///     verifiedBootState          VerifiedBootState,
///     verifiedBootHash           OCTET_STRING,    -- attestation version 3 and later
/// }
/// ```
public struct RootOfTrust: Hashable, Sendable {
    /// The most bytes of the boot key and boot hash (DoS bound; both are SHA-256 digests, 32 bytes).
    public static let maximumDigestByteCount = 64

    /// A digest of the key that verified the boot image (all zeros on an unlocked device).
    public var verifiedBootKey: [UInt8]
    /// Whether the bootloader is locked.
    public var deviceLocked: Bool
    /// The boot state.
    public var verifiedBootState: VerifiedBootState
    /// A digest of the verified boot data (absent before attestation version 3).
    public var verifiedBootHash: [UInt8]?

    /// Creates a root of trust.
    ///
    /// - Parameters:
    ///   - verifiedBootKey: The boot key digest.
    ///   - deviceLocked: Whether the bootloader is locked.
    ///   - verifiedBootState: The boot state.
    ///   - verifiedBootHash: The boot hash, if any.
    public init(
        verifiedBootKey: [UInt8], deviceLocked: Bool, verifiedBootState: VerifiedBootState,
        verifiedBootHash: [UInt8]?
    ) {
        self.verifiedBootKey = verifiedBootKey
        self.deviceLocked = deviceLocked
        self.verifiedBootState = verifiedBootState
        self.verifiedBootHash = verifiedBootHash
    }

    /// Whether the device booted verified code with a locked bootloader: the state in which the OS-supplied fields
    /// (attestationApplicationId) can be believed.
    public var isVerifiedAndLocked: Bool { deviceLocked && verifiedBootState == .verified }

    init(node: ASN1Node) throws {
        guard node.identifier == .sequence else {
            throw KeyAttestationError.malformedKeyDescription("the RootOfTrust should be a SEQUENCE")
        }
        var reader = DERCursor(node, "the RootOfTrust")
        verifiedBootKey = try DERValue.octets(
            reader.next(.octetString, "verifiedBootKey"), "verifiedBootKey", limit: Self.maximumDigestByteCount)
        deviceLocked = try DERValue.boolean(reader.next(.boolean, "deviceLocked"), "deviceLocked")
        let state = try DERValue.int64(
            reader.next(.enumerated, "verifiedBootState"), "verifiedBootState", identifier: .enumerated)
        guard let known = Int(exactly: state).flatMap(VerifiedBootState.init(rawValue:)) else {
            throw KeyAttestationError.malformedKeyDescription("verifiedBootState \(state) is not 0 to 3")
        }
        verifiedBootState = known
        verifiedBootHash = try reader.optional(.octetString).map {
            try DERValue.octets($0, "verifiedBootHash", limit: Self.maximumDigestByteCount)
        }
        try reader.finish()
    }

    func serialize(into writer: inout DERWriter) {
        writer.appendSequence { sequence in
            sequence.appendOctetString(verifiedBootKey)
            sequence.appendBoolean(deviceLocked)
            sequence.appendEnumerated(verifiedBootState.rawValue)
            if let verifiedBootHash { sequence.appendOctetString(verifiedBootHash) }
        }
    }
}
