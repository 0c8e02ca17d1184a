public import Foundation
public import RampartCrypto
public import RampartX509

/// A pin-set update signed by the app's publisher: new pins delivered without an app release, which is what keeps a
/// pinned app from bricking itself when keys rotate.
///
/// The envelope (UTF-8, LF line ends):
///
/// ```
/// RAMPART-PINSET-V1
/// key-id: <16 hex digits: the first 8 bytes of SHA-256 of the signer's raw Ed25519 public key>
/// signature: <base64 of the 64-byte Ed25519 signature over "rampart pinset v1" 0x00 ‖ payload>
///
/// <payload: JSON {"bundleId", "version", "issuedAt", "expiresAt", "pinnedDomains", "deny"?}>
/// ```
///
/// ``PinSetVerifier`` checks the signature over the payload's exact bytes before it parses any of them, with a
/// context string so that a signature made for something else never verifies here; the signer's key id lets the
/// signing key rotate (ship the next key with the app before using it). The payload names the app it is for, a
/// version (adopted only when above the last adopted one, a floor that is never lowered), when it was issued and
/// when it expires, the pins (Rampart JSON `pinnedDomains`: CA, leaf and chain lists, expiry, report-only), and an
/// optional deny list of SPKI SHA-256 pins that are refused wherever they appear in a chain (revoked keys).
public struct SignedPinSet: Hashable, Sendable {
    /// The first line of every envelope.
    public static let magic = "RAMPART-PINSET-V1"
    /// What every signature covers before the payload: a context string and a NUL.
    public static let signatureContext: [UInt8] = Array("rampart pinset v1".utf8) + [0]
    /// The largest envelope read (a DoS bound, checked before anything else).
    public static let maximumByteCount = 1 << 20

    /// The app the set is for.
    public let bundleID: String
    /// The set's version; each update must be greater than the last adopted one.
    public let version: UInt64
    /// When it was signed.
    public let issuedAt: Date
    /// When it stops being adopted (an adopted set past it is kept, and reported stale).
    public let expiresAt: Date
    /// The pins.
    public let configuration: PinConfiguration
    /// SPKI SHA-256 pins refused in any chain.
    public let deny: [Pin]
    /// The signer's key id.
    public let keyID: String

    /// The key id of `publicKey`: the first 8 bytes of SHA-256 of its raw representation, as 16 lowercase hex digits.
    ///
    /// - Parameter publicKey: An Ed25519 signing key.
    /// - Returns: The key id.
    public static func keyID(of publicKey: Ed25519PublicKey) -> String {
        SHA256.hash(publicKey.rawRepresentation).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// Signs a pin set: the publisher's side (`rampart pinset sign`).
    ///
    /// - Parameters:
    ///   - configuration: The pins.
    ///   - deny: SPKI pins to refuse anywhere.
    ///   - bundleID: The app it is for.
    ///   - version: Its version.
    ///   - issuedAt: Now.
    ///   - expiresAt: When it stops being adopted.
    ///   - key: The signing key.
    /// - Returns: The envelope's bytes.
    /// - Throws: ``PinningError`` (`invalidConfiguration` for an empty bundle id, an expiry not after the issue time,
    ///   or pins the JSON cannot hold), `CryptoError` when signing fails.
    public static func sign(
        _ configuration: PinConfiguration, deny: [Pin] = [], bundleID: String, version: UInt64, issuedAt: Date,
        expiresAt: Date, key: Ed25519PrivateKey
    ) throws -> [UInt8] {
        guard !bundleID.isEmpty, bundleID.utf8.count <= 255 else {
            throw PinningError.invalidConfiguration("a signed pin set needs the app's bundle id (1…255 bytes)")
        }
        guard expiresAt > issuedAt else {
            throw PinningError.invalidConfiguration("the pin set must expire after it is issued")
        }
        guard
            let domains = (try JSONSerialization.jsonObject(with: configuration.jsonData()) as? [String: Any])?[
                "pinnedDomains"]
        else { throw PinningError.invalidConfiguration("the pins could not be written as JSON") }
        var payload: [String: Any] = [
            "bundleId": bundleID, "version": version, "issuedAt": issuedAt.formatted(.iso8601),
            "expiresAt": expiresAt.formatted(.iso8601), "pinnedDomains": domains,
        ]
        if !deny.isEmpty { payload["deny"] = deny.map(\.base64) }
        let bytes = Array(
            try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys, .withoutEscapingSlashes]))
        let signature = try key.signature(for: signatureContext + bytes)
        let header =
            "\(magic)\nkey-id: \(keyID(of: key.publicKey))\nsignature: \(Data(signature).base64EncodedString())\n\n"
        return Array(header.utf8) + bytes
    }
}

/// Why a pin-set update was not adopted.
public struct PinSetRefusal: Hashable, Sendable, CustomStringConvertible {
    /// The refusal's stable code.
    public struct Reason: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case malformed, unknownSigner, badSignature, wrongApp, notNewer, expired, notYetValid, invalidPins
        }

        let backing: Backing

        /// Not an envelope (the header, the signature's encoding or the payload's JSON is wrong).
        public static let malformed = Reason(backing: .malformed)
        /// Signed by a key the app does not ship.
        public static let unknownSigner = Reason(backing: .unknownSigner)
        /// The signature does not verify over the payload as received.
        public static let badSignature = Reason(backing: .badSignature)
        /// Signed for another app.
        public static let wrongApp = Reason(backing: .wrongApp)
        /// Its version is not above the last adopted one (a replay of an old set, or a rollback).
        public static let notNewer = Reason(backing: .notNewer)
        /// Past its expiry.
        public static let expired = Reason(backing: .expired)
        /// Issued in the future (beyond five minutes of clock skew).
        public static let notYetValid = Reason(backing: .notYetValid)
        /// Signed, but its pins are not a valid configuration.
        public static let invalidPins = Reason(backing: .invalidPins)

        /// The code's stable name.
        public var description: String { backing.rawValue }
    }

    /// The code.
    public let reason: Reason
    /// What is wrong and what to do.
    public let message: String

    /// `reason: message`.
    public var description: String { "\(reason): \(message)" }
}

/// The verdict on a pin-set update.
public enum PinSetVerdict: Hashable, Sendable {
    /// Adopt it: every check passed.
    case adopt(SignedPinSet)
    /// Keep the pins in force; the reason says why.
    case refuse(PinSetRefusal)
}

/// Verifies pin-set updates for one app against the signing keys it ships with. Pure: the caller keeps the floor
/// (``PinSetUpdater`` does, persisted).
public struct PinSetVerifier: Sendable {
    /// The app's bundle id; nil only in tools that report which app a set is for instead of checking it.
    public let bundleID: String?
    let signers: [String: Ed25519PublicKey]
    /// How far in the future `issuedAt` may be (clock skew between the publisher and the device).
    public static let allowedClockSkew: TimeInterval = 300

    /// Creates a verifier.
    ///
    /// - Parameters:
    ///   - bundleID: The app's bundle id (nil: any app, for tools such as `rampart pinset verify` without
    ///     `--bundle-id`; an app always passes its own).
    ///   - signers: The publisher's signing keys shipped with the app (the current one and the next).
    public init(bundleID: String?, signers: [Ed25519PublicKey]) {
        self.bundleID = bundleID
        self.signers = Dictionary(
            signers.map { (SignedPinSet.keyID(of: $0), $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Checks an envelope: the signature over the exact payload bytes first, then (only then) the payload.
    ///
    /// - Parameters:
    ///   - envelope: The bytes as received.
    ///   - floor: The version of the last adopted set (0 when none): the update must be above it.
    ///   - time: Now.
    /// - Returns: The set to adopt, or the refusal.
    public func verify(_ envelope: [UInt8], floor: UInt64, at time: Date) -> PinSetVerdict {
        verify(envelope, floor: floor, at: time, checkingTime: true)
    }

    /// ``verify(_:floor:at:)``, optionally without the time checks: a set adopted earlier and kept in the state store
    /// is read back even once it has expired, so that it keeps being enforced (stale) rather than dropped.
    func verify(_ envelope: [UInt8], floor: UInt64, at time: Date, checkingTime: Bool) -> PinSetVerdict {
        func refuse(_ reason: PinSetRefusal.Reason, _ message: String) -> PinSetVerdict {
            .refuse(PinSetRefusal(reason: reason, message: message))
        }
        guard envelope.count <= SignedPinSet.maximumByteCount else {
            return refuse(.malformed, "the envelope is larger than \(SignedPinSet.maximumByteCount) bytes")
        }
        guard let header = Self.header(envelope) else {
            return refuse(
                .malformed,
                "not a pin-set envelope: expected \(SignedPinSet.magic), key-id and signature lines and a blank line")
        }
        guard let key = signers[header.keyID] else {
            return refuse(
                .unknownSigner,
                "signed by key \(header.keyID), which this app does not ship; ship the publisher's new key in an app "
                    + "release before signing with it")
        }
        let payload = Array(envelope[header.payloadOffset...])
        guard key.isValidSignature(header.signature, for: SignedPinSet.signatureContext + payload) else {
            return refuse(.badSignature, "the signature does not verify over the payload as received; refused")
        }
        // Signed by a shipped key: only now are the payload's bytes parsed, strictly first (PinSetPayloadScanner), so
        // that no reader can take another meaning from the signed bytes than this one.
        let scannedVersion: UInt64?
        do {
            scannedVersion = try PinSetPayloadScanner.scan(payload)
        } catch {
            return refuse(.malformed, "the signed payload is not strict JSON: \(error.reason)")
        }
        guard let version = scannedVersion,
            let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any],
            Set(object.keys).isSubset(of: ["bundleId", "version", "issuedAt", "expiresAt", "pinnedDomains", "deny"]),
            let bundle = object["bundleId"] as? String, let issuedText = object["issuedAt"] as? String,
            let issuedAt = try? Date(issuedText, strategy: .iso8601), let expiresText = object["expiresAt"] as? String,
            let expiresAt = try? Date(expiresText, strategy: .iso8601), let domains = object["pinnedDomains"]
        else {
            return refuse(
                .malformed,
                "the signed payload is not a pin set (bundleId, version, issuedAt, expiresAt, pinnedDomains)")
        }
        if let bundleID, !bundle.hasSameUTF8(as: bundleID) {
            return refuse(.wrongApp, "the set is for another app, not \(bundleID)")
        }
        guard version > floor else {
            return refuse(
                .notNewer,
                "version \(version) is not above the adopted version \(floor) (a replayed or rolled-back set); "
                    + "the pins in force stay")
        }
        guard expiresAt > time || !checkingTime else {
            return refuse(.expired, "the set expired at \(expiresText); the pins in force stay")
        }
        guard issuedAt <= time.addingTimeInterval(PinSetVerifier.allowedClockSkew) || !checkingTime else {
            return refuse(.notYetValid, "the set is issued at \(issuedText), in the future; check the device's clock")
        }
        let configuration: PinConfiguration
        let deny: [Pin]
        do {
            let json = try JSONSerialization.data(withJSONObject: ["version": 1, "pinnedDomains": domains])
            configuration = try PinConfiguration(jsonData: json)
            guard let texts = (object["deny"] ?? [String]()) as? [String],
                texts.count <= PinConfiguration.maximumPinsPerList
            else { throw PinningError.invalidConfiguration("deny must be an array of at most 64 pins") }
            deny = try texts.map { try Pin(kind: .spkiSHA256, base64: $0) }
        } catch let error as PinningError {
            return refuse(.invalidPins, "the signed pins are not a valid configuration: \(error.reason)")
        } catch {
            return refuse(.invalidPins, "the signed pins are not a valid configuration")
        }
        return .adopt(
            SignedPinSet(
                bundleID: bundle, version: version, issuedAt: issuedAt, expiresAt: expiresAt,
                configuration: configuration, deny: deny, keyID: header.keyID))
    }

    /// The header lines, strictly: the magic, `key-id: ` and 16 lowercase hex digits, `signature: ` and the base64 of
    /// 64 bytes, an empty line; nil for anything else.
    private static func header(_ bytes: [UInt8]) -> (keyID: String, signature: [UInt8], payloadOffset: Int)? {
        var lines: [String] = []
        var start = 0
        var index = 0
        while lines.count < 4, index < min(bytes.count, 512) {
            if bytes[index] == 0x0A {
                lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
                start = index + 1
            }
            index += 1
        }
        guard lines.count == 4, lines[0] == SignedPinSet.magic, lines[3].isEmpty,
            lines[1].hasPrefix("key-id: "), lines[2].hasPrefix("signature: ")
        else { return nil }
        let keyID = String(lines[1].dropFirst("key-id: ".count))
        guard keyID.utf8.count == 16,
            keyID.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
            let signature = Data(base64Encoded: String(lines[2].dropFirst("signature: ".count))), signature.count == 64
        else { return nil }
        return (keyID, Array(signature), start)
    }
}

/// Where a ``PinSetUpdater`` keeps the last adopted envelope and, apart from it, the version floor.
///
/// The floor is kept on its own so that it survives the envelope: when a stored set stops verifying (its signer was
/// removed from a later app release) the app falls back to its shipped pins, but an update must still be above every
/// version adopted before, or an old set signed by a key still shipped could be replayed.
public protocol PinSetStateStore: Sendable {
    /// The last adopted envelope, or nil before the first update.
    ///
    /// - Returns: Its bytes.
    /// - Throws: When the state cannot be read.
    func load() throws -> [UInt8]?
    /// Replaces the adopted envelope.
    ///
    /// - Parameter envelope: Its bytes, as verified.
    /// - Throws: When the state cannot be written (the update is then not adopted).
    func save(_ envelope: [UInt8]) throws
    /// The highest version ever adopted, or 0 before the first update.
    ///
    /// - Returns: The floor.
    /// - Throws: When the floor cannot be read or is malformed.
    func loadFloor() throws -> UInt64
    /// Records the highest version adopted (called after ``save(_:)``, with a value never below the last one).
    ///
    /// - Parameter floor: The version.
    /// - Throws: When it cannot be written.
    func saveFloor(_ floor: UInt64) throws
}

/// A ``PinSetStateStore`` in one file, written atomically with mode 0600 (in an app: a file in Application Support,
/// excluded from backups; the envelope is signed, so it needs no secrecy, only integrity of the floor).
public struct FilePinSetStateStore: PinSetStateStore {
    /// The file.
    public let path: String

    /// Creates a store.
    ///
    /// - Parameter path: The file; its directory must exist.
    public init(path: String) { self.path = path }

    /// The file's bytes, or nil when it does not exist.
    ///
    /// - Returns: The envelope.
    /// - Throws: When the file exists but cannot be read.
    public func load() throws -> [UInt8]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Writes the envelope atomically.
    ///
    /// - Parameter envelope: The bytes.
    /// - Throws: When the file cannot be written.
    public func save(_ envelope: [UInt8]) throws {
        try Data(envelope).write(to: URL(fileURLWithPath: path), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    /// The floor file: the envelope's path with `.floor` appended.
    public var floorPath: String { path + ".floor" }

    /// The floor kept in ``floorPath`` (decimal digits and a newline), or 0 when there is none.
    ///
    /// - Returns: The floor.
    /// - Throws: ``PinningError`` when the file exists but does not hold a version.
    public func loadFloor() throws -> UInt64 {
        guard FileManager.default.fileExists(atPath: floorPath) else { return 0 }
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: floorPath)))
        guard bytes.last == 0x0A, bytes.count <= 21, bytes.count >= 2,
            bytes.dropLast().allSatisfy({ (0x30...0x39).contains($0) }),
            let floor = UInt64(String(decoding: bytes.dropLast(), as: UTF8.self))
        else {
            throw PinningError.invalidConfiguration("the pin-set floor file \(floorPath) does not hold a version")
        }
        return floor
    }

    /// Writes the floor atomically, mode 0600.
    ///
    /// - Parameter floor: The version.
    /// - Throws: When the file cannot be written.
    public func saveFloor(_ floor: UInt64) throws {
        try Data("\(floor)\n".utf8).write(to: URL(fileURLWithPath: floorPath), options: .atomic)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: floorPath)
    }
}

/// The pins in force: the set adopted last, or the pins shipped with the app.
public struct ActivePinSet: Hashable, Sendable {
    /// The pins.
    public let configuration: PinConfiguration
    /// Keys refused in any chain.
    public let deny: [Pin]
    /// The adopted set's version; 0 for the shipped pins.
    public let version: UInt64
    /// When the adopted set expired or expires; nil for the shipped pins.
    public let expiresAt: Date?

    /// Creates the pins in force.
    ///
    /// - Parameters:
    ///   - configuration: The pins.
    ///   - deny: Keys refused in any chain.
    ///   - version: The adopted version, or 0 for the shipped pins.
    ///   - expiresAt: The adopted set's expiry, or nil.
    public init(configuration: PinConfiguration, deny: [Pin] = [], version: UInt64 = 0, expiresAt: Date? = nil) {
        self.configuration = configuration
        self.deny = deny
        self.version = version
        self.expiresAt = expiresAt
    }

    /// Whether the adopted set is past its expiry: it is still enforced (an expired set never falls back to
    /// weaker pins), and the app should fetch a fresh one.
    ///
    /// - Parameter time: Now.
    /// - Returns: Whether it is stale.
    public func isStale(at time: Date) -> Bool { expiresAt.map { $0 <= time } ?? false }

    /// The decision for a connection: a denied key anywhere in the chain refuses it, then the pins decide
    /// (``PinConfiguration/decision(host:presented:verdict:at:)``).
    ///
    /// - Parameters:
    ///   - host: The host connected to.
    ///   - presented: The server's certificates, leaf first.
    ///   - verdict: The default evaluation's verdict.
    ///   - time: Now.
    /// - Returns: The decision.
    public func decision(
        host: String, presented: [Certificate], verdict: ChainVerdict, at time: Date
    ) -> PinningDecision {
        let certificates = verdict.path ?? presented
        if verdict.isTrusted, certificates.contains(where: { certificate in deny.contains { $0.matches(certificate) } })
        {
            let name = PinPolicy.normalize(host)
            return PinningDecision(
                outcome: .deniedKey, host: name, policy: configuration.policy(for: name), chainVerdict: verdict,
                mismatch: nil, presented: presented, time: time)
        }
        return configuration.decision(host: host, presented: presented, verdict: verdict, at: time)
    }
}

/// Adopts signed pin-set updates for an app: the same code on Apple platforms (RampartApple's delegate takes its
/// ``active`` configuration) and on Linux.
///
/// A set is adopted only if the signature of a shipped key verifies over its exact bytes, it is for this app, its
/// version is above the last adopted one (kept in the ``PinSetStateStore``: a floor, never lowered, also across
/// restarts), and it has not expired; otherwise the pins in force stay. An adopted set that later expires keeps being
/// enforced and is reported stale (``ActivePinSet/isStale(at:)``).
public final class PinSetUpdater: Sendable {
    private let shipped: PinConfiguration
    private let verifier: PinSetVerifier
    private let store: any PinSetStateStore
    private let state: Locked<(active: ActivePinSet, floor: UInt64)>

    /// Creates the updater and reads the adopted set back from `store` (ignoring a stored envelope that no longer
    /// verifies, e.g. after its signer was removed from the app), and the floor: the higher of the stored floor and
    /// the stored set's version, so that a set that stops verifying does not reset it.
    ///
    /// - Parameters:
    ///   - shipped: The pins shipped with the app (its Info.plist's).
    ///   - verifier: The app's bundle id and shipped signing keys.
    ///   - store: Where the adopted set is kept.
    public init(shipped: PinConfiguration, verifier: PinSetVerifier, store: any PinSetStateStore) {
        self.shipped = shipped
        self.verifier = verifier
        self.store = store
        var active = ActivePinSet(configuration: shipped, deny: [], version: 0, expiresAt: nil)
        if let envelope = try? store.load(),
            case .adopt(let set) = verifier.verify(envelope, floor: 0, at: Date(), checkingTime: false)
        {
            active = ActivePinSet(
                configuration: set.configuration, deny: set.deny, version: set.version, expiresAt: set.expiresAt)
        }
        // An unreadable floor leaves the adopted set's version as the floor: never lower than what is enforced.
        let floor = max((try? store.loadFloor()) ?? 0, active.version)
        state = Locked((active, floor))
    }

    /// The pins in force.
    public var active: ActivePinSet { state.withLock { $0.active } }

    /// The version an update must be above: the highest ever adopted, kept apart from the set.
    public var floor: UInt64 { state.withLock { $0.floor } }

    /// Offers an update: adopted (and persisted) when every check passes, refused otherwise.
    ///
    /// - Parameters:
    ///   - envelope: The update's bytes, as downloaded.
    ///   - time: Now.
    /// - Returns: The verdict.
    public func offer(_ envelope: [UInt8], at time: Date) -> PinSetVerdict {
        state.withLock { state in
            let verdict = verifier.verify(envelope, floor: state.floor, at: time)
            guard case .adopt(let set) = verdict else { return verdict }
            do {
                // The envelope first: a crash between the two leaves the new set, whose version raises the floor.
                try store.save(envelope)
                try store.saveFloor(set.version)
            } catch {
                return .refuse(
                    PinSetRefusal(
                        reason: .malformed,
                        message: "the update verified but could not be kept (\(error)); the pins in force stay"))
            }
            state.active = ActivePinSet(
                configuration: set.configuration, deny: set.deny, version: set.version, expiresAt: set.expiresAt)
            state.floor = set.version
            return verdict
        }
    }
}
