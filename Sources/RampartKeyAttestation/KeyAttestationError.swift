/// The one error type of ``RampartKeyAttestation``: thrown for malformed or unsupported input.
///
/// A well-formed chain that fails a check is not an error: ``KeyAttestationVerifier`` returns a
/// ``KeyAttestationVerdict`` whose ``KeyAttestationFailure/reason`` names the check. Errors compare by ``code`` only;
/// new codes are additive.
public struct KeyAttestationError: Error {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case malformedKeyDescription
            case malformedProvisioningInfo
            case malformedCertificate
            case malformedRevocationList
            case malformedPolicy
            case limitExceeded
            case invalidArgument
        }

        let backing: Backing

        /// The KeyDescription (OID 1.3.6.1.4.1.11129.2.1.17) is not strict DER, breaks its ASN.1 grammar (a tag out
        /// of order or unknown, a value of the wrong type or out of range) or has trailing bytes.
        public static let malformedKeyDescription = Code(backing: .malformedKeyDescription)
        /// The provisioning-info extension (OID 1.3.6.1.4.1.11129.2.1.30) is not the strict CBOR map it should be.
        public static let malformedProvisioningInfo = Code(backing: .malformedProvisioningInfo)
        /// A certificate of the chain is not a strict DER X.509 certificate.
        public static let malformedCertificate = Code(backing: .malformedCertificate)
        /// The revocation list is not Google's JSON status format.
        public static let malformedRevocationList = Code(backing: .malformedRevocationList)
        /// The policy (configuration) holds an unknown key or an unusable value.
        public static let malformedPolicy = Code(backing: .malformedPolicy)
        /// An input is longer, deeper or has more elements than a named limit allows (a denial-of-service bound).
        public static let limitExceeded = Code(backing: .limitExceeded)
        /// An argument is unusable (an empty chain or challenge, a challenge longer than KeyMint accepts).
        public static let invalidArgument = Code(backing: .invalidArgument)

        /// The code's stable name, e.g. `malformedKeyDescription`.
        public var description: String { backing.rawValue }
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence saying what went wrong and what to do; never holds key bytes or raw input.
    public let reason: String
    /// Extra detail for logs.
    public let detail: String
    /// The source file that raised the error.
    public let file: String
    /// The source line that raised the error.
    public let line: UInt

    init(code: Code, reason: String, detail: String = "", file: String, line: UInt) {
        self.code = code
        self.reason = reason
        self.detail = detail
        self.file = file
        self.line = line
    }

    /// The KeyDescription is malformed.
    public static func malformedKeyDescription(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .malformedKeyDescription, reason: reason, detail: detail, file: file, line: line)
    }

    /// The provisioning-info extension is malformed.
    public static func malformedProvisioningInfo(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .malformedProvisioningInfo, reason: reason, detail: detail, file: file, line: line)
    }

    /// A certificate is malformed.
    public static func malformedCertificate(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .malformedCertificate, reason: reason, detail: detail, file: file, line: line)
    }

    /// The revocation list is malformed.
    public static func malformedRevocationList(
        _ reason: String, detail: String = "", file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .malformedRevocationList, reason: reason, detail: detail, file: file, line: line)
    }

    /// The policy is malformed.
    public static func malformedPolicy(
        _ reason: String, file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .malformedPolicy, reason: reason, file: file, line: line)
    }

    /// A named limit was exceeded.
    public static func limitExceeded(
        _ reason: String, file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .limitExceeded, reason: reason, file: file, line: line)
    }

    /// An argument is unusable.
    public static func invalidArgument(
        _ reason: String, file: String = #fileID, line: UInt = #line
    ) -> KeyAttestationError {
        KeyAttestationError(code: .invalidArgument, reason: reason, file: file, line: line)
    }
}

extension KeyAttestationError: Sendable {}
