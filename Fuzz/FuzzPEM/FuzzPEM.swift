import Foundation
import FuzzSupport
import RampartASN1
import RampartX509

/// PEM parsing must never crash, and every document it returns must survive printing and parsing again.
func check(_ bytes: [UInt8]) {
    guard let documents = try? PEMDocument.parseAll(String(decoding: bytes, as: UTF8.self)) else { return }
    for document in documents {
        let again = try? PEMDocument(pemEncoded: document.pemString)
        fuzzInvariant(again == document, "a parsed PEM document does not round-trip through pemString")
    }
    _ = try? Certificate.parseAll(bytes)
}

#if FUZZING
/// libFuzzer's per-input hook.
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzPEMTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    check(FuzzInput.bytes(data, size))
    return 0
}

/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer`).
@_cdecl("FuzzPEM_main")
func fuzzPEMMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv, fuzzPEMTestOneInput)
}
#else
@main
enum FuzzPEMReplay {
    static func main() { exit(FuzzInput.replay(Array(CommandLine.arguments.dropFirst()), check)) }
}
#endif
