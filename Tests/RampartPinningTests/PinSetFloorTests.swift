import Foundation
import RampartCrypto
import RampartPinning
import TestSupport
import Testing

/// Issue 32 item 6: the updater's version floor is kept apart from the adopted set, so it survives a stored set that
/// stops verifying.
struct PinSetFloorTests {
    let issued = Date(timeIntervalSince1970: 1_790_000_000)

    func envelope(version: UInt64, signer: Ed25519PrivateKey) throws -> [UInt8] {
        let configuration = try PinConfiguration(policies: [
            PinPolicy(
                domain: "good.rampart.test",
                caPins: [
                    try Pin(kind: .spkiSHA256, base64: pinA),
                    try Pin(kind: .spkiSHA256, base64: Data(repeating: 7, count: 32).base64EncodedString()),
                ])
        ])
        return try SignedPinSet.sign(
            configuration, bundleID: "com.example.app", version: version, issuedAt: issued,
            expiresAt: issued.addingTimeInterval(86400), key: signer)
    }

    @Test("after the adopted set's signer leaves the app, the pins fall back but an older set is still refused")
    func floorOutlivesTheSet() throws {
        let retired = Ed25519PrivateKey()
        let current = Ed25519PrivateKey()
        let path = ScratchDirectory.uniquePath("floor.state")
        let shipped = try PinConfiguration(policies: [])
        let both = PinSetVerifier(bundleID: "com.example.app", signers: [retired.publicKey, current.publicKey])
        let first = PinSetUpdater(shipped: shipped, verifier: both, store: FilePinSetStateStore(path: path))
        guard case .adopt = first.offer(try envelope(version: 7, signer: retired), at: issued) else {
            Issue.record("version 7 was refused")
            return
        }
        #expect(try String(contentsOfFile: path + ".floor", encoding: .utf8) == "7\n")
        // The next release ships only the current key: the stored set no longer verifies.
        let onlyCurrent = PinSetVerifier(bundleID: "com.example.app", signers: [current.publicKey])
        let restarted = PinSetUpdater(shipped: shipped, verifier: onlyCurrent, store: FilePinSetStateStore(path: path))
        #expect(restarted.active.version == 0)
        #expect(restarted.floor == 7)
        let replay = restarted.offer(try envelope(version: 5, signer: current), at: issued)
        guard case .refuse(let refusal) = replay else {
            Issue.record("version 5 was adopted below the floor of 7")
            return
        }
        #expect(refusal.reason == .notNewer)
        guard case .adopt = restarted.offer(try envelope(version: 8, signer: current), at: issued) else {
            Issue.record("version 8 was refused")
            return
        }
        #expect(restarted.floor == 8)
    }

    @Test("the floor file: missing is 0, malformed is refused; an unreadable floor falls back to the set's version")
    func floorFile() throws {
        let path = ScratchDirectory.uniquePath("floor.state")
        let store = FilePinSetStateStore(path: path)
        #expect(try store.loadFloor() == 0)
        try store.saveFloor(42)
        #expect(try store.loadFloor() == 42)
        let permissions = try FileManager.default.attributesOfItem(atPath: store.floorPath)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        for junk in ["", "42", "4x\n", "-1\n", "99999999999999999999999\n"] {
            try Data(junk.utf8).write(to: URL(fileURLWithPath: store.floorPath))
            #expect(throws: PinningError.self, "\(junk.debugDescription)") { try store.loadFloor() }
        }
        let key = Ed25519PrivateKey()
        let verifier = PinSetVerifier(bundleID: "com.example.app", signers: [key.publicKey])
        try store.save(try envelope(version: 3, signer: key))
        let updater = PinSetUpdater(shipped: try PinConfiguration(policies: []), verifier: verifier, store: store)
        #expect(updater.floor == 3)
    }
}
