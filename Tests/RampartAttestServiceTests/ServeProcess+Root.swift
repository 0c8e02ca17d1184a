import Foundation
import RampartAppAttest
import RampartX509
import TestSupport

extension ServeProcess {
    /// The options every `rampart serve` of these tests takes: the subject from the `X-User-Id` header.
    static let subjectHeader = ["--subject-header", "X-User-Id"]

    /// Writes the simulator's root to a temporary PEM file for `--root`.
    static func writeRoot(of simulator: AppAttestSimulator) throws -> String {
        let path = ScratchDirectory.uniquePath("root.pem")
        let pem = PEMDocument(label: "CERTIFICATE", derBytes: simulator.rootCertificate.derBytes).pemString
        try Data(pem.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}
