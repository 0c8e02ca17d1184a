import RampartCrypto
/// Why a certificate chain was not trusted: a stable reason code, the certificate it concerns and a message that says
/// what to do.
///
/// A failure is a *verdict*, not an error: the chain was well-formed but a client must refuse it. ``reason`` is the
/// machine-readable part (`rampart verify-chain --json` prints it as `"reason"`).
public struct ChainFailure: Hashable, Sendable, CustomStringConvertible {
    /// A stable reason code. New codes are additive; compare against the static members.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case expired
            case notYetValid
            case hostnameMismatch
            case selfSigned
            case untrustedRoot
            case missingIntermediate
            case notACA
            case badSignature
            case wrongPurpose
            case pathLengthExceeded
            case keyUsage
            case nameConstraints
            case weakKey
            case weakSignatureAlgorithm
            case unhandledCriticalExtension
            case malformedCertificate
            case chainTooLong
            case invalidHostname
            case leafIsCA
            case revoked
            case validityPeriodTooLong
            case other
        }

        let backing: Backing

        /// The validation time is after the certificate's `notAfter`.
        public static let expired = Reason(backing: .expired)
        /// The validation time is before the certificate's `notBefore`.
        public static let notYetValid = Reason(backing: .notYetValid)
        /// No DNS name (or IP address) in the leaf's subjectAltName matches the host; the subject CN is never used.
        public static let hostnameMismatch = Reason(backing: .hostnameMismatch)
        /// The leaf is self-signed and is not a trust anchor.
        public static let selfSigned = Reason(backing: .selfSigned)
        /// The chain ends in a root (or issuer) that is not among the trust anchors.
        public static let untrustedRoot = Reason(backing: .untrustedRoot)
        /// The issuer of the leaf was neither presented nor a trust anchor: the server must send its intermediate.
        public static let missingIntermediate = Reason(backing: .missingIntermediate)
        /// A certificate used as an issuer is not a CA (no basicConstraints `cA`, or not allowed to sign certificates).
        public static let notACA = Reason(backing: .notACA)
        /// A signature in the chain does not verify with its issuer's key.
        public static let badSignature = Reason(backing: .badSignature)
        /// A certificate's extendedKeyUsage does not allow the purpose (serverAuth for TLS).
        public static let wrongPurpose = Reason(backing: .wrongPurpose)
        /// A CA's basicConstraints `pathLenConstraint` is exceeded.
        public static let pathLengthExceeded = Reason(backing: .pathLengthExceeded)
        /// A CA's keyUsage does not include `keyCertSign`.
        public static let keyUsage = Reason(backing: .keyUsage)
        /// A name in the chain violates a CA's name constraints.
        public static let nameConstraints = Reason(backing: .nameConstraints)
        /// A key is too small (RSA under 2048 bits, ECC under 224 bits), as iOS refuses.
        public static let weakKey = Reason(backing: .weakKey)
        /// A signature uses a digest too weak to trust (SHA-1, MD5).
        public static let weakSignatureAlgorithm = Reason(backing: .weakSignatureAlgorithm)
        /// A certificate carries a critical extension that is not understood.
        public static let unhandledCriticalExtension = Reason(backing: .unhandledCriticalExtension)
        /// A certificate breaks the RFC 5280 profile (missing key identifiers, empty names, malformed times, …).
        public static let malformedCertificate = Reason(backing: .malformedCertificate)
        /// More intermediates than `ChainVerifier.maximumIntermediateCount` (RampartChainVerification) or a longer path than allowed.
        public static let chainTooLong = Reason(backing: .chainTooLong)
        /// The host name to check is itself malformed (empty, too long, bad characters).
        public static let invalidHostname = Reason(backing: .invalidHostname)
        /// The leaf is a CA certificate (basicConstraints `cA` TRUE), which the web PKI forbids for a TLS server
        /// (CA/Browser Forum Baseline Requirements 7.1.2.7.8: "cA MUST be FALSE").
        public static let leafIsCA = Reason(backing: .leafIsCA)
        /// A certificate of the path is listed in a certificate revocation list its issuer signed.
        public static let revoked = Reason(backing: .revoked)
        /// The leaf is valid for longer than the policy allows (Apple: 825 days for certificates issued after
        /// 2019-07-01, 398 days under Apple's root store for those issued from 2020-09-01).
        public static let validityPeriodTooLong = Reason(backing: .validityPeriodTooLong)
        /// Any other failure; ``ChainFailure/message`` names OpenSSL's reason.
        public static let other = Reason(backing: .other)

        /// The code's stable name, e.g. `untrustedRoot`.
        public var description: String { backing.rawValue }
    }

    /// What failed.
    public let reason: Reason
    /// The index, in the built path (0 = leaf), of the certificate concerned; nil when no certificate is concerned.
    public let certificateIndex: Int?
    /// A sentence saying what failed, about which certificate, and what to do.
    public let message: String
    /// OpenSSL's `X509_V_ERR_*` code, for logs; 0 when the failure was found before OpenSSL ran.
    public let openSSLCode: Int

    /// Creates a failure.
    ///
    /// - Parameters:
    ///   - reason: The reason code.
    ///   - certificateIndex: The certificate concerned, as an index in the path (0 = leaf).
    ///   - message: What failed and what to do.
    ///   - openSSLCode: OpenSSL's verification error code, or 0.
    public init(reason: Reason, certificateIndex: Int?, message: String, openSSLCode: Int = 0) {
        self.reason = reason
        self.certificateIndex = certificateIndex
        self.message = message
        self.openSSLCode = openSSLCode
    }

    /// `reason (certificate i): message`.
    public var description: String {
        "\(reason)\(certificateIndex.map { " (certificate \($0))" } ?? ""): \(message)"
    }
}
