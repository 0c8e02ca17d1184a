/// Argon2id cost parameters (RFC 9106).
public struct Argon2Parameters: Hashable, Codable {
    /// Memory in KiB.
    public var memoryKiB: UInt32
    /// Passes over memory.
    public var iterations: UInt32
    /// Lanes.
    public var parallelism: UInt32

    /// Creates parameters (checked when used).
    ///
    /// - Parameters:
    ///   - memoryKiB: Memory in KiB, at least 8 per lane.
    ///   - iterations: Passes, at least 1.
    ///   - parallelism: Lanes, 1…16.
    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// OWASP's recommended minimum for Argon2id: 19 MiB, 2 iterations, 1 lane. The file vault's default.
    public static let owasp = Argon2Parameters(memoryKiB: 19 * 1024, iterations: 2, parallelism: 1)

    /// Largest memory accepted: 4 GiB. Parameters come from vault files, which an attacker may have written; a cap
    /// keeps a forged header from making an open allocate without bound.
    public static let maxMemoryKiB: UInt32 = 4 * 1024 * 1024
    /// Largest iteration count accepted (same reason).
    public static let maxIterations: UInt32 = 64
    /// Largest lane count accepted.
    public static let maxParallelism: UInt32 = 16

    /// Whether the parameters are within Argon2's minimums and Rampart's caps.
    public var isValid: Bool {
        (1...Self.maxParallelism).contains(parallelism) && (1...Self.maxIterations).contains(iterations)
            && memoryKiB >= 8 * parallelism && memoryKiB <= Self.maxMemoryKiB
    }
}

/// Argon2id password hashing (RFC 9106) through libargon2.
public enum Argon2id {
    /// Derives a key from a password.
    ///
    /// - Parameters:
    ///   - password: The password bytes.
    ///   - salt: At least 8 random bytes (16 recommended), stored next to what the key protects.
    ///   - parameters: Cost parameters; ``Argon2Parameters/owasp`` unless measured otherwise.
    ///   - outputByteCount: Key length, 4…1024 bytes; 32 by default.
    /// - Returns: The derived key.
    /// - Throws: ``CryptoError/Code/invalidParameter`` for parameters outside the limits or a short salt.
    public static func deriveKey(
        password: [UInt8],
        salt: [UInt8],
        parameters: Argon2Parameters,
        outputByteCount: Int = 32
    ) throws -> SymmetricKey {
        guard parameters.isValid else {
            throw CryptoError.invalidParameter(
                "Argon2id needs 1…\(Argon2Parameters.maxParallelism) lanes, 1…\(Argon2Parameters.maxIterations) "
                    + "iterations and 8×lanes…\(Argon2Parameters.maxMemoryKiB) KiB of memory")
        }
        guard salt.count >= 8, salt.count <= 1024 else {
            throw CryptoError.invalidParameter("an Argon2id salt must be 8…1024 bytes; got \(salt.count)")
        }
        guard (4...1024).contains(outputByteCount) else {
            throw CryptoError.invalidParameter("Argon2id derives 4…1024 bytes; asked for \(outputByteCount)")
        }
        return try Backend.argon2idHash(password: password, salt: salt, parameters: parameters, count: outputByteCount)
    }
}

extension Argon2Parameters: Sendable {}
