// The OpenSSL backend's reusable ECDSA verification contexts; the CryptoKit backend (Apple platforms) keeps none.
#if os(Linux)
import RampartCrypto
import TestSupport
import Testing

/// The P-256 group order n (SEC 2 section 2.4.2), to build the high-S twin `n − s` of a signature.
private let p256Order: [UInt8] = [
    0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
    0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
]

/// `a − b` for equal-length big-endian numbers with a ≥ b (test arithmetic on a signature scalar, not a primitive).
private func subtract(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: a.count)
    var borrow = 0
    for index in stride(from: a.count - 1, through: 0, by: -1) {
        var digit = Int(a[index]) - Int(b[index]) - borrow
        borrow = digit < 0 ? 1 : 0
        if digit < 0 { digit += 256 }
        out[index] = UInt8(digit)
    }
    return out
}

/// A minimal DER INTEGER for a non-negative big-endian number.
private func derInteger(_ bytes: [UInt8]) -> [UInt8] {
    var body = Array(bytes.drop { $0 == 0 })
    if body.isEmpty || body[0] & 0x80 != 0 { body.insert(0, at: 0) }
    return [0x02, UInt8(body.count)] + body
}

/// A DER SEQUENCE around `content` (short-form length: P-256 signatures are under 128 bytes).
private func derSequence(_ content: [UInt8]) -> [UInt8] { [0x30, UInt8(content.count)] + content }

/// `SEQUENCE { r INTEGER, s INTEGER }`.
private func derSignature(r: [UInt8], s: [UInt8]) -> [UInt8] { derSequence(derInteger(r) + derInteger(s)) }

/// Both paths' verdicts for one input; the test asserts they agree and then checks the common verdict.
private func verdicts(
    _ key: ECPublicKey,
    _ signature: [UInt8],
    _ message: [UInt8],
    digest: DigestAlgorithm? = nil
) -> (reused: Bool, fresh: Bool) {
    (
        key.isValidSignature(signature, for: message, digest: digest),
        key.isValidSignatureWithFreshContext(signature, for: message, digest: digest)
    )
}

struct ECDSAVerifyContextTests {
    private let message: [UInt8] = Array("assertion nonce".utf8)

    @Test("a valid signature verifies, and the same context is taken and given back on every call")
    func reuse() throws {
        let privateKey = ECPrivateKey(curve: .p256)
        let key = privateKey.publicKey
        let signature = try privateKey.signature(for: message)
        #expect(key.idleVerificationContextCount == 0)
        for _ in 0..<10 {
            #expect(key.isValidSignature(signature, for: message))
            #expect(key.idleVerificationContextCount == 1)
        }
        #expect(key.isValidSignatureWithFreshContext(signature, for: message))
        #expect(key.idleVerificationContextCount == 1, "the fresh path neither takes nor adds a context")
    }

    @Test("a tampered message, a tampered signature and trailing bytes are rejected by both paths")
    func tampering() throws {
        let privateKey = ECPrivateKey(curve: .p256)
        let key = privateKey.publicKey
        let signature = try privateKey.signature(for: message)
        var otherMessage = message
        otherMessage[0] ^= 1
        var flippedR = signature
        flippedR[6] ^= 1
        var flippedS = signature
        flippedS[signature.count - 1] ^= 1
        let rejected: [(String, [UInt8], [UInt8])] = [
            ("tampered message", signature, otherMessage),
            ("tampered r", flippedR, message),
            ("tampered s", flippedS, message),
            ("trailing zero byte", signature + [0], message),
            ("trailing DER NULL", signature + [0x05, 0x00], message),
            ("truncated", Array(signature.dropLast()), message),
            ("empty signature", [], message),
            ("P1363 r‖s given as DER", try privateKey.rawSignature(for: message), message),
        ]
        for (name, candidate, input) in rejected {
            let result = verdicts(key, candidate, input)
            #expect(result.reused == result.fresh, "\(name): the paths disagree")
            #expect(!result.reused, "\(name) accepted")
        }
        #expect(verdicts(key, signature, message) == (true, true))
    }

    @Test("high-S is accepted and non-strict DER rejected by both paths, as OpenSSL decides")
    func encodings() throws {
        let privateKey = ECPrivateKey(curve: .p256)
        let key = privateKey.publicKey
        let raw = try privateKey.rawSignature(for: message)
        let r = Array(raw.prefix(32))
        let s = Array(raw.suffix(32))
        let highS = subtract(p256Order, s)
        // ECDSA has no low-S rule: (r, n − s) is also a valid signature, and OpenSSL accepts it on both paths.
        #expect(verdicts(key, derSignature(r: r, s: highS), message) == (true, true))
        let strict = derSignature(r: r, s: s)
        #expect(verdicts(key, strict, message) == (true, true))
        let body = Array(strict.dropFirst(2))
        let nonStrict: [(String, [UInt8])] = [
            ("long-form SEQUENCE length", [0x30, 0x81, UInt8(body.count)] + body),
            ("indefinite SEQUENCE length", [0x30, 0x80] + body + [0x00, 0x00]),
            ("non-minimal r", derSequence(padInteger(derInteger(r)) + derInteger(s))),
            ("negative s", derSequence(derInteger(r) + negate(derInteger(s)))),
            ("SET instead of SEQUENCE", [0x31] + Array(strict.dropFirst())),
            ("r and s swapped", derSequence(derInteger(s) + derInteger(r))),
        ]
        for (name, candidate) in nonStrict {
            let result = verdicts(key, candidate, message)
            #expect(result.reused == result.fresh, "\(name): the paths disagree")
            #expect(!result.reused, "\(name) accepted")
        }
    }

    @Test("a failed verification drops its context and does not poison the next one on the same key")
    func failureDoesNotPoison() throws {
        let privateKey = ECPrivateKey(curve: .p256)
        let key = privateKey.publicKey
        let signature = try privateKey.signature(for: message)
        var bad = signature
        bad[bad.count - 1] ^= 0x55
        #expect(key.isValidSignature(signature, for: message))
        #expect(key.idleVerificationContextCount == 1)
        for round in 0..<20 {
            #expect(!key.isValidSignature(bad, for: message), "round \(round): bad signature accepted")
            #expect(key.idleVerificationContextCount == 0, "round \(round): a failed context went back on the list")
            #expect(!key.isValidSignature([0x30, 0x00], for: message), "round \(round): malformed DER accepted")
            #expect(key.isValidSignature(signature, for: message), "round \(round): valid signature rejected")
            #expect(key.idleVerificationContextCount == 1)
        }
    }

    @Test("each digest gets its own contexts, with the fresh path's verdicts", arguments: DigestAlgorithm.allCases)
    func digests(digest: DigestAlgorithm) throws {
        let privateKey = ECPrivateKey(curve: .p256)
        let key = privateKey.publicKey
        let signature = try privateKey.signature(for: message, digest: digest)
        #expect(verdicts(key, signature, message, digest: digest) == (true, true))
        for other in DigestAlgorithm.allCases where other != digest {
            #expect(verdicts(key, signature, message, digest: other) == (false, false), "verified with \(other)")
        }
        #expect(key.isValidSignature(signature, for: message, digest: digest))
        #expect(key.idleVerificationContextCount == 1, "only the \(digest) context survives")
    }

    @Test("concurrent verifications on one key are all correct, and at most capacity contexts stay idle")
    func concurrent() async throws {
        let privateKey = ECPrivateKey(curve: .p256)
        let key = privateKey.publicKey
        let messages = (0..<8).map { index in Array("message \(index)".utf8) }
        let signatures = try messages.map { try privateKey.signature(for: $0) }
        let wrong = await withTaskGroup(of: Int.self) { group in
            for task in 0..<32 {
                group.addTask {
                    var failures = 0
                    for round in 0..<40 {
                        let index = (task + round) % messages.count
                        // Every third check is of another message's signature and must fail.
                        let forgery = round % 3 == 0
                        let signature = signatures[forgery ? (index + 1) % messages.count : index]
                        if key.isValidSignature(signature, for: messages[index]) == forgery { failures += 1 }
                    }
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrong == 0)
        // The last checks may have been forgeries (their contexts are dropped), so the list holds 0…capacity.
        #expect(key.idleVerificationContextCount <= 4)
        #expect(key.isValidSignature(signatures[0], for: messages[0]))
        #expect((1...4).contains(key.idleVerificationContextCount))
    }

    @Test(
        "Wycheproof ECDSA DER vectors: one key per group, the reused contexts and the fresh path agree on every case",
        .enabled(
            if: Vectors.available("wycheproof"),
            "the Wycheproof vectors are missing from Tests/RampartCryptoTests/Vectors"),
        arguments: [
            "ecdsa_secp256r1_sha256_test.json", "ecdsa_secp384r1_sha256_test.json",
            "ecdsa_secp384r1_sha384_test.json", "ecdsa_secp521r1_sha512_test.json",
        ]
    )
    func wycheproof(file: String) throws {
        let cases = try WycheproofCase.parse(file)
        #expect(cases.count > 400)
        // One ECPublicKey per group key, kept across the group's cases, so later cases run on contexts that earlier
        // (valid and invalid) cases used or replaced.
        var keys: [[UInt8]: ECPublicKey] = [:]
        var disagreements: [Int] = []
        var wrong: [Int] = []
        for vector in cases {
            let der = try vector.hex("publicKeyDer")
            let key = try keys[der] ?? ECPublicKey(derRepresentation: der)
            keys[der] = key
            let result = try verdicts(key, vector.hex("sig"), vector.hex("msg"), digest: vector.digest())
            if result.reused != result.fresh { disagreements.append(vector.id) }
            switch vector.expected {
            case .valid: if !result.reused { wrong.append(vector.id) }
            case .invalid: if result.reused { wrong.append(vector.id) }
            case .acceptable: break
            }
        }
        #expect(disagreements.isEmpty, "\(file): the paths disagree on tcId \(disagreements)")
        #expect(wrong.isEmpty, "\(file): wrong verdict on tcId \(wrong)")
    }
}

/// A DER INTEGER with one redundant leading zero octet (not minimal, so not DER).
private func padInteger(_ integer: [UInt8]) -> [UInt8] {
    [0x02, integer[1] + 1, 0x00] + Array(integer.dropFirst(2))
}

/// The INTEGER's content without its sign-guarding zero, so a high first bit reads as negative (or, when there was no
/// guard, with the top bit forced on).
private func negate(_ integer: [UInt8]) -> [UInt8] {
    var content = Array(integer.dropFirst(2))
    if content.first == 0, content.count > 1 {
        content.removeFirst()
    } else {
        content[0] |= 0x80
    }
    return [0x02, UInt8(content.count)] + content
}
#endif
