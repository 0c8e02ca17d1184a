#if canImport(COpenSSL)
internal import COpenSSL

/// Owns one `ECDSA_SIG`, released with `ECDSA_SIG_free` in `deinit`.
private final class ECDSASignature {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    deinit { ECDSA_SIG_free(pointer) }
}

/// Owns one `BIGNUM`, released with `BN_clear_free` (which wipes it first) in `deinit`.
final class BigNumber {
    private(set) var pointer: OpaquePointer?

    init(taking pointer: OpaquePointer) { self.pointer = pointer }

    /// Big-endian bytes; leading zeros allowed.
    init(bytes: [UInt8]) throws {
        // BN_bin2bn with a NULL target returns a new BIGNUM owned by the caller.
        guard let pointer = BN_bin2bn(bytes, Int32(bytes.count), nil) else {
            throw CryptoError.openSSL("BN_bin2bn failed")
        }
        self.pointer = pointer
    }

    deinit { if let pointer { BN_clear_free(pointer) } }

    /// Hands ownership to OpenSSL (for `*_set0` calls); this object then frees nothing.
    func release() -> OpaquePointer? {
        defer { pointer = nil }
        return pointer
    }
}

/// Writes `number` big-endian, left-padded to exactly `count` bytes; nil when it does not fit.
func paddedBytes(_ number: OpaquePointer, count: Int) -> [UInt8]? {
    var out = [UInt8](repeating: 0, count: count)
    // BN_bn2binpad returns -1 when the number needs more than `count` bytes.
    guard BN_bn2binpad(number, &out, Int32(count)) == Int32(count) else {
        _ = drainOpenSSLErrors()
        return nil
    }
    return out
}

extension OpenSSLBackend {
    /// Converts an IEEE P1363 `r ‖ s` signature into DER `ECDSA-Sig-Value`; nil when the length is wrong.
    ///
    /// ```
    /// ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }
    /// ```
    /// (RFC 3279 section 2.2.3.) Range checks on r and s (1 ≤ r, s < n) are left to `EVP_DigestVerify`.
    static func derSignature(fromRaw raw: [UInt8], curve: ECCurve) -> [UInt8]? {
        let half = curve.coordinateByteCount
        guard raw.count == 2 * half,
            let r = try? BigNumber(bytes: Array(raw.prefix(half))),
            let s = try? BigNumber(bytes: Array(raw.suffix(half))),
            let signature = ECDSA_SIG_new()
        else { return nil }
        let owned = ECDSASignature(taking: signature)
        // ECDSA_SIG_set0 takes ownership of both BIGNUMs on success only.
        guard ECDSA_SIG_set0(owned.pointer, r.pointer, s.pointer) == 1 else { return nil }
        _ = r.release()
        _ = s.release()
        // i2d_ECDSA_SIG with a NULL output returns the length; with a cursor it writes and advances it.
        let length = i2d_ECDSA_SIG(owned.pointer, nil)
        guard length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(owned.pointer, &cursor)
        }
        return written == length ? out : nil
    }

    /// Converts a DER `ECDSA-Sig-Value` into `r ‖ s`, each left-padded to the curve's scalar length.
    static func rawSignature(fromDER der: [UInt8], curve: ECCurve) throws -> [UInt8] {
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            // d2i_ECDSA_SIG returns an owned ECDSA_SIG (freed by ECDSASignature).
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw CryptoError.openSSL("OpenSSL produced an unreadable ECDSA signature") }
        let signature = ECDSASignature(taking: decoded)
        // ECDSA_SIG_get0_r/s return pointers owned by the ECDSA_SIG.
        guard let r = ECDSA_SIG_get0_r(signature.pointer), let s = ECDSA_SIG_get0_s(signature.pointer),
            let rBytes = paddedBytes(r, count: curve.coordinateByteCount),
            let sBytes = paddedBytes(s, count: curve.coordinateByteCount)
        else { throw CryptoError.openSSL("an ECDSA signature component does not fit the curve") }
        return rBytes + sBytes
    }

    /// Builds an EC key pair from a private scalar: the public point is computed as `d·G`, then OpenSSL's full key check
    /// runs (`EVP_PKEY_check`), which refuses `d = 0` and `d ≥ n`.
    static func importECPrivateScalar(_ scalar: [UInt8], curve: ECCurve) throws -> EVPKey {
        let invalid = CryptoError.invalidKey(
            "the private scalar must be \(curve.coordinateByteCount) big-endian bytes in 1…n−1 for \(curve.rawValue)")
        // EC_GROUP_new_by_curve_name and EC_POINT_new return owned objects, freed by the defers below.
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else { throw CryptoError.openSSL("no group") }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else { throw CryptoError.openSSL("EC_POINT_new failed") }
        defer { EC_POINT_free(point) }
        let secret = try BigNumber(bytes: scalar)
        guard let secretPointer = secret.pointer, BN_is_zero(secretPointer) == 0,
            let order = EC_GROUP_get0_order(group), BN_cmp(secretPointer, order) < 0
        else { throw invalid }
        guard EC_POINT_mul(group, point, secretPointer, nil, nil, nil) == 1 else {
            throw CryptoError.openSSL("EC_POINT_mul failed")
        }
        let pointLength = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, nil, 0, nil)
        guard pointLength > 0 else { throw CryptoError.openSSL("EC_POINT_point2oct failed") }
        var encodedPoint = [UInt8](repeating: 0, count: pointLength)
        guard
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &encodedPoint, pointLength, nil)
                == pointLength
        else { throw CryptoError.openSSL("EC_POINT_point2oct failed") }

        let builder = try ParameterBuilder()
        try builder.addString(OSSL_PKEY_PARAM_GROUP_NAME, curve.rawValue)
        try builder.addBytes(OSSL_PKEY_PARAM_PUB_KEY, encodedPoint)
        try builder.addBigNumber(OSSL_PKEY_PARAM_PRIV_KEY, secretPointer)
        let key = try keyFromData(type: "EC", selection: COpenSSL_EVP_PKEY_KEYPAIR(), builder: builder) { invalid }
        guard key.checkKeyPair() else { throw invalid }
        return key
    }

    /// ECDH (SEC 1 section 3.3.1): the x-coordinate of `d·Q`. The peer point is validated (`validate_peer = 1`).
    static func deriveSharedSecret(privateKey: EVPKey, peer: EVPKey) throws -> [UInt8] {
        // EVP_PKEY_CTX_new_from_pkey returns an owned context; it keeps its own reference to the key.
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, privateKey.pointer, nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else { throw CryptoError.openSSL("EVP_PKEY_derive_init failed") }
        guard EVP_PKEY_derive_set_peer_ex(context, peer.pointer, 1) == 1 else {
            _ = drainOpenSSLErrors()
            throw CryptoError.invalidKey("the peer public key failed validation for key agreement")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length > 0 else {
            throw CryptoError.openSSL("EVP_PKEY_derive (size) failed")
        }
        var secret = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_derive(context, &secret, &length) == 1 else {
            secret.withUnsafeMutableBytes { cleanse($0) }
            throw CryptoError.openSSL("EVP_PKEY_derive failed")
        }
        defer { secret.withUnsafeMutableBytes { cleanse($0) } }
        return Array(secret.prefix(length))
    }
}

extension ECCurve {
    /// The OpenSSL NID of the curve.
    var nid: Int32 {
        switch self {
        case .p256: NID_X9_62_prime256v1
        case .p384: NID_secp384r1
        case .p521: NID_secp521r1
        }
    }
}

extension EVPKey {
    /// The private scalar, left-padded to the curve's length. Only for EC private keys.
    func ecPrivateScalar(curve: ECCurve) throws -> [UInt8] {
        var number: OpaquePointer?
        // EVP_PKEY_get_bn_param allocates a BIGNUM the caller owns (freed by BigNumber, which wipes it).
        guard EVP_PKEY_get_bn_param(pointer, OSSL_PKEY_PARAM_PRIV_KEY, &number) == 1, let number else {
            throw CryptoError.openSSL("the key holds no private scalar")
        }
        let owned = BigNumber(taking: number)
        guard let scalar = owned.pointer, let bytes = paddedBytes(scalar, count: curve.coordinateByteCount) else {
            throw CryptoError.openSSL("the private scalar does not fit the curve")
        }
        return bytes
    }
}

extension ECPublicKey {
    /// How many initialised verification contexts the key holds idle, at most ``ECDSAVerifyContexts/capacity``
    /// (OpenSSL backend only; tests use it to see the reuse path taken and failed contexts dropped).
    package var idleVerificationContextCount: Int { key.ecdsaVerifyContexts.idleCount }
}
#endif
