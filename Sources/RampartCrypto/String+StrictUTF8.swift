extension String {
    /// The text of `bytes` when they are valid UTF-8, else nil: `String(validating:as:)` for the OS releases apps
    /// support (that initializer needs iOS 18 and macOS 15). Decoding replaces every invalid sequence with U+FFFD, so
    /// the bytes are valid exactly when the decoded text encodes back to them.
    ///
    /// Contiguous input (arrays, slices, `Data`) is checked over its buffer in non-generic code: the generic
    /// comparison, unspecialised across modules, cost microseconds per request body.
    ///
    /// - Parameter bytes: The bytes.
    package init?(strictUTF8 bytes: some Collection<UInt8>) {
        let contiguous = bytes.withContiguousStorageIfAvailable { Self.strictlyDecoded($0) }
        if let contiguous {
            guard let contiguous else { return nil }
            self = contiguous
            return
        }
        let copy = Array(bytes)
        guard let decoded = copy.withUnsafeBufferPointer({ Self.strictlyDecoded($0) }) else { return nil }
        self = decoded
    }

    /// The text of a part of a buffer when it is valid UTF-8, else nil: the same check as
    /// ``init(strictUTF8:)-(some Collection<UInt8>)`` without its generic entry, which, unspecialised across modules,
    /// cost about a thousand instructions a call (type metadata and witness lookups) in the HTTP head decoder's eight
    /// calls per request.
    ///
    /// - Parameter bytes: The bytes, a slice of a buffer.
    package init?(strictUTF8 bytes: Slice<UnsafeBufferPointer<UInt8>>) {
        guard let decoded = Self.strictlyDecoded(UnsafeBufferPointer(rebasing: bytes)) else { return nil }
        self = decoded
    }

    /// The text of `buffer` when it is valid UTF-8, else nil.
    ///
    /// ASCII, which is what header values and JSON keys almost always are, is valid UTF-8 byte for byte, so it is
    /// decoded without the comparison (which cost about a thousand instructions a string, many times per request).
    private static func strictlyDecoded(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        var decoded = String(decoding: buffer, as: UTF8.self)
        if isASCII(buffer) { return decoded }
        let same = decoded.withUTF8 { $0.count == buffer.count && equalBytes($0, buffer) }
        return same ? decoded : nil
    }

    /// Whether every byte of `buffer` is below 0x80, read eight bytes at a time.
    private static func isASCII(_ buffer: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(buffer)
        var offset = 0
        var high: UInt64 = 0
        while offset + 8 <= raw.count {
            high |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            offset += 8
        }
        while offset < raw.count {
            high |= UInt64(raw[offset])
            offset += 1
        }
        return high & 0x8080_8080_8080_8080 == 0
    }
}

extension String {
    /// Whether the two strings are the same bytes of UTF-8: how identities (subjects, key ids, routes, digests)
    /// compare, never by Unicode canonical equivalence as `==` does.
    ///
    /// Compared over both buffers, eight bytes at a time: element by element, `utf8.elementsEqual` cost about fifty
    /// instructions a byte. Not constant-time; secrets compare with `ConstantTime.isEqual`.
    ///
    /// - Parameter other: The other string.
    /// - Returns: Whether the bytes are equal.
    package func hasSameUTF8(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var left = self
        var right = other
        return left.withUTF8 { left in right.withUTF8 { right in Self.equalBytes(left, right) } }
    }

    /// Whether two buffers of one length hold the same bytes.
    private static func equalBytes(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        let left = UnsafeRawBufferPointer(left)
        let right = UnsafeRawBufferPointer(right)
        var offset = 0
        while offset + 8 <= left.count {
            guard
                left.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            else { return false }
            offset += 8
        }
        while offset < left.count {
            guard left[offset] == right[offset] else { return false }
            offset += 1
        }
        return true
    }
}
