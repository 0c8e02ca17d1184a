public import Foundation

/// Random bytes from OpenSSL's CSPRNG (`RAND_bytes`).
public enum SecureRandom {
    /// Returns `count` random bytes.
    ///
    /// - Important: If the operating system's entropy source fails, this traps rather than return weak randomness:
    ///   no caller can do anything safe with a failed random draw.
    /// - Parameter count: How many bytes; zero gives an empty array.
    /// - Returns: The random bytes.
    public static func bytes(count: Int) -> [UInt8] {
        precondition(count >= 0, "negative byte count")
        var out = [UInt8](repeating: 0, count: count)
        out.withUnsafeMutableBytes { Backend.fillRandom($0) }
        return out
    }
}

/// Comparisons whose running time does not depend on where the inputs differ.
public enum ConstantTime {
    /// Whether two byte strings are equal, compared with `CRYPTO_memcmp`.
    ///
    /// Lengths are not secret: inputs of different lengths return `false` at once.
    ///
    /// - Parameters:
    ///   - lhs: One value (a MAC, token or nonce).
    ///   - rhs: The other value.
    /// - Returns: `true` when both hold the same bytes.
    public static func isEqual(_ lhs: some ContiguousBytes, _ rhs: some ContiguousBytes) -> Bool {
        lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in
                left.count == right.count && Backend.constantTimeEqual(left, right)
            }
        }
    }
}
