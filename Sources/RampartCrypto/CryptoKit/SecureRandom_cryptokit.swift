#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
extension CryptoKitBackend {
    /// Fills `buffer` from the system CSPRNG (`SystemRandomNumberGenerator`: `arc4random_buf` on Apple platforms,
    /// `getrandom` on Linux), which traps rather than return weak randomness.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        var generator = SystemRandomNumberGenerator()
        var offset = 0
        while offset < buffer.count {
            let word = generator.next()
            let count = min(MemoryLayout<UInt64>.size, buffer.count - offset)
            withUnsafeBytes(of: word) { bytes in
                for index in 0..<count { buffer[offset + index] = bytes[index] }
            }
            offset += count
        }
    }

    /// Compares two equal-length buffers without an early exit: every byte is read and the differences are ORed.
    static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }

    /// Wipes `buffer` with a call the compiler may not remove (``Platform/zero(_:)``).
    static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
        Platform.zero(buffer)
    }
}

#endif
