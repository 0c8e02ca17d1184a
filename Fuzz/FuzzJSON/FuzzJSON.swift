import Foundation
import FuzzSupport
import RampartRequestSigning

/// ``JSONValue/init(parsing:numbers:)`` must never crash under either number policy, and the exact policy must keep
/// its promise: whatever it accepts, the nearest-double reading accepts as the same value, and the RFC 8785 canonical
/// form of that value reads back exactly (so a signed canonical form names one value only).
func check(_ bytes: [UInt8]) {
    let nearest = try? JSONValue(parsing: bytes)
    guard let exact = try? JSONValue(parsing: bytes, numbers: .exact) else { return }
    fuzzInvariant(nearest == exact, "the exact reading differs from the nearest-double reading")
    let canonical = CanonicalJSON.canonicalBytes(of: exact)
    let reread = try? JSONValue(parsing: canonical, numbers: .exact)
    fuzzInvariant(reread == exact, "the canonical form of an exactly read value does not read back to it")
    fuzzInvariant(reread.map(CanonicalJSON.canonicalBytes(of:)) == canonical, "canonicalization is not idempotent")
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzJSONTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzJSON_main")
func fuzzJSONMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzJSONTestOneInput)
}
#else
@main
enum FuzzJSONReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
