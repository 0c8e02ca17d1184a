// The C library calls of RampartCrypto, in one place (the shape of swift-nio's Sources/NIOPosix/System.swift): each
// arm names the C library of one platform, and nothing else in the module imports one. scripts/check-apple-build.py
// refuses a C library named anywhere else in an app-side module.
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#else
#error("RampartCrypto needs Glibc, Musl or Darwin for Platform.zero(_:)")
#endif

/// The platform calls RampartCrypto makes.
enum Platform {
    /// Overwrites `buffer` with zeros through a call the optimizer may not remove.
    ///
    /// Darwin has C11 Annex K's `memset_s`, whose writes "shall not be optimized away" (C11 K.3.7.4.1); glibc (2.25
    /// and later) and musl (1.1.20 and later) have `explicit_bzero`. Neither has the other's.
    ///
    /// - Parameter buffer: The bytes to wipe; an empty buffer is left alone.
    static func zero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        #if canImport(Glibc) || canImport(Musl)
        explicit_bzero(base, buffer.count)
        #elseif canImport(Darwin)
        _ = memset_s(base, buffer.count, 0, buffer.count)
        #endif
    }
}
