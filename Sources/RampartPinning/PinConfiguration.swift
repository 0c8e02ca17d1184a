public import Foundation

/// A set of per-domain pin policies: the `NSPinnedDomains` dictionary of an app, or a Rampart JSON pin file.
///
/// Read one with ``init(contentsOf:)``, which detects the format from the content (an XML or binary property list —
/// a whole `Info.plist` or just its `NSAppTransportSecurity` part — or Rampart JSON), and write it back with
/// ``plistData()`` or ``jsonData()``. Keys iOS does not know are ignored, as iOS ignores them, and listed in
/// ``warnings``.
public struct PinConfiguration: Hashable, Sendable {
    /// The largest configuration read (DoS bound, checked before parsing): 1 MiB.
    public static let maximumByteCount = 1 << 20
    /// The most domains one configuration may hold.
    public static let maximumDomainCount = 1024
    /// The most pins one list may hold.
    public static let maximumPinsPerList = 64
    /// The most own anchors one policy may hold.
    public static let maximumAnchorsPerPolicy = 16

    /// A configuration file format.
    public struct Format: Hashable, Sendable, CustomStringConvertible {
        let name: String

        /// An Apple property list with `NSAppTransportSecurity` → `NSPinnedDomains`.
        public static let plist = Format(name: "plist")
        /// Rampart JSON: `{"version": 1, "pinnedDomains": {...}}`.
        public static let json = Format(name: "json")
        /// TrustKit's dictionary, as a property list: `TSKConfiguration` → `TSKPinnedDomains`.
        public static let trustKit = Format(name: "trustkit")
        /// OkHttp's `CertificatePinner.Builder()`, as Kotlin source.
        public static let okHttp = Format(name: "okhttp")
        /// Android's `network_security_config.xml` with `<pin-set>`.
        public static let android = Format(name: "android")

        /// Every format, in the order `--help` lists them.
        public static let all: [Format] = [.plist, .trustKit, .okHttp, .android, .json]

        /// `plist`, `json`, `trustkit`, `okhttp` or `android`.
        public var description: String { name }

        /// The format named `name`, or nil.
        ///
        /// - Parameter name: The name.
        public init?(named name: String) {
            guard let format = Self.all.first(where: { $0.name == name }) else { return nil }
            self = format
        }

        init(name: String) { self.name = name }
    }

    /// The policies, sorted by domain.
    public let policies: [PinPolicy]
    /// What was ignored while reading (unknown keys), in words.
    public let warnings: [String]

    /// Creates a configuration and checks it.
    ///
    /// - Parameter policies: One policy per domain.
    /// - Throws: ``PinningError`` with code `invalidConfiguration` for a duplicate or empty domain or a policy that
    ///   pins nothing, `limitExceeded` beyond the limits.
    public init(policies: [PinPolicy]) throws {
        try self.init(policies: policies, warnings: [])
    }

    init(policies: [PinPolicy], warnings: [String]) throws {
        guard policies.count <= Self.maximumDomainCount else {
            throw PinningError.limitExceeded("more than \(Self.maximumDomainCount) pinned domains")
        }
        var seen: Set<String> = []
        for policy in policies {
            guard !policy.domain.isEmpty, policy.domain.utf8.count <= 253 else {
                throw PinningError.invalidConfiguration("a pinned domain must be 1 to 253 characters")
            }
            guard !policy.domain.contains("*") else {
                throw PinningError.invalidConfiguration(
                    "the pinned domain '\(policy.domain)' holds a wildcard; use the parent domain with "
                        + "NSIncludesSubdomains instead")
            }
            guard Self.isHostName(policy.domain) else {
                throw PinningError.invalidConfiguration(
                    "a pinned domain must be a host name: dot-separated labels of 1 to 63 letters, digits or hyphens, "
                        + "not starting or ending with a hyphen (got \(policy.domain.utf8.count) characters that are not)"
                )
            }
            guard seen.insert(policy.domain).inserted else {
                throw PinningError.invalidConfiguration("the domain '\(policy.domain)' is pinned twice")
            }
            guard
                policy.caPins != nil || policy.leafPins != nil || policy.chainPins != nil
                    || !policy.ownAnchors.isEmpty
            else {
                throw PinningError.invalidConfiguration(
                    "the domain '\(policy.domain)' has no pin list; add NSPinnedCAIdentities or "
                        + "NSPinnedLeafIdentities (Info.plist), or caPins, leafPins or chainPins (Rampart JSON)")
            }
            guard (policy.caPins?.count ?? 0) <= Self.maximumPinsPerList,
                (policy.leafPins?.count ?? 0) <= Self.maximumPinsPerList,
                (policy.chainPins?.count ?? 0) <= Self.maximumPinsPerList
            else {
                throw PinningError.limitExceeded("more than \(Self.maximumPinsPerList) pins in one list")
            }
            guard policy.ownAnchors.count <= Self.maximumAnchorsPerPolicy else {
                throw PinningError.limitExceeded("more than \(Self.maximumAnchorsPerPolicy) anchors in one policy")
            }
        }
        self.policies = policies.sorted { $0.domain < $1.domain }
        self.warnings = warnings
    }

    /// Whether `name` (already lowercased, without its trailing dot) is an RFC 1123 host name: LDH labels of 1…63
    /// characters, no empty label, no leading or trailing hyphen.
    static func isHostName(_ name: String) -> Bool {
        let labels = name.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            guard (1...63).contains(label.count), label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-")
            else { return false }
            return label.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-")
            }
        }
    }

    /// The policy iOS would apply to `host`: an exact domain match first, else a domain that includes subdomains
    /// and is exactly one label shorter.
    ///
    /// - Parameter host: The host name; compared case-insensitively, without a trailing dot.
    /// - Returns: The policy, or nil when the host is not pinned.
    public func policy(for host: String) -> PinPolicy? {
        policies.first { $0.isExactly(host) } ?? policies.first { $0.covers(host) }
    }

    /// Reads a configuration, detecting its format from the content.
    ///
    /// - Parameter data: An XML or binary property list (an `Info.plist` with `NSPinnedDomains`, or TrustKit's
    ///   `TSKConfiguration`), Android's `network_security_config.xml`, OkHttp `CertificatePinner` source, or Rampart
    ///   JSON.
    /// - Throws: ``PinningError``: `unsupportedFormat` when the content is none of these, `limitExceeded` beyond
    ///   ``maximumByteCount``, and the errors of each reader.
    public init(contentsOf data: Data) throws {
        switch try Self.detectFormat(data) {
        case .json: try self.init(jsonData: data)
        case .android: try self.init(androidXML: data)
        case .okHttp: try self.init(okHttpSource: data)
        default:
            // TrustKit's dictionary is a property list too: tell them apart by their keys.
            if let root = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                as? [String: Any],
                root[TrustKitKey.configuration] != nil || root[TrustKitKey.pinnedDomains] != nil
            {
                try self.init(trustKit: root)
            } else {
                try self.init(plistData: data)
            }
        }
    }

    /// The format of `data`, from its content: `{` or `[` is JSON; `bplist`, or XML whose root is not
    /// `<network-security-config>`, a property list (``Format/plist``, also for TrustKit's, which ``init(contentsOf:)``
    /// tells apart); XML rooted at `<network-security-config>` Android's; other text naming `CertificatePinner`
    /// OkHttp source.
    ///
    /// - Parameter data: The configuration bytes.
    /// - Returns: The format.
    /// - Throws: ``PinningError`` with code `unsupportedFormat` when it is none, `limitExceeded` when too large.
    public static func detectFormat(_ data: Data) throws -> Format {
        guard data.count <= maximumByteCount else {
            throw PinningError.limitExceeded("the configuration is larger than \(maximumByteCount) bytes")
        }
        if data.starts(with: Array("bplist".utf8)) { return .plist }
        let start = data.drop { byte in byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        let skippedBOM = start.starts(with: [0xEF, 0xBB, 0xBF]) ? start.dropFirst(3) : start
        switch skippedBOM.first {
        case UInt8(ascii: "{"), UInt8(ascii: "["): return .json
        case UInt8(ascii: "<"):
            return data.range(of: Data("<network-security-config".utf8)) != nil ? .android : .plist
        default:
            if data.range(of: Data("CertificatePinner".utf8)) != nil { return .okHttp }
            throw PinningError.unsupportedFormat(
                "the configuration is none of: a property list (Info.plist or TrustKit), Android's "
                    + "network_security_config.xml, OkHttp CertificatePinner source, or Rampart JSON")
        }
    }
}
