public import Foundation

/// The pinning policy of one domain: Apple's `NSPinnedDomains` entry plus what TrustKit adds.
///
/// Matching follows Apple's rules: the domain is compared case-insensitively, without a trailing dot, and
/// ``includesSubdomains`` extends the policy to names exactly *one* label longer (`api.example.com` for
/// `example.com`, never `a.b.example.com`). ``caPins`` are matched against the CA certificates of the *verified*
/// path (indices 1…n-1, the anchor included), ``leafPins`` against the leaf (index 0), and ``chainPins`` —
/// TrustKit's, OkHttp's and Android's kind, which know no CA/leaf split — against any certificate of the path; when
/// several lists are present each must match, and one pin per list is enough.
public struct PinPolicy: Hashable, Sendable {
    /// The domain, lowercased and without a trailing dot.
    public let domain: String
    /// Whether names exactly one label below ``domain`` are covered too (`NSIncludesSubdomains`).
    public var includesSubdomains: Bool
    /// Pins of the CA certificates (`NSPinnedCAIdentities`); nil when the list is absent.
    public var caPins: [Pin]?
    /// Pins of the leaf certificate (`NSPinnedLeafIdentities`); nil when the list is absent.
    public var leafPins: [Pin]?
    /// Pins matched against any certificate of the verified path, leaf or CA (TrustKit's `TSKPublicKeyHashes`,
    /// OkHttp's `CertificatePinner`, Android's `<pin-set>`); nil when the list is absent. `NSPinnedDomains` cannot
    /// express it.
    public var chainPins: [Pin]?
    /// TrustKit's report-only mode (`kTSKEnforcePinning = NO`): a mismatch is reported but the connection allowed.
    /// This is the safe form of "fall back to an unpinned connection".
    public var isReportOnly: Bool
    /// After this date the pins are no longer enforced (TrustKit's `kTSKExpirationDate`), so that an app that is not
    /// updated cannot brick itself; the default evaluation still applies.
    public var expirationDate: Date?
    /// Trust anchors shipped with the app (DER). When present, the default evaluation trusts *only* these, like
    /// `SecTrustSetAnchorCertificatesOnly(trust, true)`; the device's trust store is ignored for this domain.
    public var ownAnchors: [[UInt8]]
    /// Where failure reports go (TrustKit's `kTSKReportUris`); Rampart only builds the reports.
    public var reportURIs: [String]

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - domain: The domain; lowercased and stripped of one trailing dot.
    ///   - includesSubdomains: Whether one more label is covered.
    ///   - caPins: CA pins, or nil for none.
    ///   - leafPins: Leaf pins, or nil for none.
    ///   - chainPins: Pins of any certificate of the path, or nil for none.
    ///   - isReportOnly: Report mismatches without refusing.
    ///   - expirationDate: When the pins stop being enforced.
    ///   - ownAnchors: DER trust anchors that replace the device's store for this domain.
    ///   - reportURIs: Report destinations.
    public init(
        domain: String,
        includesSubdomains: Bool = false,
        caPins: [Pin]? = nil,
        leafPins: [Pin]? = nil,
        chainPins: [Pin]? = nil,
        isReportOnly: Bool = false,
        expirationDate: Date? = nil,
        ownAnchors: [[UInt8]] = [],
        reportURIs: [String] = []
    ) {
        self.domain = Self.normalize(domain)
        self.includesSubdomains = includesSubdomains
        self.caPins = caPins
        self.leafPins = leafPins
        self.chainPins = chainPins
        self.isReportOnly = isReportOnly
        self.expirationDate = expirationDate
        self.ownAnchors = ownAnchors
        self.reportURIs = reportURIs
    }

    /// Whether this policy covers `host` (exactly, or as one more label when ``includesSubdomains``).
    ///
    /// - Parameter host: A host name; compared case-insensitively, without a trailing dot.
    /// - Returns: `true` when the policy applies.
    public func covers(_ host: String) -> Bool {
        let name = Self.normalize(host)
        if name == domain { return true }
        guard includesSubdomains, name.hasSuffix("." + domain) else { return false }
        let label = name.dropLast(domain.count + 1)
        return !label.isEmpty && !label.contains(".")
    }

    /// Every pin of the policy, CA, leaf and chain lists in that order.
    public var allPins: [Pin] { (caPins ?? []) + (leafPins ?? []) + (chainPins ?? []) }

    /// Whether `host` is this policy's domain itself (exact matches win over subdomain matches).
    func isExactly(_ host: String) -> Bool { Self.normalize(host) == domain }

    /// Lowercases and removes one trailing dot.
    package static func normalize(_ name: String) -> String {
        var result = name.lowercased()
        if result.hasSuffix(".") { result.removeLast() }
        return result
    }
}
