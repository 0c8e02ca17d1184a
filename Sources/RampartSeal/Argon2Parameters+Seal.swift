import RampartCrypto
public import RampartSecretStore

/// RampartSeal's use of the shared Argon2id (``RampartVault/Argon2id``, libargon2): OWASP's floor, the tighter limit
/// on costs read from untrusted headers and hash strings, and errors in ``SealError`` terms.
extension Argon2Parameters {
    /// DoS limit for costs read from a sealed header or a PHC string: at most 1 GiB of memory (the vault's own cap,
    /// ``Argon2Parameters/maxMemoryKiB``, is 4 GiB).
    public static let maximumUntrustedMemoryKiB: UInt32 = 1 << 20

    /// Whether these costs reach one of OWASP's equivalent Argon2id settings (m ≥ 7 MiB and m·t ≥ 35,840 KiB:
    /// 46 MiB/t=1, 19 MiB/t=2, 12 MiB/t=3, 9 MiB/t=4, 7 MiB/t=5).
    public var meetsOWASPMinimum: Bool {
        memoryKiB >= 7_168 && UInt64(memoryKiB) * UInt64(iterations) >= 35_840
    }

    /// `m=19456,t=2,p=1`, the PHC parameter syntax.
    var phcText: String { "m=\(memoryKiB),t=\(iterations),p=\(parallelism)" }

    /// Checks libargon2's minimums (``SealError/Code/invalidParameter``) and the untrusted-input limits
    /// (``SealError/Code/limitExceeded``).
    func validateForSeal() throws {
        guard parallelism >= 1, iterations >= 1, UInt64(memoryKiB) >= 8 * UInt64(parallelism) else {
            throw SealError.invalidParameter("Argon2id needs p ≥ 1, t ≥ 1 and m ≥ 8·p KiB; got \(phcText)")
        }
        guard memoryKiB <= Self.maximumUntrustedMemoryKiB, iterations <= Self.maxIterations,
            parallelism <= Self.maxParallelism
        else {
            throw SealError.limitExceeded(
                "Argon2id parameters \(phcText) exceed the limits m ≤ \(Self.maximumUntrustedMemoryKiB), "
                    + "t ≤ \(Self.maxIterations), p ≤ \(Self.maxParallelism)")
        }
    }

    /// Derives `count` bytes with Argon2id after ``validateForSeal()``.
    func derive(password: UnsafeRawBufferPointer, salt: [UInt8], count: Int) throws -> [UInt8] {
        try validateForSeal()
        do {
            let key = try Argon2id.deriveKey(
                password: Array(password), salt: salt, parameters: self, outputByteCount: count)
            return key.withUnsafeBytes { Array($0) }
        } catch let error as VaultError {
            throw SealError.invalidParameter("Argon2id failed: \(error)")
        }
    }
}
