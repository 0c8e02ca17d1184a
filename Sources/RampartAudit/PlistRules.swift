import Foundation
import RampartPinning

/// The rules that read property lists: App Transport Security in Info.plist, and entitlements.
enum PlistRules {
    /// The ATS rules over an Info.plist, read with ATS's defaults: a missing key means the secure default (TLS 1.2,
    /// forward secrecy, HTTPS only), so only keys that weaken it are reported; `NSExceptionRequiresForwardSecrecy`
    /// false is not (it allows non-forward-secret TLS 1.2 ciphers, which is not a plain-text or downgrade risk).
    static func infoPlistFindings(_ plist: [String: Any], data: Data, file: String, at time: Date) -> [AuditFinding] {
        guard let ats = plist["NSAppTransportSecurity"] as? [String: Any] else { return [] }
        let locator = KeyLocator(data: data)
        var findings: [AuditFinding] = []
        func add(_ rule: AuditRule, _ key: String, after: String? = nil, _ detail: String) {
            let (line, column) = locator.position(of: key, after: after)
            findings.append(AuditFinding(rule: rule, file: file, line: line, column: column, detail: detail))
        }
        // On iOS 10 and later, NSAllowsArbitraryLoads is ignored when any of these keys is present.
        let overriding = [
            "NSAllowsArbitraryLoadsInWebContent", "NSAllowsArbitraryLoadsForMedia", "NSAllowsLocalNetworking",
        ]
        if isTrue(ats["NSAllowsArbitraryLoads"]), !overriding.contains(where: { ats[$0] != nil }) {
            add(.atsArbitraryLoads, "NSAllowsArbitraryLoads", "NSAllowsArbitraryLoads = true")
        }
        if isTrue(ats["NSAllowsArbitraryLoadsInWebContent"]) {
            add(
                .atsArbitraryLoadsInWebContent, "NSAllowsArbitraryLoadsInWebContent",
                "NSAllowsArbitraryLoadsInWebContent = true")
        }
        if isTrue(ats["NSAllowsArbitraryLoadsForMedia"]) {
            add(.atsArbitraryLoadsForMedia, "NSAllowsArbitraryLoadsForMedia", "NSAllowsArbitraryLoadsForMedia = true")
        }
        let exceptions = ats["NSExceptionDomains"] as? [String: Any] ?? [:]
        for domain in exceptions.keys.sorted() {
            guard let entry = exceptions[domain] as? [String: Any] else { continue }
            let isLocal = domain == "localhost" || domain.hasSuffix(".local")
            for key in ["NSExceptionAllowsInsecureHTTPLoads", "NSTemporaryExceptionAllowsInsecureHTTPLoads"]
            where isTrue(entry[key]) && !isLocal {
                add(.atsInsecureHTTPException, key, after: domain, "NSExceptionDomains › \(domain) › \(key)")
            }
            for key in ["NSExceptionMinimumTLSVersion", "NSTemporaryExceptionMinimumTLSVersion"] {
                if let version = entry[key] as? String, ["TLSv1.0", "TLSv1.1"].contains(version) {
                    add(.atsMinimumTLS, key, after: domain, "NSExceptionDomains › \(domain) › \(key) = \(version)")
                }
            }
        }
        if ats["NSPinnedDomains"] != nil {
            do {
                let configuration = try PinConfiguration(plistData: data)
                for warning in configuration.lint(at: time) {
                    add(.atsPinnedDomains, "NSPinnedDomains", "\(warning)")
                }
            } catch let error as PinningError {
                add(.atsPinnedDomains, "NSPinnedDomains", "the configuration does not load: \(error.reason)")
            } catch {
                add(.atsPinnedDomains, "NSPinnedDomains", "the configuration does not load: \(error)")
            }
        }
        return findings
    }

    /// The entitlement rules. The App Attest development environment is expected in a debug configuration: an
    /// entitlements file the Xcode project signs only debug configurations with (`usedInRelease` false), or, when
    /// no project names it, one whose name says Debug or Development.
    static func entitlementFindings(
        _ plist: [String: Any], data: Data, file: String, usedInRelease: Bool? = nil
    ) -> [AuditFinding] {
        let locator = KeyLocator(data: data)
        var findings: [AuditFinding] = []
        let name = (file as NSString).lastPathComponent.lowercased()
        let isDebug = usedInRelease.map { !$0 } ?? (name.contains("debug") || name.contains("development"))
        let environmentKey = "com.apple.developer.devicecheck.appattest-environment"
        if !isDebug, plist[environmentKey] as? String == "development" {
            let (line, column) = locator.position(of: environmentKey)
            findings.append(
                AuditFinding(
                    rule: .appAttestDevelopment, file: file, line: line, column: column,
                    detail: "\(environmentKey) = development"))
        }
        for group in plist["keychain-access-groups"] as? [String] ?? [] where !hasTeamPrefix(group) {
            let (line, column) = locator.position(ofString: group)
            findings.append(
                AuditFinding(rule: .keychainGroupPrefix, file: file, line: line, column: column, detail: group))
        }
        return findings
    }

    /// `$(AppIdentifierPrefix)…`, `$(TeamIdentifierPrefix)…` or a 10-character team id and a dot.
    static func hasTeamPrefix(_ group: String) -> Bool {
        if group.hasPrefix("$(AppIdentifierPrefix)") || group.hasPrefix("$(TeamIdentifierPrefix)") { return true }
        let parts = group.split(separator: ".", maxSplits: 1)
        guard parts.count == 2, let team = parts.first, team.count == 10 else { return false }
        return team.allSatisfy { ($0.isASCII && $0.isUppercase) || ($0.isASCII && $0.isNumber) }
    }

    static func isTrue(_ value: Any?) -> Bool {
        if let bool = value as? Bool { return bool }
        if let string = value as? String { return ["YES", "true", "1"].contains(string) }
        return false
    }
}

/// Where a key sits in an XML property list, for findings' line and column (binary plists report 1:1).
struct KeyLocator {
    let lines: [String]

    init(data: Data) {
        let text = data.starts(with: Array("bplist".utf8)) ? "" : String(decoding: data, as: UTF8.self)
        lines = text.components(separatedBy: "\n")
    }

    func position(of key: String, after anchor: String? = nil) -> (Int, Int) {
        find("<key>\(key)</key>", after: anchor.map { "<key>\($0)</key>" })
    }

    func position(ofString value: String) -> (Int, Int) { find("<string>\(value)</string>", after: nil) }

    private func find(_ needle: String, after anchor: String?) -> (Int, Int) {
        var start = 0
        if let anchor, let index = lines.firstIndex(where: { $0.contains(anchor) }) { start = index }
        for index in start..<lines.count {
            if let range = lines[index].range(of: needle) {
                return (
                    index + 1,
                    lines[index].unicodeScalars.distance(
                        from: lines[index].unicodeScalars.startIndex, to: range.lowerBound) + 1
                )
            }
        }
        return (1, 1)
    }
}
