import Foundation
import RampartAppAttest

/// libFuzzer target for ``CBORDecoder``: any input either decodes or throws ``AppAttestError``; a decoded item
/// re-encodes to exactly the input (the decoder accepts only preferred serialization).
func fuzzOne(_ bytes: [UInt8]) {
    guard let value = try? CBORDecoder().decode(bytes) else { return }
    precondition(value.encoded == bytes, "a decoded CBOR item did not re-encode to its input")
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
