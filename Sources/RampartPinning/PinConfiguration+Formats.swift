public import Foundation

/// The other platforms' pin formats: TrustKit's dictionary, OkHttp's `CertificatePinner`, Android's
/// `network_security_config.xml`, and an `Info.plist` merge. Each is read and written; where a format cannot express
/// a rule, writing says so (``PinConfiguration/Export/notes``, and a comment in the file where the format has
/// comments) or refuses, rather than writing something subtly different.
extension PinConfiguration {
    /// A configuration written in some format, with what the format could not keep.
    public struct Export: Hashable, Sendable {
        /// The file's bytes.
        public let data: Data
        /// What the format cannot express and how the written file differs, one sentence each (empty when nothing).
        public let notes: [String]

        /// Creates an export.
        ///
        /// - Parameters:
        ///   - data: The file's bytes.
        ///   - notes: What the format could not keep.
        public init(data: Data, notes: [String]) {
            self.data = data
            self.notes = notes
        }
    }

    /// Writes the configuration in `format`.
    ///
    /// - Parameter format: Any ``Format``.
    /// - Returns: The bytes and the notes.
    /// - Throws: ``PinningError`` with code `unsupportedFormat` naming the domain and the rule the format cannot
    ///   express without weakening it (report-only mode in OkHttp, a single enforced pin in TrustKit, …).
    public func export(as format: Format) throws -> Export {
        switch format {
        case .json: Export(data: try jsonData(), notes: [])
        case .trustKit: try trustKitExport()
        case .okHttp: try okHttpExport()
        case .android: try androidExport()
        default: Export(data: try plistData(), notes: [])
        }
    }

    // MARK: Info.plist merge

    /// This configuration's `NSPinnedDomains` entries, merged by domain into an existing `Info.plist`.
    ///
    /// Each domain of this configuration replaces the entry of the same domain (compared as iOS compares host names:
    /// case-insensitively, without a trailing dot); every other pinned domain stays as it was, and so does every other
    /// key of the file and of its `NSAppTransportSecurity`. A file without `NSAppTransportSecurity` or
    /// `NSPinnedDomains` gets them.
    ///
    /// - Parameter infoPlist: The app's `Info.plist` (XML or binary).
    /// - Returns: The merged property list, as XML with sorted keys.
    /// - Throws: ``PinningError``: `invalidConfiguration` for a file that is not a dictionary property list or whose
    ///   `NSAppTransportSecurity` or `NSPinnedDomains` is not a dictionary, `limitExceeded` beyond
    ///   ``maximumByteCount`` or ``maximumDomainCount``, and what ``plistData()`` throws.
    public func plistData(mergingInto infoPlist: Data) throws -> Data {
        guard infoPlist.count <= Self.maximumByteCount else {
            throw PinningError.limitExceeded("the Info.plist is larger than \(Self.maximumByteCount) bytes")
        }
        guard var root = try PropertyList(propertyListData: infoPlist).dictionaryValue else {
            throw PinningError.invalidConfiguration("the file to merge into is not a dictionary property list")
        }
        var transport: [String: PropertyList] = [:]
        if let value = root[PlistKey.appTransportSecurity] {
            guard let dictionary = value.dictionaryValue else {
                throw PinningError.invalidConfiguration(
                    "the Info.plist's NSAppTransportSecurity is not a dictionary; fix it before merging pins into it")
            }
            transport = dictionary
        }
        var pinned: [String: PropertyList] = [:]
        if let value = transport[PlistKey.pinnedDomains] {
            guard let dictionary = value.dictionaryValue else {
                throw PinningError.invalidConfiguration(
                    "the Info.plist's NSPinnedDomains is not a dictionary; fix it before merging pins into it")
            }
            pinned = dictionary
        }
        for (domain, entry) in try pinnedDomainEntries() {
            for key in pinned.keys where Self.isSameDomain(key, domain) { pinned[key] = nil }
            pinned[domain] = entry
        }
        guard pinned.count <= Self.maximumDomainCount else {
            throw PinningError.limitExceeded(
                "the merged NSPinnedDomains would hold more than \(Self.maximumDomainCount) domains")
        }
        transport[PlistKey.pinnedDomains] = .dictionary(pinned)
        root[PlistKey.appTransportSecurity] = .dictionary(transport)
        return try PropertyList.dictionary(root).xmlData()
    }

    /// Whether two `NSPinnedDomains` keys name one domain for iOS: equal ignoring ASCII case and a trailing dot.
    private static func isSameDomain(_ lhs: String, _ rhs: String) -> Bool {
        func normal(_ name: String) -> String { (name.hasSuffix(".") ? String(name.dropLast()) : name).lowercased() }
        return normal(lhs) == normal(rhs)
    }

    // MARK: Shared checks

    /// The SPKI pins of a policy for a format with a single pin list, or the reason the format cannot take it.
    private func singleList(_ policy: PinPolicy, format: String, notes: inout [String]) throws -> [Pin] {
        guard policy.ownAnchors.isEmpty else {
            throw PinningError.unsupportedFormat(
                "\(policy.domain) has own trust anchors, which \(format) cannot hold here")
        }
        guard !policy.allPins.contains(where: { $0.kind != .spkiSHA256 }) else {
            throw PinningError.unsupportedFormat(
                "\(policy.domain) has whole-certificate pins; \(format) pins public keys (SPKI SHA-256) only")
        }
        let lists = [policy.caPins, policy.leafPins, policy.chainPins].compactMap { $0 }
        guard lists.count <= 1 else {
            throw PinningError.unsupportedFormat(
                "\(policy.domain) requires a match in more than one list (CA and leaf); \(format) has one list per "
                    + "domain, and one match anywhere would be weaker. Keep one list (usually the CA keys)")
        }
        if policy.caPins != nil || policy.leafPins != nil {
            notes.append(
                "\(policy.domain): \(format) matches each pin against every certificate of the chain; the "
                    + "\(policy.caPins != nil ? "CA" : "leaf")-only rule of NSPinned\(policy.caPins != nil ? "CA" : "Leaf")"
                    + "Identities is not kept")
        }
        var pins: [Pin] = []
        for pin in policy.allPins where !pins.contains(pin) { pins.append(pin) }
        guard !pins.isEmpty else {
            throw PinningError.unsupportedFormat(
                "\(policy.domain) has an empty pin list, which refuses every connection; \(format) cannot express "
                    + "that (an empty pin set would pin nothing); remove the domain or give it pins")
        }
        return pins
    }

    /// `yyyy-MM-dd` of a date at midnight UTC, or the reason it is not one.
    private static func day(of date: Date, domain: String, format: String) throws -> String {
        let text = formatDate(date)
        guard text.count == 10 else {
            throw PinningError.unsupportedFormat(
                "\(domain)'s expiration \(text) is not a whole day; \(format) takes a date (yyyy-MM-dd)")
        }
        return text
    }

    private static func isIPAddress(_ domain: String) -> Bool {
        domain.split(separator: ".").count == 4 && domain.split(separator: ".").allSatisfy { UInt8($0) != nil }
    }

    // MARK: TrustKit

    enum TrustKitKey {
        static let configuration = "TSKConfiguration"
        static let swizzle = "TSKSwizzleNetworkDelegates"
        static let pinnedDomains = "TSKPinnedDomains"
        static let hashes = "TSKPublicKeyHashes"
        static let enforce = "TSKEnforcePinning"
        static let includeSubdomains = "TSKIncludeSubdomains"
        static let reportURIs = "TSKReportUris"
        static let disableDefaultReportURI = "TSKDisableDefaultReportUri"
        static let expirationDate = "TSKExpirationDate"
        static let algorithms = "TSKPublicKeyAlgorithms"
    }

    private func trustKitExport() throws -> Export {
        var notes: [String] = []
        var domains: [String: PropertyList] = [:]
        for policy in policies {
            guard !Self.isIPAddress(policy.domain) else {
                throw PinningError.unsupportedFormat("TrustKit refuses to pin an IP address (\(policy.domain))")
            }
            let pins = try singleList(policy, format: "TrustKit", notes: &notes)
            guard policy.isReportOnly || pins.count >= 2 else {
                throw PinningError.unsupportedFormat(
                    "\(policy.domain) has a single pin, and TrustKit refuses to enforce one pin (it requires a "
                        + "backup); add one with --backup-pin, or make the policy report-only")
            }
            var entry: [String: PropertyList] = [
                TrustKitKey.hashes: .array(pins.map { .string($0.base64) }),
                TrustKitKey.enforce: .boolean(!policy.isReportOnly),
                TrustKitKey.disableDefaultReportURI: .boolean(true),
            ]
            if policy.includesSubdomains {
                entry[TrustKitKey.includeSubdomains] = .boolean(true)
                notes.append(
                    "\(policy.domain): TrustKit's TSKIncludeSubdomains covers subdomains at every depth, "
                        + "NSPinnedDomains only one label")
            }
            if let expiration = policy.expirationDate {
                entry[TrustKitKey.expirationDate] = .string(
                    try Self.day(of: expiration, domain: policy.domain, format: "TrustKit"))
            }
            if !policy.reportURIs.isEmpty {
                entry[TrustKitKey.reportURIs] = .array(policy.reportURIs.map(PropertyList.string))
            }
            domains[policy.domain] = .dictionary(entry)
        }
        let root = PropertyList.dictionary([
            TrustKitKey.configuration: .dictionary([
                TrustKitKey.swizzle: .boolean(false), TrustKitKey.pinnedDomains: .dictionary(domains),
            ])
        ])
        return Export(data: try root.xmlData(), notes: notes)
    }

    /// Reads TrustKit's configuration from a property list: `TSKConfiguration` → `TSKPinnedDomains`, or a dictionary
    /// holding `TSKPinnedDomains` directly. `TSKPublicKeyHashes` become ``PinPolicy/chainPins``.
    init(trustKit root: [String: Any]) throws {
        let configuration: [String: Any]
        if let value = root[TrustKitKey.configuration] {
            guard let dictionary = value as? [String: Any] else {
                throw PinningError.invalidConfiguration("TSKConfiguration must be a dictionary")
            }
            configuration = dictionary
        } else {
            configuration = root
        }
        guard let domains = configuration[TrustKitKey.pinnedDomains] as? [String: Any] else {
            throw PinningError.invalidConfiguration("TSKPinnedDomains must be a dictionary of domain → dictionary")
        }
        guard domains.count <= Self.maximumDomainCount else {
            throw PinningError.limitExceeded("more than \(Self.maximumDomainCount) pinned domains")
        }
        var warnings: [String] = []
        var policies: [PinPolicy] = []
        let known = [
            TrustKitKey.hashes, TrustKitKey.enforce, TrustKitKey.includeSubdomains, TrustKitKey.reportURIs,
            TrustKitKey.disableDefaultReportURI, TrustKitKey.expirationDate, TrustKitKey.algorithms,
        ]
        for (domain, value) in domains.sorted(by: { $0.key < $1.key }) {
            guard let entry = value as? [String: Any] else {
                throw PinningError.invalidConfiguration("TSKPinnedDomains → \(domain) must be a dictionary")
            }
            for key in entry.keys.sorted() where !known.contains(key) {
                warnings.append("\(domain): \(key) is not read; Rampart does not implement it")
            }
            guard let hashes = entry[TrustKitKey.hashes] as? [String] else {
                throw PinningError.invalidConfiguration("\(domain): TSKPublicKeyHashes must be an array of strings")
            }
            guard hashes.count <= Self.maximumPinsPerList else {
                throw PinningError.limitExceeded("\(domain): more than \(Self.maximumPinsPerList) pins")
            }
            func flag(_ key: String, default value: Bool) throws -> Bool {
                guard let raw = entry[key] else { return value }
                guard let result = raw as? Bool else {
                    throw PinningError.invalidConfiguration("\(domain): \(key) must be <true/> or <false/>")
                }
                return result
            }
            let includes = try flag(TrustKitKey.includeSubdomains, default: false)
            if includes {
                warnings.append(
                    "\(domain): TSKIncludeSubdomains covers every depth in TrustKit; Rampart applies one label, as "
                        + "NSPinnedDomains does")
            }
            var expiration: Date?
            if let raw = entry[TrustKitKey.expirationDate] {
                guard let text = raw as? String, text.count == 10,
                    let date = try? Date("\(text)T00:00:00Z", strategy: .iso8601)
                else {
                    throw PinningError.invalidConfiguration("\(domain): TSKExpirationDate must be yyyy-MM-dd")
                }
                expiration = date
            }
            let reportURIs = entry[TrustKitKey.reportURIs] as? [String] ?? []
            policies.append(
                PinPolicy(
                    domain: domain, includesSubdomains: includes,
                    chainPins: try hashes.map { try Pin(kind: .spkiSHA256, base64: $0) },
                    isReportOnly: !(try flag(TrustKitKey.enforce, default: true)), expirationDate: expiration,
                    reportURIs: Array(reportURIs.prefix(Self.maximumPinsPerList))))
        }
        try self.init(policies: policies, warnings: warnings)
    }

    // MARK: OkHttp

    private func okHttpExport() throws -> Export {
        var notes: [String] = []
        var lines: [String] = []
        for policy in policies {
            guard !policy.isReportOnly else {
                throw PinningError.unsupportedFormat(
                    "\(policy.domain) is report-only, and OkHttp's CertificatePinner always enforces; keep this "
                        + "domain out of the Android build's pins, or enforce them")
            }
            guard policy.expirationDate == nil else {
                throw PinningError.unsupportedFormat(
                    "\(policy.domain) has an expiration date, and OkHttp's CertificatePinner never expires (an app "
                        + "that is not updated would enforce the pins forever); use --format android, which has one")
            }
            let pins = try singleList(policy, format: "OkHttp", notes: &notes)
            if !policy.reportURIs.isEmpty {
                notes.append("\(policy.domain): OkHttp sends no failure reports; the report URIs are not written")
            }
            let arguments = pins.map { "\"sha256/\($0.base64)\"" }.joined(separator: ", ")
            lines.append("    .add(\"\(policy.domain)\", \(arguments))")
            if policy.includesSubdomains { lines.append("    .add(\"*.\(policy.domain)\", \(arguments))") }
        }
        var text = "// Written by `rampart pinset --format okhttp`: OkHttp CertificatePinner (Kotlin).\n"
        for note in notes { text += "// Note: \(note).\n" }
        text += "val certificatePinner = CertificatePinner.Builder()\n" + lines.map { $0 + "\n" }.joined()
        text += "    .build()\n"
        return Export(data: Data(text.utf8), notes: notes)
    }

    /// Reads the `.add("pattern", "sha256/…", …)` calls of an OkHttp `CertificatePinner.Builder()` in Kotlin or
    /// Java source. `pattern` and `*.pattern` with the same pins are one policy that includes subdomains.
    init(okHttpSource data: Data) throws {
        guard data.count <= Self.maximumByteCount else {
            throw PinningError.limitExceeded("the source is larger than \(Self.maximumByteCount) bytes")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PinningError.invalidConfiguration("the OkHttp source is not UTF-8")
        }
        var warnings: [String] = []
        var exact: [String: [Pin]] = [:]
        var oneLevel: [String: [Pin]] = [:]
        for call in try Self.addCalls(in: Array(text.utf8)) {
            guard let pattern = call.first, call.count >= 2 else {
                throw PinningError.invalidConfiguration(".add(…) needs a host pattern and at least one pin")
            }
            let pins = try call.dropFirst().map { literal -> Pin in
                guard literal.hasPrefix("sha256/") else {
                    throw PinningError.invalidPin(
                        "OkHttp pin '\(literal.prefix(16))…' is not sha256/…; sha1 pins are not accepted")
                }
                return try Pin(kind: .spkiSHA256, base64: String(literal.dropFirst(7)))
            }
            if pattern.hasPrefix("**.") {
                let domain = String(pattern.dropFirst(3))
                warnings.append("\(domain): ** covers every depth in OkHttp; Rampart applies one label")
                exact[domain, default: []] += pins
                oneLevel[domain, default: []] += pins
            } else if pattern.hasPrefix("*.") {
                oneLevel[String(pattern.dropFirst(2)), default: []] += pins
            } else {
                exact[pattern, default: []] += pins
            }
        }
        var policies: [PinPolicy] = []
        for domain in Set(exact.keys).union(oneLevel.keys).sorted() {
            let here = exact[domain]
            let below = oneLevel[domain]
            if let here, let below, Set(here) != Set(below) {
                throw PinningError.invalidConfiguration(
                    "\(domain) and *.\(domain) have different pins; a Rampart policy pins a domain and its subdomains "
                        + "alike, so write two configurations or use the same pins")
            }
            if here == nil {
                warnings.append(
                    "*.\(domain) is read as \(domain) including subdomains: the domain itself is pinned too")
            }
            var pins: [Pin] = []
            for pin in (here ?? below ?? []) where !pins.contains(pin) { pins.append(pin) }
            policies.append(PinPolicy(domain: domain, includesSubdomains: below != nil, chainPins: pins))
        }
        if policies.isEmpty {
            warnings.append("the source has no CertificatePinner .add(\"host\", \"sha256/…\"): nothing is pinned")
        }
        try self.init(policies: policies, warnings: warnings)
    }

    /// The string-literal arguments of every `.add(` call (Kotlin/Java string escapes; other arguments refused).
    private static func addCalls(in bytes: [UInt8]) throws -> [[String]] {
        let marker = Array(".add(".utf8)
        var calls: [[String]] = []
        var index = 0
        while index + marker.count <= bytes.count {
            guard bytes[index..<(index + marker.count)].elementsEqual(marker) else {
                index += 1
                continue
            }
            index += marker.count
            var arguments: [String] = []
            while true {
                while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
                guard index < bytes.count else {
                    throw PinningError.invalidConfiguration("an .add( call is not closed")
                }
                if bytes[index] == UInt8(ascii: ")") {
                    index += 1
                    break
                }
                if bytes[index] == UInt8(ascii: ",") && !arguments.isEmpty {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "\"") else {
                    throw PinningError.invalidConfiguration(
                        "an .add( argument at byte \(index) is not a string literal; Rampart reads literal pins only")
                }
                index += 1
                var literal: [UInt8] = []
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") {
                        index += 1
                        guard index < bytes.count else { break }
                    }
                    literal.append(bytes[index])
                    index += 1
                    guard literal.count <= 300 else {
                        throw PinningError.limitExceeded("an .add( argument is longer than 300 bytes")
                    }
                }
                guard index < bytes.count else { throw PinningError.invalidConfiguration("a string is not closed") }
                index += 1
                arguments.append(String(decoding: literal, as: UTF8.self))
                guard arguments.count <= maximumPinsPerList + 1 else {
                    throw PinningError.limitExceeded("an .add( call has more than \(maximumPinsPerList) pins")
                }
            }
            calls.append(arguments)
            guard calls.count <= maximumDomainCount * 2 else {
                throw PinningError.limitExceeded("more than \(maximumDomainCount * 2) .add( calls")
            }
        }
        return calls
    }

    // MARK: Android

    private func androidExport() throws -> Export {
        var notes: [String] = []
        var body = ""
        for policy in policies {
            guard !policy.isReportOnly else {
                throw PinningError.unsupportedFormat(
                    "\(policy.domain) is report-only, and Android's <pin-set> always enforces; enforce the pins or "
                        + "keep the domain out of the Android configuration")
            }
            let pins = try singleList(policy, format: "Android's network security config", notes: &notes)
            if policy.includesSubdomains {
                notes.append(
                    "\(policy.domain): Android's includeSubdomains covers every depth, NSPinnedDomains only one label")
            }
            if !policy.reportURIs.isEmpty {
                notes.append("\(policy.domain): Android sends no failure reports; the report URIs are not written")
            }
            var pinSet = "        <pin-set"
            if let expiration = policy.expirationDate {
                pinSet += " expiration=\"\(try Self.day(of: expiration, domain: policy.domain, format: "Android"))\""
            }
            pinSet += ">\n" + pins.map { "            <pin digest=\"SHA-256\">\($0.base64)</pin>\n" }.joined()
            body += "    <domain-config>\n"
            body += "        <domain includeSubdomains=\"\(policy.includesSubdomains)\">\(policy.domain)</domain>\n"
            body += pinSet + "        </pin-set>\n    </domain-config>\n"
        }
        var text = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
        text += "<!-- Written by `rampart pinset --format android`: res/xml/network_security_config.xml -->\n"
        for note in notes { text += "<!-- Note: \(note.replacingOccurrences(of: "--", with: "- -")). -->\n" }
        text += "<network-security-config>\n" + body + "</network-security-config>\n"
        return Export(data: Data(text.utf8), notes: notes)
    }

    /// Reads Android's `network_security_config.xml`: each `<domain-config>`'s `<domain>` names with their
    /// `includeSubdomains`, and its `<pin-set>` (or the nearest enclosing one) with `expiration`; pins become
    /// ``PinPolicy/chainPins``.
    init(androidXML data: Data) throws {
        guard data.count <= Self.maximumByteCount else {
            throw PinningError.limitExceeded("the XML is larger than \(Self.maximumByteCount) bytes")
        }
        let root = try MiniXML.parse(Array(data))
        guard root.name == "network-security-config" else {
            throw PinningError.invalidConfiguration("the XML's root element must be <network-security-config>")
        }
        var warnings: [String] = []
        var policies: [PinPolicy] = []
        func visit(_ config: MiniXML.Element, inherited: (pins: [Pin], expiration: Date?)?) throws {
            var pinSet = inherited
            if let element = config.children.first(where: { $0.name == "pin-set" }) {
                var expiration: Date?
                if let text = element.attribute("expiration") {
                    guard text.count == 10, let date = try? Date("\(text)T00:00:00Z", strategy: .iso8601) else {
                        throw PinningError.invalidConfiguration("<pin-set expiration> must be yyyy-MM-dd")
                    }
                    expiration = date
                }
                let pins = try element.children.filter { $0.name == "pin" }.map { pin -> Pin in
                    guard pin.attribute("digest") == "SHA-256" else {
                        throw PinningError.invalidPin("<pin digest> must be SHA-256")
                    }
                    return try Pin(
                        kind: .spkiSHA256, base64: pin.text.trimmingCharacters(in: .whitespacesAndNewlines))
                }
                guard pins.count <= Self.maximumPinsPerList else {
                    throw PinningError.limitExceeded("more than \(Self.maximumPinsPerList) pins in a <pin-set>")
                }
                pinSet = (pins, expiration)
            }
            for child in config.children where !["domain", "pin-set", "domain-config"].contains(child.name) {
                warnings.append("<\(child.name)> in a <domain-config> is not read")
            }
            for domain in config.children where domain.name == "domain" {
                let name = domain.text.trimmingCharacters(in: .whitespacesAndNewlines)
                let includes = domain.attribute("includeSubdomains") == "true"
                if includes {
                    warnings.append(
                        "\(name): includeSubdomains covers every depth on Android; Rampart applies one label")
                }
                guard let pinSet, !pinSet.pins.isEmpty else {
                    warnings.append("\(name): no <pin-set>, so nothing is pinned")
                    continue
                }
                policies.append(
                    PinPolicy(
                        domain: name, includesSubdomains: includes, chainPins: pinSet.pins,
                        expirationDate: pinSet.expiration))
            }
            for nested in config.children where nested.name == "domain-config" {
                try visit(nested, inherited: pinSet)
            }
        }
        for child in root.children {
            if child.name == "domain-config" {
                try visit(child, inherited: nil)
            } else {
                warnings.append("<\(child.name)> is not read (Rampart reads the pins of <domain-config>)")
            }
        }
        try self.init(policies: policies, warnings: warnings)
    }
}
