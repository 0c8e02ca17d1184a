extension String {
    /// The text of `bytes` when they are valid UTF-8, else nil: `String(validating:as:)` for the OS releases apps
    /// support (that initializer needs iOS 18 and macOS 15). Decoding replaces every invalid sequence with U+FFFD, so
    /// the bytes are valid exactly when the decoded text encodes back to them.
    ///
    /// - Parameter bytes: The bytes.
    package init?(strictUTF8 bytes: some Collection<UInt8>) {
        let decoded = String(decoding: bytes, as: UTF8.self)
        guard decoded.utf8.elementsEqual(bytes) else { return nil }
        self = decoded
    }
}
