import Foundation
import TestSupport
import Testing

// The same file runs in RampartCryptoKitBackendTests (a symlink), against the CryptoKit backend over the simulation.
#if RAMPART_CRYPTOKIT_BACKEND
import RampartCryptoKitBackend

/// Whether these vectors run against the CryptoKit backend (which refuses what CryptoKit lacks; see
/// `Sources/RampartCrypto/Docs.docc/ChoosingPrimitives.md`).
let cryptoKitBackend = true
#else
import RampartCrypto

/// Whether these vectors run against the CryptoKit backend: RampartCrypto's own backend everywhere but Linux.
#if os(Linux)
let cryptoKitBackend = false
#else
let cryptoKitBackend = true
#endif
#endif

/// One Wycheproof test case with its group's parameters folded in, read in place from `../shared/vectors/wycheproof`.
///
/// How `result` is treated everywhere (the DocC article "Choosing primitives" says the same):
/// - `valid`: must be accepted and produce the expected output.
/// - `invalid`: must be rejected (a `false` verdict or a thrown ``CryptoError``).
/// - `acceptable`: Rampart may reject; if it accepts, the output must be the expected one. Each suite asserts the
///   verdict Rampart actually gives, so a change in behaviour shows up as a test failure to be reviewed. See
///   ``AcceptablePolicy``.
struct WycheproofCase: CustomTestStringConvertible, Sendable {
    enum Expected: String, Sendable {
        case valid
        case invalid
        case acceptable
    }

    let file: String
    let id: Int
    let comment: String
    let flags: [String]
    let expected: Expected
    /// Group and test fields as strings (numbers in decimal; nested group objects as `parent.child`).
    let fields: [String: String]

    var testDescription: String {
        let note = comment.isEmpty ? "" : " \(comment)"
        return "\(file) #\(id) \(expected.rawValue)\(note) \(flags)"
    }

    func string(_ key: String) throws -> String {
        try #require(fields[key], "\(file) #\(id) has no field \(key)")
    }

    func hex(_ key: String) throws -> [UInt8] {
        try #require(Hex.decode(string(key)), "\(file) #\(id): \(key) is not hex")
    }

    func int(_ key: String) throws -> Int {
        try #require(Int(string(key)), "\(file) #\(id): \(key) is not an integer")
    }

    func digest(_ key: String = "sha") throws -> DigestAlgorithm {
        switch try string(key) {
        case "SHA-256": .sha256
        case "SHA-384": .sha384
        case "SHA-512": .sha512
        case let other: throw UnexpectedVector(description: "\(file) #\(id): unexpected hash \(other)")
        }
    }

    /// Every case of `file`, or none when the vectors folder is absent (``WycheproofFileTests`` then says so).
    static func load(_ file: String) -> [WycheproofCase] {
        (try? parse(file)) ?? []
    }

    static func parse(_ file: String) throws -> [WycheproofCase] {
        let data = try Vectors.data("wycheproof/\(file)")
        guard let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let groups = root["testGroups"] as? [[String: Any]]
        else { throw UnexpectedVector(description: "\(file) is not a Wycheproof file") }
        var cases: [WycheproofCase] = []
        for group in groups {
            var groupFields: [String: String] = [:]
            for (key, value) in group where key != "tests" {
                if let nested = value as? [String: Any] {
                    for (child, inner) in nested { groupFields["\(key).\(child)"] = scalar(inner) }
                } else {
                    groupFields[key] = scalar(value)
                }
            }
            for test in group["tests"] as? [[String: Any]] ?? [] {
                var fields = groupFields
                for (key, value) in test { fields[key] = scalar(value) }
                guard let id = test["tcId"] as? Int, let result = test["result"] as? String,
                    let expected = Expected(rawValue: result)
                else { throw UnexpectedVector(description: "\(file): a test lacks tcId or result") }
                cases.append(
                    WycheproofCase(
                        file: file, id: id, comment: test["comment"] as? String ?? "",
                        flags: test["flags"] as? [String] ?? [], expected: expected, fields: fields))
            }
        }
        return cases
    }

    private static func scalar(_ value: Any) -> String? {
        switch value {
        case let text as String: text
        case let number as NSNumber: number.stringValue
        default: nil
        }
    }
}

struct UnexpectedVector: Error, CustomStringConvertible {
    let description: String
}

/// What Rampart does with each file's `acceptable` cases, asserted by the suites (reject is always allowed).
enum AcceptablePolicy {
    /// `rsa_signature_2048_sha256_test.json` #8: a PKCS#1 v1.5 DigestInfo without the NULL parameters. OpenSSL
    /// compares against the one DER encoding with NULL, so Rampart rejects it.
    static let rsaMissingNullAccepted = false
}

/// The whole list of files, checked for presence and size so that a missing file cannot pass as zero cases.
struct WycheproofFileTests {
    static let files: [(name: String, count: Int)] = [
        ("aes_gcm_test.json", 316), ("chacha20_poly1305_test.json", 325), ("ecdh_secp256r1_test.json", 612),
        ("ecdsa_secp256r1_sha256_p1363_test.json", 262), ("ecdsa_secp256r1_sha256_test.json", 484),
        ("ecdsa_secp384r1_sha256_test.json", 472), ("ecdsa_secp384r1_sha384_test.json", 504),
        ("ecdsa_secp521r1_sha512_test.json", 542), ("ed25519_test.json", 151), ("hkdf_sha256_test.json", 86),
        ("hmac_sha256_test.json", 174), ("pbkdf2_hmacsha256_test.json", 60),
        ("rsa_pss_2048_sha256_mgf1_32_test.json", 108), ("rsa_signature_2048_sha256_test.json", 259),
    ]

    @Test(
        "every Wycheproof file is present and fully loaded",
        .enabled(
            if: Vectors.available("wycheproof"),
            "the Wycheproof vectors are missing from Tests/RampartCryptoTests/Vectors")
    )
    func filesLoad() throws {
        for file in Self.files {
            #expect(try WycheproofCase.parse(file.name).count == file.count, "\(file.name)")
        }
        let folder = try Vectors.url("wycheproof")
        let present = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        #expect(Set(present) == Set(Self.files.map(\.name)), "a Wycheproof file is not covered by a suite")
    }
}
