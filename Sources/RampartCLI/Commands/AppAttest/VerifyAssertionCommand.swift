import Foundation
import RampartAppAttest
import RampartCrypto

/// `rampart appattest verify-assertion`: Apple's assertion check against a stored key and counter.
enum VerifyAssertionCommand: AppAttestSubcommand {
    static let name = "verify-assertion"
    static let help = """
        USAGE: rampart appattest verify-assertion --assertion B64|@FILE --public-key B64
                 (--client-data B64 | --client-data-hash B64) --team-id T --bundle-id B --previous-counter N [--json]

          --assertion         the assertion generateAssertion returned
          --public-key        the key stored from the attestation (X9.63 point or SubjectPublicKeyInfo DER)
          --client-data       the request's client data; clientDataHash = SHA-256(client data)
          --client-data-hash  the hash itself
          --previous-counter  the counter stored for the key (0 after attestation); the assertion's must be greater
          --json              {"valid":true,"counter":N} or {"valid":false,"reason","message"}

        EXAMPLE:
          rampart appattest verify-assertion --assertion @assertion.b64 --public-key "$PUBLIC_KEY" \\
            --client-data "$(printf '%s' '{"challenge":"c1","payload":{}}' | base64)" \\
            --team-id ABCDE12345 --bundle-id com.example.app --previous-counter 0
        """

    struct Output: Encodable {
        let valid = true
        let counter: UInt32
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        let assertion = try AppAttestInput.bytes(
            try arguments.requiredOption("--assertion"),
            option: "--assertion",
            context: context
        )
        let keyBytes = try AppAttestInput.bytes(
            try arguments.requiredOption("--public-key"),
            option: "--public-key",
            context: context
        )
        let clientData = try arguments.option("--client-data")
        let hash = try arguments.option("--client-data-hash")
        let teamID = try arguments.requiredOption("--team-id")
        let bundleID = try arguments.requiredOption("--bundle-id")
        let counterText = try arguments.requiredOption("--previous-counter")
        try arguments.finish()

        guard let previousCounter = UInt32(counterText) else {
            throw UsageError("--previous-counter must be an unsigned 32-bit integer")
        }
        let clientDataHash: [UInt8]
        switch (clientData, hash) {
        case (let data?, nil):
            clientDataHash = SHA256.hash(try AppAttestInput.bytes(data, option: "--client-data", context: context))
        case (nil, let hash?):
            clientDataHash = try AppAttestInput.bytes(hash, option: "--client-data-hash", context: context)
        default:
            throw UsageError("give exactly one of --client-data and --client-data-hash")
        }
        let publicKey: ECPublicKey
        if keyBytes.first == 0x04, let key = try? ECPublicKey(x963Representation: keyBytes, curve: .p256) {
            publicKey = key
        } else if let key = try? ECPublicKey(derRepresentation: keyBytes), key.curve == .p256 {
            publicKey = key
        } else {
            throw UsageError("--public-key is neither a P-256 X9.63 point nor a P-256 SubjectPublicKeyInfo")
        }
        let verifier = try AppAttestVerifier(teamID: teamID, bundleID: bundleID, environment: .production)
        let verdict: AssertionVerdict
        do {
            verdict = try verifier.verifyAssertion(
                assertion,
                clientDataHash: clientDataHash,
                publicKey: publicKey,
                previousCounter: previousCounter
            )
        } catch let error as AppAttestError {
            return try AppAttestOutput.malformed(error, json: json, command: name, context: context)
        }
        switch verdict {
        case .valid(let result):
            if json {
                try context.printJSON(Output(counter: result.counter))
            } else {
                context.print("valid: assertion with counter \(result.counter); store it as the key's counter")
            }
            return .success
        case .invalid(let failure):
            return try AppAttestOutput.invalid(failure, json: json, context: context)
        }
    }
}
