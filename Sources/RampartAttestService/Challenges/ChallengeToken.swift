import Foundation
import RampartCrypto
import RampartJOSE

/// A sealed challenge: what it is for, whom, until when, and a random nonce, under an HMAC-SHA256 of a sealing key.
///
/// The service checks one without a lookup; only its use is recorded (the nonce, in the spent set, until it
/// expires). The bytes, sent as unpadded base64url (104 characters):
///
/// ```
/// version      1 byte   0x01
/// keyID        4 bytes  the sealing key's id (ChallengeSealingKeys)
/// purpose      1 byte   0x01 attestation, 0x02 assertion
/// expiresAt    8 bytes  milliseconds since 1970, big-endian
/// nonce       16 bytes  random (SecureRandom): the spent set's key
/// subjectTag  16 bytes  HMAC-SHA256(key, "rampart-challenge-subject-v1" 0x00 ‖ subject UTF-8), first 16 bytes
/// mac         32 bytes  HMAC-SHA256(key, "rampart-challenge-v1" 0x00 ‖ the 46 bytes above)
/// ```
///
/// The subject is bound by a keyed tag rather than carried, so a challenge in a log does not reveal whose it is, and
/// a challenge presented for another subject is told apart from a forged one (`challengeMismatch` rather than
/// `challengeUsed`). MACs and tags are compared with ``ConstantTime/isEqual(_:_:)``.
struct ChallengeToken {
    static let version: UInt8 = 1
    static let nonceByteCount = 16
    static let subjectTagByteCount = 16
    static let macByteCount = 32
    /// The sealed part's length: version, key id, purpose, expiry, nonce, subject tag.
    static let bodyByteCount = 1 + 4 + 1 + 8 + nonceByteCount + subjectTagByteCount
    static let byteCount = bodyByteCount + macByteCount
    /// The token's length as text (unpadded base64url of ``byteCount`` bytes).
    static let textLength = (byteCount * 4 + 2) / 3

    let purpose: ChallengePurpose
    let expiresAt: Date
    let nonce: [UInt8]

    /// Why a presented string does not open as a challenge.
    enum Failure: Error, Equatable {
        /// Not a token of this format, a key not listed, or a MAC that does not verify: never issued here.
        case notIssued
        /// Genuine, but expired.
        case expired
        /// Genuine, but for another purpose or subject.
        case mismatch
    }

    /// Seals a new challenge.
    ///
    /// - Returns: The token text and the expiry it carries (rounded down to the millisecond).
    static func seal(
        purpose: ChallengePurpose, subject: String, expiresAt: Date, with keys: ChallengeSealingKeys
    ) -> (text: String, expiresAt: Date) {
        let key = keys.sealing
        let milliseconds = max(expiresAt.storeMilliseconds, 0)
        var bytes: [UInt8] = [version]
        bytes.reserveCapacity(byteCount)
        bytes += key.id
        bytes.append(purpose.tokenByte)
        withUnsafeBytes(of: UInt64(milliseconds).bigEndian) { bytes += $0 }
        bytes += SecureRandom.bytes(count: nonceByteCount)
        bytes += subjectTag(subject, key: key)
        bytes += mac(bytes, key: key.key)
        return (Base64URL.encode(bytes), Date(storeMilliseconds: milliseconds))
    }

    /// A presented challenge whose MAC verified: genuine, but not yet judged for expiry, purpose and subject.
    struct Opened {
        let token: ChallengeToken
        let subjectTag: [UInt8]
        let key: ChallengeSealingKeys.Entry

        /// Why the challenge cannot be used for `purpose` by `subject` at `now`, or nil when it can: expired first,
        /// then another purpose or subject (the tag, compared in constant time).
        func failure(purpose: ChallengePurpose, subject: String, now: Date) -> Failure? {
            guard token.expiresAt > now else { return .expired }
            guard token.purpose == purpose,
                ConstantTime.isEqual(subjectTag, ChallengeToken.subjectTag(subject, key: key))
            else { return .mismatch }
            return nil
        }
    }

    /// Opens a presented challenge: the length and alphabet, the version, the key id, then the MAC (constant time).
    ///
    /// A string that fails any of these was never issued with a listed key (``Failure/notIssued``); the caller
    /// then judges expiry, purpose and subject (``Opened/failure(purpose:subject:now:)``).
    ///
    /// - Parameters:
    ///   - text: The challenge as presented.
    ///   - keys: The sealing keys.
    /// - Returns: The opened challenge.
    /// - Throws: ``Failure/notIssued``.
    static func open(_ text: String, with keys: ChallengeSealingKeys) throws(Failure) -> Opened {
        // Exactly the length this version makes, checked before decoding anything (a DoS bound as well).
        guard text.utf8.count == textLength,
            let bytes = try? Base64Field.decode(text, field: "challenge", maximumByteCount: byteCount),
            bytes.count == byteCount, bytes[0] == version
        else { throw .notIssued }
        guard let entry = keys.key(id: bytes[1..<5]) else { throw .notIssued }
        let body = Array(bytes[0..<bodyByteCount])
        guard ConstantTime.isEqual(mac(body, key: entry.key), Array(bytes[bodyByteCount...])) else {
            throw .notIssued
        }
        // Past the MAC: the fields are ours.
        guard let purpose = ChallengePurpose(tokenByte: bytes[5]) else { throw .notIssued }
        let milliseconds = bytes[6..<14].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard let signed = Int64(exactly: milliseconds) else { throw .notIssued }
        let nonceStart = 14
        let tagStart = nonceStart + nonceByteCount
        return Opened(
            token: ChallengeToken(
                purpose: purpose, expiresAt: Date(storeMilliseconds: signed),
                nonce: Array(bytes[nonceStart..<tagStart])),
            subjectTag: Array(bytes[tagStart..<bodyByteCount]), key: entry)
    }

    private static let macContext = Array("rampart-challenge-v1".utf8) + [0]
    private static let subjectContext = Array("rampart-challenge-subject-v1".utf8) + [0]

    private static func mac(_ body: [UInt8], key: HMACKey) -> [UInt8] {
        key.authenticationCode(for: macContext + body)
    }

    /// The subject's tag under `key`: from the key's cache, or computed and kept there.
    static func subjectTag(_ subject: String, key: ChallengeSealingKeys.Entry) -> [UInt8] {
        let bytes = Array(subject.utf8)
        if let tag = key.subjectTags.value(for: bytes) { return tag }
        let tag = Array(key.key.authenticationCode(for: subjectContext + bytes).prefix(subjectTagByteCount))
        key.subjectTags.insert(tag, for: bytes)
        return tag
    }
}

extension ChallengePurpose {
    /// The purpose's byte in a sealed challenge.
    var tokenByte: UInt8 {
        switch self {
        case .attestation: 1
        case .assertion: 2
        }
    }

    init?(tokenByte: UInt8) {
        switch tokenByte {
        case 1: self = .attestation
        case 2: self = .assertion
        default: return nil
        }
    }
}

extension ChallengeToken: Sendable {}

extension ChallengeToken.Opened: Sendable {}
