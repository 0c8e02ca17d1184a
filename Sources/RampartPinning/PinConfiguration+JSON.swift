public import Foundation
internal import RampartX509

extension PinConfiguration {
    /// Reads Rampart JSON:
    ///
    /// ```json
    /// {"version": 1, "pinnedDomains": {"example.com": {
    ///     "includeSubdomains": true,
    ///     "caPins": [{"spki-sha256": "…"}], "leafPins": [{"cert-sha256": "…"}], "chainPins": [{"spki-sha256": "…"}],
    ///     "reportOnly": false, "expirationDate": "2027-01-01",
    ///     "ownAnchors": ["-----BEGIN CERTIFICATE-----…"], "reportURIs": ["https://…"]}}}
    /// ```
    ///
    /// `caPins` and `leafPins` mean what `NSPinnedCAIdentities` and `NSPinnedLeafIdentities` mean; `chainPins`
    /// match any certificate of the chain (TrustKit's, OkHttp's and Android's pins); the other keys are TrustKit's
    /// additions and Rampart's own anchors.
    ///
    /// - Parameter jsonData: The JSON.
    /// - Throws: ``PinningError``: `invalidConfiguration` for malformed JSON or wrongly typed values, `invalidPin`,
    ///   `limitExceeded`.
    public init(jsonData: Data) throws {
        guard jsonData.count <= Self.maximumByteCount else {
            throw PinningError.limitExceeded("the JSON is larger than \(Self.maximumByteCount) bytes")
        }
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: jsonData)
        } catch {
            throw PinningError.invalidConfiguration("the file is not well-formed JSON", detail: "\(error)")
        }
        guard let top = root as? [String: Any] else {
            throw PinningError.invalidConfiguration("a Rampart pin configuration is a JSON object")
        }
        if let version = top["version"] {
            guard let number = version as? Int, number == 1 else {
                throw PinningError.unsupportedFormat("only version 1 of the Rampart pin configuration is supported")
            }
        }
        var warnings: [String] = []
        for key in top.keys.sorted() where key != "version" && key != "pinnedDomains" {
            warnings.append("unknown top-level key \(key) is ignored")
        }
        guard let domains = top["pinnedDomains"] as? [String: Any] else {
            throw PinningError.invalidConfiguration("a Rampart pin configuration needs a \"pinnedDomains\" object")
        }
        guard domains.count <= Self.maximumDomainCount else {
            throw PinningError.limitExceeded("more than \(Self.maximumDomainCount) pinned domains")
        }
        let known: Set<String> = [
            "includeSubdomains", "caPins", "leafPins", "chainPins", "reportOnly", "expirationDate", "ownAnchors",
            "reportURIs",
        ]
        var policies: [PinPolicy] = []
        for (domain, value) in domains.sorted(by: { $0.key < $1.key }) {
            guard let entry = value as? [String: Any] else {
                throw PinningError.invalidConfiguration("pinnedDomains → \(domain) must be an object")
            }
            // Rampart JSON is Rampart's own format: a misspelt key would silently drop a pin list, so it is an
            // error (Info.plist keys iOS does not know are only warnings, because iOS ignores them).
            if let unknown = entry.keys.sorted().first(where: { !known.contains($0) }) {
                let suggestion = known.sorted().first { Self.isNearMiss(unknown, $0) }.map { "; did you mean \($0)?" }
                throw PinningError.invalidConfiguration(
                    "pinnedDomains → \(domain): unknown key \(unknown)\(suggestion ?? "") (known keys: "
                        + known.sorted().joined(separator: ", ") + ")")
            }
            policies.append(
                PinPolicy(
                    domain: domain,
                    includesSubdomains: try Self.bool(entry["includeSubdomains"], "includeSubdomains", domain),
                    caPins: try Self.jsonPins(entry["caPins"], key: "caPins", domain: domain),
                    leafPins: try Self.jsonPins(entry["leafPins"], key: "leafPins", domain: domain),
                    chainPins: try Self.jsonPins(entry["chainPins"], key: "chainPins", domain: domain),
                    isReportOnly: try Self.bool(entry["reportOnly"], "reportOnly", domain),
                    expirationDate: try Self.date(entry["expirationDate"], domain: domain),
                    ownAnchors: try Self.anchors(entry["ownAnchors"], domain: domain),
                    reportURIs: try Self.strings(entry["reportURIs"], "reportURIs", domain)))
        }
        try self.init(policies: policies, warnings: warnings)
    }

    /// The configuration as Rampart JSON (pretty-printed, keys sorted).
    ///
    /// - Returns: The JSON bytes.
    /// - Throws: An encoding error (not expected).
    public func jsonData() throws -> Data {
        var domains: [String: DomainJSON] = [:]
        for policy in policies {
            domains[policy.domain] = DomainJSON(
                includeSubdomains: policy.includesSubdomains ? true : nil,
                caPins: policy.caPins.map { $0.map { [$0.kind.description: $0.base64] } },
                leafPins: policy.leafPins.map { $0.map { [$0.kind.description: $0.base64] } },
                chainPins: policy.chainPins.map { $0.map { [$0.kind.description: $0.base64] } },
                reportOnly: policy.isReportOnly ? true : nil,
                expirationDate: policy.expirationDate.map(Self.formatDate),
                ownAnchors: policy.ownAnchors.isEmpty
                    ? nil : policy.ownAnchors.map { PEMDocument(label: "CERTIFICATE", derBytes: $0).pemString },
                reportURIs: policy.reportURIs.isEmpty ? nil : policy.reportURIs)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(FileJSON(version: 1, pinnedDomains: domains))
    }

    private struct FileJSON: Encodable {
        let version: Int
        let pinnedDomains: [String: DomainJSON]
    }

    private struct DomainJSON: Encodable {
        let includeSubdomains: Bool?
        let caPins: [[String: String]]?
        let leafPins: [[String: String]]?
        let chainPins: [[String: String]]?
        let reportOnly: Bool?
        let expirationDate: String?
        let ownAnchors: [String]?
        let reportURIs: [String]?
    }

    private static func bool(_ value: Any?, _ key: String, _ domain: String) throws -> Bool {
        guard let value else { return false }
        guard let flag = value as? Bool else {
            throw PinningError.invalidConfiguration("\(domain): \(key) must be true or false")
        }
        return flag
    }

    private static func strings(_ value: Any?, _ key: String, _ domain: String) throws -> [String] {
        guard let value else { return [] }
        guard let array = value as? [String], array.count <= maximumPinsPerList else {
            throw PinningError.invalidConfiguration("\(domain): \(key) must be an array of strings")
        }
        return array
    }

    private static func jsonPins(_ value: Any?, key: String, domain: String) throws -> [Pin]? {
        guard let value else { return nil }
        guard let array = value as? [Any] else {
            throw PinningError.invalidConfiguration("\(domain): \(key) must be an array of pin objects")
        }
        guard array.count <= maximumPinsPerList else {
            throw PinningError.limitExceeded("\(domain): more than \(maximumPinsPerList) pins in \(key)")
        }
        return try array.map { element in
            guard let object = element as? [String: Any], object.count == 1, let (name, text) = object.first,
                let base64 = text as? String
            else {
                throw PinningError.invalidConfiguration(
                    "\(domain): each \(key) entry must be {\"spki-sha256\": \"…\"} or {\"cert-sha256\": \"…\"}")
            }
            switch name {
            case Pin.Kind.spkiSHA256.description: return try Pin(kind: .spkiSHA256, base64: base64)
            case Pin.Kind.certificateSHA256.description: return try Pin(kind: .certificateSHA256, base64: base64)
            default:
                throw PinningError.invalidConfiguration(
                    "\(domain): unknown pin type \(name) in \(key); use spki-sha256 or cert-sha256")
            }
        }
    }

    private static func anchors(_ value: Any?, domain: String) throws -> [[UInt8]] {
        let texts = try strings(value, "ownAnchors", domain)
        guard texts.count <= maximumAnchorsPerPolicy else {
            throw PinningError.limitExceeded("\(domain): more than \(maximumAnchorsPerPolicy) own anchors")
        }
        return try texts.map { text in
            let documents: [PEMDocument]
            do {
                documents = try PEMDocument.parseAll(text)
            } catch {
                throw PinningError.invalidConfiguration("\(domain): an ownAnchors entry is not PEM", detail: "\(error)")
            }
            guard documents.count == 1, let document = documents.first, document.label == "CERTIFICATE" else {
                throw PinningError.invalidConfiguration(
                    "\(domain): each ownAnchors entry must hold exactly one PEM CERTIFICATE")
            }
            return document.derBytes
        }
    }

    private static func date(_ value: Any?, domain: String) throws -> Date? {
        guard let value else { return nil }
        guard let text = value as? String else {
            throw PinningError.invalidConfiguration("\(domain): expirationDate must be a string such as 2027-01-01")
        }
        if let day = try? Date("\(text)T00:00:00Z", strategy: .iso8601) { return day }
        if let instant = try? Date(text, strategy: .iso8601) { return instant }
        throw PinningError.invalidConfiguration(
            "\(domain): expirationDate must be a date (2027-01-01) or an RFC 3339 time (2027-01-01T00:00:00Z)")
    }

    static func formatDate(_ date: Date) -> String {
        let full = date.formatted(.iso8601)
        return full.hasSuffix("T00:00:00Z") ? String(full.prefix(10)) : full
    }

    /// Whether `typed` is at most two edits (ignoring case) from `known`: a likely misspelling.
    static func isNearMiss(_ typed: String, _ known: String) -> Bool {
        let a = Array(typed.lowercased())
        let b = Array(known.lowercased())
        guard !a.isEmpty, !b.isEmpty, abs(a.count - b.count) <= 2 else { return false }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count] <= 2
    }
}
