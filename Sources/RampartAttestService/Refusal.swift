public import RampartKeyAttestation

/// Why the service refused a well-formed request: the verdict for input it does not trust.
///
/// Refusals are values, not errors: the request parsed, and the answer is "no". ``reason``'s
/// description is the stable `error` string of the HTTP body; ``message`` says what to do and never echoes
/// challenges, assertions or keys. Refusals compare by ``reason`` only.
public struct Refusal: Hashable, CustomStringConvertible {
    /// The refusal's stable code.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable, CaseIterable {
            case challengeUsed
            case challengeExpired
            case challengeMismatch
            case unknownKey
            case keyBlocked
            case keyExists
            case wrongSubject
            case wrongEnvironment
            case invalidAttestation
            case invalidAssertion
            case counterReplay
            case assertionRequired
            case subjectRequired
            case malformedSignature
            case digestMismatch
            case wrongPlatform
            case invalidSignature
            case androidNotConfigured
            /// Carries a ``KeyAttestationFailure/Reason``; its code is `keyAttestation.<reason>`.
            case keyAttestation
        }

        let backing: Backing
        /// The Key Attestation check that failed, for ``keyAttestation(_:)`` reasons.
        let attestationFailure: KeyAttestationFailure.Reason?

        init(backing: Backing) {
            self.backing = backing
            attestationFailure = nil
        }

        private init(attestationFailure: KeyAttestationFailure.Reason) {
            backing = .keyAttestation
            self.attestationFailure = attestationFailure
        }

        /// The challenge was never issued or was already consumed (one-time); request a new one.
        public static let challengeUsed = Reason(backing: .challengeUsed)
        /// The challenge outlived its lifetime.
        public static let challengeExpired = Reason(backing: .challengeExpired)
        /// The challenge was issued for another purpose or subject.
        public static let challengeMismatch = Reason(backing: .challengeMismatch)
        /// No key with this id is registered: the app must generate and attest a new key.
        public static let unknownKey = Reason(backing: .unknownKey)
        /// The key's risk score reached the block threshold: the app must attest a new key.
        public static let keyBlocked = Reason(backing: .keyBlocked)
        /// A key with this id is already registered.
        public static let keyExists = Reason(backing: .keyExists)
        /// The key is registered to another subject.
        public static let wrongSubject = Reason(backing: .wrongSubject)
        /// The attestation is for the other App Attest environment (development vs production).
        public static let wrongEnvironment = Reason(backing: .wrongEnvironment)
        /// The attestation object did not verify (chain, nonce, app id, key id, …).
        public static let invalidAttestation = Reason(backing: .invalidAttestation)
        /// The assertion did not verify (signature over the canonical client data, app id).
        public static let invalidAssertion = Reason(backing: .invalidAssertion)
        /// The assertion's counter is not greater than the stored one: a replay.
        public static let counterReplay = Reason(backing: .counterReplay)
        /// The route requires an assertion and the request carried none.
        public static let assertionRequired = Reason(backing: .assertionRequired)
        /// The request has no subject from the configured ``SubjectSource`` (no trusted header, no session token, or
        /// a public request under `{"internal": true}`), or the subject is not 1...256 bytes of text.
        public static let subjectRequired = Reason(backing: .subjectRequired)
        /// A signed-request header is malformed: not standard base64, a key id that is not 32 bytes, a
        /// `Content-Digest` not of the form `sha-256=:<base64>:`.
        public static let malformedSignature = Reason(backing: .malformedSignature)
        /// The body's SHA-256 is not the one in `Content-Digest`: the body was changed after signing.
        public static let digestMismatch = Reason(backing: .digestMismatch)

        /// The signature header does not fit the key's platform: `Rampart-Assertion` for an Android key, or
        /// `Rampart-Signature` for an App Attest key.
        public static let wrongPlatform = Reason(backing: .wrongPlatform)
        /// An Android key's `Rampart-Signature` does not verify over the request's client data.
        public static let invalidSignature = Reason(backing: .invalidSignature)
        /// The service has no `"android"` configuration, so it neither registers Android keys nor accepts their
        /// signatures.
        public static let androidNotConfigured = Reason(backing: .androidNotConfigured)

        /// An Android registration whose Key Attestation chain failed `reason` (the codes of `rampart keyattest
        /// verify`): `keyAttestation.packageMismatch`, `keyAttestation.challengeMismatch`, ….
        ///
        /// - Parameter reason: The failed check.
        /// - Returns: The refusal reason.
        public static func keyAttestation(_ reason: KeyAttestationFailure.Reason) -> Reason {
            Reason(attestationFailure: reason)
        }

        /// The code's stable name, e.g. `counterReplay` or `keyAttestation.deviceUnlocked`.
        public var description: String {
            attestationFailure.map { "keyAttestation.\($0)" } ?? backing.rawValue
        }

        /// Every reason, for the OpenAPI check.
        static var allCases: [Reason] {
            Backing.allCases.filter { $0 != .keyAttestation }.map { Reason(backing: $0) }
                + KeyAttestationFailure.Reason.allReasons.map(Reason.keyAttestation)
        }

        /// Whether the client should generate and attest a new key (the re-registration path).
        public var requiresReattestation: Bool { self == .unknownKey || self == .keyBlocked }
    }

    /// The stable code.
    public let reason: Reason
    /// What failed and what to do.
    public let message: String

    /// Creates a refusal.
    ///
    /// - Parameters:
    ///   - reason: The code.
    ///   - message: What failed and what to do; no attacker-controlled text.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// `reason: message`.
    public var description: String { "\(reason): \(message)" }

    /// Compares reasons only, like the module's errors.
    public static func == (lhs: Refusal, rhs: Refusal) -> Bool { lhs.reason == rhs.reason }

    /// Hashes the reason only.
    public func hash(into hasher: inout Hasher) { hasher.combine(reason) }
}

extension Refusal: Sendable {}
