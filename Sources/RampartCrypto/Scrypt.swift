public import Foundation

/// scrypt (RFC 7914), the memory-hard password-based key derivation function.
///
/// ```swift
/// let salt = SecureRandom.bytes(count: 16)
/// let key = try Scrypt.deriveKey(password: Array("correct horse".utf8), salt: salt, outputByteCount: 32)
/// ```
public enum Scrypt {
    /// The cost parameters of one derivation.
    public struct Parameters: Hashable, Sendable {
        /// `N`, the CPU/memory cost: a power of two greater than 1.
        public var cost: Int
        /// `r`, the block size (memory per lane is `128 × r × N` bytes).
        public var blockSize: Int
        /// `p`, the parallelisation (lanes run one after another here).
        public var parallelism: Int

        /// Creates parameters; they are validated when used.
        ///
        /// - Parameters:
        ///   - cost: `N`, a power of two greater than 1.
        ///   - blockSize: `r`, at least 1.
        ///   - parallelism: `p`, at least 1.
        public init(cost: Int, blockSize: Int, parallelism: Int) {
            self.cost = cost
            self.blockSize = blockSize
            self.parallelism = parallelism
        }

        /// `N = 2^17, r = 8, p = 1` (128 MiB): OWASP's Password Storage Cheat Sheet (2023) recommendation.
        public static let recommended = Parameters(cost: 1 << 17, blockSize: 8, parallelism: 1)

        /// The memory one derivation needs, `128 × r × (N + p + 2)` bytes as OpenSSL counts it; nil on overflow.
        public var memoryByteCount: Int? {
            let (blockBytes, overflow1) = 128.multipliedReportingOverflow(by: blockSize)
            let (lanes, overflow2) = cost.addingReportingOverflow(parallelism)
            let (withScratch, overflow3) = lanes.addingReportingOverflow(2)
            let (total, overflow4) = blockBytes.multipliedReportingOverflow(by: withScratch)
            return overflow1 || overflow2 || overflow3 || overflow4 ? nil : total
        }
    }

    /// The most memory one derivation may use (DoS bound): 1 GiB.
    public static let maximumMemoryByteCount = 1 << 30
    /// The most output bytes one call derives.
    public static let maximumOutputByteCount = 1024
    /// The longest password or salt accepted, in bytes (DoS bound).
    public static let maximumInputByteCount = 1 << 20

    /// Derives `outputByteCount` bytes from a password.
    ///
    /// - Parameters:
    ///   - password: The password bytes.
    ///   - salt: A unique, random salt per password (16 bytes is good practice; at least 1 is required).
    ///   - parameters: The cost; ``Parameters/recommended`` by default.
    ///   - outputByteCount: 1…``maximumOutputByteCount``.
    /// - Returns: The derived bytes.
    /// - Throws: ``CryptoError/Code/invalidParameter`` when `N` is not a power of two above 1, `r` or `p` is below
    ///   1, `r × p ≥ 2^30` or `N ≥ 2^(16r)` (RFC 7914 section 2), the memory exceeds ``maximumMemoryByteCount``, or a
    ///   length is out of range.
    public static func deriveKey(
        password: some ContiguousBytes,
        salt: some ContiguousBytes,
        parameters: Parameters = .recommended,
        outputByteCount: Int
    ) throws -> [UInt8] {
        try validate(parameters)
        guard outputByteCount >= 1, outputByteCount <= maximumOutputByteCount else {
            throw CryptoError.invalidParameter(
                "scrypt derives 1…\(maximumOutputByteCount) bytes; got \(outputByteCount)")
        }
        var passwordBytes = password.withUnsafeBytes { Array($0) }
        defer { passwordBytes.withUnsafeMutableBytes { Backend.cleanse($0) } }
        let saltBytes = salt.withUnsafeBytes { Array($0) }
        guard passwordBytes.count <= maximumInputByteCount, saltBytes.count <= maximumInputByteCount else {
            throw CryptoError.invalidParameter(
                "scrypt passwords and salts are limited to \(maximumInputByteCount) bytes")
        }
        return try Backend.scrypt(
            password: passwordBytes, salt: saltBytes, cost: parameters.cost, blockSize: parameters.blockSize,
            parallelism: parameters.parallelism, maximumMemory: maximumMemoryByteCount, length: outputByteCount)
    }

    private static func validate(_ parameters: Parameters) throws {
        let (n, r, p) = (parameters.cost, parameters.blockSize, parameters.parallelism)
        guard n > 1, n & (n - 1) == 0 else {
            throw CryptoError.invalidParameter("scrypt's cost N must be a power of two above 1; got \(n)")
        }
        guard r >= 1, p >= 1, r <= Int(UInt32.max), p <= Int(UInt32.max) else {
            throw CryptoError.invalidParameter("scrypt's r and p must be at least 1; got r=\(r), p=\(p)")
        }
        let (product, overflow) = r.multipliedReportingOverflow(by: p)
        guard !overflow, product < 1 << 30 else {
            throw CryptoError.invalidParameter("scrypt needs r × p < 2^30; got r=\(r), p=\(p)")
        }
        // RFC 7914 section 2: N < 2^(128 × r / 8). Only r < 4 can reach it with a memory-bounded N.
        if r < 4 {
            guard n.trailingZeroBitCount < 16 * r else {
                throw CryptoError.invalidParameter("scrypt needs N < 2^(16r); N=\(n) is too large for r=\(r)")
            }
        }
        guard let memory = parameters.memoryByteCount, memory <= maximumMemoryByteCount else {
            throw CryptoError.invalidParameter(
                "scrypt with N=\(n), r=\(r), p=\(p) needs more than \(maximumMemoryByteCount) bytes of memory")
        }
    }
}
