import Foundation
public import RampartCrypto
import RampartSecretStore

/// How a passphrase becomes a key-encryption key, with its costs; the choice is stored in the sealed header.
///
/// ``argon2id`` (OWASP: 19 MiB, t = 2, p = 1) is the default; ``scrypt`` (N = 2¹⁷, r = 8, p = 1) and
/// ``pbkdf2SHA256`` (600,000 iterations) are there for interoperability and FIPS settings. Costs below OWASP's floor are refused when sealing
/// unless the value was made with an `unsafe…` factory, which exists for tests and for reading old data.
public struct PasswordKDF: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case argon2id(Argon2Parameters)
        case scrypt(Scrypt.Parameters)
        case pbkdf2SHA256(iterations: Int)
    }

    let kind: Kind
    /// Whether sealing may use costs below the OWASP floor (set only by the `unsafe…` factories).
    let allowsWeakCosts: Bool

    /// Argon2id with OWASP's parameters (m = 19 MiB, t = 2, p = 1): the default.
    public static let argon2id = PasswordKDF(kind: .argon2id(.owasp), allowsWeakCosts: false)

    /// Argon2id with the given costs.
    ///
    /// - Parameter parameters: The costs; sealing refuses them unless ``Argon2Parameters/meetsOWASPMinimum``.
    /// - Returns: The KDF.
    public static func argon2id(_ parameters: Argon2Parameters) -> PasswordKDF {
        PasswordKDF(kind: .argon2id(parameters), allowsWeakCosts: false)
    }

    /// Argon2id with costs that may be below OWASP's floor: for tests, never for user data.
    ///
    /// - Warning: Weak costs let an attacker who holds a sealed file guess passphrases quickly.
    /// - Parameter parameters: The costs.
    /// - Returns: The KDF.
    public static func unsafeArgon2id(_ parameters: Argon2Parameters) -> PasswordKDF {
        PasswordKDF(kind: .argon2id(parameters), allowsWeakCosts: true)
    }

    /// scrypt with OWASP's parameters (N = 2¹⁷, r = 8, p = 1; 128 MiB).
    public static let scrypt = PasswordKDF(kind: .scrypt(.recommended), allowsWeakCosts: false)

    /// scrypt with the given costs.
    ///
    /// - Parameter parameters: The costs; sealing refuses them below OWASP's table (r ≥ 8, N ≥ 2¹³, N·r·p ≥ 655,360).
    /// - Returns: The KDF.
    public static func scrypt(_ parameters: Scrypt.Parameters) -> PasswordKDF {
        PasswordKDF(kind: .scrypt(parameters), allowsWeakCosts: false)
    }

    /// scrypt with costs that may be below OWASP's floor: for tests, never for user data.
    ///
    /// - Warning: Weak costs let an attacker who holds a sealed file guess passphrases quickly.
    /// - Parameter parameters: The costs.
    /// - Returns: The KDF.
    public static func unsafeScrypt(_ parameters: Scrypt.Parameters) -> PasswordKDF {
        PasswordKDF(kind: .scrypt(parameters), allowsWeakCosts: true)
    }

    /// PBKDF2-HMAC-SHA256 with OWASP's 600,000 iterations.
    public static let pbkdf2SHA256 = PasswordKDF(kind: .pbkdf2SHA256(iterations: 600_000), allowsWeakCosts: false)

    /// PBKDF2-HMAC-SHA256 with the given iteration count.
    ///
    /// - Parameter iterations: Sealing refuses fewer than 600,000.
    /// - Returns: The KDF.
    public static func pbkdf2SHA256(iterations: Int) -> PasswordKDF {
        PasswordKDF(kind: .pbkdf2SHA256(iterations: iterations), allowsWeakCosts: false)
    }

    /// PBKDF2-HMAC-SHA256 with any iteration count: for tests, never for user data.
    ///
    /// - Warning: The guide's 10,000 iterations let a GPU test millions of passphrases a second.
    /// - Parameter iterations: The iteration count.
    /// - Returns: The KDF.
    public static func unsafePBKDF2SHA256(iterations: Int) -> PasswordKDF {
        PasswordKDF(kind: .pbkdf2SHA256(iterations: iterations), allowsWeakCosts: true)
    }

    /// The smallest PBKDF2-HMAC-SHA256 iteration count OWASP recommends (2023).
    public static let minimumPBKDF2Iterations = 600_000

    /// Whether the costs reach OWASP's password-storage recommendation for this KDF.
    public var meetsOWASPMinimum: Bool {
        switch kind {
        case .argon2id(let parameters): parameters.meetsOWASPMinimum
        case .scrypt(let parameters):
            parameters.blockSize >= 8 && parameters.cost >= 1 << 13 && parameters.parallelism >= 1
                && Self.product(parameters.cost, parameters.blockSize, parameters.parallelism) >= 655_360
        case .pbkdf2SHA256(let iterations): iterations >= Self.minimumPBKDF2Iterations
        }
    }

    /// `a·b·c`, saturating instead of trapping.
    private static func product(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let (ab, overflow1) = a.multipliedReportingOverflow(by: b)
        let (abc, overflow2) = ab.multipliedReportingOverflow(by: c)
        return overflow1 || overflow2 ? Int.max : abc
    }

    /// A short name with the costs, e.g. `Argon2id m=19456,t=2,p=1`.
    public var description: String {
        switch kind {
        case .argon2id(let parameters): "Argon2id \(parameters.phcText)"
        case .scrypt(let parameters):
            "scrypt N=\(parameters.cost),r=\(parameters.blockSize),p=\(parameters.parallelism)"
        case .pbkdf2SHA256(let iterations): "PBKDF2-HMAC-SHA256 i=\(iterations)"
        }
    }

    /// Compares the algorithm and costs, not the weak-costs permission.
    public static func == (lhs: PasswordKDF, rhs: PasswordKDF) -> Bool { lhs.kind == rhs.kind }

    /// Hashes the algorithm and costs.
    public func hash(into hasher: inout Hasher) { hasher.combine(kind) }

    /// Refuses weak costs unless explicitly allowed.
    func checkStrength() throws {
        guard isEncodable else {
            throw SealError.invalidParameter("\(description) cannot be stored in a header (scrypt N must be 2^k)")
        }
        guard meetsOWASPMinimum || allowsWeakCosts else {
            throw SealError.invalidParameter(
                "\(description) is below OWASP's minimum; use PasswordKDF.argon2id or raise the costs")
        }
    }

    /// Derives the 32-byte key-encryption key.
    func deriveKey(passphrase: SymmetricKey, salt: [UInt8]) throws -> SymmetricKey {
        let bytes: [UInt8]
        switch kind {
        case .argon2id(let parameters):
            bytes = try passphrase.withUnsafeBytes { password in
                try parameters.derive(password: password, salt: salt, count: 32)
            }
        case .scrypt(let parameters):
            bytes = try passphrase.withUnsafeBytes { password in
                do {
                    return try Scrypt.deriveKey(
                        password: password, salt: salt, parameters: parameters, outputByteCount: 32)
                } catch let error as CryptoError {
                    throw SealError.invalidParameter("scrypt failed: \(error.reason)")
                }
            }
        case .pbkdf2SHA256(let iterations):
            bytes = try passphrase.withUnsafeBytes { password in
                do {
                    return try PBKDF2.deriveKey(
                        password: password, salt: salt, iterationCount: iterations, outputByteCount: 32)
                } catch let error as CryptoError {
                    throw SealError.invalidParameter("PBKDF2 failed: \(error.reason)")
                }
            }
        }
        return SymmetricKey(bytes: bytes)
    }
}

// MARK: - Header encoding

extension PasswordKDF {
    /// The KDF identifiers of the header (docs/seal-format.md).
    enum HeaderID {
        static let argon2id: UInt8 = 1
        static let scrypt: UInt8 = 2
        static let pbkdf2SHA256: UInt8 = 3
    }

    /// DoS limit on a header's scrypt `r` and `p`.
    static let maximumScryptBlockSize = 64
    static let maximumScryptParallelism = 16

    /// `kdf id ‖ parameters`, big-endian.
    func serialize(into writer: inout ByteWriter) {
        switch kind {
        case .argon2id(let parameters):
            writer.append(HeaderID.argon2id)
            writer.append(parameters.memoryKiB)
            writer.append(parameters.iterations)
            writer.append(parameters.parallelism)
        case .scrypt(let parameters):
            writer.append(HeaderID.scrypt)
            writer.append(UInt8(truncatingIfNeeded: parameters.cost.trailingZeroBitCount))
            writer.append(UInt32(truncatingIfNeeded: parameters.blockSize))
            writer.append(UInt32(truncatingIfNeeded: parameters.parallelism))
        case .pbkdf2SHA256(let iterations):
            writer.append(HeaderID.pbkdf2SHA256)
            writer.append(UInt32(truncatingIfNeeded: iterations))
        }
    }

    /// Whether the costs fit the header encoding (N a power of two, values within 32 bits).
    var isEncodable: Bool {
        switch kind {
        case .argon2id: true
        case .scrypt(let parameters):
            parameters.cost > 1 && parameters.cost.nonzeroBitCount == 1 && UInt32(exactly: parameters.blockSize) != nil
                && UInt32(exactly: parameters.parallelism) != nil
        case .pbkdf2SHA256(let iterations): UInt32(exactly: iterations) != nil
        }
    }

    /// Reads `kdf id ‖ parameters`, enforcing the DoS limits before any derivation.
    init(reading reader: inout ByteReader) throws {
        let id = try reader.readByte()
        switch id {
        case HeaderID.argon2id:
            let parameters = Argon2Parameters(
                memoryKiB: try reader.readUInt32(), iterations: try reader.readUInt32(),
                parallelism: try reader.readUInt32())
            do {
                try parameters.validateForSeal()
            } catch let error as SealError where error.code == .invalidParameter {
                throw SealError.malformedHeader("the header's Argon2id parameters are invalid: \(error.reason)")
            }
            self.init(kind: .argon2id(parameters), allowsWeakCosts: true)
        case HeaderID.scrypt:
            let log2N = Int(try reader.readByte())
            let blockSize = Int(try reader.readUInt32())
            let parallelism = Int(try reader.readUInt32())
            guard (1...62).contains(log2N), blockSize >= 1, parallelism >= 1 else {
                throw SealError.malformedHeader("the header's scrypt parameters are invalid")
            }
            let parameters = Scrypt.Parameters(cost: 1 << log2N, blockSize: blockSize, parallelism: parallelism)
            guard blockSize <= Self.maximumScryptBlockSize, parallelism <= Self.maximumScryptParallelism,
                let memory = parameters.memoryByteCount, memory <= Scrypt.maximumMemoryByteCount
            else {
                throw SealError.limitExceeded(
                    "the header's scrypt parameters need more than \(Scrypt.maximumMemoryByteCount >> 20) MiB, "
                        + "r > \(Self.maximumScryptBlockSize) or p > \(Self.maximumScryptParallelism)")
            }
            self.init(kind: .scrypt(parameters), allowsWeakCosts: true)
        case HeaderID.pbkdf2SHA256:
            let iterations = Int(try reader.readUInt32())
            guard iterations >= 1 else { throw SealError.malformedHeader("the header's PBKDF2 iteration count is 0") }
            guard iterations <= PBKDF2.maximumIterationCount else {
                throw SealError.limitExceeded(
                    "the header asks for \(iterations) PBKDF2 iterations; at most \(PBKDF2.maximumIterationCount)")
            }
            self.init(kind: .pbkdf2SHA256(iterations: iterations), allowsWeakCosts: true)
        default:
            throw SealError.unsupportedAlgorithm(
                "the header names password KDF \(id), which this version does not know")
        }
    }
}
