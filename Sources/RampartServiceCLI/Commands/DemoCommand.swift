import Foundation
import RampartAttestService
public import RampartCLI

/// `rampart demo`: the App Attest guide's story against a real service, step by step.
public enum DemoCommand: Command {
    /// `demo`.
    public static let name = "demo"
    /// One line for `rampart --help`.
    public static let abstract = "play the App Attest story: register, protected request, replay and tampering refused"
    /// The `--help` text.
    public static let help = """
        USAGE: rampart demo [--json]

        Starts the attestation service in-process on 127.0.0.1 (a free port) with a temporary SQLite store and a
        simulated App Attest CA, then plays the guide's story with a simulated device and prints each step with the
        server's answer:
          1. the app registers its key (attestation over a one-time challenge)        → 201
          2. it uses 1000 points with a signed request                                → 200
          3. the same request is sent again                                           → 409 challengeUsed
          4. the amount is changed after signing                                      → 401 digestMismatch
          5. the amount is changed and Content-Digest recomputed                      → 401 invalidAssertion
          6. an older assertion is replayed after a newer one                         → 409 counterReplay
          7. a re-signed (tampered) app tries to register                             → 403 invalidAttestation
          8. the tampered app calls the points API with its never-attested key        → 401 unknownKey
          9. the app names another user as the subject in a body                      → 400 invalidField
         10. a balance read without assertion under the `limited` policy              → 200 (logged)

        The service runs with --demo: the user is the X-User-Id header (what a proxy sets after sign-in), and
        the demo routes are signed requests (docs/request-signature.md) under the route policies.

        OPTIONS:
          --json      print the steps as a JSON array of {"number","title","expected","status","outcome","detail",
                      "passed"}
          -h, --help  show this help

        EXIT CODES:
          0  every step got the answer the guide expects
          1  a step got another answer (the service is not behaving as it should)
          2  the demo could not run (no loopback port, no temporary directory)

        EXAMPLE:
          rampart demo
        """

    /// Runs the command.
    ///
    /// - Parameters:
    ///   - arguments: The arguments after `demo`.
    ///   - context: Streams.
    /// - Returns: `.success` when every step passed, `.failure` otherwise.
    /// - Throws: ``UsageError`` for bad usage.
    public static func run(_ arguments: inout Arguments, context: CommandContext) async throws -> ExitCode {
        let json = arguments.flag("--json")
        try arguments.finish()
        let steps: [AttestationDemo.Step]
        do {
            steps = try await AttestationDemo.run { step in
                guard !json else { return }
                let mark = step.passed ? "ok  " : "FAIL"
                context.print("\(mark) \(step.number). \(step.title)")
                context.print("       → \(step.status) \(step.outcome)  (expected \(step.expected))  \(step.detail)")
            }
        } catch {
            context.printError("rampart demo: the demo could not run: \(error)")
            return .usage
        }
        if json { try context.printJSON(steps) }
        let passed = steps.allSatisfy(\.passed)
        if !json {
            context.print(
                passed
                    ? "\nEvery step got the answer the guide expects: only the registered app's signed, fresh, "
                        + "unaltered requests are accepted."
                    : "\nSome steps did not get the expected answer.")
        }
        return passed ? .success : .failure
    }
}
