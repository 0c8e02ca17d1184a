public import Foundation
import RampartChainVerification
public import RampartCrypto
public import RampartX509

/// Verifies App Attest attestations and assertions for one app, following Apple's "Validating apps that connect to
/// your server".
///
/// A verifier is configured once with the team id, bundle id and environment it accepts, the root certificate the
/// attestation chain must end at, and a clock. It is `Sendable` and cheap to share: it keeps a cache of intermediate
/// certificates already verified against the root, so a steady stream of attestations costs one P-384 signature check
/// each (the credential certificate's) instead of two.
///
/// Malformed input throws ``AppAttestError``; well-formed input that fails a check returns a verdict whose
/// ``AppAttestFailure/reason`` names the check.
///
/// - Important: The verifier checks the objects; the caller owns the state. Issue each challenge once and consume it
///   on use, store the public key and counter from a valid attestation under its key identifier, and store each valid
///   assertion's counter before acting on the request.
public struct AppAttestVerifier: Sendable {
    /// The Apple Developer team identifier, e.g. `6MURL8TA57`.
    public let teamID: String
    /// The app's bundle identifier, e.g. `com.example.app`.
    public let bundleID: String
    /// The only environment whose objects are accepted.
    public let environment: AppAttestEnvironment
    let clock: @Sendable () -> Date
    let rpIDHash: [UInt8]
    let chainVerifier: AttestationChainVerifier

    /// The root certificate every attestation chain must end at.
    public var trustAnchor: Certificate { chainVerifier.anchor }

    /// The App ID, `TEAMID.bundle.id`, whose SHA-256 every rpIdHash must equal.
    public var appID: String { "\(teamID).\(bundleID)" }

    /// The longest clientDataHash accepted. Apple's own samples pass raw challenge bytes rather than a 32-byte
    /// hash, so any length up to this bound is allowed.
    public static let maximumClientDataHashByteCount = 1024

    /// Creates a verifier for one app in one environment.
    ///
    /// - Parameters:
    ///   - teamID: The Apple Developer team identifier (no dot).
    ///   - bundleID: The bundle identifier.
    ///   - environment: The environment whose objects are accepted; a `.production` verifier refuses development
    ///     attestations.
    ///   - trustAnchor: The root of the attestation chain; ``AppleRoots/appAttestationRootCA`` by default.
    ///   - clock: The time certificates are checked at; the system clock by default. Tests and replays fix it.
    /// - Throws: ``AppAttestError/Code/invalidArgument`` when the team id or bundle id is empty, holds spaces or
    ///   control characters, the team id holds a dot, or OpenSSL cannot load the anchor.
    public init(
        teamID: String,
        bundleID: String,
        environment: AppAttestEnvironment,
        trustAnchor: Certificate = AppleRoots.appAttestationRootCA,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard !teamID.isEmpty, !bundleID.isEmpty, !teamID.contains("."),
            (teamID + bundleID).unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw AppAttestError.invalidArgument(
                "the team id and bundle id must be non-empty printable ASCII without spaces, and the team id has no dot"
            )
        }
        self.teamID = teamID
        self.bundleID = bundleID
        self.environment = environment
        self.clock = clock
        self.rpIDHash = SHA256.hash(Array("\(teamID).\(bundleID)".utf8))
        self.chainVerifier = AttestationChainVerifier(anchor: trustAnchor)
    }

    /// Forgets every intermediate certificate verified so far, so the next attestation pays the full chain cost.
    ///
    /// Only benchmarks and tests need this; the cache is bounded and holds public certificates.
    public func clearIntermediateCache() {
        chainVerifier.clearCache()
    }
}

extension AppAttestVerifier {
    /// Verifies an assertion made by a key registered earlier.
    ///
    /// The steps of Apple's "Verify the assertion":
    /// 1. `nonce = SHA-256(authenticatorData ‖ clientDataHash)`;
    /// 2. the DER ECDSA signature verifies under the stored P-256 key with `nonce` as the message (so the signed digest
    ///    is SHA-256(nonce));
    /// 3. rpIdHash is SHA-256 of ``appID``;
    /// 4. the counter is strictly greater than the stored one (unsigned 32-bit).
    ///
    /// The challenge inside the client data is the caller's to check (see ``RequestCanonicalization``).
    ///
    /// - Parameters:
    ///   - assertion: The CBOR assertion.
    ///   - clientDataHash: SHA-256 of the request's client data, computed by the server.
    ///   - publicKey: The key stored from the attestation.
    ///   - previousCounter: The counter stored for the key (0 right after attestation).
    /// - Returns: `.valid` with the new counter, or `.invalid` naming the failed check.
    /// - Throws: ``AppAttestError`` when the assertion is malformed or the hash is empty or too long.
    public func verifyAssertion(
        _ assertion: [UInt8],
        clientDataHash: [UInt8],
        publicKey: ECPublicKey,
        previousCounter: UInt32
    ) throws -> AssertionVerdict {
        try Self.checkAssertionArguments(clientDataHash: clientDataHash, publicKey: publicKey)
        return verifyCheckedAssertion(
            try Assertion(bytes: assertion), clientDataHash: clientDataHash, publicKey: publicKey,
            previousCounter: previousCounter)
    }

    /// Verifies an assertion already parsed with ``Assertion/init(bytes:)``: the steps above after the parsing, so a
    /// caller can account for the parsing and the signature check apart.
    ///
    /// - Parameters:
    ///   - parsed: The parsed assertion.
    ///   - clientDataHash: SHA-256 of the request's client data, computed by the server.
    ///   - publicKey: The key stored from the attestation.
    ///   - previousCounter: The counter stored for the key.
    /// - Returns: `.valid` with the new counter, or `.invalid` naming the failed check.
    /// - Throws: ``AppAttestError`` when the hash is empty or too long or the key is not P-256.
    public func verifyAssertion(
        _ parsed: Assertion,
        clientDataHash: [UInt8],
        publicKey: ECPublicKey,
        previousCounter: UInt32
    ) throws -> AssertionVerdict {
        try Self.checkAssertionArguments(clientDataHash: clientDataHash, publicKey: publicKey)
        return verifyCheckedAssertion(
            parsed, clientDataHash: clientDataHash, publicKey: publicKey, previousCounter: previousCounter)
    }

    /// Throws when the client data hash is empty or too long, or the stored key is not P-256: the checks of both
    /// ``verifyAssertion(_:clientDataHash:publicKey:previousCounter:)`` overloads, made before any parsing.
    private static func checkAssertionArguments(clientDataHash: [UInt8], publicKey: ECPublicKey) throws {
        try checkClientDataHash(clientDataHash)
        guard publicKey.curve == .p256 else {
            throw AppAttestError.invalidArgument(
                "App Attest keys are P-256; the stored key is \(publicKey.curve.rawValue)")
        }
    }

    /// The steps after the parsing, once ``checkAssertionArguments(clientDataHash:publicKey:)`` passed.
    private func verifyCheckedAssertion(
        _ parsed: Assertion,
        clientDataHash: [UInt8],
        publicKey: ECPublicKey,
        previousCounter: UInt32
    ) -> AssertionVerdict {
        let authData = parsed.authenticatorData
        let nonce = SHA256.hash(authData.rawRepresentation + clientDataHash)
        guard publicKey.isValidSignature(parsed.signature, for: nonce, digest: .sha256) else {
            return .invalid(
                AppAttestFailure(
                    .signatureInvalid,
                    message: "the assertion's signature does not verify under the key stored for this key id; "
                        + "refuse the request (the request body, the challenge or the assertion was altered)"
                )
            )
        }
        guard ConstantTime.isEqual(authData.rpIDHash, rpIDHash) else {
            return .invalid(rpIDMismatch())
        }
        guard authData.signCount > previousCounter else {
            let counter = authData.signCount
            return .invalid(
                AppAttestFailure(
                    .counterNotIncreasing,
                    message: "the assertion's counter \(counter) is not greater than the stored \(previousCounter); "
                        + "refuse it as a replay or a cloned key"
                )
            )
        }
        return .valid(VerifiedAssertion(counter: authData.signCount, authenticatorData: authData))
    }

    /// Verifies an assertion against a stored key given as an X9.63 point.
    ///
    /// - Parameters:
    ///   - assertion: The CBOR assertion.
    ///   - clientDataHash: SHA-256 of the request's client data.
    ///   - publicKeyX963: The stored key, `04 ‖ X ‖ Y` (65 bytes).
    ///   - previousCounter: The stored counter.
    /// - Returns: The verdict.
    /// - Throws: ``AppAttestError/Code/invalidArgument`` when the key is not a P-256 point, or as
    ///   ``verifyAssertion(_:clientDataHash:publicKey:previousCounter:)``.
    public func verifyAssertion(
        _ assertion: [UInt8],
        clientDataHash: [UInt8],
        publicKeyX963: [UInt8],
        previousCounter: UInt32
    ) throws -> AssertionVerdict {
        let key: ECPublicKey
        do {
            key = try ECPublicKey(x963Representation: publicKeyX963, curve: .p256)
        } catch {
            throw AppAttestError.invalidArgument("the stored public key is not a P-256 X9.63 point")
        }
        return try verifyAssertion(
            assertion,
            clientDataHash: clientDataHash,
            publicKey: key,
            previousCounter: previousCounter
        )
    }

    func rpIDMismatch() -> AppAttestFailure {
        let appID = appID
        return AppAttestFailure(
            .rpIDMismatch,
            message: "rpIdHash is not SHA-256(\"\(appID)\"); the object was made by another app, "
                + "or the verifier's team id or bundle id is wrong"
        )
    }

    static func checkClientDataHash(_ hash: [UInt8]) throws {
        guard (1...maximumClientDataHashByteCount).contains(hash.count) else {
            throw AppAttestError.invalidArgument(
                "clientDataHash is \(hash.count) bytes; it must be 1...\(maximumClientDataHashByteCount) "
                    + "(normally the 32-byte SHA-256 of the client data)"
            )
        }
    }
}
