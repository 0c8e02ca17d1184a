public import RampartAppAttest

/// The provisioning-info extension (OID 1.3.6.1.4.1.11129.2.1.30) of a remotely provisioned (RKP) attestation
/// certificate: a CBOR map with unsigned integer keys (developer.android.com, "Verify hardware-backed key pairs with
/// key attestation", provisioning information extension schema):
///
/// ```
/// ProvisioningInfo = {
///     1 : uint,        ; certificates issued to the device by the provisioning server (recently)
///     * uint => any,   ; further fields, kept as received (real chains also carry 2: true and 3: "Google")
/// }
/// ```
///
/// Read with RampartAppAttest's strict CBOR decoder (shortest forms, definite lengths, unique keys, no trailing
/// bytes) under ``limits``.
public struct ProvisioningInfo: Hashable, Sendable {
    /// Bounds for the extension's CBOR: 1 KiB, depth 4, 64 items (real ones are under 20 bytes).
    public static let limits = CBORDecoder.Limits(maximumByteCount: 1024, maximumDepth: 4, maximumItemCount: 64)

    /// How many certificates the provisioning server issued to the device (key 1).
    public let certificatesIssued: UInt64
    /// Every entry of the map, in encoded order.
    public let entries: [CBORMapEntry]

    /// Parses the extension's value (the CBOR inside the extension's OCTET STRING).
    ///
    /// - Parameter cbor: The CBOR bytes.
    /// - Throws: ``KeyAttestationError/Code/malformedProvisioningInfo`` when the bytes are not strict CBOR, not a
    ///   map with unsigned integer keys, or lack an unsigned key 1; `limitExceeded` beyond ``limits``.
    public init(cbor: [UInt8]) throws {
        let value: CBORValue
        do {
            value = try CBORDecoder(limits: Self.limits).decode(cbor)
        } catch let error as AppAttestError where error.code == .limitExceeded {
            throw KeyAttestationError.limitExceeded("the provisioning info: \(error.reason)")
        } catch let error as AppAttestError {
            throw KeyAttestationError.malformedProvisioningInfo("the provisioning info: \(error.reason)")
        }
        guard let entries = value.mapEntries else {
            throw KeyAttestationError.malformedProvisioningInfo("the provisioning info is not a CBOR map")
        }
        guard entries.allSatisfy({ if case .unsignedInteger = $0.key { true } else { false } }) else {
            throw KeyAttestationError.malformedProvisioningInfo("a provisioning info key is not an unsigned integer")
        }
        guard case .unsignedInteger(let issued)? = value[integerKey: 1] else {
            throw KeyAttestationError.malformedProvisioningInfo(
                "the provisioning info lacks key 1 (certificates issued) as an unsigned integer")
        }
        self.certificatesIssued = issued
        self.entries = entries
    }
}
