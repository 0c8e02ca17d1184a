import Foundation
import RampartAppAttest

/// libFuzzer target for ``AuthenticatorData``: the first byte picks the context, the rest is parsed; any input either
/// parses or throws ``AppAttestError``, and a parsed value keeps its bytes.
func fuzzOne(_ bytes: [UInt8]) {
    guard let selector = bytes.first else { return }
    let body = Array(bytes.dropFirst())
    let context: AuthenticatorData.Context = selector & 1 == 0 ? .attestation : .assertion
    guard let parsed = try? AuthenticatorData(rawRepresentation: body, context: context) else { return }
    precondition(parsed.rawRepresentation == body && parsed.rpIDHash.count == 32)
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
