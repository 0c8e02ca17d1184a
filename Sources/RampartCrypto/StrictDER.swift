/// A structural DER check run before key bytes reach OpenSSL's decoder, which accepts some BER forms (indefinite
/// lengths, non-minimal lengths and integers) that a key import must refuse.
///
/// It checks the X.690 DER rules that keys exercise (section 10 and 8):
/// - identifiers use the low-tag-number form (tags 0…30), which is all that SubjectPublicKeyInfo and PKCS#8 use;
/// - universal types are constructed only for SEQUENCE and SET (no constructed BIT or OCTET STRINGs);
/// - lengths are definite and minimal (short form below 128, long form without leading zero bytes, at most 4 bytes);
/// - constructed values are exactly filled by their children; the whole input is one value with no trailing bytes;
/// - `INTEGER` is non-empty and minimal, `BOOLEAN` is one byte `00` or `FF`, `NULL` is empty, `BIT STRING` has 0…7
///   unused bits (0 when empty) with those bits zero, `OBJECT IDENTIFIER` sub-identifiers are minimal and complete.
///
/// Full ASN.1 decoding (and the `DER` reader others use) lives in RampartX509; this only refuses non-DER before
/// OpenSSL parses the structure.
enum StrictDER {
    /// The deepest nesting accepted (DoS bound): SubjectPublicKeyInfo with explicit EC parameters nests 5 deep.
    static let maximumDepth = 16

    /// Throws unless `bytes` is exactly one well-formed DER value.
    ///
    /// - Parameter bytes: The encoding.
    /// - Throws: ``CryptoError/Code/invalidKey`` naming the first rule broken.
    static func validate(_ bytes: [UInt8]) throws {
        let end = try validateValue(bytes, from: 0, limit: bytes.count, depth: 0)
        guard end == bytes.count else { throw CryptoError.invalidKey("trailing bytes after the DER value") }
    }

    /// Validates the value starting at `start`, which must end by `limit`, and returns the index just after it.
    private static func validateValue(_ bytes: [UInt8], from start: Int, limit: Int, depth: Int) throws -> Int {
        guard depth < maximumDepth else {
            throw CryptoError.invalidKey("DER nesting deeper than \(maximumDepth) levels")
        }
        guard start < limit else { throw CryptoError.invalidKey("truncated DER: missing identifier") }
        let identifier = bytes[start]
        guard identifier & 0x1F != 0x1F else {
            throw CryptoError.invalidKey("DER high-tag-number identifiers are not used in keys")
        }
        let (length, contentStart) = try readLength(bytes, at: start + 1, limit: limit)
        guard length <= limit - contentStart else {
            throw CryptoError.invalidKey("truncated DER: a length runs past the end of the input")
        }
        let contentEnd = contentStart + length
        if identifier & 0x20 != 0 {
            // X.690 section 10.2: DER encodes strings primitively, so the only constructed universal types are
            // SEQUENCE (16) and SET (17).
            guard identifier & 0xC0 != 0 || identifier == 0x30 || identifier == 0x31 else {
                throw CryptoError.invalidKey("constructed DER strings are not allowed (BER only)")
            }
            var cursor = contentStart
            while cursor < contentEnd {
                cursor = try validateValue(bytes, from: cursor, limit: contentEnd, depth: depth + 1)
            }
        } else if identifier & 0xC0 == 0 {
            try validatePrimitive(tag: identifier, content: bytes[contentStart..<contentEnd])
        }
        return contentEnd
    }

    /// Reads a definite, minimal length at `index`; returns it and the index of the first content byte.
    private static func readLength(_ bytes: [UInt8], at index: Int, limit: Int) throws -> (Int, Int) {
        guard index < limit else { throw CryptoError.invalidKey("truncated DER: missing length") }
        let first = bytes[index]
        if first < 0x80 { return (Int(first), index + 1) }
        guard first != 0x80 else { throw CryptoError.invalidKey("indefinite DER lengths are not allowed") }
        let count = Int(first & 0x7F)
        guard count <= 4 else { throw CryptoError.invalidKey("DER length of \(count) bytes is too large") }
        guard count <= limit - index - 1 else { throw CryptoError.invalidKey("truncated DER length") }
        var length = 0
        for offset in 1...count { length = length << 8 | Int(bytes[index + offset]) }
        guard bytes[index + 1] != 0, length >= 0x80 else {
            throw CryptoError.invalidKey("non-minimal DER length")
        }
        return (length, index + 1 + count)
    }

    private static func validatePrimitive(tag: UInt8, content: ArraySlice<UInt8>) throws {
        switch tag {
        case 0x01:  // BOOLEAN
            guard content.count == 1, content.first == 0 || content.first == 0xFF else {
                throw CryptoError.invalidKey("a DER BOOLEAN is one byte, 00 or FF")
            }
        case 0x02:  // INTEGER
            guard let first = content.first else { throw CryptoError.invalidKey("an empty DER INTEGER") }
            if content.count > 1 {
                let second = content[content.startIndex + 1]
                guard !(first == 0 && second < 0x80), !(first == 0xFF && second >= 0x80) else {
                    throw CryptoError.invalidKey("a non-minimal DER INTEGER")
                }
            }
        case 0x03:  // BIT STRING
            guard let unused = content.first, unused < 8 else {
                throw CryptoError.invalidKey("a DER BIT STRING needs an unused-bits count of 0…7")
            }
            if content.count == 1 {
                guard unused == 0 else { throw CryptoError.invalidKey("an empty DER BIT STRING with unused bits") }
            } else if let last = content.last, unused > 0 {
                guard last & ((1 << unused) - 1) == 0 else {
                    throw CryptoError.invalidKey("the unused bits of a DER BIT STRING must be zero")
                }
            }
        case 0x05:  // NULL
            guard content.isEmpty else { throw CryptoError.invalidKey("a DER NULL must be empty") }
        case 0x06:  // OBJECT IDENTIFIER
            guard let last = content.last, last & 0x80 == 0 else {
                throw CryptoError.invalidKey("a DER OBJECT IDENTIFIER is empty or ends mid sub-identifier")
            }
            var startsSubidentifier = true
            for byte in content {
                guard !(startsSubidentifier && byte == 0x80) else {
                    throw CryptoError.invalidKey("a non-minimal OBJECT IDENTIFIER sub-identifier")
                }
                startsSubidentifier = byte & 0x80 == 0
            }
        default:
            break
        }
    }
}
