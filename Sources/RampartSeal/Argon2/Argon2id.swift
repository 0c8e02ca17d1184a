public import Foundation

/// Argon2id (RFC 9106) cost parameters: memory in KiB, passes over it, and lanes.
///
/// The defaults are OWASP's password-storage recommendation (19 MiB, 2 passes, 1 lane). Parameters read from an
/// untrusted header or hash string are bounded by ``maximumMemoryKiB``, ``maximumIterations`` and
/// ``maximumParallelism`` before any memory is allocated.
public struct Argon2Parameters: Sendable, Hashable, CustomStringConvertible {
    /// Memory cost in KiB (`m`).
    public var memoryKiB: UInt32
    /// Number of passes (`t`).
    public var iterations: UInt32
    /// Number of lanes (`p`).
    public var parallelism: UInt32

    /// Creates parameters.
    ///
    /// - Parameters:
    ///   - memoryKiB: Memory cost in KiB.
    ///   - iterations: Passes over the memory.
    ///   - parallelism: Lanes.
    public init(memoryKiB: UInt32, iterations: UInt32, parallelism: UInt32) {
        self.memoryKiB = memoryKiB
        self.iterations = iterations
        self.parallelism = parallelism
    }

    /// OWASP's recommendation: m = 19 MiB, t = 2, p = 1.
    public static let owasp = Argon2Parameters(memoryKiB: 19_456, iterations: 2, parallelism: 1)

    /// DoS limit: an untrusted header may ask for at most 1 GiB of memory.
    public static let maximumMemoryKiB: UInt32 = 1 << 20
    /// DoS limit: at most 64 passes.
    public static let maximumIterations: UInt32 = 64
    /// DoS limit: at most 16 lanes.
    public static let maximumParallelism: UInt32 = 16

    /// Whether these costs reach one of OWASP's equivalent Argon2id settings (m ≥ 7 MiB and m·t ≥ 35,840 KiB:
    /// 46 MiB/t=1, 19 MiB/t=2, 12 MiB/t=3, 9 MiB/t=4, 7 MiB/t=5).
    public var meetsOWASPMinimum: Bool {
        memoryKiB >= 7_168 && UInt64(memoryKiB) * UInt64(iterations) >= 35_840
    }

    /// `m=19456,t=2,p=1`, the PHC parameter syntax.
    public var description: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }

    /// Checks the limits and libargon2's own minimums.
    func validate() throws {
        guard parallelism >= 1, iterations >= 1, memoryKiB >= 8 * parallelism else {
            throw SealError.invalidParameter(
                "Argon2id needs p ≥ 1, t ≥ 1 and m ≥ 8·p KiB; got \(description)")
        }
        guard memoryKiB <= Self.maximumMemoryKiB, iterations <= Self.maximumIterations,
            parallelism <= Self.maximumParallelism
        else {
            throw SealError.limitExceeded(
                "Argon2id parameters \(description) exceed the limits m ≤ \(Self.maximumMemoryKiB), "
                    + "t ≤ \(Self.maximumIterations), p ≤ \(Self.maximumParallelism)")
        }
    }
}

/// The Argon2id password hash (RFC 9106, version 0x13), computed by libargon2.
public enum Argon2id {
    /// Derives `outputByteCount` bytes from a password.
    ///
    /// - Parameters:
    ///   - password: The password bytes (UTF-8 for text).
    ///   - salt: At least 8 random bytes (16 recommended), unique per password.
    ///   - parameters: The costs; ``Argon2Parameters/owasp`` by default.
    ///   - outputByteCount: 4…1024 bytes.
    /// - Returns: The derived bytes.
    /// - Throws: ``SealError/Code/invalidParameter`` for a short salt or output or parameters below libargon2's
    ///   minimums; ``SealError/Code/limitExceeded`` above the DoS limits.
    public static func deriveKey(
        password: some ContiguousBytes,
        salt: some ContiguousBytes,
        parameters: Argon2Parameters = .owasp,
        outputByteCount: Int = 32
    ) throws -> [UInt8] {
        try parameters.validate()
        guard (4...1024).contains(outputByteCount) else {
            throw SealError.invalidParameter("Argon2id output must be 4…1024 bytes; got \(outputByteCount)")
        }
        return try password.withUnsafeBytes { passwordBytes in
            try salt.withUnsafeBytes { saltBytes in
                guard (8...1024).contains(saltBytes.count) else {
                    throw SealError.invalidParameter("an Argon2id salt must be 8…1024 bytes; got \(saltBytes.count)")
                }
                return try argon2idHashRaw(
                    password: passwordBytes, salt: saltBytes, parameters: parameters, outputByteCount: outputByteCount)
            }
        }
    }
}
