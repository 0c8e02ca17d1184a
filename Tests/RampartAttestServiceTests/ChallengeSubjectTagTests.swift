import Foundation
import RampartCrypto
import Testing

@testable import RampartAttestService

/// A sealing key's cache of subject tags: a cached tag is the HMAC a fresh key computes, subjects are told apart by
/// their bytes (never by `String` equality), each key has its own tags, and the cache stays bounded.
struct ChallengeSubjectTagTests {
    static let secret = SymmetricKey(randomByteCount: 32)

    static func entry(_ secret: SymmetricKey = secret) throws -> ChallengeSealingKeys.Entry {
        try ChallengeSealingKeys(keys: [secret]).sealing
    }

    @Test("a tag from the cache is the one a key with an empty cache computes, every time")
    func cachedTagsAreComputedTags() throws {
        let cached = try Self.entry()
        for subject in ["alice", "", "user-\(UInt64.max)", String(repeating: "é", count: 128)] {
            let first = ChallengeToken.subjectTag(subject, key: cached)
            #expect(first.count == ChallengeToken.subjectTagByteCount)
            #expect(ChallengeToken.subjectTag(subject, key: cached) == first)
            #expect(ChallengeToken.subjectTag(subject, key: try Self.entry()) == first)
        }
    }

    @Test("NFC and NFD spellings of a subject have two tags, cached or not, and a challenge opens for one only")
    func subjectsAreBytes() throws {
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd, "Swift's == is canonical equivalence; the cache must not key on it")
        let keys = try ChallengeSealingKeys(keys: [Self.secret])
        let nfcTag = ChallengeToken.subjectTag(nfc, key: keys.sealing)
        #expect(ChallengeToken.subjectTag(nfd, key: keys.sealing) != nfcTag)
        #expect(
            ChallengeToken.subjectTag(nfd, key: keys.sealing) == ChallengeToken.subjectTag(nfd, key: try Self.entry()))
        let sealed = ChallengeToken.seal(
            purpose: .assertion, subject: nfc, expiresAt: Date().addingTimeInterval(60), with: keys)
        let opened = try ChallengeToken.open(sealed.text, with: keys)
        for _ in 0..<2 {
            #expect(opened.failure(purpose: .assertion, subject: nfd, now: Date()) == .mismatch)
            #expect(opened.failure(purpose: .assertion, subject: nfc, now: Date()) == nil)
        }
    }

    @Test("each key keeps its own tags: a subject's tag under one key is not another key's")
    func tagsPerKey() throws {
        let keys = try ChallengeSealingKeys(keys: [Self.secret, SymmetricKey(randomByteCount: 32)])
        let first = ChallengeToken.subjectTag("alice", key: keys.entries[0])
        #expect(ChallengeToken.subjectTag("alice", key: keys.entries[1]) != first)
        #expect(ChallengeToken.subjectTag("alice", key: keys.entries[0]) == first)
    }

    @Test("the cache holds at most its capacity, however many subjects pass")
    func bounded() throws {
        let entry = try Self.entry()
        for index in 0..<(3 * ChallengeSealingKeys.subjectTagCacheCapacity) {
            _ = ChallengeToken.subjectTag("subject-\(index)", key: entry)
        }
        #expect(entry.subjectTags.count <= ChallengeSealingKeys.subjectTagCacheCapacity)
    }
}
