#if canImport(COpenSSL)
internal import COpenSSL

extension DigestAlgorithm {
    /// The OpenSSL message digest. The returned `EVP_MD` is a static object owned by OpenSSL and is never freed.
    var evpMD: OpaquePointer {
        let md: OpaquePointer? =
            switch self {
            case .sha256: EVP_sha256()
            case .sha384: EVP_sha384()
            case .sha512: EVP_sha512()
            }
        guard let md else { preconditionFailure("OpenSSL has no \(self); the library is broken") }
        return md
    }
}

/// Owns one `EVP_MD_CTX`; freed in `deinit`.
final class DigestContext {
    private let ctx: OpaquePointer

    init(_ algorithm: DigestAlgorithm) {
        // EVP_MD_CTX_new returns an owned context released with EVP_MD_CTX_free. Failure means out of memory.
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, algorithm.evpMD, nil) == 1 else {
            preconditionFailure("EVP_DigestInit_ex failed: \(drainOpenSSLErrors())")
        }
        self.ctx = ctx
    }

    private init(copying other: DigestContext) {
        guard let ctx = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(ctx, other.ctx) == 1 else {
            preconditionFailure("EVP_MD_CTX_copy_ex failed: \(drainOpenSSLErrors())")
        }
        self.ctx = ctx
    }

    deinit { EVP_MD_CTX_free(ctx) }

    func copy() -> DigestContext { DigestContext(copying: self) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count > 0 else { return }
        guard EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count) == 1 else {
            preconditionFailure("EVP_DigestUpdate failed: \(drainOpenSSLErrors())")
        }
    }

    func finalize() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(ctx, &out, &length) == 1 else {
            preconditionFailure("EVP_DigestFinal_ex failed: \(drainOpenSSLErrors())")
        }
        return Array(out.prefix(Int(length)))
    }
}
#endif
