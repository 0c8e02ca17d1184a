import Foundation
import FuzzSupport
import RampartAppAttest

/// ``AuthenticatorData`` must never crash: the first byte picks the context (attestation or assertion), the rest is
/// parsed. Whatever it accepts keeps its bytes and has a 32-byte rpIdHash.
func check(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    let context: AuthenticatorData.Context = selector & 1 == 0 ? .attestation : .assertion
    guard let parsed = try? AuthenticatorData(rawRepresentation: body, context: context) else { return }
    fuzzInvariant(parsed.rawRepresentation == body, "authenticator data changed its bytes")
    fuzzInvariant(parsed.rpIDHash.count == 32, "rpIdHash is not 32 bytes")
    if let credential = parsed.attestedCredentialData {
        fuzzInvariant(credential.publicKeyX963.count == 65, "the credential key is not a 65-byte point")
    }
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzAuthenticatorDataTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzAuthenticatorData_main")
func fuzzAuthenticatorDataMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzAuthenticatorDataTestOneInput)
}
#else
@main
enum FuzzAuthenticatorDataReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
