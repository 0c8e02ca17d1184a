/// Where a key lives and the attestation was made (`SecurityLevel ::= ENUMERATED`, Android's "Key and ID attestation"
/// schema):
///
/// ```
/// SecurityLevel ::= ENUMERATED {
///     Software                   (0),
///     TrustedEnvironment         (1),
///     StrongBox                  (2),
/// }
/// ```
///
/// Levels are ordered: software < TEE < StrongBox.
public enum SecurityLevel: Int, Hashable, Sendable, Comparable, CaseIterable {
    /// Android's software keystore: no secure hardware; nothing it says is trustworthy.
    case software = 0
    /// A trusted execution environment (TEE).
    case trustedEnvironment = 1
    /// A discrete secure element (StrongBox).
    case strongBox = 2

    /// The name the vectors and Google's verifier print: `SOFTWARE`, `TRUSTED_ENVIRONMENT`, `STRONG_BOX`.
    public var name: String {
        switch self {
        case .software: "SOFTWARE"
        case .trustedEnvironment: "TRUSTED_ENVIRONMENT"
        case .strongBox: "STRONG_BOX"
        }
    }

    /// Orders the levels by how well they protect the key.
    public static func < (lhs: SecurityLevel, rhs: SecurityLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The device's boot state (`VerifiedBootState ::= ENUMERATED` of the RootOfTrust):
///
/// ```
/// VerifiedBootState ::= ENUMERATED {
///     Verified                   (0),
///     SelfSigned                 (1),
///     Unverified                 (2),
///     Failed                     (3),
/// }
/// ```
public enum VerifiedBootState: Int, Hashable, Sendable, CaseIterable {
    /// The boot chain is verified up to a key the device manufacturer built in.
    case verified = 0
    /// The boot chain is verified up to a key the user installed.
    case selfSigned = 1
    /// The bootloader is unlocked: anything may be running.
    case unverified = 2
    /// Verification failed.
    case failed = 3

    /// `VERIFIED`, `SELF_SIGNED`, `UNVERIFIED` or `FAILED`.
    public var name: String {
        switch self {
        case .verified: "VERIFIED"
        case .selfSigned: "SELF_SIGNED"
        case .unverified: "UNVERIFIED"
        case .failed: "FAILED"
        }
    }
}

/// Where a key came from (`Tag.ORIGIN`, KeyMint's `KeyOrigin.aidl`).
public enum KeyOrigin: Int, Hashable, Sendable, CaseIterable {
    /// Generated in the secure hardware: the private key never left it.
    case generated = 0
    /// Derived inside the secure hardware.
    case derived = 1
    /// Imported from outside: the private key existed outside the hardware.
    case imported = 2
    /// Reserved.
    case reserved = 3
    /// Imported wrapped for the hardware (secure import).
    case securelyImported = 4

    /// `GENERATED`, `DERIVED`, `IMPORTED`, `RESERVED` or `SECURELY_IMPORTED`.
    public var name: String {
        switch self {
        case .generated: "GENERATED"
        case .derived: "DERIVED"
        case .imported: "IMPORTED"
        case .reserved: "RESERVED"
        case .securelyImported: "SECURELY_IMPORTED"
        }
    }
}

/// KeyMint's `KeyPurpose` values that the verifier names.
public enum KeyPurpose {
    /// `KeyPurpose.SIGN` (2): the key may sign.
    public static let sign: Int64 = 2
}
