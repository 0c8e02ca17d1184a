import Foundation
import FuzzSupport
import RampartASN1

/// DER.parse must never crash under either setting, and whatever it accepts must re-serialise to exactly the same
/// bytes (strict DER has one encoding per value).
func check(_ bytes: [UInt8]) {
    let acceptedAsKey = (try? DER.parse(bytes, limits: .key)) != nil
    guard let node = try? DER.parse(bytes) else {
        // DER.Limits.key is the certificate setting with more refusals, never fewer.
        fuzzInvariant(!acceptedAsKey, "DER.Limits.key accepted what DER.Limits.certificate refuses")
        return
    }
    var writer = DERWriter()
    node.serialize(into: &writer)
    fuzzInvariant(writer.bytes == bytes, "DER re-serialisation differs from the accepted input")
    fuzzInvariant(node.encodedBytes == bytes, "encodedBytes differs from the input")
    walk(node)
}

/// Calls every typed accessor; they may throw but must not crash.
func walk(_ node: ASN1Node) {
    _ = try? node.integerValue()
    _ = try? node.booleanValue()
    _ = try? node.objectIdentifierValue().dottedString
    _ = try? node.bitStringValue()
    _ = try? ASN1Time.date(from: node)
    _ = node.identifier.description
    for child in node.children { walk(child) }
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzDERTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzDER_main")
func fuzzDERMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzDERTestOneInput)
}
#else
@main
enum FuzzDERReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
