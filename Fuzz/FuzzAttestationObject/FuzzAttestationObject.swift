import Foundation
import FuzzSupport
import RampartAppAttest

/// A verifier fixed in time, so certificate checks are deterministic.
let verifier = try? AppAttestVerifier(
    teamID: "ABCDE12345",
    bundleID: "com.example.fuzz",
    environment: .development,
    clock: { Date(timeIntervalSince1970: 1_700_000_000) }
)

/// Whole attestation objects: CBOR, authenticator data, certificate parsing, the chain check and the nonce extension
/// must never crash; any input either yields a verdict or throws ``AppAttestError``. Assertions are fed the same
/// bytes.
func check(_ bytes: [UInt8]) {
    _ = try? AttestationObject(bytes: bytes)
    _ = try? verifier?.verifyAttestation(bytes, keyID: [UInt8](repeating: 0, count: 32), clientDataHash: [1])
    _ = try? Assertion(bytes: bytes)
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAttestationObjectTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzAttestationObject_main")
func fuzzAttestationObjectMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzAttestationObjectTestOneInput)
}
#else
@main
enum FuzzAttestationObjectReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
