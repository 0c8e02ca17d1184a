#if canImport(COpenSSL)
internal import COpenSSL

extension OpenSSLBackend {
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        var offset = 0
        while offset < buffer.count {
            let chunk = min(buffer.count - offset, Int(Int32.max))
            // RAND_bytes returns 1 on success; anything else means the DRBG could not be seeded.
            guard RAND_bytes(base.advanced(by: offset).assumingMemoryBound(to: UInt8.self), Int32(chunk)) == 1 else {
                fatalError("RAND_bytes failed; refusing to continue without a working CSPRNG: \(drainOpenSSLErrors())")
            }
            offset += chunk
        }
    }

    static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard lhs.count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        return CRYPTO_memcmp(left, right, lhs.count) == 0
    }

    static func cleanse(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        OPENSSL_cleanse(base, buffer.count)
    }
}

#endif
