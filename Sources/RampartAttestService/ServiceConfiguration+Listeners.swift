import Foundation

extension ServiceConfiguration {
    /// The admin listener's default address: loopback, next to the public default `127.0.0.1:8080`.
    public static let defaultAdminListen = "127.0.0.1:8081"

    /// The shortest operator token accepted, in bytes (UTF-8).
    ///
    /// 32 bytes of a random token (`openssl rand -hex 32` gives 64) leave no room for guessing over the network.
    public static let minimumOperatorTokenByteCount = 32

    /// The least estimated strength of an operator token, in bits: its length times log2 of the number of distinct
    /// bytes it holds (an upper bound on its entropy).
    ///
    /// This refuses `aaaa…`, `abab…` and other short alphabets cheaply; a hex token from `openssl rand -hex 32`
    /// estimates about 256 bits and a 32-byte token with 16 different bytes exactly 128.
    public static let minimumOperatorTokenEstimatedBits = 128.0

    /// The environment variable `rampart serve` reads the operator token from (unless `--operator-token-file`).
    public static let operatorTokenEnvironmentVariable = "RAMPART_OPERATOR_TOKEN"

    /// The admin listen address split into host and port.
    ///
    /// - Returns: The host (without brackets) and port.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`).
    public func adminListenAddress() throws -> (host: String, port: UInt16) {
        var parsed = self
        parsed.listen = adminListen
        do {
            return try parsed.listenAddress()
        } catch {
            throw AttestServiceError.invalidConfiguration(
                "admin listen address '\(adminListen)' must be HOST:PORT, e.g. 127.0.0.1:8081 or [::1]:8081")
        }
    }

    /// Checks the listeners: a configured operator token is long and varied enough, the admin address parses,
    /// differs from the public one, and is loopback unless a token protects it; the connection limits are in range.
    ///
    /// ``validate()`` calls this.
    ///
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) saying what to change.
    public func validateListeners() throws {
        guard connectionLimit >= 16, connectionLimit <= 65_536 else {
            throw AttestServiceError.invalidConfiguration("connectionLimit must be 16...65536")
        }
        guard connectionsPerAddress >= 0, connectionsPerAddress <= connectionLimit else {
            throw AttestServiceError.invalidConfiguration(
                "connectionsPerAddress must be 0 (no limit) ... connectionLimit")
        }
        guard requestTimeoutSeconds >= 0.1, requestTimeoutSeconds <= 300 else {
            throw AttestServiceError.invalidConfiguration("requestTimeoutSeconds must be 0.1...300")
        }
        if let operatorToken {
            let bytes = Array(operatorToken.utf8)
            let estimatedBits = Double(bytes.count) * log2(Double(max(Set(bytes).count, 1)))
            guard bytes.count >= Self.minimumOperatorTokenByteCount,
                estimatedBits >= Self.minimumOperatorTokenEstimatedBits
            else {
                throw AttestServiceError.invalidConfiguration(
                    "the operator token is too weak: it must be at least \(Self.minimumOperatorTokenByteCount) "
                        + "bytes and not a repetition of a few characters; generate one with `openssl rand -hex 32`")
            }
        }
        let admin = try adminListenAddress()
        let publicAddress = try listenAddress()
        if admin.port != 0, admin == publicAddress {
            throw AttestServiceError.invalidConfiguration(
                "the admin listen address must differ from the listen address \(listen); e.g. 127.0.0.1:8081")
        }
        if operatorToken == nil, !Self.isLoopback(admin.host) {
            throw AttestServiceError.invalidConfiguration(
                "the admin listener \(adminListen) is not loopback, so it needs an operator token: set "
                    + "--operator-token-file, \(Self.operatorTokenEnvironmentVariable) or operatorToken, or listen "
                    + "on 127.0.0.1")
        }
    }

    /// Whether `host` (IP text) is a loopback address: 127.0.0.0/8 or `::1`.
    static func isLoopback(_ host: String) -> Bool {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 { return UInt32(bigEndian: v4.s_addr) >> 24 == 127 }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, host, &v6) == 1 else { return false }
        return withUnsafeBytes(of: &v6) { Array($0) } == [UInt8](repeating: 0, count: 15) + [1]
    }
}
