internal import Foundation

#if canImport(Glibc)
internal import Glibc
#endif

/// A TCP port on 127.0.0.1 that is bound but not listening: while this value lives no other test can take the port,
/// and every connection to it is refused.
public final class ReservedPort: @unchecked Sendable {
    /// The port.
    public let port: UInt16
    private let descriptor: Int32

    /// Binds a fresh port.
    ///
    /// - Throws: ``PKIError`` when binding fails.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PKIError(message: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard bound == 0, named == 0 else {
            close(descriptor)
            throw PKIError(message: "bind failed")
        }
        self.descriptor = descriptor
        self.port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}
