// The C library calls of RampartSecretStore, in one place (the shape of swift-nio's Sources/NIOPosix/System.swift):
// each arm names the C library of one platform, and nothing else in the module imports one.
// scripts/check-apple-build.py refuses a C library named anywhere else in an app-side module.
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#else
#error("RampartSecretStore needs Glibc, Musl or Darwin for Platform.createFile(atPath:permissions:)")
#endif

/// The platform calls RampartSecretStore makes.
enum Platform {
    /// Creates the file at `path` if it does not exist (`open(2)` with `O_WRONLY | O_CREAT | O_CLOEXEC`), leaving an
    /// existing file's contents alone, and closes it.
    ///
    /// - Parameters:
    ///   - path: The file.
    ///   - permissions: The mode of a file it creates (before the umask).
    /// - Returns: Nil on success, or the C library's text for the failure (`strerror(errno)`).
    static func createFile(atPath path: String, permissions: UInt16) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, mode_t(permissions))
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        return nil
    }
}
