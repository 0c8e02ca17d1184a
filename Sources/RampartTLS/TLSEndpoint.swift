/// Where to connect: a host name or IP address and a TCP port, parsed from `HOST[:PORT]`.
///
/// Accepted forms are `example.com`, `example.com:8443`, `192.0.2.1:443`, `[2001:db8::1]:443` and a bare IPv6
/// address such as `::1` (which takes the default port). A trailing dot on a host name is removed, and names are
/// lowercased, since DNS and certificate names compare case-insensitively.
public struct TLSEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The longest host name DNS allows (RFC 1035 section 2.3.4), checked before any other work.
    public static let maximumHostLength = 253
    /// The longest label DNS allows (RFC 1035 section 2.3.4).
    public static let maximumLabelLength = 63

    /// The host name (lowercased, without a trailing dot) or IP address literal (without brackets).
    public let host: String
    /// The TCP port.
    public let port: UInt16

    /// Whether ``host`` is an IPv4 or IPv6 address literal (no SNI is sent to an address, as RFC 6066 requires).
    public var isIPAddress: Bool { Self.isIPv4(host) || host.contains(":") }

    /// Creates an endpoint from parts.
    ///
    /// - Parameters:
    ///   - host: A DNS name or an IP address literal.
    ///   - port: The TCP port.
    /// - Throws: ``TLSError`` with code ``TLSError/Code/invalidEndpoint`` when `host` is neither a valid DNS name nor an
    ///   IP literal.
    public init(host: String, port: UInt16) throws {
        self.host = try Self.validatedHost(host)
        self.port = port
    }

    /// Parses `HOST[:PORT]`.
    ///
    /// - Parameters:
    ///   - text: `host`, `host:port`, `[ipv6]:port` or a bare IPv6 address.
    ///   - defaultPort: The port when `text` names none.
    /// - Throws: ``TLSError`` with code ``TLSError/Code/invalidEndpoint`` for a malformed host or port.
    public init(parsing text: String, defaultPort: UInt16 = 443) throws {
        guard text.utf8.count <= Self.maximumHostLength + 8 else {
            throw TLSError.invalidEndpoint("the endpoint is longer than \(Self.maximumHostLength + 8) characters")
        }
        if let colon = text.firstIndex(of: ":"), text[colon...].hasPrefix("://") {
            throw TLSError.invalidEndpoint(
                "\(text[..<colon])://… is a URL; give HOST[:PORT] (for example example.com or "
                    + "example.com:8443), without a scheme or path")
        }
        var hostPart = Substring(text)
        var portPart: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else {
                throw TLSError.invalidEndpoint("an IPv6 endpoint opened with '[' needs a closing ']'")
            }
            hostPart = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else {
                    throw TLSError.invalidEndpoint("expected ':PORT' after the bracketed IPv6 address")
                }
                portPart = rest.dropFirst()
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            hostPart = text[..<colon]
            portPart = text[text.index(after: colon)...]
        }
        var port = defaultPort
        if let portPart {
            guard let value = UInt16(portPart), value > 0 else {
                throw TLSError.invalidEndpoint("the port must be a number from 1 to 65535")
            }
            port = value
        }
        try self.init(host: String(hostPart), port: port)
    }

    /// `host:port`, with IPv6 addresses in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Lowercases `name`, drops one trailing dot, and checks it is an IP literal or an RFC 1123 host name.
    static func validatedHost(_ name: String) throws -> String {
        var host = name.lowercased()
        if host.hasSuffix(".") { host.removeLast() }
        guard !host.isEmpty, host.utf8.count <= maximumHostLength else {
            throw TLSError.invalidEndpoint("a host name must be 1 to \(maximumHostLength) characters")
        }
        if isIPv4(host) || isIPv6(host) { return host }
        for label in host.split(separator: ".", omittingEmptySubsequences: false) {
            guard !label.isEmpty, label.utf8.count <= maximumLabelLength else {
                throw TLSError.invalidEndpoint(
                    "every label of a host name must be 1 to \(maximumLabelLength) characters")
            }
            let allowed = label.utf8.allSatisfy { byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
            }
            guard allowed, !label.hasPrefix("-"), !label.hasSuffix("-") else {
                throw TLSError.invalidEndpoint(
                    "a host name may hold only letters, digits, '-' and '_' (use the punycode form of IDNs)")
            }
        }
        return host
    }

    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { part in
                !part.isEmpty && part.count <= 3 && part.allSatisfy(\.isASCII)
                    && (UInt8(part).map { _ in true } ?? false)
            }
    }

    static func isIPv6(_ text: String) -> Bool {
        guard text.contains(":"), text.utf8.count <= 45 else { return false }
        return text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || byte == 0x3A || byte == 0x2E
        }
    }
}
