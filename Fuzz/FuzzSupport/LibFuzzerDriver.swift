#if FUZZING
internal import CLibFuzzer

extension FuzzInput {
    /// Hands control to libFuzzer with `callback` as the per-input function.
    ///
    /// Each target's `@_cdecl("<Target>_main")` entry point calls this: SwiftPM links an executable target with its
    /// entry point renamed to `<Target>_main` and `main` defined as that symbol, so libFuzzer's own `main` never runs.
    ///
    /// - Parameters:
    ///   - argc: The process's argument count.
    ///   - argv: The process's arguments (libFuzzer options, corpus directories).
    ///   - callback: Runs one input; returns 0.
    /// - Returns: libFuzzer's exit status.
    public static func runLibFuzzer(
        _ argc: CInt,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
    ) -> CInt {
        var count = argc
        var arguments = argv
        return LLVMFuzzerRunDriver(&count, &arguments, callback)
    }
}
#endif
