import Foundation
import FuzzSupport
import RampartKeyAttestation

/// ``KeyDescription/init(derEncoded:)`` (and with it every AuthorizationList tag, the RootOfTrust and the
/// attestationApplicationId) must never crash; whatever it accepts must serialise back to exactly the input (DER has
/// one encoding per value) and encode as the reference verifier's JSON. The same bytes go to the
/// attestationApplicationId and provisioning-info parsers, which must not crash either.
func check(_ bytes: [UInt8]) {
    if let description = try? KeyDescription(derEncoded: bytes) {
        fuzzInvariant(description.derEncoded == bytes, "a KeyDescription does not serialise back to its input")
        fuzzInvariant((try? JSONEncoder().encode(description)) != nil, "an accepted KeyDescription does not encode")
    }
    if let application = try? AttestationApplicationID(derEncoded: bytes) {
        fuzzInvariant(application.derEncoded == bytes, "an attestationApplicationId does not serialise back")
    }
    _ = try? ProvisioningInfo(cbor: bytes)
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzKeyDescriptionTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzKeyDescription_main")
func fuzzKeyDescriptionMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzKeyDescriptionTestOneInput)
}
#else
@main
enum FuzzKeyDescriptionReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
