import Foundation
import RampartPinning
import Testing

/// The Info.plist of the certificate-chain guide (github.com, intermediate and root pinned, subdomains included).
let guidePlist = """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
        <key>CFBundleIdentifier</key>
        <string>com.example.app</string>
        <key>NSAppTransportSecurity</key>
        <dict>
            <key>NSPinnedDomains</key>
            <dict>
                <key>github.com</key>
                <dict>
                    <key>NSIncludesSubdomains</key>
                    <true/>
                    <key>NSPinnedCAIdentities</key>
                    <array>
                        <dict>
                            <key>SPKI-SHA256-BASE64</key>
                            <string>ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY=</string>
                        </dict>
                        <dict>
                            <key>SPKI-SHA256-BASE64</key>
                            <string>sLVjNUaFYfW7n6EtgBeEpjOlcnBdNPMrZDRF36iwBdE=</string>
                        </dict>
                    </array>
                </dict>
            </dict>
        </dict>
    </dict>
    </plist>
    """

func plist(domains: String) -> Data {
    Data(
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>NSAppTransportSecurity</key><dict><key>NSPinnedDomains</key><dict>
        \(domains)
        </dict></dict></dict></plist>
        """.utf8)
}

let pinA = "ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzdY="
let pinB = "sLVjNUaFYfW7n6EtgBeEpjOlcnBdNPMrZDRF36iwBdE="

struct PinConfigurationTests {
    @Test("the guide's Info.plist reads as one policy with two CA pins and subdomains")
    func guide() throws {
        let configuration = try PinConfiguration(contentsOf: Data(guidePlist.utf8))
        #expect(configuration.policies.count == 1)
        let policy = try #require(configuration.policy(for: "github.com"))
        #expect(policy.includesSubdomains)
        #expect(policy.caPins?.map(\.base64) == [pinA, pinB])
        #expect(policy.leafPins == nil)
        #expect(configuration.warnings.isEmpty)
    }

    @Test("plist output reads back to the same policies, and is detected as plist")
    func plistRoundTrip() throws {
        let original = try PinConfiguration(policies: [
            PinPolicy(
                domain: "example.com", includesSubdomains: true, caPins: [try Pin(kind: .spkiSHA256, base64: pinA)]),
            PinPolicy(domain: "api.example.org", leafPins: [try Pin(kind: .spkiSHA256, base64: pinB)]),
        ])
        let data = try original.plistData()
        #expect(try PinConfiguration.detectFormat(data) == .plist)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("<key>NSPinnedDomains</key>"))
        #expect(text.contains("<key>SPKI-SHA256-BASE64</key>"))
        #expect(try PinConfiguration(contentsOf: data) == original)
    }

    @Test("JSON output keeps TrustKit extras, certificate pins and own anchors")
    func jsonRoundTrip() throws {
        let original = try PinConfiguration(policies: [
            PinPolicy(
                domain: "example.com", includesSubdomains: true,
                caPins: [try Pin(kind: .spkiSHA256, base64: pinA)],
                leafPins: [try Pin(kind: .certificateSHA256, base64: pinB)], isReportOnly: true,
                expirationDate: Date(timeIntervalSince1970: 1_798_761_600), reportURIs: ["https://r.example.com/"])
        ])
        let data = try original.jsonData()
        #expect(try PinConfiguration.detectFormat(data) == .json)
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("\"expirationDate\" : \"2027-01-01\""))
        #expect(text.contains("\"cert-sha256\""))
        #expect(try PinConfiguration(contentsOf: data) == original)
    }

    @Test("what NSPinnedDomains cannot express is refused when writing a plist")
    func plistCannotExpress() throws {
        let reportOnly = try PinConfiguration(policies: [
            PinPolicy(domain: "a.com", caPins: [try Pin(kind: .spkiSHA256, base64: pinA)], isReportOnly: true)
        ])
        #expect(throws: PinningError.unsupportedFormat("")) { try reportOnly.plistData() }
        let certificatePin = try PinConfiguration(policies: [
            PinPolicy(domain: "a.com", leafPins: [try Pin(kind: .certificateSHA256, base64: pinA)])
        ])
        #expect(throws: PinningError.unsupportedFormat("")) { try certificatePin.plistData() }
    }

    @Test(
        "format detection", arguments: [("{}", "json"), ("  \n{", "json"), ("<?xml", "plist"), ("bplist00", "plist")])
    func detection(text: String, format: String) throws {
        #expect(try PinConfiguration.detectFormat(Data(text.utf8)).description == format)
    }

    @Test("content that is neither plist nor JSON is unsupportedFormat")
    func unknownFormat() {
        #expect(throws: PinningError.unsupportedFormat("")) { try PinConfiguration(contentsOf: Data("pins: x".utf8)) }
    }

    @Test("a configuration over 1 MiB is limitExceeded before parsing")
    func tooLarge() {
        let data = Data(repeating: UInt8(ascii: " "), count: PinConfiguration.maximumByteCount + 1)
        #expect(throws: PinningError.limitExceeded("")) { try PinConfiguration(contentsOf: data) }
    }

    @Test("more pins in one list than the limit is limitExceeded")
    func tooManyPins() {
        let entry = "<dict><key>SPKI-SHA256-BASE64</key><string>\(pinA)</string></dict>"
        let many = String(repeating: entry, count: PinConfiguration.maximumPinsPerList + 1)
        let data = plist(domains: "<key>a.com</key><dict><key>NSPinnedCAIdentities</key><array>\(many)</array></dict>")
        #expect(throws: PinningError.limitExceeded("")) { try PinConfiguration(contentsOf: data) }
    }

    @Test(
        "malformed pins are invalidPin",
        arguments: ["", "not base64!", "AAAA", "ZSagvDzjltLkewXEBuDxIzpW/dpVw1Juvvmd0hhkzQ==", pinA + "A"])
    func badPins(text: String) {
        let data = plist(
            domains:
                "<key>a.com</key><dict><key>NSPinnedCAIdentities</key><array><dict><key>SPKI-SHA256-BASE64</key>"
                + "<string>\(text)</string></dict></array></dict>")
        #expect(throws: PinningError.invalidPin("")) { try PinConfiguration(contentsOf: data) }
    }

    @Test(
        "structural mistakes are invalidConfiguration",
        arguments: [
            "<key>a.com</key><string>x</string>",
            "<key>a.com</key><dict><key>NSIncludesSubdomains</key><string>YES</string>"
                + "<key>NSPinnedCAIdentities</key><array/></dict>",
            "<key>a.com</key><dict><key>NSPinnedCAIdentities</key><dict/></dict>",
            "<key>a.com</key><dict><key>NSPinnedCAIdentities</key><array><string>x</string></array></dict>",
            "<key>a.com</key><dict><key>NSIncludesSubdomains</key><true/></dict>",
            "<key>*.a.com</key><dict><key>NSPinnedCAIdentities</key><array/></dict>",
            "<key>A.com</key><dict><key>NSPinnedCAIdentities</key><array/></dict>"
                + "<key>a.com.</key><dict><key>NSPinnedCAIdentities</key><array/></dict>",
        ])
    func structural(domains: String) {
        #expect(throws: PinningError.invalidConfiguration("")) {
            try PinConfiguration(contentsOf: plist(domains: domains))
        }
    }

    @Test(
        "malformed JSON configurations are invalidConfiguration",
        arguments: [
            "{", "[]", "{\"version\": 1}", "{\"pinnedDomains\": {\"a.com\": 3}}",
            "{\"pinnedDomains\": {\"a.com\": {\"caPins\": [{\"md5\": \"x\"}]}}}",
            "{\"pinnedDomains\": {\"a.com\": {\"caPins\": [], \"reportOnly\": \"yes\"}}}",
            "{\"pinnedDomains\": {\"a.com\": {\"caPins\": [], \"expirationDate\": \"soon\"}}}",
            "{\"pinnedDomains\": {\"a.com\": {\"ownAnchors\": [\"not pem\"]}}}",
        ])
    func badJSON(text: String) {
        #expect(throws: PinningError.invalidConfiguration("")) { try PinConfiguration(contentsOf: Data(text.utf8)) }
    }

    @Test(
        "a pinned domain that is not a host name is invalidConfiguration (found by FuzzPinConfiguration)",
        arguments: [
            "saple.ramp$xampl...", "a..com", "a.com..", ".a.com", "-a.com", "a-.com", "a b.com", "a_b.com",
            String(repeating: "a", count: 64) + ".com", "ex\u{e4}mple.com",
        ])
    func notAHostName(domain: String) {
        let text = "{\"pinnedDomains\": {\"\(domain)\": {\"caPins\": []}}}"
        #expect(throws: PinningError.invalidConfiguration("")) { try PinConfiguration(contentsOf: Data(text.utf8)) }
        #expect(throws: PinningError.invalidConfiguration("")) {
            try PinConfiguration(policies: [PinPolicy(domain: domain, caPins: [])])
        }
    }

    @Test("host names with digits, hyphens, punycode and one trailing dot are accepted")
    func hostNames() throws {
        for domain in ["a.com", "xn--bcher-kva.example", "api-2.example.com.", "10.0.0.1", "LOCALHOST"] {
            _ = try PinConfiguration(policies: [PinPolicy(domain: domain, caPins: [])])
        }
    }

    @Test("an unknown JSON version is unsupportedFormat")
    func badVersion() {
        let text = "{\"version\": 2, \"pinnedDomains\": {}}"
        #expect(throws: PinningError.unsupportedFormat("")) { try PinConfiguration(contentsOf: Data(text.utf8)) }
    }

    @Test("not a property list at all is invalidConfiguration")
    func notPlist() {
        #expect(throws: PinningError.invalidConfiguration("")) {
            try PinConfiguration(contentsOf: Data("<plist><dict><key>a</key></dict></plist>".utf8))
        }
    }

    @Test("keys iOS does not know are ignored, as iOS does, and listed as warnings")
    func unknownKeys() throws {
        let data = plist(
            domains:
                "<key>a.com</key><dict><key>NSIncludeSubdomains</key><true/><key>NSPinnedCAIdentities</key>"
                + "<array><dict><key>SPKI-SHA256-BASE64</key><string>\(pinA)</string></dict></array></dict>")
        let configuration = try PinConfiguration(contentsOf: data)
        #expect(configuration.policies.first?.includesSubdomains == false)
        #expect(configuration.warnings == ["a.com: unknown key NSIncludeSubdomains is ignored by iOS"])
    }

    @Test("an Info.plist without NSPinnedDomains pins nothing, with a warning")
    func nothingPinned() throws {
        let data = Data("<plist version=\"1.0\"><dict><key>CFBundleName</key><string>x</string></dict></plist>".utf8)
        let configuration = try PinConfiguration(contentsOf: data)
        #expect(configuration.policies.isEmpty)
        #expect(configuration.warnings.count == 1)
    }
}

/// Apple's NSPinnedDomains host-matching rules.
struct PinPolicyMatchingTests {
    static let pin = try? Pin(kind: .spkiSHA256, base64: pinA)

    @Test(
        "NSIncludesSubdomains covers exactly one more label",
        arguments: [
            ("example.com", true), ("api.example.com", true), ("a.b.example.com", false), ("example.org", false),
            ("badexample.com", false), (".example.com", false),
        ])
    func subdomains(host: String, covered: Bool) {
        let policy = PinPolicy(domain: "example.com", includesSubdomains: true)
        #expect(policy.covers(host) == covered)
    }

    @Test("without NSIncludesSubdomains only the domain itself is covered")
    func exactOnly() {
        let policy = PinPolicy(domain: "example.com")
        #expect(policy.covers("example.com"))
        #expect(!policy.covers("api.example.com"))
    }

    @Test(
        "names compare case-insensitively and without a trailing dot, on both sides",
        arguments: ["EXAMPLE.com", "example.com.", "Api.Example.COM.", "api.example.com"])
    func normalisation(host: String) {
        let policy = PinPolicy(domain: "Example.COM.", includesSubdomains: true)
        #expect(policy.domain == "example.com")
        #expect(policy.covers(host))
    }

    @Test("an exact domain wins over a parent that includes subdomains")
    func exactWins() throws {
        let pin = try Pin(kind: .spkiSHA256, base64: pinA)
        let configuration = try PinConfiguration(policies: [
            PinPolicy(domain: "example.com", includesSubdomains: true, caPins: [pin]),
            PinPolicy(domain: "api.example.com", leafPins: [pin]),
        ])
        #expect(configuration.policy(for: "api.example.com")?.domain == "api.example.com")
        #expect(configuration.policy(for: "www.example.com")?.domain == "example.com")
        #expect(configuration.policy(for: "a.api.example.com") == nil)
    }
}
