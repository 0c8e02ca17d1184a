import Foundation
import RampartAppAttest
import RampartCrypto

/// `rampart appattest verify-attestation`: every step of Apple's attestation check.
enum VerifyAttestationCommand: AppAttestSubcommand {
    static let name = "verify-attestation"
    static let help = """
        USAGE: rampart appattest verify-attestation --attestation B64|@FILE --key-id B64
                 (--challenge TEXT | --client-data-hash B64) --team-id T --bundle-id B
                 [--environment production|development] [--root PEM] [--at RFC3339] [--json]

          --attestation       the attestation object attestKey returned
          --key-id            the key identifier the app sent
          --challenge         the one-time challenge you issued, as text; clientDataHash = SHA-256 of its UTF-8
                              bytes, as `rampart serve` and AttestedClient compute it (never base64-decoded)
          --client-data-hash  the exact bytes the app passed to attestKey (Apple's samples pass the raw challenge)
          --team-id, --bundle-id  the App ID is TEAMID.bundle.id
          --environment       the only environment accepted (default production)
          --root              the chain's anchor (default Apple App Attestation Root CA)
          --at                verify as of this time (default now)
          --json              {"valid":true,"keyId","publicKey","counter":0,"environment","receipt","extensions"}
                              or {"valid":false,"reason","message"}

        EXAMPLE:
          rampart appattest verify-attestation --attestation @attestation.b64 --key-id "$KEY_ID" \\
            --challenge "$CHALLENGE" --team-id ABCDE12345 --bundle-id com.example.app --root sim-root.pem --json
        """

    struct Output: Encodable {
        let valid = true
        let keyId: String
        let publicKey: String
        let counter: UInt32
        let environment: String
        let receipt: String
        let extensions: [String: String]?
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        let attestation = try AppAttestInput.bytes(
            try arguments.requiredOption("--attestation"),
            option: "--attestation",
            context: context
        )
        let keyID = try AppAttestInput.bytes(
            try arguments.requiredOption("--key-id"), option: "--key-id", context: context)
        let challenge = try arguments.option("--challenge")
        let hash = try arguments.option("--client-data-hash")
        let teamID = try arguments.requiredOption("--team-id")
        let bundleID = try arguments.requiredOption("--bundle-id")
        let environmentName = try arguments.option("--environment") ?? "production"
        let rootPath = try arguments.option("--root")
        let time = try arguments.timeOption("--at") ?? context.now()
        try arguments.finish()

        let clientDataHash: [UInt8]
        switch (challenge, hash) {
        case (let challenge?, nil):
            clientDataHash = SHA256.hash(Array(challenge.utf8))
        case (nil, let hash?):
            clientDataHash = try AppAttestInput.bytes(hash, option: "--client-data-hash", context: context)
        default:
            throw UsageError("give exactly one of --challenge and --client-data-hash")
        }
        guard let environment = AppAttestEnvironment(rawValue: environmentName) else {
            throw UsageError("--environment must be production or development")
        }
        let verifier = try AppAttestVerifier(
            teamID: teamID,
            bundleID: bundleID,
            environment: environment,
            trustAnchor: try rootPath.map(AppAttestInput.certificate(atPath:)) ?? AppleRoots.appAttestationRootCA,
            clock: { time }
        )
        let verdict: AttestationVerdict
        do {
            verdict = try verifier.verifyAttestation(attestation, keyID: keyID, clientDataHash: clientDataHash)
        } catch let error as AppAttestError {
            return try AppAttestOutput.malformed(error, json: json, command: name, context: context)
        }
        switch verdict {
        case .valid(let result):
            if json {
                try context.printJSON(
                    Output(
                        keyId: AppAttestInput.encode(result.keyID),
                        publicKey: AppAttestInput.encode(result.publicKeyX963),
                        counter: result.counter,
                        environment: result.environment.rawValue,
                        receipt: AppAttestInput.encode(result.receipt),
                        extensions: result.extensions.map(AppAttestOutput.describe)
                    )
                )
            } else {
                context.print("valid: attestation of key \(AppAttestInput.encode(result.keyID))")
                context.print("  app id:      \(verifier.appID)")
                context.print("  environment: \(result.environment.rawValue)")
                context.print("  public key:  \(AppAttestInput.encode(result.publicKeyX963))")
                context.print("  counter:     \(result.counter)")
                context.print("  receipt:     \(result.receipt.count) bytes")
                let extensions = result.extensions.map(AppAttestOutput.describe) ?? [:]
                for key in extensions.keys.sorted() {
                    context.print("  extension \(key): \(extensions[key] ?? "")")
                }
            }
            return .success
        case .invalid(let failure):
            return try AppAttestOutput.invalid(failure, json: json, context: context)
        }
    }
}

/// Printing shared by the `rampart appattest` subcommands.
enum AppAttestOutput {
    /// Prints a negative verdict and returns exit 1.
    static func invalid(_ failure: AppAttestFailure, json: Bool, context: CommandContext) throws -> ExitCode {
        if json {
            try context.printJSON(AppAttestRefusal(reason: failure.reason.description, message: failure.message))
        } else {
            context.print("invalid: \(failure.reason): \(failure.message)")
        }
        return .failure
    }

    /// Prints a malformed-input error (stderr, and JSON on stdout with --json) and returns exit 2.
    static func malformed(
        _ error: AppAttestError,
        json: Bool,
        command: String,
        context: CommandContext
    ) throws -> ExitCode {
        if json {
            try context.printJSON(AppAttestRefusal(reason: error.code.description, message: error.reason))
        }
        context.printError("rampart appattest \(command): malformed input: \(error)")
        return .usage
    }

    /// The extension map as text: text values as they are, bytes as base64, integers in decimal.
    static func describe(_ extensions: AuthenticatorExtensions) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in extensions.entries {
            switch value {
            case .textString(let text): out[key] = text
            case .byteString(let bytes): out[key] = AppAttestInput.encode(bytes)
            default: out[key] = value.integerValue.map(String.init) ?? "(CBOR \(value.encoded.count) bytes)"
            }
        }
        return out
    }
}
