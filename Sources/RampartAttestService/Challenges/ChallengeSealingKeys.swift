import Foundation
public import RampartCrypto

/// The HMAC-SHA256 keys that seal challenges: the first seals every new challenge, and every listed key opens one.
///
/// A challenge is a sealed token (``AttestationService`` explains the format), so issuing one writes nothing; every
/// instance that shares a database must hold the same keys, or a challenge issued by one is refused by another as
/// never issued. Keys come from the configuration (`"challenges": {"sealingKeys": ["<base64>", …]}`), from the
/// environment (`RAMPART_CHALLENGE_KEYS`, comma-separated), or, when neither is set, from the store itself (one key
/// generated on first use and kept in `rampart_challenge_keys`, so instances on one database share it).
///
/// To rotate without refusing challenges in flight: add the new key second on every instance (it now opens
/// challenges), then move it first (it now seals), and drop the old key once a challenge lifetime has passed.
///
/// - Important: Whoever holds a sealing key can mint challenges. A challenge only proves freshness (the request's
///   assertion still needs the device's private key), but keep the keys as secret as the database credentials.
public struct ChallengeSealingKeys {
    /// The fewest bytes a sealing key may have (the HMAC-SHA256 output size; RFC 2104 section 3).
    public static let minimumByteCount = 32
    /// The most bytes a sealing key may have (one SHA-256 block; longer keys are hashed first by HMAC).
    public static let maximumByteCount = 64
    /// The most keys that may be listed (each presented challenge is checked against one, by its key id).
    public static let maximumCount = 8

    /// A key with its 4-byte id (the first bytes of HMAC(key, "rampart-challenge-key-id-v1")), prepared for the
    /// MACs of every challenge it seals or opens.
    struct Entry {
        let id: [UInt8]
        let key: HMACKey
        /// The subject tags this key made, by the subject's UTF-8 bytes (never by `String` equality, which would take
        /// two canonically equivalent subjects for one): a subject's challenge is issued, opened and followed by the
        /// next within seconds, and each needs its tag, an HMAC (about 7,700 instructions) that a hit here replaces.
        /// Bounded (a DoS bound); a tag is no secret, since every challenge carries its subject's.
        let subjectTags = BoundedCache<[UInt8], [UInt8]>(capacity: ChallengeSealingKeys.subjectTagCacheCapacity)

        init(id: [UInt8], key: HMACKey) {
            self.id = id
            self.key = key
        }
    }

    /// How many subjects' tags each key keeps (at most 256 bytes of subject and 16 of tag each).
    static let subjectTagCacheCapacity = 4096

    /// The keys, the sealing one first.
    let entries: [Entry]

    /// The key that seals new challenges.
    var sealing: Entry { entries[0] }

    /// The key whose id is `id`, or nil.
    func key(id: some Collection<UInt8>) -> Entry? { entries.first { $0.id.elementsEqual(id) } }

    /// Keys from their bytes, the sealing one first.
    ///
    /// - Parameter keys: 1 to ``maximumCount`` keys of ``minimumByteCount`` to ``maximumByteCount`` bytes each.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) for no key, too many, a short or long key, a key
    ///   listed twice, or two keys whose ids collide.
    public init(keys: [SymmetricKey]) throws {
        guard !keys.isEmpty, keys.count <= Self.maximumCount else {
            throw AttestServiceError.invalidConfiguration(
                "challenges.sealingKeys must list 1...\(Self.maximumCount) keys (got \(keys.count)); the first seals "
                    + "new challenges, and every one listed opens them")
        }
        var entries: [Entry] = []
        for (index, key) in keys.enumerated() {
            guard key.byteCount >= Self.minimumByteCount, key.byteCount <= Self.maximumByteCount else {
                throw AttestServiceError.invalidConfiguration(
                    "challenge sealing key \(index + 1) has \(key.byteCount) bytes; each must have "
                        + "\(Self.minimumByteCount)...\(Self.maximumByteCount) random bytes (make one with "
                        + "`openssl rand -base64 32`)")
            }
            let prepared = HMACKey(key)
            let id = Array(prepared.authenticationCode(for: Array("rampart-challenge-key-id-v1".utf8)).prefix(4))
            guard !entries.contains(where: { ConstantTime.isEqual($0.id, id) }) else {
                throw AttestServiceError.invalidConfiguration(
                    "challenge sealing key \(index + 1) is listed twice (or its id collides with another's); list "
                        + "each key once")
            }
            entries.append(Entry(id: id, key: prepared))
        }
        self.entries = entries
    }

    /// Keys from their base64 text (standard or URL-safe alphabet, padding optional), the sealing one first.
    ///
    /// - Parameter encoded: The keys as configured.
    /// - Throws: ``AttestServiceError`` (`invalidConfiguration`) naming the key that is not base64, and the rules of
    ///   ``init(keys:)``.
    public init(base64Encoded encoded: [String]) throws {
        var keys: [SymmetricKey] = []
        for (index, text) in encoded.enumerated() {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let bytes = try? Base64Field.decode(trimmed, field: "key", maximumByteCount: Self.maximumByteCount)
            else {
                throw AttestServiceError.invalidConfiguration(
                    "challenge sealing key \(index + 1) is not base64 of \(Self.minimumByteCount)..."
                        + "\(Self.maximumByteCount) bytes; make one with `openssl rand -base64 32`")
            }
            keys.append(SymmetricKey(bytes: bytes))
        }
        try self.init(keys: keys)
    }
}

extension ChallengeSealingKeys: Sendable {}

extension ChallengeSealingKeys.Entry: Sendable {}
