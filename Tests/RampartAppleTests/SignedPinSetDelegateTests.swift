import Foundation
import RampartApple
import RampartAppleSimulation
import RampartCrypto
import RampartPinning
import TestSupport
import Testing

/// The delegate over a PinSetUpdater: a signed update applies to the next challenge, the same code as on Linux.
struct SignedPinSetDelegateTests {
    let fixture: TrustFixture

    init() throws { fixture = try TrustFixture() }

    @Test("shipped pins, then an adopted update that pins another CA, then one that denies the intermediate")
    func updates() throws {
        let key = Ed25519PrivateKey()
        let shipped = try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test", caPins: [try fixture.spki("intermediate"), try fixture.spki("root")])
        ])
        let updater = PinSetUpdater(
            shipped: shipped, verifier: PinSetVerifier(bundleID: "com.example.app", signers: [key.publicKey]),
            store: FilePinSetStateStore(path: ScratchDirectory.uniquePath("delegate-pinset")))
        let delegate = PinningURLSessionDelegate(updater: updater, now: { TestPKI.validationTime })
        func outcome() throws -> PinningDecision.Outcome? {
            delegate.evaluate(try fixture.challenge(chain: "good", host: "good.rampart.test")).decision?.outcome
        }
        #expect(try outcome() == .pinned)
        func offer(_ configuration: PinConfiguration, version: UInt64, deny: [Pin] = []) throws -> PinSetVerdict {
            updater.offer(
                try SignedPinSet.sign(
                    configuration, deny: deny, bundleID: "com.example.app", version: version,
                    issuedAt: TestPKI.validationTime, expiresAt: TestPKI.validationTime.addingTimeInterval(86400),
                    key: key),
                at: TestPKI.validationTime)
        }
        let elsewhere = try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test",
                caPins: [
                    try fixture.spki("otherroot"),
                    try Pin(kind: .spkiSHA256, base64: String(repeating: "A", count: 43) + "="),
                ])
        ])
        guard case .adopt = try offer(elsewhere, version: 1) else {
            Issue.record("the update was refused")
            return
        }
        #expect(try outcome() == .pinMismatch)
        guard case .adopt = try offer(shipped, version: 2, deny: [try fixture.spki("intermediate")]) else {
            Issue.record("the deny update was refused")
            return
        }
        #expect(try outcome() == .deniedKey)
        #expect(
            delegate.evaluate(try fixture.challenge(chain: "good", host: "good.rampart.test")).disposition
                == .cancelAuthenticationChallenge)
    }
}
