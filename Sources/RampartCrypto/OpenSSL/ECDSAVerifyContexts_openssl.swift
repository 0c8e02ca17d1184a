#if canImport(COpenSSL)
internal import COpenSSL
internal import Synchronization

/// ECDSA verification contexts kept ready for one key: `EVP_PKEY_CTX`s on which `EVP_PKEY_verify_init` and
/// `EVP_PKEY_CTX_set_signature_md` already ran, so a verification is only `EVP_PKEY_verify` over the message digest.
///
/// `EVP_DigestVerifyInit`, which the fresh path runs for every signature, creates the key context, fetches the
/// signature implementation and the digest, and `EVP_DigestVerifyFinal` then duplicates the key context; all of that is
/// per-key work that a long-lived key (``ECPublicKey`` in the service's public-key cache) need not repeat.
/// EVP_PKEY_verify(3) notes that `EVP_PKEY_verify` may be called more than once on one context to perform several
/// operations with the same parameters.
///
/// The result is that of the fresh path for every input: both paths end in the provider's ECDSA verify, called with the
/// same digest bytes, digest length and signature bytes (`ecdsa_digest_verify_final` hashes the message and calls it;
/// here the same fetched `EVP_MD` hashes it first). DER parsing and the range checks on r and s are OpenSSL's own in
/// both.
///
/// An `EVP_PKEY_CTX` is not safe for concurrent use, so each context has exactly one user at a time: ``take(_:for:)``
/// moves one out of the list (or makes a new one), and ``giveBack(_:)`` returns it after a successful verification.
/// A context whose verification failed (status other than 1) is freed, never reused.
struct ECDSAVerifyContexts: ~Copyable {
    /// How many idle contexts one key keeps. Each holds about 1 KiB of OpenSSL state; more than one per core doing
    /// verifications buys nothing (a burst beyond it only pays the fresh path's initialisation again).
    static let capacity = 4

    /// One initialised context, owned by whoever holds this value.
    ///
    /// `@unchecked Sendable`: the pointer is never shared; the value moves from one holder to the next (the list
    /// under the mutex, then a single verification), so the context is only ever touched by one thread at a time.
    struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
        let digest: DigestAlgorithm
    }

    private let idle = Mutex<[Context]>([])

    init() {}

    deinit {
        // Each EVP_PKEY_CTX holds its own reference to the key (EVP_PKEY_CTX_new_from_pkey up-refs it), so freeing the
        // contexts after the owning EVPKey's EVP_PKEY_free is still correct: the last free releases the key.
        idle.withLock { contexts in
            for context in contexts { EVP_PKEY_CTX_free(context.pointer) }
            contexts.removeAll()
        }
    }

    /// An idle context for `digest`, or a newly initialised one; nil when OpenSSL refuses the key or the digest
    /// (the error queue is then drained).
    func take(_ key: OpaquePointer, for digest: DigestAlgorithm) -> Context? {
        let reused = idle.withLock { contexts -> Context? in
            guard let index = contexts.lastIndex(where: { $0.digest == digest }) else { return nil }
            return contexts.remove(at: index)
        }
        if let reused { return reused }
        // EVP_PKEY_CTX_new_from_pkey returns an owned context (freed by giveBack, discard or deinit) that takes its own
        // reference to the key; it selects the provider as EVP_DigestVerifyInit does (no engine, default properties).
        guard let pointer = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            _ = drainOpenSSLErrors()
            return nil
        }
        // EVP_PKEY_CTX_set_signature_md takes a reference to the fetched EVP_MD (or its name); it is not handed over.
        guard EVP_PKEY_verify_init(pointer) == 1, EVP_PKEY_CTX_set_signature_md(pointer, digest.evpMD) == 1 else {
            _ = drainOpenSSLErrors()
            EVP_PKEY_CTX_free(pointer)
            return nil
        }
        return Context(pointer: pointer, digest: digest)
    }

    /// Returns a context after a successful verification; past ``capacity`` it is freed instead.
    func giveBack(_ context: Context) {
        let kept = idle.withLock { contexts -> Bool in
            guard contexts.count < Self.capacity else { return false }
            contexts.append(context)
            return true
        }
        if !kept { EVP_PKEY_CTX_free(context.pointer) }
    }

    /// Frees a context that saw an error: its state after a failed `EVP_PKEY_verify` is not relied on.
    func discard(_ context: Context) { EVP_PKEY_CTX_free(context.pointer) }

    /// The number of idle contexts (for tests).
    var idleCount: Int { idle.withLock { $0.count } }
}
#endif
