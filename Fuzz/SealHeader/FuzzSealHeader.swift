import Foundation
import FuzzSupport
import RampartCrypto
import RampartSeal

#if canImport(Glibc)
import Glibc
#endif

/// libFuzzer target for RampartSeal's untrusted-input parsers: the sealed header, the whole streaming open (with a
/// fixed key, so no KDF runs) compared with the threaded file open, the keyset serialization and PHC password-hash
/// strings.
///
/// scripts/fuzz.sh builds it with `-sanitize=fuzzer,address -DFUZZING`; a normal build replays the files given as
/// arguments through the same entry point, so the target always compiles and links.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSealHeader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? SealHeader(bytes: bytes)
    let streamed = Result { try SealedStream.open(bytes, key: FuzzKeys.key) }
    if let threaded = ThreadedOpen.open(bytes) {
        // Differential check: the threaded file path must reach the stream's verdict on every input.
        switch (streamed, threaded) {
        case (.success(let plaintext), .success(let other)) where plaintext == other:
            break
        case (.failure(let error), .failure(let other))
        where (error as? SealError)?.code == (other as? SealError)?.code
            && (error as? SealError)?.segmentIndex == (other as? SealError)?.segmentIndex:
            break
        default:
            fatalError("the stream and the threaded path disagree on \(size) bytes: \(streamed) vs \(threaded)")
        }
    }
    _ = try? Keyset(serialized: bytes)
    if let text = String(validating: bytes, as: UTF8.self) { _ = try? PasswordHash(phcString: text) }
    return 0
}

/// Opens bytes through ``ParallelSegments`` with one-segment batches, from and to unlinked files in `/dev/shm`
/// (memory) or the temporary directory.
enum ThreadedOpen {
    static let directory =
        FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : FileManager.default.temporaryDirectory.path

    /// An open, already unlinked scratch file, or -1.
    static func scratchFile() -> Int32 {
        var template = Array("\(directory)/rampart-fuzz-XXXXXX".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        if descriptor >= 0 { template.withUnsafeBufferPointer { buffer in _ = buffer.baseAddress.map { unlink($0) } } }
        return descriptor
    }

    /// The threaded verdict, or nil when the scratch files cannot be made (the check is then skipped).
    static func open(_ bytes: [UInt8]) -> Result<[UInt8], any Error>? {
        let input = scratchFile()
        let output = scratchFile()
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, output >= 0 else { return nil }
        let written = bytes.withUnsafeBytes { pwrite(input, $0.baseAddress, $0.count, 0) }
        guard written == bytes.count else { return nil }
        return Result {
            _ = try ParallelSegments.open(
                input: input, sealedSize: UInt64(bytes.count), output: output, key: FuzzKeys.key, batchByteCount: 1
            ) { _ in }
            var plaintext = [UInt8](repeating: 0, count: Int(lseek(output, 0, SEEK_END)))
            let read = plaintext.withUnsafeMutableBytes { pread(output, $0.baseAddress, $0.count, 0) }
            guard read == plaintext.count else { throw SealError.ioFailure("could not read the memory file back") }
            return plaintext
        }
    }
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
