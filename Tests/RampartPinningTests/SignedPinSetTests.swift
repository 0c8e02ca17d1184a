import Foundation
import RampartCrypto
import RampartPinning
import RampartX509
import TestSupport
import Testing

/// Signed pin-set updates: adopted only when newer, valid, for this app and signed by a shipped key; the floor
/// persists; an expired set keeps being enforced; denied keys are refused anywhere.
struct SignedPinSetTests {
    let fixture: Fixture
    let key = Ed25519PrivateKey()
    let issued = Date(timeIntervalSince1970: 1_790_000_000)
    var expires: Date { issued.addingTimeInterval(90 * 86400) }

    init() throws { fixture = try Fixture() }

    func configuration() throws -> PinConfiguration {
        try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test", caPins: [try fixture.spki("intermediate"), try fixture.spki("root")])
        ])
    }

    func envelope(
        version: UInt64, bundleID: String = "com.example.app", signer: Ed25519PrivateKey? = nil, deny: [Pin] = []
    ) throws -> [UInt8] {
        try SignedPinSet.sign(
            try configuration(), deny: deny, bundleID: bundleID, version: version, issuedAt: issued,
            expiresAt: expires, key: signer ?? key)
    }

    var verifier: PinSetVerifier { PinSetVerifier(bundleID: "com.example.app", signers: [key.publicKey]) }

    func reason(_ verdict: PinSetVerdict) -> PinSetRefusal.Reason? {
        if case .refuse(let refusal) = verdict { return refusal.reason }
        return nil
    }

    @Test("a newer valid set is adopted, with its pins, deny list, version and signer")
    func adopts() throws {
        let verdict = verifier.verify(try envelope(version: 2), floor: 1, at: issued.addingTimeInterval(60))
        guard case .adopt(let set) = verdict else {
            Issue.record("refused: \(verdict)")
            return
        }
        #expect(set.version == 2)
        #expect(set.configuration == (try configuration()))
        #expect(set.keyID == SignedPinSet.keyID(of: key.publicKey))
    }

    @Test("older or equal versions, expired or future sets, another app, another key and a bad signature are refused")
    func refusals() throws {
        let now = issued.addingTimeInterval(60)
        #expect(reason(verifier.verify(try envelope(version: 2), floor: 2, at: now)) == .notNewer)
        #expect(reason(verifier.verify(try envelope(version: 1), floor: 2, at: now)) == .notNewer)
        #expect(reason(verifier.verify(try envelope(version: 3), floor: 2, at: expires)) == .expired)
        #expect(
            reason(verifier.verify(try envelope(version: 3), floor: 2, at: issued.addingTimeInterval(-3600)))
                == .notYetValid)
        #expect(
            reason(verifier.verify(try envelope(version: 3, bundleID: "com.other"), floor: 2, at: now)) == .wrongApp)
        #expect(
            reason(verifier.verify(try envelope(version: 3, signer: Ed25519PrivateKey()), floor: 2, at: now))
                == .unknownSigner)
        var tampered = try envelope(version: 3)
        tampered[tampered.count - 3] ^= 1
        #expect(reason(verifier.verify(tampered, floor: 2, at: now)) == .badSignature)
        for junk in ["", "RAMPART-PINSET-V1\n", "RAMPART-PINSET-V1\nkey-id: XYZ\nsignature: AA==\n\n{}"] {
            #expect(reason(verifier.verify(Array(junk.utf8), floor: 0, at: now)) == .malformed)
        }
    }

    @Test("the signing key rotates: a set signed by the next shipped key is adopted")
    func rotation() throws {
        let next = Ed25519PrivateKey()
        let both = PinSetVerifier(bundleID: "com.example.app", signers: [key.publicKey, next.publicKey])
        guard case .adopt = both.verify(try envelope(version: 5, signer: next), floor: 4, at: issued) else {
            Issue.record("a set signed by the next shipped key was refused")
            return
        }
    }

    @Test("the updater persists the floor across restarts, keeps enforcing an expired set, and never lowers the floor")
    func updater() throws {
        let path = ScratchDirectory.uniquePath("pinset.state")
        let shipped = try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test",
                caPins: [try fixture.spki("otherroot"), try Pin(kind: .spkiSHA256, base64: pinA)])
        ])
        let updater = PinSetUpdater(shipped: shipped, verifier: verifier, store: FilePinSetStateStore(path: path))
        #expect(updater.active.version == 0)
        #expect(updater.active.configuration == shipped)
        guard case .adopt = updater.offer(try envelope(version: 7), at: issued) else {
            Issue.record("version 7 was refused")
            return
        }
        #expect(reason(updater.offer(try envelope(version: 6), at: issued)) == .notNewer)
        let restarted = PinSetUpdater(shipped: shipped, verifier: verifier, store: FilePinSetStateStore(path: path))
        #expect(restarted.active.version == 7)
        #expect(reason(restarted.offer(try envelope(version: 7), at: issued)) == .notNewer)
        #expect(!restarted.active.isStale(at: issued))
        #expect(restarted.active.isStale(at: expires.addingTimeInterval(1)))
        #expect(restarted.active.configuration == (try configuration()), "an expired set is still enforced")
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
    }

    @Test("a denied key anywhere in a trusted chain refuses the connection, even where the pins match")
    func deny() throws {
        let set = ActivePinSet(
            configuration: try configuration(), deny: [try fixture.spki("intermediate")], version: 1,
            expiresAt: expires)
        let chain = try fixture.chain("good")
        let verdict = ChainVerdict.trusted(path: chain + [try fixture.certificate("root")])
        let decision = set.decision(host: "good.rampart.test", presented: chain, verdict: verdict, at: issued)
        #expect(decision.outcome == .deniedKey)
        #expect(!decision.isAllowed)
        let clean = ActivePinSet(configuration: try configuration(), deny: [], version: 1, expiresAt: expires)
        #expect(
            clean.decision(host: "good.rampart.test", presented: chain, verdict: verdict, at: issued).outcome == .pinned
        )
    }
}
