import Foundation
import RampartAppAttest
import RampartCrypto
import RampartX509

/// `rampart appattest simulate`: a device and Apple's CA in one, for testing a backend without an iPhone.
enum SimulateCommand: AppAttestSubcommand {
    static let name = "simulate"
    static let help = """
        USAGE: rampart appattest simulate --team-id T --bundle-id B --challenge TEXT [--ca-dir DIR]
                 [--environment production|development] [--client-data B64]... [--out-dir DIR] [--json]
               rampart appattest simulate --ca-dir DIR

          Generates a P-256 key and attests it with a test CA (P-384 root and intermediate, like Apple's), with
          clientDataHash = SHA-256 of the challenge's UTF-8 text, as AttestedClient and `rampart serve` compute it:
          pass the challenge exactly as POST /v1/challenges returned it. For each --client-data it makes an
          assertion (counters 1, 2, ...). The objects are printed (base64) and, with --out-dir, written there as
          root.pem, attestation.b64, key-id.b64, public-key.b64 and assertion-N.b64.

          --challenge    the one-time challenge, as text (its UTF-8 bytes are hashed, never base64-decoded)
          --client-data  the client data of an assertion (base64); clientDataHash = SHA-256 of its bytes
          --ca-dir DIR   keep the CA in DIR: the first run creates it (DIR/root.pem and the signing keys, mode
                         0600), later runs reuse it, so a server started once with --root DIR/root.pem accepts
                         every later simulation. Without --challenge, only makes sure the CA exists. Without
                         --ca-dir, every run makes a new CA
          --out-dir DIR  write the objects and the root there
          --environment  the key's environment (default development, as a debug build would have)
          --json         {"keyId","publicKey","attestation","assertions":[...],"root"}

        EXAMPLE:
          rampart appattest simulate --team-id ABCDE12345 --bundle-id com.example.app \\
            --challenge one-time-challenge --out-dir sim
          rampart appattest verify-attestation --attestation @sim/attestation.b64 --key-id @sim/key-id.b64 \\
            --challenge one-time-challenge --team-id ABCDE12345 --bundle-id com.example.app \\
            --environment development --root sim/root.pem
        """

    struct Output: Encodable {
        let keyId: String
        let publicKey: String
        let attestation: String
        let assertions: [String]
        let root: String
    }

    static func run(_ arguments: inout Arguments, context: CommandContext) throws -> ExitCode {
        let json = arguments.flag("--json")
        let caDirectory = try arguments.option("--ca-dir").map { URL(fileURLWithPath: $0, isDirectory: true) }
        let challengeText = try arguments.option("--challenge")
        if let caDirectory, challengeText == nil, arguments.isEmpty {
            let simulator = try keptSimulator(caDirectory, context: context)
            let root = caDirectory.appendingPathComponent("root.pem").path
            if json {
                try context.printJSON(["root": simulator.rootCertificate.pemString, "rootPath": root])
            } else {
                context.print("simulated App Attest CA in \(caDirectory.path)/ (trust it with --root \(root))")
            }
            return .success
        }
        let teamID = try arguments.requiredOption("--team-id")
        let bundleID = try arguments.requiredOption("--bundle-id")
        guard let challengeText else {
            throw UsageError("missing --challenge: the one-time challenge text the server issued")
        }
        let challenge = Array(challengeText.utf8)
        let environmentName = try arguments.option("--environment") ?? "development"
        let clientData = try arguments.options("--client-data").map {
            try AppAttestInput.bytes($0, option: "--client-data", context: context)
        }
        let outDir = try arguments.option("--out-dir")
        try arguments.finish()
        guard let environment = AppAttestEnvironment(rawValue: environmentName) else {
            throw UsageError("--environment must be production or development")
        }

        let now = context.now
        let simulator =
            try caDirectory.map { try keptSimulator($0, context: context) } ?? AppAttestSimulator(clock: now)
        var device = SimulatedDevice(teamID: teamID, bundleID: bundleID, environment: environment)
        let attestation = try simulator.attestKey(of: device, clientDataHash: SHA256.hash(challenge))
        let assertions = try clientData.map { try device.generateAssertion(clientDataHash: SHA256.hash($0)) }
        let output = Output(
            keyId: AppAttestInput.encode(device.keyID),
            publicKey: AppAttestInput.encode(device.publicKeyX963),
            attestation: AppAttestInput.encode(attestation),
            assertions: assertions.map(AppAttestInput.encode),
            root: simulator.rootCertificate.pemString
        )
        if let outDir {
            let directory = URL(fileURLWithPath: outDir, isDirectory: true)
            var files: [(String, String)] = [
                ("root.pem", output.root), ("attestation.b64", output.attestation), ("key-id.b64", output.keyId),
                ("public-key.b64", output.publicKey),
            ]
            for (index, assertion) in output.assertions.enumerated() {
                files.append(("assertion-\(index + 1).b64", assertion))
            }
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for (file, text) in files {
                    try Data((text.hasSuffix("\n") ? text : text + "\n").utf8)
                        .write(to: directory.appendingPathComponent(file))
                }
            } catch {
                throw UsageError("--out-dir: cannot write to \(outDir): \(error.localizedDescription)")
            }
        }
        if json {
            try context.printJSON(output)
        } else {
            context.print("simulated \(environment.rawValue) key for \(device.appID)")
            context.print("  key id:      \(output.keyId)")
            context.print("  public key:  \(output.publicKey)")
            context.print("  attestation: \(output.attestation)")
            for (index, assertion) in output.assertions.enumerated() {
                context.print("  assertion \(index + 1): \(assertion)")
            }
            if let outDir { context.print("  written to \(outDir)/ (verify with --root \(outDir)/root.pem)") }
        }
        return .success
    }

    /// The CA kept in `directory` (created there on first use).
    private static func keptSimulator(_ directory: URL, context: CommandContext) throws -> AppAttestSimulator {
        do {
            return try AppAttestSimulator(keptIn: directory, clock: context.now)
        } catch let error as AppAttestError {
            throw UsageError("--ca-dir: \(error.reason)")
        }
    }
}
