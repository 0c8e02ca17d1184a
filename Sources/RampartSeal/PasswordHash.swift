public import Foundation
import RampartCrypto
public import RampartSecretStore

/// A stored password hash: Argon2id in the PHC string format, `$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`.
///
/// Servers keep this string instead of the password. It replaces salted SHA-256 and PBKDF2 with 10,000 iterations,
/// which a GPU tries billions and millions of times a second: Argon2id makes every guess cost 19 MiB of memory.
///
/// ```swift
/// let stored = try PasswordHash(password: "hunter2").phcString      // at sign-up
/// let hash = try PasswordHash(phcString: stored)                     // at sign-in
/// if try hash.isValid(password: attempt) {
///     if hash.needsRehash() { save(try PasswordHash(password: attempt).phcString) }
/// }
/// ```
///
/// Parsing follows the PHC string format (github.com/P-H-C/phc-string-format): B64 is the standard base64 alphabet
/// without padding and must be canonical; decimal values have no sign or leading zero. Only `argon2id` with `v=19`
/// and exactly the parameters `m`, `t`, `p` in that order is accepted.
public struct PasswordHash: Sendable, Hashable, CustomStringConvertible {
    /// DoS limit: a PHC string is at most 256 characters.
    public static let maximumStringLength = 256
    /// The salt length for new hashes (16 bytes, RFC 9106's recommendation).
    public static let saltByteCount = 16
    /// The hash length for new hashes (32 bytes).
    public static let hashByteCount = 32
    /// Accepted salt lengths when parsing.
    static let saltRange = 8...64
    /// Accepted hash lengths when parsing.
    static let hashRange = 16...64

    /// The Argon2id costs this hash was made with.
    public let parameters: Argon2Parameters
    /// The salt.
    public let salt: [UInt8]
    /// The Argon2id output.
    let hash: [UInt8]

    /// Hashes a new password with a fresh random salt.
    ///
    /// - Parameters:
    ///   - password: The password (UTF-8 bytes for text).
    ///   - parameters: The costs; ``Argon2Parameters/owasp`` by default.
    /// - Throws: ``SealError/Code/invalidParameter`` or ``SealError/Code/limitExceeded`` for invalid costs.
    public init(password: some ContiguousBytes, parameters: Argon2Parameters = .owasp) throws {
        let salt = SecureRandom.bytes(count: Self.saltByteCount)
        self.hash = try password.withUnsafeBytes { bytes in
            try parameters.derive(password: bytes, salt: salt, count: Self.hashByteCount)
        }
        self.salt = salt
        self.parameters = parameters
    }

    /// Hashes a new password given as text.
    ///
    /// - Parameters:
    ///   - password: The password; its UTF-8 bytes are hashed.
    ///   - parameters: The costs.
    /// - Throws: As the byte-string initializer.
    public init(password: String, parameters: Argon2Parameters = .owasp) throws {
        try self.init(password: Array(password.utf8), parameters: parameters)
    }

    /// Parses a stored PHC string.
    ///
    /// - Parameter phcString: `$argon2id$v=19$m=…,t=…,p=…$salt$hash`.
    /// - Throws: ``SealError/Code/malformedPasswordHash`` for any syntax fault, ``SealError/Code/unsupportedAlgorithm``
    ///   for another Argon2 variant or scheme, ``SealError/Code/unsupportedVersion`` for a version other than 19,
    ///   ``SealError/Code/limitExceeded`` for a string or costs above the limits.
    public init(phcString: String) throws {
        let bytes = Array(phcString.utf8)
        guard bytes.count <= Self.maximumStringLength else {
            throw SealError.limitExceeded("a PHC string is at most \(Self.maximumStringLength) characters")
        }
        let fields = bytes.split(separator: UInt8(ascii: "$"), omittingEmptySubsequences: false)
        guard fields.count == 6, fields[0].isEmpty else {
            throw SealError.malformedPasswordHash("a PHC string has the form $argon2id$v=19$m=…,t=…,p=…$salt$hash")
        }
        guard Array(fields[1]) == Array("argon2id".utf8) else {
            throw SealError.unsupportedAlgorithm("only argon2id password hashes are supported")
        }
        guard Array(fields[2]) == Array("v=19".utf8) else {
            if fields[2].starts(with: Array("v=".utf8)) {
                throw SealError.unsupportedVersion("only Argon2 version 19 (0x13) is supported")
            }
            throw SealError.malformedPasswordHash("the PHC string lacks its v=19 field")
        }
        let costs = fields[3].split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false)
        guard costs.count == 3 else {
            throw SealError.malformedPasswordHash("the PHC parameters must be exactly m=…,t=…,p=…")
        }
        let memory = try Self.decimal(costs[0], name: "m")
        let iterations = try Self.decimal(costs[1], name: "t")
        let parallelism = try Self.decimal(costs[2], name: "p")
        let parameters = Argon2Parameters(memoryKiB: memory, iterations: iterations, parallelism: parallelism)
        do {
            try parameters.validateForSeal()
        } catch let error as SealError where error.code == .invalidParameter {
            throw SealError.malformedPasswordHash("the PHC parameters are invalid: \(error.reason)")
        }
        let salt = try Self.base64(fields[4], name: "salt")
        let hash = try Self.base64(fields[5], name: "hash")
        guard Self.saltRange.contains(salt.count), Self.hashRange.contains(hash.count) else {
            throw SealError.malformedPasswordHash(
                "the salt must be \(Self.saltRange) bytes and the hash \(Self.hashRange) bytes")
        }
        self.parameters = parameters
        self.salt = salt
        self.hash = hash
    }

    /// The PHC string to store.
    public var phcString: String {
        "$argon2id$v=19$\(parameters.phcText)$"
            + Self.encode(salt) + "$" + Self.encode(hash)
    }

    /// `PasswordHash(argon2id m=…,t=…,p=…)`; never the salt or hash.
    public var description: String { "PasswordHash(argon2id \(parameters.phcText))" }

    /// Checks a password attempt, comparing in constant time.
    ///
    /// - Parameter password: The attempt (UTF-8 bytes for text).
    /// - Returns: `true` when it matches.
    /// - Throws: ``SealError/Code/limitExceeded`` when Argon2id cannot allocate its memory.
    public func isValid(password: some ContiguousBytes) throws -> Bool {
        let candidate = try password.withUnsafeBytes { bytes in
            try parameters.derive(password: bytes, salt: salt, count: hash.count)
        }
        return ConstantTime.isEqual(candidate, hash)
    }

    /// Checks a password attempt given as text.
    ///
    /// - Parameter password: The attempt.
    /// - Returns: `true` when it matches.
    /// - Throws: As the byte-string check.
    public func isValid(password: String) throws -> Bool { try isValid(password: Array(password.utf8)) }

    /// Whether the hash was made with costs below `policy` (or a short salt or hash) and should be replaced the next
    /// time the user signs in with the correct password.
    ///
    /// - Parameter policy: Today's costs; ``Argon2Parameters/owasp`` by default.
    /// - Returns: `true` when any cost is lower than the policy's.
    public func needsRehash(for policy: Argon2Parameters = .owasp) -> Bool {
        parameters.memoryKiB < policy.memoryKiB || parameters.iterations < policy.iterations
            || parameters.parallelism < policy.parallelism || salt.count < Self.saltByteCount
            || hash.count < Self.hashByteCount
    }

    /// Compares costs and salts, and hashes in constant time.
    public static func == (lhs: PasswordHash, rhs: PasswordHash) -> Bool {
        lhs.parameters == rhs.parameters && lhs.salt == rhs.salt && ConstantTime.isEqual(lhs.hash, rhs.hash)
    }

    /// Hashes the costs and salt.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(parameters)
        hasher.combine(salt)
    }

    /// `name=<decimal>` with no sign or leading zero, fitting in 32 bits.
    private static func decimal(_ field: ArraySlice<UInt8>, name: String) throws -> UInt32 {
        let prefix = Array("\(name)=".utf8)
        let digits = Array(field.dropFirst(prefix.count))
        guard field.starts(with: prefix), !digits.isEmpty, digits.count <= 10,
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            digits.first != UInt8(ascii: "0") || digits.count == 1
        else {
            throw SealError.malformedPasswordHash("the PHC parameter \(name) must be \(name)=<decimal>")
        }
        let value = digits.reduce(UInt64(0)) { $0 * 10 + UInt64($1 - UInt8(ascii: "0")) }
        guard let result = UInt32(exactly: value) else {
            throw SealError.limitExceeded("the PHC parameter \(name) does not fit in 32 bits")
        }
        return result
    }

    /// Decodes PHC B64: standard alphabet, no padding, canonical (re-encoding gives the same text).
    private static func base64(_ field: ArraySlice<UInt8>, name: String) throws -> [UInt8] {
        let text = String(decoding: field, as: UTF8.self)
        let padding = String(repeating: "=", count: (4 - text.utf8.count % 4) % 4)
        guard !text.isEmpty, text.utf8.count % 4 != 1, !text.contains("="),
            let data = Data(base64Encoded: text + padding), encode(Array(data)) == text
        else {
            throw SealError.malformedPasswordHash("the PHC \(name) is not canonical unpadded base64")
        }
        return Array(data)
    }

    private static func encode(_ bytes: [UInt8]) -> String {
        var text = Data(bytes).base64EncodedString()
        while text.hasSuffix("=") { text.removeLast() }
        return text
    }
}
