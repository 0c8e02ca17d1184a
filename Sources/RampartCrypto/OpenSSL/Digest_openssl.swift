#if canImport(COpenSSL)
internal import COpenSSL

/// One `EVP_MD` fetched from the default provider when first used and kept for the life of the process.
///
/// `EVP_sha256()` and friends return legacy static objects: every `EVP_DigestInit_ex`, `EVP_DigestVerifyInit` or
/// `HMAC` given one fetches the provider implementation again (a method-store lookup under a read-write lock).
/// A fetched `EVP_MD` is used as is; `EVP_DigestInit_ex` only takes a reference to it.
///
/// `@unchecked Sendable`: the fetched `EVP_MD` is immutable and reference-counted with atomics, and OpenSSL allows it
/// to be shared by any number of threads (openssl-threads(7)); the wrapper never changes after `init`.
private struct FetchedDigest: @unchecked Sendable {
    let pointer: OpaquePointer

    init(_ algorithm: DigestAlgorithm) {
        // EVP_MD_fetch returns a reference the caller owns. It is never freed: these are process-wide singletons.
        guard let md = EVP_MD_fetch(nil, algorithm.openSSLName, nil) else {
            preconditionFailure("OpenSSL has no \(algorithm): \(drainOpenSSLErrors())")
        }
        pointer = md
    }
}

// Global lets are initialised once, on first use, under swift_once: a thread-safe one-time fetch.
private let fetchedSHA256 = FetchedDigest(.sha256)
private let fetchedSHA384 = FetchedDigest(.sha384)
private let fetchedSHA512 = FetchedDigest(.sha512)

extension DigestAlgorithm {
    /// The OpenSSL message digest, fetched once per process (see `FetchedDigest`); never freed by callers.
    var evpMD: OpaquePointer {
        switch self {
        case .sha256: fetchedSHA256.pointer
        case .sha384: fetchedSHA384.pointer
        case .sha512: fetchedSHA512.pointer
        }
    }
}

extension OpenSSLBackend {
    /// Owns one `EVP_MD_CTX`; freed in `deinit`.
    final class DigestContext: CryptoBackendDigestContext {
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

        /// The digest, written into a buffer on the stack and copied once into its array (as `hmacCode` does: a zeroed
        /// array, then its prefix, cost two allocations per digest).
        func finalize() -> [UInt8] {
            let capacity = Int(EVP_MAX_MD_SIZE)
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { out in
                var length: UInt32 = 0
                guard EVP_DigestFinal_ex(ctx, out.baseAddress, &length) == 1, Int(length) <= capacity else {
                    preconditionFailure("EVP_DigestFinal_ex failed: \(drainOpenSSLErrors())")
                }
                return Array(UnsafeBufferPointer(rebasing: out[..<Int(length)]))
            }
        }
    }
}

#endif
