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

    /// The text of `buffer` when it is valid UTF-8, else nil.
    private static func strictlyDecoded(_ buffer: UnsafeBufferPointer<UInt8>) -> String? {
        var decoded = String(decoding: buffer, as: UTF8.self)
        let same = decoded.withUTF8 { $0.count == buffer.count && $0.elementsEqual(buffer) }
        return same ? decoded : nil
    }
}
