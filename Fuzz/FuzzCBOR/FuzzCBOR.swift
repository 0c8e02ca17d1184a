import Foundation
import FuzzSupport
import RampartAppAttest

/// ``CBORDecoder`` must never crash, and whatever it accepts must re-encode to exactly the same bytes (it accepts
/// only preferred serialization, so each value has one encoding).
func check(_ bytes: [UInt8]) {
    guard let value = try? CBORDecoder().decode(bytes) else { return }
    fuzzInvariant(value.encoded == bytes, "CBOR re-encoding differs from the accepted input")
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzCBORTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzCBOR_main")
func fuzzCBORMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzCBORTestOneInput)
}
#else
@main
enum FuzzCBORReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
