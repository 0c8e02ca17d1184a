public import Foundation

extension PinConfiguration {
    /// The `Info.plist` keys of Apple's identity pinning (`NSAppTransportSecurity` → `NSPinnedDomains`).
    enum PlistKey {
        static let appTransportSecurity = "NSAppTransportSecurity"
        static let pinnedDomains = "NSPinnedDomains"
        static let includesSubdomains = "NSIncludesSubdomains"
        static let caIdentities = "NSPinnedCAIdentities"
        static let leafIdentities = "NSPinnedLeafIdentities"
        static let spkiSHA256 = "SPKI-SHA256-BASE64"
    }

    /// Reads `NSAppTransportSecurity` → `NSPinnedDomains` from a property list (XML or binary), either a whole
    /// `Info.plist` or a dictionary holding `NSPinnedDomains` directly.
    ///
    /// The structure Apple documents for identity pinning:
    ///
    /// ```
    /// NSAppTransportSecurity : Dictionary {
    ///     NSPinnedDomains : Dictionary {
    ///         <domain-name-string> : Dictionary {
    ///             NSIncludesSubdomains : Boolean
    ///             NSPinnedCAIdentities : Array of Dictionary { SPKI-SHA256-BASE64 : String }
    ///             NSPinnedLeafIdentities : Array of Dictionary { SPKI-SHA256-BASE64 : String }
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter plistData: The property list.
    /// - Throws: ``PinningError``: `invalidConfiguration` when it is not a property list or a value has the wrong
    ///   type, `invalidPin` for a malformed `SPKI-SHA256-BASE64`, `limitExceeded` beyond the limits.
    public init(plistData: Data) throws {
        guard plistData.count <= Self.maximumByteCount else {
            throw PinningError.limitExceeded("the property list is larger than \(Self.maximumByteCount) bytes")
        }
        let root: Any
        do {
            var format = PropertyListSerialization.PropertyListFormat.xml
            root = try PropertyListSerialization.propertyList(from: plistData, options: [], format: &format)
        } catch {
            throw PinningError.invalidConfiguration(
                "the file is not a well-formed property list; check it with `plutil -lint`",
                detail: String(describing: error))
        }
        guard let top = root as? [String: Any] else {
            throw PinningError.invalidConfiguration("the property list's root must be a dictionary")
        }
        var warnings: [String] = []
        let transport: [String: Any]
        if let value = top[PlistKey.appTransportSecurity] {
            guard let dictionary = value as? [String: Any] else {
                throw PinningError.invalidConfiguration("NSAppTransportSecurity must be a dictionary")
            }
            transport = dictionary
        } else {
            transport = top
        }
        guard let pinnedValue = transport[PlistKey.pinnedDomains] else {
            warnings.append("the property list has no NSAppTransportSecurity → NSPinnedDomains: nothing is pinned")
            try self.init(policies: [], warnings: warnings)
            return
        }
        guard let pinned = pinnedValue as? [String: Any] else {
            throw PinningError.invalidConfiguration("NSPinnedDomains must be a dictionary of domain → dictionary")
        }
        guard pinned.count <= Self.maximumDomainCount else {
            throw PinningError.limitExceeded("more than \(Self.maximumDomainCount) pinned domains")
        }
        var policies: [PinPolicy] = []
        for (domain, value) in pinned.sorted(by: { $0.key < $1.key }) {
            guard let entry = value as? [String: Any] else {
                throw PinningError.invalidConfiguration("NSPinnedDomains → \(domain) must be a dictionary")
            }
            let known = [PlistKey.includesSubdomains, PlistKey.caIdentities, PlistKey.leafIdentities]
            for key in entry.keys.sorted() where !known.contains(key) {
                warnings.append("\(domain): unknown key \(key) is ignored by iOS")
            }
            var includes = false
            if let value = entry[PlistKey.includesSubdomains] {
                guard let flag = value as? Bool else {
                    throw PinningError.invalidConfiguration(
                        "\(domain): NSIncludesSubdomains must be <true/> or <false/>")
                }
                includes = flag
            }
            policies.append(
                PinPolicy(
                    domain: domain,
                    includesSubdomains: includes,
                    caPins: try Self.plistPins(
                        entry[PlistKey.caIdentities], key: PlistKey.caIdentities, domain: domain),
                    leafPins: try Self.plistPins(
                        entry[PlistKey.leafIdentities], key: PlistKey.leafIdentities, domain: domain)))
        }
        try self.init(policies: policies, warnings: warnings)
    }

    private static func plistPins(_ value: Any?, key: String, domain: String) throws -> [Pin]? {
        guard let value else { return nil }
        guard let array = value as? [Any] else {
            throw PinningError.invalidConfiguration("\(domain): \(key) must be an array of dictionaries")
        }
        guard array.count <= maximumPinsPerList else {
            throw PinningError.limitExceeded("\(domain): more than \(maximumPinsPerList) pins in \(key)")
        }
        return try array.map { element in
            guard let dictionary = element as? [String: Any], let text = dictionary[PlistKey.spkiSHA256] as? String
            else {
                throw PinningError.invalidConfiguration(
                    "\(domain): each \(key) entry must be a dictionary with a SPKI-SHA256-BASE64 string")
            }
            return try Pin(kind: .spkiSHA256, base64: text)
        }
    }

    /// The configuration as an XML property list, ready to merge into `Info.plist`:
    /// `NSAppTransportSecurity` → `NSPinnedDomains` → one dictionary per domain.
    ///
    /// - Returns: The XML property list; dictionary keys are sorted, so the same configuration gives the same bytes.
    /// - Throws: ``PinningError`` with code `unsupportedFormat` when a policy uses what `NSPinnedDomains` cannot
    ///   express (certificate pins, report-only mode, an expiration date, own anchors, report URIs).
    public func plistData() throws -> Data {
        let transport = PropertyList.dictionary([PlistKey.pinnedDomains: .dictionary(try pinnedDomainEntries())])
        return try PropertyList.dictionary([PlistKey.appTransportSecurity: transport]).xmlData()
    }

    /// Each policy's `NSPinnedDomains` entry, by domain.
    func pinnedDomainEntries() throws -> [String: PropertyList] {
        var domains: [String: PropertyList] = [:]
        for policy in policies {
            var extras: [String] = []
            if policy.isReportOnly { extras.append("report-only mode") }
            if policy.expirationDate != nil { extras.append("an expiration date") }
            if !policy.ownAnchors.isEmpty { extras.append("own trust anchors") }
            if !policy.reportURIs.isEmpty { extras.append("report URIs") }
            if policy.allPins.contains(where: { $0.kind != .spkiSHA256 }) { extras.append("certificate pins") }
            if policy.chainPins != nil { extras.append("chain pins (no CA/leaf split)") }
            guard extras.isEmpty else {
                throw PinningError.unsupportedFormat(
                    "\(policy.domain) uses \(extras.joined(separator: ", ")), which NSPinnedDomains cannot express; "
                        + "write it as Rampart JSON (--format json); for chain pins, list the CA keys as CA pins")
            }
            func identities(_ pins: [Pin]) -> PropertyList {
                .array(pins.map { .dictionary([PlistKey.spkiSHA256: .string($0.base64)]) })
            }
            var entry: [String: PropertyList] = [:]
            if policy.includesSubdomains { entry[PlistKey.includesSubdomains] = .boolean(true) }
            if let pins = policy.caPins { entry[PlistKey.caIdentities] = identities(pins) }
            if let pins = policy.leafPins { entry[PlistKey.leafIdentities] = identities(pins) }
            domains[policy.domain] = .dictionary(entry)
        }
        return domains
    }
}
