import Foundation
import FuzzSupport
import RampartCrypto
import RampartSeal

/// libFuzzer target for RampartSeal's untrusted-input parsers: the sealed header, the whole streaming open (with a
/// fixed key, so no KDF runs), the keyset serialization and PHC password-hash strings.
///
/// scripts/fuzz.sh builds it with `-sanitize=fuzzer,address -DFUZZING`; a normal build replays the files given as
/// arguments through the same entry point, so the target always compiles and links.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSealHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? SealHeader(bytes: bytes)
    _ = try? SealedStream.open(bytes, key: FuzzKeys.key)
    _ = try? Keyset(serialized: bytes)
    if let text = String(validating: bytes, as: UTF8.self) { _ = try? PasswordHash(phcString: text) }
    return 0
}

/// A fixed key-encryption key: fuzzed headers that name `fuzz/v1` reach the unwrap and segment paths.
enum FuzzKeys {
    static let key = SealKey.key(SymmetricKey(bytes: [UInt8](repeating: 7, count: 32)), id: "fuzz/v1")
}

#if FUZZING
/// The process entry point under `-DFUZZING` (see `FuzzInput.runLibFuzzer` and scripts/fuzz.sh).
@_cdecl("FuzzSealHeader_main")
func fuzzSealHeaderMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    FuzzInput.runLibFuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzzSealHeader(data, size)
    }
}
#else
/// Replays corpus files: `FuzzSealHeader FILE...`.
@main
enum Replay {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else { continue }
            let count = data.count
            let bytes = count == 0 ? [0] : [UInt8](data)
            bytes.withUnsafeBufferPointer { buffer in
                if let base = buffer.baseAddress { _ = fuzzSealHeader(base, count) }
            }
        }
    }
}
#endif
