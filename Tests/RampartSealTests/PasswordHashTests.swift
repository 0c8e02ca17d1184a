import RampartCrypto
import RampartSeal
import RampartVault
import TestSupport
import Testing

struct PasswordHashTests {
    static let cheap = Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 1)

    @Test("libargon2's published Argon2id vector parses, verifies and re-serializes byte for byte")
    func referenceVector() throws {
        // From the Argon2 reference implementation's test suite (argon2id, v=0x13, t=2, m=2^16, p=1).
        let phc = "$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"
        let hash = try PasswordHash(phcString: phc)
        #expect(hash.parameters == Argon2Parameters(memoryKiB: 65_536, iterations: 2, parallelism: 1))
        #expect(hash.salt == Array("somesalt".utf8))
        #expect(hash.phcString == phc)
        #expect(try hash.isValid(password: "password"))
        #expect(try !hash.isValid(password: "Password"))
        let raw = try Argon2id.deriveKey(
            password: Array("password".utf8), salt: Array("somesalt".utf8), parameters: hash.parameters)
        #expect(
            Hex.encode(raw.withUnsafeBytes { Array($0) })
                == "09316115d5cf24ed5a15a31a3ba326e5cf32edc24702987c02b6566f61913cf7")
    }

    @Test("a new hash uses OWASP's defaults, verifies, and does not need a rehash")
    func owaspDefaults() throws {
        let hash = try PasswordHash(password: "correct horse battery staple")
        #expect(hash.phcString.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(hash.salt.count == 16)
        let parsed = try PasswordHash(phcString: hash.phcString)
        #expect(parsed == hash)
        #expect(try parsed.isValid(password: "correct horse battery staple"))
        #expect(try !parsed.isValid(password: "correct horse battery stapler"))
        #expect(!parsed.needsRehash())
        #expect(!hash.description.contains(hash.phcString.split(separator: "$").last.map(String.init) ?? "?"))
    }

    @Test("needsRehash is true when any cost is below the policy")
    func needsRehash() throws {
        let weak = try PasswordHash(password: "pw", parameters: Self.cheap)
        #expect(weak.needsRehash())
        #expect(!weak.needsRehash(for: Self.cheap))
        #expect(weak.needsRehash(for: Argon2Parameters(memoryKiB: 64, iterations: 2, parallelism: 1)))
        #expect(weak.needsRehash(for: Argon2Parameters(memoryKiB: 64, iterations: 1, parallelism: 2)))
        let shortHash = try PasswordHash(phcString: "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ$AAAAAAAAAAAAAAAAAAAAAA")
        #expect(shortHash.needsRehash(for: Self.cheap))
    }

    struct Malformed: CustomTestStringConvertible, Sendable {
        let phc: String
        let code: SealError.Code
        var testDescription: String { "\(code): \(phc)" }
    }

    static let salt = "c29tZXNhbHQ"
    static let hash = "CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc"

    @Test(
        "malformed, unsupported and oversized PHC strings are rejected with their code",
        arguments: [
            Malformed(phc: "", code: .malformedPasswordHash),
            Malformed(phc: "argon2id$v=19$m=64,t=1,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2i$v=19$m=64,t=1,p=1$\(salt)$\(hash)", code: .unsupportedAlgorithm),
            Malformed(phc: "$argon2d$v=19$m=64,t=1,p=1$\(salt)$\(hash)", code: .unsupportedAlgorithm),
            Malformed(phc: "$pbkdf2-sha256$i=10000$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=16$m=64,t=1,p=1$\(salt)$\(hash)", code: .unsupportedVersion),
            Malformed(phc: "$argon2id$m=64,t=1,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$t=1,m=64,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=064,t=1,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=+64,t=1,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1,keyid=abc$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=0,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=4,t=1,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=99999999999,t=1,p=1$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=4294967295,t=1,p=1$\(salt)$\(hash)", code: .limitExceeded),
            Malformed(phc: "$argon2id$v=19$m=64,t=1000,p=1$\(salt)$\(hash)", code: .limitExceeded),
            Malformed(phc: "$argon2id$v=19$m=1024,t=1,p=64$\(salt)$\(hash)", code: .limitExceeded),
            // Found by FuzzSealHeader: 8·p overflowed 32 bits.
            Malformed(phc: "$argon2id$v=19$m=1024,t=1,p=4294967295$\(salt)$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1$\(salt)=$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHR$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1$c29tZQ$\(hash)", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1$\(salt)$AAAA", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1$\(salt)$\(hash)$", code: .malformedPasswordHash),
            Malformed(phc: "$argon2id$v=19$m=64,t=1,p=1$\(salt)$\(hash)\n", code: .malformedPasswordHash),
            Malformed(
                phc: "$argon2id$v=19$m=64,t=1,p=1$\(salt)$" + String(repeating: "A", count: 300), code: .limitExceeded),
        ])
    func malformed(_ entry: Malformed) throws {
        let error = try #require(throws: SealError.self) { try PasswordHash(phcString: entry.phc) }
        #expect(error.code == entry.code, "\(error)")
    }
}
