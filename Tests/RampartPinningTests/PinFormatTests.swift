import Foundation
import RampartChainVerification
import RampartPinning
import RampartX509
import TestSupport
import Testing

/// Every platform's format: written, read back to the same policy, and checked with the same verdicts.
struct PinFormatTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    static let expiry = Date(timeIntervalSince1970: 1_830_297_600)  // 2028-01-01, a whole day

    /// A policy every single-list format can express exactly: chain pins, a backup pin.
    func chainPolicy(includesSubdomains: Bool = false, expires: Bool = false) throws -> PinPolicy {
        PinPolicy(
            domain: "good.rampart.test", includesSubdomains: includesSubdomains,
            chainPins: [try fixture.spki("intermediate"), try Pin(kind: .spkiSHA256, base64: pinA)],
            expirationDate: expires ? Self.expiry : nil)
    }

    @Test("TrustKit, OkHttp, Android and JSON round-trip a chain-pin policy: write, read, the same policy")
    func roundTrips() throws {
        for format in [PinConfiguration.Format.trustKit, .android, .json] {
            for includes in [false, true] {
                let configuration = try PinConfiguration(
                    policies: [try chainPolicy(includesSubdomains: includes, expires: true)])
                let export = try configuration.export(as: format)
                #expect(try PinConfiguration.detectFormat(export.data) == (format == .trustKit ? .plist : format))
                let read = try PinConfiguration(contentsOf: export.data)
                #expect(read.policies == configuration.policies, "\(format), includesSubdomains \(includes)")
            }
        }
        for includes in [false, true] {
            let configuration = try PinConfiguration(policies: [try chainPolicy(includesSubdomains: includes)])
            let export = try configuration.export(as: .okHttp)
            #expect(try PinConfiguration.detectFormat(export.data) == .okHttp)
            #expect(try PinConfiguration(contentsOf: export.data).policies == configuration.policies)
        }
    }

    @Test("the same policy through every format gives the same verdicts on the same chains")
    func sameVerdicts() throws {
        let policy = try chainPolicy()
        let direct = try PinConfiguration(policies: [policy])
        let roots = try ["root", "otherroot"].map(fixture.certificate)
        let chains = ["good", "other"]
        for format in [PinConfiguration.Format.trustKit, .okHttp, .android, .json] {
            let through = try PinConfiguration(contentsOf: try direct.export(as: format).data)
            for chain in chains {
                let expected = try PinValidatorFixtureOutcome(direct, fixture, chain, roots)
                #expect(
                    try PinValidatorFixtureOutcome(through, fixture, chain, roots) == expected, "\(format) \(chain)")
            }
        }
    }

    @Test("CA-only pins are written for single-list formats with a note saying the split is lost")
    func notes() throws {
        let configuration = try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test", includesSubdomains: true,
                caPins: [try fixture.spki("intermediate"), try fixture.spki("root")])
        ])
        let trustKit = try configuration.export(as: .trustKit)
        #expect(trustKit.notes.contains { $0.contains("every certificate of the chain") })
        #expect(trustKit.notes.contains { $0.contains("every depth") })
        let okHttp = try configuration.export(as: .okHttp)
        #expect(String(decoding: okHttp.data, as: UTF8.self).contains("// Note: good.rampart.test: OkHttp matches"))
        #expect(!okHttp.notes.contains { $0.contains("depth") }, "OkHttp's *. is exactly one label")
        let android = try configuration.export(as: .android)
        #expect(String(decoding: android.data, as: UTF8.self).contains("<!-- Note: good.rampart.test: Android"))
    }

    @Test(
        "a rule a format cannot express is refused, naming the domain and what to do",
        arguments: [
            ("trustkit", "single pin"), ("trustkit", "ip"), ("okhttp", "report-only"), ("okhttp", "expiry"),
            ("android", "report-only"), ("android", "both lists"), ("trustkit", "certificate pin"),
            ("plist", "chain pins"), ("android", "partial day"), ("okhttp", "empty list"), ("android", "empty list"),
        ])
    func refusals(_ formatName: String, _ rule: String) throws {
        let intermediate = try fixture.spki("intermediate")
        let backup = try Pin(kind: .spkiSHA256, base64: pinA)
        let policy: PinPolicy =
            switch rule {
            case "single pin": PinPolicy(domain: "good.rampart.test", chainPins: [intermediate])
            case "ip": PinPolicy(domain: "192.0.2.1", chainPins: [intermediate, backup])
            case "report-only": PinPolicy(domain: "good.rampart.test", chainPins: [intermediate], isReportOnly: true)
            case "expiry":
                PinPolicy(domain: "good.rampart.test", chainPins: [intermediate], expirationDate: Self.expiry)
            case "both lists": PinPolicy(domain: "good.rampart.test", caPins: [intermediate], leafPins: [backup])
            case "certificate pin":
                PinPolicy(domain: "good.rampart.test", chainPins: [try fixture.whole("good"), backup])
            case "empty list": PinPolicy(domain: "good.rampart.test", caPins: [])
            case "partial day":
                PinPolicy(
                    domain: "good.rampart.test", chainPins: [intermediate, backup],
                    expirationDate: Self.expiry.addingTimeInterval(3600))
            default: PinPolicy(domain: "good.rampart.test", chainPins: [intermediate, backup])
            }
        let format = try #require(PinConfiguration.Format(named: formatName))
        let error = #expect(throws: PinningError.self) {
            try PinConfiguration(policies: [policy]).export(as: format)
        }
        #expect(error?.code == .unsupportedFormat)
        #expect(error?.reason.contains(policy.domain) == true)
    }

    @Test("an Info.plist merge replaces the written domain's entry and keeps every other domain and key")
    func merge() throws {
        let existing = Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>com.example.app</string>
            <key>CFBundleVersion</key><integer>7</integer>
            <key>NSAppTransportSecurity</key><dict>
              <key>NSAllowsLocalNetworking</key><true/>
              <key>NSPinnedDomains</key><dict>
                <key>old.example</key><dict><key>NSPinnedCAIdentities</key><array>
                  <dict><key>SPKI-SHA256-BASE64</key><string>\(pinB)</string></dict></array></dict>
                <key>GOOD.rampart.test.</key><dict><key>NSPinnedLeafIdentities</key><array>
                  <dict><key>SPKI-SHA256-BASE64</key><string>\(pinB)</string></dict></array></dict>
              </dict>
            </dict></dict></plist>
            """.utf8)
        let policy = PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("intermediate")])
        let configuration = try PinConfiguration(policies: [policy])
        let merged = try configuration.plistData(mergingInto: existing)
        let root = try #require(try PropertyList(propertyListData: merged).dictionaryValue)
        #expect(root["CFBundleIdentifier"] == .string("com.example.app"))
        #expect(root["CFBundleVersion"] == .integer(7))
        let transport = try #require(root["NSAppTransportSecurity"]?.dictionaryValue)
        #expect(transport["NSAllowsLocalNetworking"] == .boolean(true))
        let pinned = try #require(transport["NSPinnedDomains"]?.dictionaryValue)
        // The old entry for the same domain (another case, a trailing dot) is replaced, not kept beside the new one.
        #expect(pinned.keys.sorted() == ["good.rampart.test", "old.example"])
        let read = try PinConfiguration(contentsOf: merged)
        #expect(read.policy(for: "good.rampart.test") == policy)
        #expect(read.policy(for: "old.example")?.caPins == [try Pin(kind: .spkiSHA256, base64: pinB)])
        // Merging again changes nothing: the same bytes.
        #expect(try configuration.plistData(mergingInto: merged) == merged)
    }

    @Test("a merge into an Info.plist without NSAppTransportSecurity adds it; a binary Info.plist is read")
    func mergeAddsTransportSecurity() throws {
        let object = ["CFBundleName": "App", "UIRequiredDeviceCapabilities": ["arm64"]] as [String: Any]
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        let configuration = try PinConfiguration(policies: [
            PinPolicy(domain: "good.rampart.test", includesSubdomains: true, caPins: [try fixture.spki("root")])
        ])
        let merged = try configuration.plistData(mergingInto: binary)
        let root = try #require(try PropertyList(propertyListData: merged).dictionaryValue)
        #expect(root["CFBundleName"] == .string("App"))
        #expect(root["UIRequiredDeviceCapabilities"] == .array([.string("arm64")]))
        #expect(try PinConfiguration(contentsOf: merged).policies == configuration.policies)
        #expect(try configuration.plistData(mergingInto: Data(Self.emptyDictionary.utf8)) == configuration.plistData())
    }

    static let emptyDictionary = "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict/></plist>"

    @Test(
        "a merge refuses a file that is not a dictionary property list, or whose ATS or NSPinnedDomains is no dictionary",
        arguments: [
            ("[1]", "not a well-formed property list"),
            ("<plist version=\"1.0\"><array/></plist>", "not a dictionary property list"),
            (
                "<plist version=\"1.0\"><dict><key>NSAppTransportSecurity</key><string>x</string></dict></plist>",
                "NSAppTransportSecurity is not a dictionary"
            ),
            (
                "<plist version=\"1.0\"><dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key>"
                    + "<array/></dict></dict></plist>", "NSPinnedDomains is not a dictionary"
            ),
        ])
    func mergeRefusals(text: String, reason: String) throws {
        let configuration = try PinConfiguration(policies: [
            PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("root")])
        ])
        let error = #expect(throws: PinningError.self) { try configuration.plistData(mergingInto: Data(text.utf8)) }
        #expect(error?.code == .invalidConfiguration)
        #expect(error?.reason.contains(reason) == true, "\(error?.reason ?? "")")
    }

    @Test("OkHttp sources: *. and the domain with the same pins are one policy; differing pins and sha1 are refused")
    func okHttpReading() throws {
        let source = """
            val pinner = CertificatePinner.Builder()
                .add("api.example.com", "sha256/\(pinA)")
                .add("*.api.example.com", "sha256/\(pinA)")
                .add("**.cdn.example.com", "sha256/\(pinB)", "sha256/\(pinA)")
                .build()
            """
        let configuration = try PinConfiguration(contentsOf: Data(source.utf8))
        #expect(configuration.policies.map(\.domain) == ["api.example.com", "cdn.example.com"])
        #expect(configuration.policies.allSatisfy { $0.includesSubdomains })
        #expect(configuration.warnings.contains { $0.contains("every depth") })
        for bad in [
            #".add("a.example", "sha256/\#(pinA)").add("*.a.example", "sha256/\#(pinB)") CertificatePinner"#,
            #"CertificatePinner .add("a.example", "sha1/\#(pinA)")"#,
            #"CertificatePinner .add("a.example", pin)"#,
            #"CertificatePinner .add("a.example", "sha256/\#(pinA)""#,
        ] {
            #expect(throws: PinningError.self) { try PinConfiguration(contentsOf: Data(bad.utf8)) }
        }
    }

    @Test("Android: nested domain-configs inherit the pin-set; unsafe or malformed XML is refused")
    func androidReading() throws {
        let xml = """
            <?xml version="1.0" encoding="utf-8"?>
            <!-- comment -->
            <network-security-config>
              <base-config cleartextTrafficPermitted="false"/>
              <domain-config>
                <domain includeSubdomains="false">a.example</domain>
                <pin-set expiration="2028-01-01">
                  <pin digest="SHA-256">\(pinA)</pin>
                  <pin digest="SHA-256">\(pinB)</pin>
                </pin-set>
                <domain-config><domain>b.a.example</domain></domain-config>
              </domain-config>
            </network-security-config>
            """
        let configuration = try PinConfiguration(contentsOf: Data(xml.utf8))
        #expect(configuration.policies.map(\.domain) == ["a.example", "b.a.example"])
        #expect(configuration.policies.allSatisfy { $0.chainPins?.count == 2 && $0.expirationDate == Self.expiry })
        #expect(configuration.warnings.contains { $0.contains("<base-config>") })
        for bad in [
            #"<!DOCTYPE x [<!ENTITY e "boom">]><network-security-config/>"#,
            "<network-security-config><domain-config><![CDATA[x]]></domain-config></network-security-config>",
            "<network-security-config><domain-config></network-security-config>",
            #"<network-security-config a="1" a="2"/>"#,
            "<network-security-config>&unknown;</network-security-config>",
            "<network-security-config/><extra/>",
            #"<network-security-config><domain-config><domain>a.example</domain><pin-set><pin digest="SHA-1">\#(pinA)</pin></pin-set></domain-config></network-security-config>"#,
            String(repeating: "<network-security-config>", count: 40),
        ] {
            #expect(throws: PinningError.self) { try PinConfiguration(contentsOf: Data(bad.utf8)) }
        }
    }

    @Test("TrustKit dictionaries read TSKEnforcePinning as report-only and refuse wrongly typed values")
    func trustKitReading() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>TSKConfiguration</key><dict><key>TSKPinnedDomains</key><dict>
              <key>a.example</key><dict>
                <key>TSKPublicKeyHashes</key><array><string>\(pinA)</string><string>\(pinB)</string></array>
                <key>TSKEnforcePinning</key><false/>
                <key>TSKExpirationDate</key><string>2028-01-01</string>
              </dict>
            </dict></dict></dict></plist>
            """
        let policy = try #require(try PinConfiguration(contentsOf: Data(text.utf8)).policies.first)
        #expect(policy.isReportOnly)
        #expect(policy.expirationDate == Self.expiry)
        #expect(policy.chainPins?.count == 2)
        let broken = text.replacingOccurrences(of: "<false/>", with: "<string>no</string>")
        #expect(throws: PinningError.invalidConfiguration("")) { try PinConfiguration(contentsOf: Data(broken.utf8)) }
    }
}

/// The outcome `configuration` gives the fixture's `chain` for good.rampart.test.
func PinValidatorFixtureOutcome(
    _ configuration: PinConfiguration, _ fixture: Fixture, _ chain: String, _ roots: [Certificate]
) throws -> PinningDecision.Outcome {
    try PinValidator(configuration: configuration, trustAnchors: roots)
        .evaluate(chain: try fixture.chain(chain), host: "good.rampart.test", at: TestPKI.validationTime).outcome
}
