/// Converts ECDSA signatures between DER `ECDSA-Sig-Value` and IEEE P1363 `r ‖ s`, in Swift, for the CryptoKit backend
/// (CryptoKit takes `rawRepresentation`) and for RampartAppleSimulation's `P256.Signing.ECDSASignature`.
///
/// ```
/// ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }     -- RFC 3279 section 2.2.3
/// ```
/// Only the encoding is handled here; whether `r` and `s` lie in 1…n−1 is the verifier's check.
package enum ECDSASignatureEncoding {
    /// The DER `ECDSA-Sig-Value` of a P1363 signature; nil when `raw` is not `2 × coordinateByteCount` bytes.
    ///
    /// - Parameters:
    ///   - raw: `r ‖ s`, each left-padded to the curve's scalar length.
    ///   - curve: The curve.
    /// - Returns: The DER signature.
    package static func der(fromRaw raw: [UInt8], curve: ECCurve) -> [UInt8]? {
        let half = curve.coordinateByteCount
        guard raw.count == 2 * half else { return nil }
        let body = integer(Array(raw.prefix(half))) + integer(Array(raw.suffix(half)))
        return [0x30] + length(body.count) + body
    }

    /// The P1363 form of a strict-DER `ECDSA-Sig-Value`.
    ///
    /// - Parameters:
    ///   - der: The DER signature (minimal lengths and integers, no trailing bytes).
    ///   - curve: The curve.
    /// - Returns: `r ‖ s`, each left-padded to ``ECCurve/coordinateByteCount`` bytes.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for anything else, including negative or oversized integers.
    package static func raw(fromDER der: [UInt8], curve: ECCurve) throws -> [UInt8] {
        do {
            try requireStrictDER(der)
        } catch {
            throw CryptoError.invalidEncoding(
                "the ECDSA signature is not strict DER: \((error as? CryptoError)?.reason ?? "")")
        }
        // Strict DER guarantees the lengths below are minimal and fill the input; only the shape is left to check.
        guard der.count >= 2, der[0] == 0x30 else {
            throw CryptoError.invalidEncoding("an ECDSA signature is a DER SEQUENCE of two INTEGERs")
        }
        var cursor = der[1] < 0x80 ? 2 : 2 + Int(der[1] & 0x7F)
        var parts: [[UInt8]] = []
        while cursor < der.count {
            guard parts.count < 2, der.count - cursor >= 2, der[cursor] == 0x02, der[cursor + 1] < 0x80 else {
                throw CryptoError.invalidEncoding("an ECDSA signature is a DER SEQUENCE of two short INTEGERs")
            }
            let count = Int(der[cursor + 1])
            guard count <= der.count - cursor - 2 else { throw CryptoError.invalidEncoding("truncated INTEGER") }
            parts.append(Array(der[(cursor + 2)..<(cursor + 2 + count)]))
            cursor += 2 + count
        }
        guard parts.count == 2 else {
            throw CryptoError.invalidEncoding("an ECDSA signature holds exactly two INTEGERs (r and s)")
        }
        var out: [UInt8] = []
        for part in parts {
            guard let first = part.first, first & 0x80 == 0 else {
                throw CryptoError.invalidEncoding("ECDSA signature components must be positive")
            }
            let magnitude = Array(part.drop { $0 == 0 })
            guard magnitude.count <= curve.coordinateByteCount else {
                throw CryptoError.invalidEncoding(
                    "an ECDSA signature component is longer than the \(curve.rawValue) order")
            }
            out += [UInt8](repeating: 0, count: curve.coordinateByteCount - magnitude.count) + magnitude
        }
        return out
    }

    /// A minimal DER INTEGER holding the unsigned big-endian `magnitude`.
    private static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty || (content[0] & 0x80) != 0 { content.insert(0, at: 0) }
        return [0x02] + length(content.count) + content
    }

    /// A minimal DER length (signatures stay under 64 KiB).
    private static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        if count <= 0xFF { return [0x81, UInt8(count)] }
        return [0x82, UInt8(truncatingIfNeeded: count >> 8), UInt8(truncatingIfNeeded: count)]
    }
}
