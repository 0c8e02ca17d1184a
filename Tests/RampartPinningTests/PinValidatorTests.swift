import Foundation
import RampartChainVerification
import RampartCrypto
import RampartPinning
import RampartX509
import TestSupport
import Testing

/// Certificates of the test PKI, and pins of them.
struct Fixture {
    let pki: TestPKI

    init() throws { pki = try TestPKI.shared.get() }

    func chain(_ name: String) throws -> [Certificate] {
        try Certificate.parseAll(Array(try pki.text("\(name)-chain.pem").utf8))
    }

    func certificate(_ name: String) throws -> Certificate { try Certificate(derEncoded: try pki.der(name)) }

    func spki(_ name: String) throws -> Pin {
        try Pin(kind: .spkiSHA256, base64: try certificate(name).spkiSHA256)
    }

    func whole(_ name: String) throws -> Pin {
        try Pin(kind: .certificateSHA256, digest: try certificate(name).fingerprintSHA256)
    }

    func validator(_ policies: [PinPolicy], anchors: [String] = ["root", "otherroot"]) throws -> PinValidator {
        try PinValidator(
            configuration: try PinConfiguration(policies: policies), trustAnchors: try anchors.map(certificate))
    }

    func decide(
        _ policies: [PinPolicy], chain: String = "good", host: String = "good.rampart.test"
    ) throws
        -> PinningDecision
    {
        try validator(policies).evaluate(chain: try self.chain(chain), host: host, at: TestPKI.validationTime)
    }
}

struct PinValidatorTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    @Test("CA pins match the intermediate (index 1)")
    func caPinIntermediate() throws {
        let decision = try fixture.decide([
            PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("intermediate")])
        ])
        #expect(decision.outcome == .pinned)
        #expect(decision.isAllowed)
    }

    @Test("CA pins match the anchor (index n-1), which the server did not even send")
    func caPinAnchor() throws {
        let decision = try fixture.decide([PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("root")])])
        #expect(decision.outcome == .pinned)
    }

    @Test("CA pins never match the leaf (index 0)")
    func caPinNotLeaf() throws {
        let decision = try fixture.decide([PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("good")])])
        #expect(decision.outcome == .pinMismatch)
        #expect(decision.mismatch?.failedLists == ["NSPinnedCAIdentities"])
        #expect(!decision.isAllowed)
    }

    @Test("leaf pins match only the leaf (index 0)")
    func leafPins() throws {
        let matching = try fixture.decide([PinPolicy(domain: "good.rampart.test", leafPins: [try fixture.spki("good")])]
        )
        #expect(matching.outcome == .pinned)
        let ca = try fixture.decide([
            PinPolicy(domain: "good.rampart.test", leafPins: [try fixture.spki("intermediate")])
        ])
        #expect(ca.outcome == .pinMismatch)
        #expect(ca.mismatch?.failedLists == ["NSPinnedLeafIdentities"])
    }

    @Test("with both lists, both must match")
    func bothLists() throws {
        let both = try fixture.decide([
            PinPolicy(
                domain: "good.rampart.test", caPins: [try fixture.spki("root")],
                leafPins: [try fixture.spki("good")])
        ])
        #expect(both.outcome == .pinned)
        let leafFails = try fixture.decide([
            PinPolicy(
                domain: "good.rampart.test", caPins: [try fixture.spki("root")],
                leafPins: [try fixture.spki("other")])
        ])
        #expect(leafFails.outcome == .pinMismatch)
        #expect(leafFails.mismatch?.failedLists == ["NSPinnedLeafIdentities"])
        let caFails = try fixture.decide([
            PinPolicy(
                domain: "good.rampart.test", caPins: [try fixture.spki("otherroot")],
                leafPins: [try fixture.spki("good")])
        ])
        #expect(caFails.mismatch?.failedLists == ["NSPinnedCAIdentities"])
    }

    @Test("any one pin of a list is enough")
    func anyPin() throws {
        let decision = try fixture.decide([
            PinPolicy(
                domain: "good.rampart.test",
                caPins: [
                    try fixture.spki("otherroot"), try fixture.spki("otherintermediate"), try fixture.spki("root"),
                ])
        ])
        #expect(decision.outcome == .pinned)
    }

    @Test("a chain from another trusted CA is refused with an OkHttp-style message")
    func otherCA() throws {
        let policy = PinPolicy(
            domain: "good.rampart.test", caPins: [try fixture.spki("intermediate"), try fixture.spki("root")])
        let decision = try fixture.decide([policy], chain: "other")
        #expect(decision.chainVerdict.isTrusted)
        #expect(decision.outcome == .pinMismatch)
        let message = decision.message
        #expect(message.contains("Peer certificate chain:"))
        #expect(message.contains("sha256/\(try fixture.certificate("otherintermediate").spkiSHA256)"))
        #expect(message.contains("Pinned certificates for good.rampart.test:"))
        #expect(message.contains("sha256/\(try fixture.certificate("root").spkiSHA256)"))
    }

    @Test("pinning never loosens: a failing default evaluation is refused even when the pins match")
    func defaultFirst() throws {
        let policy = PinPolicy(
            domain: "expired.rampart.test", caPins: [try fixture.spki("intermediate")], isReportOnly: true)
        let decision = try fixture.decide([policy], chain: "expired", host: "expired.rampart.test")
        #expect(decision.outcome == .defaultEvaluationFailed)
        #expect(decision.chainVerdict.failure?.reason == .expired)
        #expect(!decision.isAllowed)
        #expect(decision.failureReport()?.validationResult == 2)
    }

    @Test("report-only mode allows a mismatch and produces a TrustKit report")
    func reportOnly() throws {
        let policy = PinPolicy(
            domain: "rampart.test", includesSubdomains: true, caPins: [try fixture.spki("otherroot")],
            isReportOnly: true, expirationDate: Date(timeIntervalSince1970: 1_830_297_600))
        let decision = try fixture.decide([policy])
        #expect(decision.outcome == .reportOnlyMismatch)
        #expect(decision.isAllowed)
        let report = try #require(decision.failureReport(port: 8443, appBundleID: "com.example.app"))
        let object = try #require(
            try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        #expect(object["hostname"] as? String == "good.rampart.test")
        #expect(object["noted-hostname"] as? String == "rampart.test")
        #expect(object["include-subdomains"] as? Bool == true)
        #expect(object["enforce-pinning"] as? Bool == false)
        #expect(object["port"] as? Int == 8443)
        #expect(object["validation-result"] as? Int == 1)
        #expect(object["known-pins-expiration-date"] as? String == "2028-01-01")
        #expect(
            object["known-pins"] as? [String] == ["pin-sha256=\"\(try fixture.certificate("otherroot").spkiSHA256)\""])
        #expect((object["validated-certificate-chain"] as? [String])?.count == 3)
        #expect(object["app-bundle-id"] as? String == "com.example.app")
        // The platform the code runs on, as TrustKit names it (here Linux), and its OS version.
        #expect(object["app-platform"] as? String == "LINUX")
        let version = try #require(object["app-platform-version"] as? String)
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil })
    }

    @Test("after the expiration date the pins are not enforced, but the chain still is")
    func expiredPins() throws {
        let policy = PinPolicy(
            domain: "good.rampart.test", caPins: [try fixture.spki("otherroot")],
            expirationDate: Date(timeIntervalSince1970: 1_767_225_600))
        let decision = try fixture.decide([policy])
        #expect(decision.outcome == .pinsExpired)
        #expect(decision.isAllowed)
        #expect(decision.failureReport() == nil)
    }

    @Test("a host no policy covers is allowed as notPinned (two labels below an includesSubdomains domain)")
    func notPinned() throws {
        let policy = PinPolicy(
            domain: "rampart.test", includesSubdomains: true, caPins: [try fixture.spki("otherroot")])
        let decision = try fixture.decide([policy], host: "api.good.rampart.test")
        #expect(decision.outcome == .notPinned)
        #expect(decision.policy == nil)
    }

    @Test("the host is matched case-insensitively and without a trailing dot")
    func hostNormalisation() throws {
        let policy = PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("otherroot")])
        let decision = try fixture.decide([policy], host: "GOOD.Rampart.Test.")
        #expect(decision.outcome == .pinMismatch)
        #expect(decision.policy?.domain == "good.rampart.test")
    }

    @Test("certificate pins match the whole DER, not just the key")
    func certificatePins() throws {
        let matching = try fixture.decide([
            PinPolicy(domain: "good.rampart.test", leafPins: [try fixture.whole("good")])
        ])
        #expect(matching.outcome == .pinned)
        // Same subject and host, different certificate: a certificate pin of the other leaf must not match.
        let other = try fixture.decide([PinPolicy(domain: "good.rampart.test", leafPins: [try fixture.whole("other")])])
        #expect(other.outcome == .pinMismatch)
    }

    @Test("own anchors only: the device's roots are ignored for the domain")
    func ownAnchorsOnly() throws {
        let own = PinPolicy(domain: "good.rampart.test", ownAnchors: [try fixture.pki.der("otherroot")])
        let refused = try fixture.decide([own], chain: "good")
        #expect(refused.outcome == .defaultEvaluationFailed)
        #expect(refused.chainVerdict.failure?.reason == .untrustedRoot)
        let allowed = try fixture.validator([own], anchors: []).evaluate(
            chain: try fixture.chain("other"), host: "good.rampart.test", at: TestPKI.validationTime)
        #expect(allowed.outcome == .pinned)
    }

    @Test("the suggested policy pins every CA key of the verified path, or the leaf")
    func suggested() throws {
        let path = try #require(
            try ChainVerifier(trustAnchors: [try fixture.certificate("root")])
                .verify(chain: try fixture.chain("good"), at: TestPKI.validationTime, purpose: .none).path)
        let ca = try PinPolicy.suggested(for: "Good.Rampart.Test", path: path, pinLeaf: false, includesSubdomains: true)
        #expect(ca.domain == "good.rampart.test")
        #expect(ca.caPins == [try fixture.spki("intermediate"), try fixture.spki("root")])
        #expect(ca.leafPins == nil)
        let leaf = try PinPolicy.suggested(
            for: "good.rampart.test", path: path, pinLeaf: true, includesSubdomains: false)
        #expect(leaf.leafPins == [try fixture.spki("good")])
        #expect(throws: PinningError.invalidConfiguration("")) {
            try PinPolicy.suggested(for: "x", path: Array(path.prefix(1)), pinLeaf: false, includesSubdomains: false)
        }
    }
}

struct PinValidatorConcurrencyTests {
    @Test("one validator evaluates from many tasks at once with its caches (no race, same answers)")
    func concurrent() async throws {
        let fixture = try Fixture()
        let validator = try fixture.validator([
            PinPolicy(domain: "good.rampart.test", caPins: [try fixture.spki("root")])
        ])
        let good = try fixture.chain("good")
        let other = try fixture.chain("other")
        let outcomes = await withTaskGroup(of: (Bool, PinningDecision.Outcome).self) { group in
            for index in 0..<64 {
                let isGood = index % 2 == 0
                group.addTask {
                    let decision = validator.evaluate(
                        chain: isGood ? good : other, host: "good.rampart.test", at: TestPKI.validationTime)
                    return (isGood, decision.outcome)
                }
            }
            var all: [(Bool, PinningDecision.Outcome)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(outcomes.count == 64)
        for (isGood, outcome) in outcomes { #expect(outcome == (isGood ? .pinned : .pinMismatch)) }
    }
}

struct BinaryPlistTests {
    @Test("a binary property list reads like the XML one")
    func binary() throws {
        let xml = Data(guidePlist.utf8)
        var format = PropertyListSerialization.PropertyListFormat.xml
        let object = try PropertyListSerialization.propertyList(from: xml, options: [], format: &format)
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        #expect(binary.starts(with: Array("bplist".utf8)))
        #expect(try PinConfiguration(contentsOf: binary) == PinConfiguration(contentsOf: xml))
    }
}
