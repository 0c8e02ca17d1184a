import Foundation
import RampartAudit
import Testing

/// One property-list rule's fixture: a failing plist and its near miss.
struct PlistFixture: CustomTestStringConvertible, Sendable {
    let rule: String
    let name: String
    let file: String
    let failing: String
    let nearMiss: String

    var testDescription: String { "\(rule): \(name)" }
}

/// The ATS and entitlement rules, on XML and binary property lists.
struct PlistRuleTests {
    /// An XML property list with `body` inside its top-level dictionary.
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \(body)
        </dict>
        </plist>
        """
    }

    static func ats(_ body: String) -> String {
        plist("<key>NSAppTransportSecurity</key>\n<dict>\n\(body)\n</dict>")
    }

    static func exception(_ domain: String, _ body: String) -> String {
        ats("<key>NSExceptionDomains</key>\n<dict>\n<key>\(domain)</key>\n<dict>\n\(body)\n</dict>\n</dict>")
    }

    static func findings(_ text: String, file: String) -> [AuditFinding] {
        let time = Date(timeIntervalSince1970: 1_780_000_000)
        return Auditor(time: time).findings(inPropertyList: Data(text.utf8), file: file) ?? []
    }

    static let twoPins = """
        <key>NSPinnedCAIdentities</key>
        <array>
        <dict><key>SPKI-SHA256-BASE64</key><string>pp4VdWQrgevoXUACSVa4knJiHdYwB2MZKVt8eW+YA2U=</string></dict>
        <dict><key>SPKI-SHA256-BASE64</key><string>NmsyPoJh8zpF85Ay1LUDC6ajCBg/LutawWt0TSIXF/8=</string></dict>
        </array>
        """

    static let fixtures: [PlistFixture] = [
        PlistFixture(
            rule: "ats-arbitrary-loads", name: "NSAllowsArbitraryLoads", file: "Info.plist",
            failing: ats("<key>NSAllowsArbitraryLoads</key><true/>"),
            // iOS 10+ ignores NSAllowsArbitraryLoads when NSAllowsLocalNetworking is present.
            nearMiss: ats("<key>NSAllowsArbitraryLoads</key><true/>\n<key>NSAllowsLocalNetworking</key><true/>")),
        PlistFixture(
            rule: "ats-arbitrary-loads-web-content", name: "web content", file: "Info.plist",
            failing: ats("<key>NSAllowsArbitraryLoadsInWebContent</key><true/>"),
            nearMiss: ats("<key>NSAllowsArbitraryLoadsInWebContent</key><false/>")),
        PlistFixture(
            rule: "ats-arbitrary-loads-media", name: "media", file: "App-Info.plist",
            failing: ats("<key>NSAllowsArbitraryLoadsForMedia</key><true/>"),
            nearMiss: ats("<key>NSAllowsArbitraryLoads</key><false/>")),
        PlistFixture(
            rule: "ats-insecure-http-exception", name: "insecure HTTP exception", file: "Info.plist",
            failing: exception("legacy.example.com", "<key>NSExceptionAllowsInsecureHTTPLoads</key><true/>"),
            // ATS's real defaults: no forward secrecy is not a plain-text risk, and localhost is exempt anyway.
            nearMiss: exception(
                "legacy.example.com",
                "<key>NSExceptionRequiresForwardSecrecy</key><false/>\n<key>NSIncludesSubdomains</key><true/>")),
        PlistFixture(
            rule: "ats-minimum-tls", name: "TLS 1.0", file: "Info.plist",
            failing: exception("old.example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.0</string>"),
            nearMiss: exception("old.example.com", "<key>NSExceptionMinimumTLSVersion</key><string>TLSv1.2</string>")),
        PlistFixture(
            rule: "ats-pinned-domains", name: "a single pin", file: "Info.plist",
            failing: ats(
                """
                <key>NSPinnedDomains</key><dict><key>api.example.com</key><dict>
                <key>NSPinnedCAIdentities</key><array>
                <dict><key>SPKI-SHA256-BASE64</key><string>pp4VdWQrgevoXUACSVa4knJiHdYwB2MZKVt8eW+YA2U=</string></dict>
                </array></dict></dict>
                """),
            nearMiss: ats(
                "<key>NSPinnedDomains</key><dict><key>api.example.com</key><dict>\n\(twoPins)\n</dict></dict>")),
        PlistFixture(
            rule: "app-attest-development", name: "development in release", file: "App.entitlements",
            failing: plist(
                "<key>com.apple.developer.devicecheck.appattest-environment</key><string>development</string>"),
            nearMiss: plist(
                "<key>com.apple.developer.devicecheck.appattest-environment</key><string>production</string>")),
        PlistFixture(
            rule: "keychain-group-prefix", name: "no team prefix", file: "App.entitlements",
            failing: plist("<key>keychain-access-groups</key><array><string>com.example.shared</string></array>"),
            nearMiss: plist(
                """
                <key>keychain-access-groups</key><array>
                <string>$(AppIdentifierPrefix)com.example.shared</string>
                <string>ABCDE12345.com.example.other</string>
                </array>
                """)),
    ]

    @Test("the failing plist is reported once, with its rule", arguments: fixtures)
    func failing(fixture: PlistFixture) {
        let findings = Self.findings(fixture.failing, file: fixture.file)
        #expect(findings.map(\.rule.id) == [fixture.rule], "\(findings)")
    }

    @Test("the near-miss plist is clean", arguments: fixtures)
    func nearMiss(fixture: PlistFixture) {
        let findings = Self.findings(fixture.nearMiss, file: fixture.file)
        #expect(findings.isEmpty, "\(findings)")
    }

    @Test("the App Attest development environment is expected in a debug entitlements file")
    func debugEntitlements() {
        let text = Self.plist(
            "<key>com.apple.developer.devicecheck.appattest-environment</key><string>development</string>")
        #expect(Self.findings(text, file: "App-Debug.entitlements").isEmpty)
    }

    @Test("a binary Info.plist is read too, at line 1")
    func binaryPlist() throws {
        let value: [String: Any] = ["NSAppTransportSecurity": ["NSAllowsArbitraryLoads": true]]
        let data = try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
        let findings = Auditor().findings(inPropertyList: data, file: "Info.plist") ?? []
        #expect(findings.map(\.rule.id) == ["ats-arbitrary-loads"])
        #expect(findings.first?.line == 1)
    }

    @Test("an XML finding points at its key's line")
    func keyLine() throws {
        let finding = try #require(
            Self.findings(Self.ats("<key>NSAllowsArbitraryLoads</key><true/>"), file: "Info.plist").first)
        #expect(finding.line == 7)
        #expect(finding.column == 1)
    }

    @Test("a plist that does not load as a dictionary is not audited")
    func notAPlist() {
        #expect(Auditor().findings(inPropertyList: Data("not a plist".utf8), file: "Info.plist") == nil)
    }
}

/// The Xcode project decides which entitlements a release build signs with.
struct XcodeProjectTests {
    static func project(debug: String, release: String) -> String {
        """
        // !$*UTF8*$!
        {
        \tobjects = {
        \t\tA1 /* Debug */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tCODE_SIGN_ENTITLEMENTS = \(debug);
        \t\t\t\tPRODUCT_NAME = Points;
        \t\t\t};
        \t\t\tname = Debug;
        \t\t};
        \t\tA2 /* Release */ = {
        \t\t\tisa = XCBuildConfiguration;
        \t\t\tbuildSettings = {
        \t\t\t\tCODE_SIGN_ENTITLEMENTS = "\(release)";
        \t\t\t};
        \t\t\tname = Release;
        \t\t};
        \t};
        }
        """
    }

    static func audit(project: String) throws -> [String] {
        let folder = try AuditCommandTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let development = PlistRuleTests.plist(
            "<key>com.apple.developer.devicecheck.appattest-environment</key><string>development</string>")
        let production = PlistRuleTests.plist(
            "<key>com.apple.developer.devicecheck.appattest-environment</key><string>production</string>")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("Points.xcodeproj"), withIntermediateDirectories: true)
        try Data(project.utf8).write(to: folder.appendingPathComponent("Points.xcodeproj/project.pbxproj"))
        try Data(development.utf8).write(to: folder.appendingPathComponent("Points.entitlements"))
        try Data(production.utf8).write(to: folder.appendingPathComponent("PointsStore.entitlements"))
        return try Auditor().audit(path: folder.path).findings.map { "\($0.rule.id) \($0.file)" }
    }

    @Test("development in an entitlements file only Debug signs with is expected")
    func debugOnly() throws {
        let findings = try Self.audit(
            project: Self.project(debug: "Points/Points.entitlements", release: "Points/PointsStore.entitlements"))
        #expect(findings.isEmpty)
    }

    @Test("development in the entitlements Release signs with is reported, whatever the file's name")
    func release() throws {
        let findings = try Self.audit(
            project: Self.project(debug: "Points/Points.entitlements", release: "Points/Points.entitlements"))
        #expect(findings == ["app-attest-development Points.entitlements"])
    }
}
