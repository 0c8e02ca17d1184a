import Foundation
import RampartCrypto
import RampartKeyAttestation
import RampartX509

/// `rampart keyattest verify CHAIN`: every check of an Android Key Attestation chain, with the policy's.
enum KeyAttestVerifyCommand {
    static let name = "verify"
    static let help = """
        USAGE: rampart keyattest verify CHAIN [--challenge TEXT | --challenge-base64 B64] [--package NAME]...
                 [--signing-digest B64]... [--min-security-level tee|strongbox] [--allow-unverified-boot]
                 [--revocations FILE] [--root PEM]... [--at RFC3339] [--json]

        Verifies CHAIN (PEM or DER certificates, leaf first, as KeyStore.getCertificateChain returns them): the chain
        to one of Google's attestation roots (matched by public key) or a --root, every signature and CA constraint,
        the validity of everything above the leaf at --at, the revocation list, that no certificate follows the
        attestation certificate, the KeyDescription, then the policy: the challenge (as bytes), the security level
        (software keys are always refused), verified boot and a locked bootloader, origin GENERATED, purpose SIGN,
        the package and the signing-certificate digest.

        OPTIONS:
          --challenge TEXT          the challenge you issued; its UTF-8 bytes must be the attested challenge
          --challenge-base64 B64    the challenge as bytes (standard or URL-safe base64); without either option
                                    the challenge is not checked
          --package NAME            a package name the app may have (repeatable; default: not checked)
          --signing-digest B64      SHA-256 of an app signing certificate, base64 (repeatable; default: not checked)
          --min-security-level L    tee (default: TEE or StrongBox) or strongbox
          --allow-unverified-boot   accept an unlocked bootloader or an unverified boot (test devices); the
                                    package and digests are still compared, but the OS that reported them may lie
          --revocations FILE        Google's status list (https://android.googleapis.com/attestation/status):
                                    REVOKED serials are refused, SUSPENDED ones too
          --root PEM                trust the root certificate(s) in PEM besides Google's (repeatable; tests and
                                    simulators only)
          --at TIME                 verify as of this RFC 3339 time instead of now (intermediates live for days)
          --json                    {"valid": true, "keyId", "publicKey", "keyType", "anchor", "requestSigning",
                                    "applicationIdTrustworthy", "keyDescription"} or {"valid": false, "reason",
                                    "message"}; keyDescription uses the field names and encodings of Google's
                                    verifier, publicKey is the leaf's SubjectPublicKeyInfo (base64) and keyId its
                                    SHA-256 (base64)
          -h, --help                show this help

        EXIT CODES:
          0  valid (a key that cannot sign Rampart requests, RSA or ML-DSA, is valid and says so)
          1  refused: the reason code and message say which check failed
          2  bad usage or malformed input (an unreadable file, no certificate, a malformed revocation list)

        EXAMPLE:
          rampart keyattest verify chain.pem --challenge "$CHALLENGE" --package com.example.app \\
            --signing-digest EDk47kU35Z6O55L2VFBPuDRvxrNG0LvEQV/DOfz8jsE= --revocations status.json
        """

    struct Output: Encodable {
        struct RequestSigning: Encodable {
            let usable: Bool
            let reason: String?
            let message: String?
        }

        let valid = true
        let keyId: String
        let publicKey: String
        let keyType: String
        let anchor: String
        let requestSigning: RequestSigning
        let applicationIdTrustworthy: Bool
        let keyDescription: KeyDescription
    }

    struct Refusal: Encodable {
        let valid = false
        let reason: String
        let message: String
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        let allowUnverifiedBoot = arguments.flag("--allow-unverified-boot")
        let challengeText = try arguments.option("--challenge")
        let challengeBase64 = try arguments.option("--challenge-base64")
        let packages = try arguments.options("--package")
        let digests = try arguments.options("--signing-digest")
        let levelName = try arguments.option("--min-security-level") ?? "tee"
        let revocationsPath = try arguments.option("--revocations")
        let rootPaths = try arguments.options("--root")
        let time = try arguments.timeOption("--at") ?? context.now()
        let files = try arguments.positionals()
        guard files.count == 1, let path = files.first else { throw UsageError("give exactly one CHAIN file") }
        guard challengeText == nil || challengeBase64 == nil else {
            throw UsageError("give at most one of --challenge and --challenge-base64")
        }

        guard let level = KeyAttestationPolicy.MinimumSecurityLevel(rawValue: levelName) else {
            throw UsageError("--min-security-level must be tee or strongbox")
        }
        let digestBytes = try digests.map { text in
            guard let bytes = AppAttestInput.base64(text), bytes.count == 32 else {
                throw UsageError("--signing-digest takes a SHA-256 digest in base64 (32 bytes)")
            }
            return bytes
        }
        let policy: KeyAttestationPolicy
        do {
            policy = try KeyAttestationPolicy(
                packageNames: packages, signingCertificateDigests: digestBytes, minimumSecurityLevel: level,
                allowUnverifiedBoot: allowUnverifiedBoot)
        } catch let error as KeyAttestationError {
            throw UsageError(error.reason)
        }
        let chain = try certificates(path, option: "CHAIN")
        let roots = try rootPaths.flatMap { try certificates($0, option: "--root") }
        let revocations: RevocationList?
        do {
            revocations = try revocationsPath.map(RevocationList.init(contentsOfFile:))
        } catch let error as KeyAttestationError {
            throw UsageError("--revocations: \(error.reason)")
        }

        let challenge: [UInt8]
        switch (challengeText, challengeBase64) {
        case (let text?, nil): challenge = Array(text.utf8)
        case (nil, let encoded?):
            guard let bytes = AppAttestInput.base64(encoded) else {
                throw UsageError("--challenge-base64 is not base64 (standard or URL-safe)")
            }
            challenge = bytes
        default: challenge = attestedChallenge(chain) ?? [0]
        }

        let verdict: KeyAttestationVerdict
        do {
            let verifier = try KeyAttestationVerifier(
                policy: policy, extraRoots: roots, revocations: revocations, clock: { time })
            verdict = try verifier.verify(certificateChain: chain, challenge: challenge)
        } catch let error as KeyAttestationError {
            if json { try context.printJSON(Refusal(reason: error.code.description, message: error.reason)) }
            context.printError("rampart keyattest verify: malformed input: \(error)")
            return .usage
        }
        switch verdict {
        case .invalid(let failure):
            if json {
                try context.printJSON(Refusal(reason: failure.reason.description, message: failure.message))
            } else {
                context.print("invalid: \(failure.reason): \(failure.message)")
            }
            return .failure
        case .valid(let attestation):
            let checked = (
                challenge: challengeText != nil || challengeBase64 != nil, package: !packages.isEmpty,
                digest: !digests.isEmpty
            )
            if json {
                let refusal = attestation.requestSigningKey.refusal
                try context.printJSON(
                    Output(
                        keyId: Data(attestation.keyID).base64EncodedString(),
                        publicKey: Data(attestation.publicKeyInfo).base64EncodedString(),
                        keyType: attestation.keyType,
                        anchor: attestation.anchor,
                        requestSigning: Output.RequestSigning(
                            usable: refusal == nil, reason: refusal?.reason.description, message: refusal?.message),
                        applicationIdTrustworthy: attestation.isApplicationIDTrustworthy,
                        keyDescription: attestation.keyDescription))
            } else {
                printValid(attestation, checked: checked, context: context)
            }
            return .success
        }
    }

    private static func printValid(
        _ attestation: VerifiedKeyAttestation, checked: (challenge: Bool, package: Bool, digest: Bool),
        context: CommandContext
    ) {
        let description = attestation.keyDescription
        let hardware = description.hardwareEnforced
        context.print("valid: Key Attestation of key \(Data(attestation.keyID).base64EncodedString())")
        context.print("  anchor:          \(attestation.anchor)")
        switch attestation.requestSigningKey {
        case .usable: context.print("  key:             \(attestation.keyType), can sign requests")
        case .refused(let failure):
            context.print("  key:             \(attestation.keyType), cannot sign requests (\(failure.reason))")
        }
        context.print(
            "  security level:  \(description.keyMintSecurityLevel.name) (attestation "
                + "\(description.attestationSecurityLevel.name))")
        if let root = hardware.rootOfTrust {
            let trust =
                root.isVerifiedAndLocked
                ? "" : " (allowed by --allow-unverified-boot: the package and digests may be forged)"
            context.print(
                "  boot:            \(root.verifiedBootState.name), \(root.deviceLocked ? "locked" : "unlocked")\(trust)"
            )
        }
        context.print("  os patch level:  \(hardware.osPatchLevel.map(String.init) ?? "absent")")
        if let application = description.attestationApplicationID {
            let packages = application.packages.map { "\($0.name) (\($0.version))" }.joined(separator: ", ")
            context.print("  packages:        \(packages)")
            for digest in application.signatureDigests {
                context.print("  signing digest:  \(Data(digest).base64EncodedString())")
            }
        }
        let unchecked =
            [
                checked.challenge ? nil : "challenge (--challenge)", checked.package ? nil : "package (--package)",
                checked.digest ? nil : "signing digest (--signing-digest)",
            ].compactMap { $0 }
        if !unchecked.isEmpty { context.print("  not checked:     \(unchecked.joined(separator: ", "))") }
    }

    /// The certificates of a PEM or DER file.
    private static func certificates(_ path: String, option: String) throws -> [Certificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(option): cannot read \(path); check the path and permissions")
        }
        do {
            return try Certificate.parseAll(Array(data))
        } catch let error as X509Error {
            throw UsageError("\(option): \(path) holds no readable certificate chain (\(error.reason))")
        }
    }

    /// The leaf's attested challenge, so that verifying without --challenge checks everything else.
    private static func attestedChallenge(_ chain: [Certificate]) -> [UInt8]? {
        guard let value = chain.first?.extensions[oid: .KeyAttestation.keyDescription]?.value,
            let challenge = try? KeyDescription(derEncoded: value).attestationChallenge, !challenge.isEmpty
        else { return nil }
        return challenge
    }
}
