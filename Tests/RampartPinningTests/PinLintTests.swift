import Foundation
import RampartPinning
import RampartX509
import TestSupport
import Testing

/// `PinConfiguration.lint`: each mistake is flagged on a configuration that has it, and a good one stays quiet.
struct PinLintTests {
    let fixture: Fixture

    init() throws { fixture = try Fixture() }

    func codes(
        _ policies: [PinPolicy], chain: String? = nil, at time: Date = TestPKI.validationTime
    ) throws -> [PinLintWarning.Code] {
        let certificates = try chain.map { try fixture.chain($0) } ?? []
        return try PinConfiguration(policies: policies).lint(at: time, chain: certificates).map(\.code)
    }

    var backup: Pin { get throws { try Pin(kind: .spkiSHA256, base64: pinA) } }

    @Test("a good configuration (CA keys, two pins, own domain) is clean, with and without its chain")
    func clean() throws {
        let good = PinPolicy(
            domain: "good.rampart.test", includesSubdomains: true,
            caPins: [try fixture.spki("intermediate"), try fixture.spki("root")])
        #expect(try codes([good]).isEmpty)
        #expect(try codes([good], chain: "good").isEmpty)
    }

    @Test("each mistake gets its code")
    func mistakes() throws {
        let intermediate = try fixture.spki("intermediate")
        #expect(try codes([PinPolicy(domain: "a.example", caPins: [intermediate])]) == [.singlePin])
        #expect(
            try codes([PinPolicy(domain: "a.example", leafPins: [try fixture.spki("good")])])
                == [.singlePin, .leafWithoutBackup])
        // Two leaf pins, both keys of today's chain: no spare outside it.
        let leafTwice = PinPolicy(
            domain: "good.rampart.test", leafPins: [try fixture.spki("good"), try fixture.spki("good")])
        #expect(try codes([leafTwice], chain: "good") == [.leafWithoutBackup])
        let leafWithSpare = PinPolicy(domain: "good.rampart.test", leafPins: [try fixture.spki("good"), try backup])
        #expect(try codes([leafWithSpare], chain: "good").isEmpty)
        for apple in ["apple.com", "api.apple.com", "icloud.com", "p01.icloud.com"] {
            #expect(try codes([PinPolicy(domain: apple, caPins: [intermediate, try backup])]) == [.appleDomain])
        }
        for suffix in ["co.uk", "github.io", "com"] {
            #expect(
                try codes([PinPolicy(domain: suffix, includesSubdomains: true, caPins: [intermediate, try backup])])
                    == [.publicSuffix])
            #expect(try codes([PinPolicy(domain: suffix, caPins: [intermediate, try backup])]).isEmpty)
        }
        let otherCA = PinPolicy(
            domain: "good.rampart.test", caPins: [try fixture.spki("otherroot"), try backup])
        #expect(try codes([otherCA], chain: "good") == [.noPinMatchesChain])
    }

    @Test("a present but empty pin list is emptyPinList, with or without a chain: it refuses every connection")
    func emptyPinList() throws {
        let empty = PinPolicy(domain: "good.rampart.test", caPins: [])
        #expect(try codes([empty]) == [.emptyPinList])
        #expect(try codes([empty], chain: "good") == [.emptyPinList])
        let emptyLeaf = PinPolicy(
            domain: "good.rampart.test", caPins: [try fixture.spki("intermediate"), try backup], leafPins: [])
        let warnings = try PinConfiguration(policies: [emptyLeaf]).lint(at: TestPKI.validationTime)
        #expect(warnings.map(\.code) == [.emptyPinList])
        let message = try #require(warnings.first?.message)
        #expect(message.contains("the leaf pin list (NSPinnedLeafIdentities) is present but empty"))
    }

    @Test("a pinned CA of the chain that expired, or expires within 90 days, is flagged at the given time")
    func expiry() throws {
        let intermediate = try fixture.certificate("intermediate")
        let policy = PinPolicy(
            domain: "good.rampart.test", caPins: [try fixture.spki("intermediate"), try backup])
        #expect(
            try codes([policy], chain: "good", at: intermediate.notAfter.addingTimeInterval(1)).contains(
                .pinnedCAExpired))
        #expect(
            try codes([policy], chain: "good", at: intermediate.notAfter.addingTimeInterval(-30 * 86400)).contains(
                .pinnedCAExpiringSoon))
        #expect(try codes([policy], chain: "good", at: intermediate.notAfter.addingTimeInterval(-200 * 86400)).isEmpty)
    }

    @Test("every code is listed in rampart lint --help's order and has a stable name")
    func codeNames() {
        #expect(
            PinLintWarning.Code.allCases.map(\.description) == [
                "singlePin", "leafWithoutBackup", "appleDomain", "pinnedCAExpired", "pinnedCAExpiringSoon",
                "publicSuffix", "malformedPin", "noPinMatchesChain", "emptyPinList",
            ])
    }
}
