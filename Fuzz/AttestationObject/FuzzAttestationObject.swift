import Foundation
import RampartAppAttest

/// A verifier fixed in time, so certificate checks are deterministic.
let verifier: AppAttestVerifier? = try? AppAttestVerifier(
    teamID: "ABCDE12345",
    bundleID: "com.example.fuzz",
    environment: .development,
    clock: { Date(timeIntervalSince1970: 1_700_000_000) }
)

/// libFuzzer target for whole attestation objects: parsing, certificate parsing, chain and nonce checks. Any input
/// either yields a verdict or throws ``AppAttestError``; it never traps.
func fuzzOne(_ bytes: [UInt8]) {
    _ = try? AttestationObject(bytes: bytes)
    _ = try? verifier?.verifyAttestation(bytes, keyID: [UInt8](repeating: 0, count: 32), clientDataHash: [1])
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzOne(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}
#else
/// Without the fuzzer: replays the files named on the command line (a corpus or a crash reproducer).
@main
enum Replay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            fuzzOne(Array(data))
        }
    }
}
#endif
