/// The most work a sealed header may make a passphrase KDF do before anything in it can be checked.
///
/// A header's KDF and costs are read before its MAC can be verified (the MAC key comes from the data key, which the
/// derived key unwraps), so anyone can forge a header that asks for an hour of Argon2id. Opening therefore refuses,
/// with ``SealError/Code/limitExceeded`` and before deriving anything, costs above these limits; sealing refuses them
/// too, so that no file is made that the same limits would not open.
///
/// Memory is what one derivation allocates; work is the memory it writes and reads over all its passes, which is what
/// its time is proportional to:
///
/// | KDF | memory | work |
/// |---|---|---|
/// | Argon2id m, t | m KiB | m KiB × t |
/// | scrypt N, r, p | 128·r·(N + p + 2) bytes | 2 × 128·r·N × p bytes |
/// | PBKDF2 | — | limited by ``maximumPBKDF2Iterations`` |
///
/// ``standard`` (256 MiB, 1 GiB of work, 2,000,000 PBKDF2 iterations: about a second on one core) admits every
/// preset of ``PasswordKDF`` with room to spare: OWASP's Argon2id is 19 MiB and 38 MiB of work, its scrypt 128 MiB
/// and 256 MiB of work, its PBKDF2 600,000 iterations.
public struct KDFLimits: Hashable {
    /// The most memory one derivation may allocate, in bytes.
    public var maximumMemoryByteCount: Int
    /// The most memory one derivation may write and read over all its passes, in bytes.
    public var maximumWorkByteCount: Int
    /// The most PBKDF2-HMAC-SHA256 iterations.
    public var maximumPBKDF2Iterations: Int

    /// 256 MiB of memory, 1 GiB of work and 2,000,000 PBKDF2 iterations.
    public static let standard = KDFLimits(
        maximumMemoryByteCount: 256 << 20, maximumWorkByteCount: 1 << 30, maximumPBKDF2Iterations: 2_000_000)

    /// Creates limits; lower ones bound the time and memory an untrusted file can demand more tightly.
    ///
    /// - Warning: Limits above ``standard`` let a forged header make opening take minutes and gigabytes.
    /// - Parameters:
    ///   - maximumMemoryByteCount: The most memory one derivation may allocate.
    ///   - maximumWorkByteCount: The most memory one derivation may write and read over all its passes.
    ///   - maximumPBKDF2Iterations: The most PBKDF2 iterations.
    public init(maximumMemoryByteCount: Int, maximumWorkByteCount: Int, maximumPBKDF2Iterations: Int) {
        self.maximumMemoryByteCount = maximumMemoryByteCount
        self.maximumWorkByteCount = maximumWorkByteCount
        self.maximumPBKDF2Iterations = maximumPBKDF2Iterations
    }

    /// Refuses a KDF whose costs exceed the limits.
    ///
    /// - Parameters:
    ///   - kdf: The KDF and costs, from a header or for sealing.
    ///   - what: What asks for them, for the message ("the header", "sealing").
    /// - Throws: ``SealError/Code/limitExceeded`` naming the costs, the limit and what to do.
    func check(_ kdf: PasswordKDF, what: String) throws {
        switch kdf.kind {
        case .argon2id(let parameters):
            let memory = Int(parameters.memoryKiB) * 1024
            try check(
                kdf, what: what, memory: memory,
                work: memory.multipliedReportingOverflow(by: Int(parameters.iterations)))
        case .scrypt(let parameters):
            let (block, overflow1) = 128.multipliedReportingOverflow(by: parameters.blockSize)
            let (pass, overflow2) = block.multipliedReportingOverflow(by: parameters.cost)
            let (lanes, overflow3) = pass.multipliedReportingOverflow(by: parameters.parallelism)
            let (work, overflow4) = lanes.multipliedReportingOverflow(by: 2)
            try check(
                kdf, what: what, memory: parameters.memoryByteCount ?? Int.max,
                work: (work, overflow1 || overflow2 || overflow3 || overflow4))
        case .pbkdf2SHA256(let iterations):
            guard iterations <= maximumPBKDF2Iterations else {
                throw SealError.limitExceeded(
                    "\(what) asks for \(kdf): more than the \(maximumPBKDF2Iterations) iterations these KDF limits "
                        + "allow; a file from an untrusted source may be forged to stall the reader, and one you "
                        + "sealed with these costs yourself opens only with higher KDFLimits")
            }
        }
    }

    private func check(
        _ kdf: PasswordKDF, what: String, memory: Int, work: (partialValue: Int, overflow: Bool)
    ) throws {
        guard memory <= maximumMemoryByteCount, !work.overflow, work.partialValue <= maximumWorkByteCount else {
            throw SealError.limitExceeded(
                "\(what) asks for \(kdf): more than the \(maximumMemoryByteCount >> 20) MiB of memory and "
                    + "\(maximumWorkByteCount >> 20) MiB of work these KDF limits allow; a file from an untrusted "
                    + "source may be forged to stall the reader, and one you sealed with these costs yourself opens "
                    + "only with higher KDFLimits")
        }
    }
}

extension KDFLimits: Sendable {}
