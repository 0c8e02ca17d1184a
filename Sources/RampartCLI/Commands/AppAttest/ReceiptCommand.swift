import Foundation
import RampartAppAttest

/// `rampart appattest receipt`: verify an App Attest receipt and print its fields.
enum ReceiptCommand: AppAttestSubcommand {
    static let name = "receipt"
    static let help = """
        USAGE: rampart appattest receipt B64|@FILE [--root PEM] [--at RFC3339] [--json]

          Verifies the receipt's CMS signature and its signer's chain to Apple Root CA - G3 (or --root) as of --at
          (default now), checks it has not expired, and prints its fields: app id, type, environment, creation time,
          risk metric, not-before, expiration, token, client hash and the attested certificate's SHA-256.

          B64|@FILE  the receipt: base64 text, @FILE (base64 text or the raw CMS bytes) or @- (standard input)
          --root     the anchor of the signer's chain (default Apple Root CA - G3)
          --at       verify as of this time (default now); a receipt past its expiration time is invalid
          --json     {"valid":true,"appId","type","environment","creationTime","riskMetric","notBefore",
                     "expirationTime","token","clientHash","attestedCertificateSHA256"}
                     or {"valid":false,"reason","message"}

        EXAMPLE:
          rampart appattest receipt @receipt.b64 --at 2020-11-21T22:16:06Z --json
        """

    struct Output: Encodable {
        let valid = true
        let appId: String
        let type: String
        let environment: String?
        let creationTime: Date
        let riskMetric: Int?
        let notBefore: Date?
        let expirationTime: Date?
        let token: String?
        let clientHash: String?
        let attestedCertificateSHA256: String
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        let rootPath = try arguments.option("--root")
        let time = try arguments.timeOption("--at") ?? context.now()
        let positionals = try arguments.positionals()
        guard positionals.count == 1, let input = positionals.first else {
            throw UsageError("give exactly one receipt (B64 or @FILE)")
        }
        let receipt = try AppAttestInput.bytes(input, option: "the receipt", context: context)
        let verifier = ReceiptVerifier(
            trustAnchor: try rootPath.map(AppAttestInput.certificate(atPath:)) ?? AppleRoots.rootCAG3,
            clock: { time }
        )
        let verdict: ReceiptVerdict
        do {
            verdict = try verifier.verify(receipt)
        } catch let error as AppAttestError {
            return try AppAttestOutput.malformed(error, json: json, command: name, context: context)
        }
        switch verdict {
        case .valid(let parsed):
            let output = Output(
                appId: parsed.appID,
                type: parsed.type,
                environment: parsed.environment,
                creationTime: parsed.creationTime,
                riskMetric: parsed.riskMetric,
                notBefore: parsed.notBefore,
                expirationTime: parsed.expirationTime,
                token: parsed.token,
                clientHash: parsed.clientHash.map(AppAttestInput.encode),
                attestedCertificateSHA256: parsed.attestedCertificateSHA256
            )
            if json {
                try context.printJSON(output)
            } else {
                context.print("valid: \(parsed.type) receipt for \(parsed.appID)")
                context.print("  environment:     \(parsed.environment ?? "production")")
                context.print("  created:         \(parsed.creationTime)")
                if let metric = parsed.riskMetric { context.print("  risk metric:     \(metric)") }
                if let notBefore = parsed.notBefore { context.print("  refresh after:   \(notBefore)") }
                if let expiry = parsed.expirationTime { context.print("  expires:         \(expiry)") }
                context.print("  attested cert:   sha256 \(output.attestedCertificateSHA256)")
            }
            return .success
        case .invalid(let failure):
            return try AppAttestOutput.invalid(failure, json: json, context: context)
        }
    }
}
