public import Foundation
public import RampartAppAttest
import RampartCrypto
import RampartX509

/// RampartAppAttest's `AppAttestVerifier` as the service's ``AppAttestVerifying``: its verdicts become ``Refusal``s
/// with the service's codes, its malformed-input errors become `invalidField`.
///
/// | RampartAppAttest failure | service refusal |
/// |---|---|
/// | `environmentMismatch` | ``Refusal/Reason/wrongEnvironment`` |
/// | any other attestation failure | ``Refusal/Reason/invalidAttestation`` |
/// | `counterNotIncreasing` | ``Refusal/Reason/counterReplay`` |
/// | `signatureInvalid`, `rpIDMismatch` on an assertion | ``Refusal/Reason/invalidAssertion`` |
public struct AppAttestVerifierAdapter: AppAttestVerifying {
    /// The verifier, configured with team id, bundle id, environment and root.
    public let verifier: AppAttestVerifier
    /// The stored keys already imported, by their bytes.
    let keys = PublicKeyCache()

    /// Wraps a verifier.
    ///
    /// - Parameter verifier: The configured verifier.
    public init(_ verifier: AppAttestVerifier) { self.verifier = verifier }

    /// Verifies an attestation.
    ///
    /// - Parameters:
    ///   - attestationObject: The CBOR object.
    ///   - keyID: The key id.
    ///   - clientDataHash: SHA-256 of the challenge.
    /// - Returns: The key to store, or a refusal.
    /// - Throws: ``AttestServiceError`` (`invalidField`) for a malformed object.
    public func verifyAttestation(
        _ attestationObject: [UInt8], keyID: [UInt8], clientDataHash: [UInt8]
    ) throws
        -> AttestationCheck
    {
        let verdict: AttestationVerdict
        do {
            verdict = try verifier.verifyAttestation(attestationObject, keyID: keyID, clientDataHash: clientDataHash)
        } catch let error as AppAttestError {
            throw AttestServiceError.invalidField(
                "'attestationObject' is not a well-formed App Attest attestation (\(error.code))")
        }
        switch verdict {
        case .valid(let attestation):
            return .valid(
                publicKey: attestation.publicKeyX963, environment: attestation.environment.rawValue,
                receipt: attestation.receipt)
        case .invalid(let failure):
            let reason: Refusal.Reason =
                failure.reason == .environmentMismatch ? .wrongEnvironment : .invalidAttestation
            return .invalid(Refusal(reason, "\(failure.reason): \(failure.message)"))
        }
    }

    /// Verifies an assertion.
    ///
    /// - Parameters:
    ///   - assertion: The CBOR assertion.
    ///   - clientDataHash: SHA-256 of the canonical client data.
    ///   - publicKey: The stored X9.63 key.
    ///   - previousCounter: The stored counter.
    /// - Returns: The new counter, or a refusal.
    /// - Throws: ``AttestServiceError`` (`invalidField`) for a malformed assertion.
    public func verifyAssertion(
        _ assertion: [UInt8], clientDataHash: [UInt8], publicKey: [UInt8], previousCounter: UInt32
    ) throws -> AssertionCheck {
        let verdict: AssertionVerdict
        do {
            // Parsing and the signature check are timed apart (the cbor and ecdsa stages of /metrics).
            let parsed = try StageClock.measure(.cbor) { try Assertion(bytes: assertion) }
            verdict = try StageClock.measure(.ecdsa) {
                let key: ECPublicKey
                do {
                    key = try keys.p256Key(publicKey)
                } catch {
                    throw AppAttestError.invalidArgument("the stored public key is not a P-256 X9.63 point")
                }
                return try verifier.verifyAssertion(
                    parsed, clientDataHash: clientDataHash, publicKey: key, previousCounter: previousCounter)
            }
        } catch let error as AppAttestError {
            throw AttestServiceError.invalidField(
                "'assertion' is not a well-formed App Attest assertion (\(error.code))")
        }
        switch verdict {
        case .valid(let assertion):
            return .valid(counter: assertion.counter)
        case .invalid(let failure):
            // The verifier checks the signature first: every other failure was signed by the key.
            switch failure.reason {
            case .signatureInvalid:
                return .invalid(Refusal(.invalidAssertion, "\(failure.reason): \(failure.message)"))
            case .counterNotIncreasing:
                return .invalidSigned(Refusal(.counterReplay, "\(failure.reason): \(failure.message)"))
            default:
                return .invalidSigned(Refusal(.invalidAssertion, "\(failure.reason): \(failure.message)"))
            }
        }
    }
}

extension ServiceConfiguration {
    /// Builds the App Attest verifier this configuration describes: team id, bundle id, environment, and the root
    /// from ``root`` (Apple's App Attest root when nil).
    ///
    /// - Parameter clock: The time certificates are checked at.
    /// - Returns: The verifier.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming what is missing or unreadable.
    public func makeVerifier(clock: @escaping @Sendable () -> Date = { Date() }) throws -> AppAttestVerifierAdapter {
        guard let teamId, let bundleId else {
            throw AttestServiceError.invalidConfiguration(
                "the app's identity is missing: pass --team-id and --bundle-id (or teamId and bundleId in --config)")
        }
        guard let environment = AppAttestEnvironment(rawValue: environment) else {
            throw AttestServiceError.invalidConfiguration("environment must be 'production' or 'development'")
        }
        var anchor = AppleRoots.appAttestationRootCA
        if let root {
            do {
                let text = try String(contentsOfFile: root, encoding: .utf8)
                anchor = try Certificate(pemEncoded: text)
            } catch {
                throw AttestServiceError.invalidConfiguration(
                    "cannot read the App Attest root from \(root); it must be one PEM certificate")
            }
        }
        do {
            return AppAttestVerifierAdapter(
                try AppAttestVerifier(
                    teamID: teamId, bundleID: bundleId, environment: environment, trustAnchor: anchor, clock: clock))
        } catch let error as AppAttestError {
            throw AttestServiceError.invalidConfiguration("the team id or bundle id is invalid (\(error.code))")
        }
    }
}
