/// Why a well-formed attestation, assertion or receipt was not trusted.
///
/// Failures compare by ``reason`` only. The ``message`` says what failed, what was expected and what to do; it never
/// holds key bytes or raw input.
public struct AppAttestFailure: Hashable, CustomStringConvertible {
    /// A stable code naming the failed check; new codes are additive.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case certificateChainUntrusted
            case certificateExpired
            case certificateNotYetValid
            case certificateNotAuthority
            case nonceMissing
            case nonceMismatch
            case publicKeyMismatch
            case keyIDMismatch
            case credentialIDMismatch
            case rpIDMismatch
            case counterNotZero
            case environmentMismatch
            case unknownAAGUID
            case signatureInvalid
            case counterNotIncreasing
            case receiptSignatureInvalid
            case receiptChainUntrusted
            case receiptExpired
            case receiptMismatch
        }

        let backing: Backing

        /// A certificate's signature does not verify under its issuer, its issuer is not the next certificate, or the
        /// chain does not end at the configured anchor (Apple's step 1).
        public static let certificateChainUntrusted = Reason(backing: .certificateChainUntrusted)
        /// A certificate's `notAfter` is before the verification time.
        public static let certificateExpired = Reason(backing: .certificateExpired)
        /// A certificate's `notBefore` is after the verification time.
        public static let certificateNotYetValid = Reason(backing: .certificateNotYetValid)
        /// A certificate that issues another is not a CA (basicConstraints `cA` false or missing, keyCertSign unset,
        /// or a path length constraint exceeded).
        public static let certificateNotAuthority = Reason(backing: .certificateNotAuthority)
        /// The credential certificate lacks the nonce extension 1.2.840.113635.100.8.2.
        public static let nonceMissing = Reason(backing: .nonceMissing)
        /// The nonce extension is not SHA-256(authData ‖ clientDataHash) (Apple's steps 2–4).
        public static let nonceMismatch = Reason(backing: .nonceMismatch)
        /// The credential certificate's key differs from the key in the authenticator data.
        public static let publicKeyMismatch = Reason(backing: .publicKeyMismatch)
        /// SHA-256 of the public key is not the key identifier (Apple's step 5).
        public static let keyIDMismatch = Reason(backing: .keyIDMismatch)
        /// The authenticator data's credential id is not the key identifier (Apple's step 9).
        public static let credentialIDMismatch = Reason(backing: .credentialIDMismatch)
        /// rpIdHash is not SHA-256 of the configured App ID (Apple's attestation step 6, assertion step 4).
        public static let rpIDMismatch = Reason(backing: .rpIDMismatch)
        /// An attestation's counter is not 0 (Apple's step 7).
        public static let counterNotZero = Reason(backing: .counterNotZero)
        /// The AAGUID names the other environment than the configured one (Apple's step 8).
        public static let environmentMismatch = Reason(backing: .environmentMismatch)
        /// The AAGUID names no App Attest environment.
        public static let unknownAAGUID = Reason(backing: .unknownAAGUID)
        /// The assertion's signature does not verify under the stored public key (Apple's assertion step 3).
        public static let signatureInvalid = Reason(backing: .signatureInvalid)
        /// The assertion's counter is not greater than the stored one (Apple's assertion step 5): a replay or a clone.
        public static let counterNotIncreasing = Reason(backing: .counterNotIncreasing)
        /// The receipt's CMS signature does not verify.
        public static let receiptSignatureInvalid = Reason(backing: .receiptSignatureInvalid)
        /// The receipt's signing certificate does not chain to the configured root at the verification time.
        public static let receiptChainUntrusted = Reason(backing: .receiptChainUntrusted)
        /// The receipt's expiration time is before the verification time.
        public static let receiptExpired = Reason(backing: .receiptExpired)
        /// A refreshed receipt names another App ID or attested certificate than the stored one.
        public static let receiptMismatch = Reason(backing: .receiptMismatch)

        /// The code's stable name, e.g. `nonceMismatch`.
        public var description: String { backing.rawValue }
    }

    /// The failed check.
    public let reason: Reason
    private let makeMessage: @Sendable () -> String

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - reason: The failed check.
    ///   - message: Builds the explanation on demand.
    public init(_ reason: Reason, message: @escaping @Sendable @autoclosure () -> String) {
        self.reason = reason
        self.makeMessage = message
    }

    /// What failed, what was expected and what to do.
    public var message: String { makeMessage() }

    /// `reason: message`.
    public var description: String { "\(reason): \(message)" }

    /// Compares reasons only.
    public static func == (lhs: AppAttestFailure, rhs: AppAttestFailure) -> Bool { lhs.reason == rhs.reason }

    /// Hashes the reason only.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
}

extension AppAttestFailure: Sendable {}
