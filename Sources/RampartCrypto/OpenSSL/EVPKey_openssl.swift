#if canImport(COpenSSL)
internal import COpenSSL
internal import Foundation

/// Owns one `EVP_PKEY`, released with `EVP_PKEY_free` in `deinit`, and the ECDSA verification contexts made for it.
///
/// `@unchecked Sendable`: the key is never mutated after `init`; OpenSSL allows concurrent use of a const `EVP_PKEY`
/// for signing and verification from several threads. The only mutable state, the idle verification contexts, sits
/// behind the mutex in ``ECDSAVerifyContexts`` and each context is used by one thread at a time.
final class EVPKey: CryptoBackendKey, @unchecked Sendable {
    let pointer: OpaquePointer
    /// Idle `EVP_PKEY_CTX`s initialised for ECDSA verification with this key (empty for other key types).
    let ecdsaVerifyContexts = ECDSAVerifyContexts()

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    // The contexts are freed after this body, when the stored properties are destroyed; each holds its own reference
    // to the EVP_PKEY, so the key itself is released by whichever free comes last.
    deinit { EVP_PKEY_free(pointer) }

    /// The curve of an EC key on a supported named curve; nil for anything else.
    var ecCurve: ECCurve? {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else { return nil }
        var buffer = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_GROUP_NAME, &buffer, buffer.count, &length) == 1
        else {
            _ = drainOpenSSLErrors()
            return nil
        }
        let name = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch name {
        case "prime256v1", "P-256", "secp256r1": return .p256
        case "secp384r1", "P-384": return .p384
        case "secp521r1", "P-521": return .p521
        default: return nil
        }
    }

    /// The OpenSSL key type, such as `EVP_PKEY_EC` or `EVP_PKEY_ED25519`.
    var baseID: Int32 { EVP_PKEY_get_base_id(pointer) }

    /// The key's family; nil for types Rampart does not handle (DSA, X25519, SM2, …).
    var family: KeyFamily? {
        switch baseID {
        case EVP_PKEY_EC: .ec
        case EVP_PKEY_RSA: .rsa
        case EVP_PKEY_RSA_PSS: .rsaPSS
        case EVP_PKEY_ED25519: .ed25519
        case EVP_PKEY_ED448: .ed448
        default: nil
        }
    }

    /// The key size in bits (the modulus for RSA, the group order for EC).
    var bitCount: Int { Int(EVP_PKEY_get_bits(pointer)) }

    /// Makes OpenSSL encode this EC key's point uncompressed (`04 ‖ X ‖ Y`) whatever form it was imported in.
    ///
    /// Called only while the key is being built, before it is shared.
    func preferUncompressedPoint() throws {
        guard baseID == EVP_PKEY_EC else { return }
        guard
            EVP_PKEY_set_utf8_string_param(pointer, OSSL_PKEY_PARAM_EC_POINT_CONVERSION_FORMAT, "uncompressed") == 1
        else { throw CryptoError.openSSL("could not select the uncompressed point format") }
    }

    /// Runs OpenSSL's full key check (`EVP_PKEY_check`: for EC, the scalar is in range and matches the point).
    func checkKeyPair() -> Bool {
        // EVP_PKEY_CTX_new_from_pkey returns an owned context (freed here); it takes its own reference to the key.
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let status = EVP_PKEY_check(context)
        if status != 1 { _ = drainOpenSSLErrors() }
        return status == 1
    }

    /// The PEM `PUBLIC KEY` block of ``spkiDER``.
    var spkiPEM: String { PEMBlock.encode(spkiDER, label: PEMBlock.publicKeyLabel) }

    /// Whether an EC key names its curve by OID rather than spelling out explicit parameters (RFC 5480 section 2.1.1:
    /// PKIX keys MUST use `namedCurve`; explicit parameters have hidden invalid cofactors and generators).
    var usesNamedCurve: Bool {
        var buffer = [CChar](repeating: 0, count: 32)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, OSSL_PKEY_PARAM_EC_ENCODING, &buffer, buffer.count, &length) == 1
        else {
            _ = drainOpenSSLErrors()
            return false
        }
        let encoding = String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return encoding == OSSL_PKEY_EC_ENCODING_GROUP
    }

    /// The public key as OpenSSL encodes it for its type (X9.63 uncompressed point for EC, raw bytes for EdDSA).
    var encodedPublicPoint: [UInt8] {
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, nil, 0, &length) == 1 else {
            preconditionFailure("EVP_PKEY has no encoded public key: \(drainOpenSSLErrors())")
        }
        var out = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, &out, length, &length) == 1
        else { preconditionFailure("EVP_PKEY_get_octet_string_param failed: \(drainOpenSSLErrors())") }
        return Array(out.prefix(length))
    }

    /// The DER SubjectPublicKeyInfo (`i2d_PUBKEY`).
    var spkiDER: [UInt8] {
        // i2d_PUBKEY with a NULL output pointer returns the length; with a pointer it writes and advances it.
        let length = i2d_PUBKEY(pointer, nil)
        guard length > 0 else { preconditionFailure("i2d_PUBKEY failed: \(drainOpenSSLErrors())") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard written == length else { preconditionFailure("i2d_PUBKEY wrote \(written) of \(length) bytes") }
        return out
    }
}

extension OpenSSLBackend {
    static func importECPublicKey(curve: ECCurve, point: [UInt8]) throws -> EVPKey {
        let builder = try ParameterBuilder()
        try builder.addString(OSSL_PKEY_PARAM_GROUP_NAME, curve.rawValue)
        try builder.addBytes(OSSL_PKEY_PARAM_PUB_KEY, point)
        return try keyFromData(type: "EC", selection: COpenSSL_EVP_PKEY_PUBLIC_KEY(), builder: builder) {
            CryptoError.invalidKey("the bytes are not a point on \(curve.rawValue)")
        }
    }

    /// Decodes a DER `SubjectPublicKeyInfo` of any key type OpenSSL knows, rejecting trailing bytes.
    ///
    /// ```
    /// SubjectPublicKeyInfo ::= SEQUENCE {
    ///     algorithm         AlgorithmIdentifier,
    ///     subjectPublicKey  BIT STRING }
    /// ```
    /// (RFC 5280 section 4.1.) The bytes must also be strict DER (``requireStrictDER(_:)``): OpenSSL's decoder accepts
    /// some BER forms.
    static func importSPKI(_ der: [UInt8]) throws -> EVPKey {
        guard !der.isEmpty, der.count <= maximumSPKIByteCount else {
            throw CryptoError.invalidKey(
                "a SubjectPublicKeyInfo must be 1…\(maximumSPKIByteCount) bytes; got \(der.count)")
        }
        try requireStrictDER(der)
        guard !SPKIShape.declaresUnusedBits(der) else {
            throw CryptoError.invalidKey("the subjectPublicKey BIT STRING declares unused bits; keys are whole octets")
        }
        switch SPKIShape.recognise(der) {
        case .ec(let curve, let point):
            guard SPKIShape.isAllowedPointForm(point, curve: curve) else {
                throw CryptoError.invalidKey(
                    "an EC public key must be an uncompressed (04) or compressed (02/03) \(curve.rawValue) point")
            }
            return try importECPublicKey(curve: curve, point: point)
        case .ed25519(let key): return try importRawEdDSAPublicKey(key, variant: .ed25519)
        case nil: break
        }
        // d2i_PUBKEY returns an owned EVP_PKEY (freed by EVPKey) and advances the cursor past what it consumed.
        let result: (OpaquePointer?, Int) = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            let consumed = cursor.map { buffer.baseAddress?.distance(to: $0) ?? 0 } ?? 0
            return (key, consumed)
        }
        guard let key = result.0 else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey("the bytes are not a DER SubjectPublicKeyInfo")
        }
        let owned = EVPKey(taking: key)
        guard result.1 == der.count else {
            throw CryptoError.invalidKey("trailing bytes after the SubjectPublicKeyInfo")
        }
        // d2i_PUBKEY accepts some parameters that i2d_PUBKEY then refuses to encode (an RSA-PSS saltLength of -96 was
        // found by FuzzPublicKey). Every imported key must re-encode, or `derRepresentation` could not be produced.
        guard i2d_PUBKEY(owned.pointer, nil) > 0 else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey(
                "the SubjectPublicKeyInfo has invalid algorithm parameters (OpenSSL cannot re-encode the key)")
        }
        try owned.preferUncompressedPoint()
        return owned
    }

    static func generateECKey(curve: ECCurve) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            preconditionFailure("OpenSSL has no EC keys: \(drainOpenSSLErrors())")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
            EVP_PKEY_CTX_set_group_name(context, curve.rawValue) == 1,
            EVP_PKEY_generate(context, &key) == 1,
            let key
        else { preconditionFailure("EC key generation failed: \(drainOpenSSLErrors())") }
        return EVPKey(taking: key)
    }

    /// Verifies `signature` over `message` (hashed with `digest`; nil for one-shot schemes such as Ed25519).
    ///
    /// ECDSA with a digest goes through the key's reusable contexts (`verifyECDSAWithReusedContext`); every other
    /// scheme, and any caller that must configure the context, takes
    /// ``verifySignatureWithFreshContext(_:digest:signature:message:configure:)``.
    static func verifySignature(
        _ key: EVPKey,
        digest: DigestAlgorithm?,
        signature: some ContiguousBytes,
        message: some ContiguousBytes
    ) -> Bool {
        if let digest, key.baseID == EVP_PKEY_EC {
            return verifyECDSAWithReusedContext(key, digest: digest, signature: signature, message: message)
        }
        return verifySignatureWithFreshContext(key, digest: digest, signature: signature, message: message)
    }

    /// Verifies `signature` with a new `EVP_DigestVerifyInit` context made and freed for this one call.
    ///
    /// This is the reference path: `configure` may set padding (RSA) on the key context before the check, and the
    /// benchmarks' OpenSSL floor measures exactly this.
    static func verifySignatureWithFreshContext(
        _ key: EVPKey,
        digest: DigestAlgorithm?,
        signature: some ContiguousBytes,
        message: some ContiguousBytes,
        configure: (OpaquePointer) -> Bool
    ) -> Bool {
        let context = SignatureContext()
        var pkeyContext: OpaquePointer?
        // The EVP_PKEY_CTX handed back is owned by the EVP_MD_CTX and freed with it.
        guard EVP_DigestVerifyInit(context.ctx, &pkeyContext, digest?.evpMD, nil, key.pointer) == 1,
            let pkeyContext, configure(pkeyContext)
        else {
            _ = drainOpenSSLErrors()
            return false
        }
        let status = signature.withUnsafeBytes { sig in
            message.withUnsafeBytes { msg in
                EVP_DigestVerify(
                    context.ctx, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count,
                    msg.baseAddress?.assumingMemoryBound(to: UInt8.self), msg.count)
            }
        }
        // 1 = valid, 0 = invalid, negative = malformed or error: anything but 1 is a rejection.
        if status != 1 { _ = drainOpenSSLErrors() }
        return status == 1
    }

    static func signMessage(
        _ key: EVPKey,
        digest: DigestAlgorithm?,
        message: some ContiguousBytes,
        configure: (OpaquePointer) -> Bool
    ) throws -> [UInt8] {
        let context = SignatureContext()
        var pkeyContext: OpaquePointer?
        // The EVP_PKEY_CTX handed back is owned by the EVP_MD_CTX and freed with it.
        guard EVP_DigestSignInit(context.ctx, &pkeyContext, digest?.evpMD, nil, key.pointer) == 1,
            let pkeyContext, configure(pkeyContext)
        else {
            throw CryptoError.openSSL("EVP_DigestSignInit failed")
        }
        return try message.withUnsafeBytes { (msg) throws -> [UInt8] in
            let input = msg.baseAddress?.assumingMemoryBound(to: UInt8.self)
            var length = 0
            guard EVP_DigestSign(context.ctx, nil, &length, input, msg.count) == 1 else {
                throw CryptoError.openSSL("EVP_DigestSign (size) failed")
            }
            var out = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context.ctx, &out, &length, input, msg.count) == 1 else {
                throw CryptoError.openSSL("EVP_DigestSign failed")
            }
            return Array(out.prefix(length))
        }
    }
}

/// Builds an `EVP_PKEY` of `type` from parameters with `EVP_PKEY_fromdata` (which checks EC points lie on the curve).
func keyFromData(
    type: String,
    selection: Int32,
    builder: ParameterBuilder,
    failure: () -> CryptoError
) throws -> EVPKey {
    // EVP_PKEY_CTX_new_from_name returns an owned context released with EVP_PKEY_CTX_free.
    guard let context = EVP_PKEY_CTX_new_from_name(nil, type, nil) else {
        throw CryptoError.unsupportedAlgorithm("OpenSSL has no key type \(type)")
    }
    defer { EVP_PKEY_CTX_free(context) }
    guard EVP_PKEY_fromdata_init(context) == 1 else { throw CryptoError.openSSL("EVP_PKEY_fromdata_init failed") }
    var key: OpaquePointer?
    let status = try builder.withParameters { (params) throws -> Int32 in
        EVP_PKEY_fromdata(context, &key, selection, UnsafeMutablePointer(mutating: params))
    }
    guard status == 1, let key else {
        _ = drainOpenSSLErrors()
        throw failure()
    }
    return EVPKey(taking: key)
}

/// Owns an `EVP_MD_CTX` used for one sign or verify operation.
private final class SignatureContext {
    let ctx: OpaquePointer

    init() {
        guard let ctx = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new failed") }
        self.ctx = ctx
    }

    deinit { EVP_MD_CTX_free(ctx) }
}

/// Verifies an ECDSA signature over the `digest` hash of `message` with `EVP_PKEY_verify` on one of the key's
/// pre-initialised contexts (see ``ECDSAVerifyContexts`` for why the verdict is the fresh path's).
private func verifyECDSAWithReusedContext(
    _ key: EVPKey,
    digest: DigestAlgorithm,
    signature: some ContiguousBytes,
    message: some ContiguousBytes
) -> Bool {
    // Hashed by the default provider's SHA-2, the implementation the fresh path's ECDSA provider fetches by name; the
    // context was set to `digest`, so EVP_PKEY_verify also insists on exactly `digest.byteCount` bytes.
    let messageDigest = digest.hash(message)
    guard let context = key.ecdsaVerifyContexts.take(key.pointer, for: digest) else { return false }
    let status = signature.withUnsafeBytes { sig in
        messageDigest.withUnsafeBufferPointer { tbs in
            EVP_PKEY_verify(
                context.pointer, sig.baseAddress?.assumingMemoryBound(to: UInt8.self), sig.count, tbs.baseAddress,
                tbs.count)
        }
    }
    // 1 = valid, 0 = invalid, negative = malformed or error: anything but 1 is a rejection, and the context that saw
    // it is freed rather than returned, so no state from a failure can reach a later verification.
    guard status == 1 else {
        _ = drainOpenSSLErrors()
        key.ecdsaVerifyContexts.discard(context)
        return false
    }
    key.ecdsaVerifyContexts.giveBack(context)
    return true
}

#endif
