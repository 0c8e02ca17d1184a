import Foundation

/// Shared plumbing for Rampart's libFuzzer targets.
///
/// Each target under `Fuzz/<Name>/` has one function `check(_ bytes: [UInt8])` that must never crash: it parses the
/// bytes and asserts the parser's invariants (with `fuzzInvariant`). Built by `scripts/fuzz.sh` with
/// `-sanitize=fuzzer,address -DFUZZING`, the target exports `LLVMFuzzerTestOneInput` and libFuzzer supplies `main`;
/// in a plain `swift build` it is a replay tool whose `main` runs `check` on each file named on the command line.
public enum FuzzInput {
    /// Runs `check` on every file in `arguments` (directories are walked), printing one line per file.
    ///
    /// - Parameters:
    ///   - arguments: Paths of inputs (crash reproducers or corpus directories).
    ///   - check: The target's check.
    /// - Returns: The process status: 0 when every file ran, 2 when a path could not be read.
    public static func replay(_ arguments: [String], _ check: ([UInt8]) -> Void) -> Int32 {
        guard !arguments.isEmpty else {
            FileHandle.standardError.write(Data("usage: <fuzz target> FILE-OR-DIRECTORY...\n".utf8))
            return 2
        }
        var status: Int32 = 0
        for path in arguments {
            var files = [path]
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                files = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                    path + "/" + $0
                }
            }
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else {
                    FileHandle.standardError.write(Data("cannot read \(file)\n".utf8))
                    status = 2
                    continue
                }
                check(Array(data))
                print("ran \(file) (\(data.count) bytes)")
            }
        }
        return status
    }

    /// Copies libFuzzer's input into an array.
    ///
    /// - Parameters:
    ///   - data: The input pointer (may be null when `size` is 0).
    ///   - size: The input length.
    /// - Returns: The bytes.
    public static func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
        guard let data, size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }
}

/// Stops the process (a crash libFuzzer records) when a parser invariant does not hold.
///
/// - Parameters:
///   - condition: The invariant.
///   - message: What broke.
public func fuzzInvariant(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz invariant violated: \(message())") }
}
