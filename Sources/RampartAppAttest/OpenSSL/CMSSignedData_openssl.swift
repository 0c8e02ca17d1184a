internal import COpenSSL
import Foundation

/// The outcome of checking a CMS SignedData (RFC 5652 section 5) against one trust anchor.
enum CMSVerification {
    /// The signature verifies and the signer chains to the anchor at the time; holds the signed content.
    case verified(content: [UInt8])
    /// The signer's signature over the content does not verify.
    case signatureInvalid(detail: String)
    /// The signature verifies but the signer does not chain to the anchor at the time.
    case chainUntrusted(detail: String)
}

/// Owns one `CMS_ContentInfo` parsed from BER (`d2i_CMS_bio`), freed with `CMS_ContentInfo_free`.
private final class CMSContentInfo {
    let pointer: OpaquePointer

    /// Parses BER or DER, including indefinite lengths and chunked (constructed) content octets.
    init(ber: [UInt8]) throws {
        // BIO_new_mem_buf makes a read-only BIO over our buffer without copying; the buffer must outlive it, so the
        // BIO is freed before `withUnsafeBytes` returns. d2i_CMS_bio returns a new CMS_ContentInfo the caller owns.
        let parsed: OpaquePointer? = ber.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return d2i_CMS_bio(bio, nil)
        }
        guard let parsed else {
            throw AppAttestError.malformedReceipt(
                "the receipt is not a CMS ContentInfo (RFC 5652)",
                detail: drainOpenSSLErrors()
            )
        }
        self.pointer = parsed
        guard OBJ_obj2nid(CMS_get0_type(parsed)) == NID_pkcs7_signed else {
            throw AppAttestError.malformedReceipt("the receipt's CMS content type is not SignedData")
        }
    }

    deinit { CMS_ContentInfo_free(pointer) }

    /// The encapsulated content octets, without any verification.
    var content: [UInt8]? {
        // CMS_get0_content returns a pointer into the CMS structure (not owned); the octet string it points to is
        // owned by the CMS_ContentInfo.
        guard let slot = CMS_get0_content(pointer), let octets = slot.pointee else { return nil }
        let length = Int(ASN1_STRING_length(octets))
        guard length > 0, let data = ASN1_STRING_get0_data(octets) else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: length))
    }
}

/// The signed content of a CMS SignedData, without verifying anything (for inspecting a receipt).
func cmsSignedContent(_ ber: [UInt8]) throws -> [UInt8] {
    let cms = try CMSContentInfo(ber: ber)
    guard let content = cms.content else {
        throw AppAttestError.malformedReceipt("the receipt's SignedData has no encapsulated content")
    }
    return content
}

/// Verifies a CMS SignedData's signer and its chain to `anchorDER` at `time`, with no purpose check, and returns the
/// signed content on success.
func verifyCMSSignedData(_ ber: [UInt8], anchorDER: [UInt8], at time: Date) throws -> CMSVerification {
    let cms = try CMSContentInfo(ber: ber)
    guard cms.content != nil else {
        throw AppAttestError.malformedReceipt("the receipt's SignedData has no encapsulated content")
    }
    // X509_STORE_new returns an owned store, freed with X509_STORE_free; X509_STORE_add_cert takes its own reference.
    guard let store = X509_STORE_new() else {
        throw AppAttestError.openSSLFailure("X509_STORE_new failed", detail: drainOpenSSLErrors())
    }
    defer { X509_STORE_free(store) }
    let anchor: OpaquePointer? = anchorDER.withUnsafeBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return d2i_X509(nil, &cursor, buffer.count)
    }
    guard let anchor else {
        throw AppAttestError.invalidArgument("the receipt trust anchor is not a DER certificate")
    }
    defer { X509_free(anchor) }
    guard X509_STORE_add_cert(store, anchor) == 1 else {
        throw AppAttestError.openSSLFailure("X509_STORE_add_cert failed", detail: drainOpenSSLErrors())
    }
    // The store's parameters are inherited by the verification context CMS_verify builds; a purpose set here wins over
    // CMS's default "smime_sign" (the receipt signer has no email-protection EKU). The time is injected.
    guard let parameters = X509_VERIFY_PARAM_new() else {
        throw AppAttestError.openSSLFailure("X509_VERIFY_PARAM_new failed", detail: drainOpenSSLErrors())
    }
    defer { X509_VERIFY_PARAM_free(parameters) }
    X509_VERIFY_PARAM_set_time(parameters, time_t(time.timeIntervalSince1970.rounded(.down)))
    guard X509_VERIFY_PARAM_set_purpose(parameters, X509_PURPOSE_ANY) == 1,
        X509_STORE_set1_param(store, parameters) == 1
    else {
        throw AppAttestError.openSSLFailure("setting the verification parameters failed", detail: drainOpenSSLErrors())
    }

    _ = drainOpenSSLErrors()
    let flags = UInt32(CMS_BINARY)
    if let content = try runVerify(cms, store: store, flags: flags) {
        return .verified(content: content)
    }
    let chainDetail = drainOpenSSLErrors()
    // Tell a bad signature from an untrusted signer: verify the signature alone.
    if try runVerify(cms, store: store, flags: flags | UInt32(CMS_NO_SIGNER_CERT_VERIFY)) == nil {
        return .signatureInvalid(detail: drainOpenSSLErrors())
    }
    return .chainUntrusted(detail: chainDetail)
}

/// Runs `CMS_verify` and returns the content written to a memory BIO, or nil when verification failed.
private func runVerify(_ cms: CMSContentInfo, store: OpaquePointer, flags: UInt32) throws -> [UInt8]? {
    // BIO_new(BIO_s_mem()) returns an owned, growable memory BIO, freed with BIO_free.
    guard let output = BIO_new(BIO_s_mem()) else {
        throw AppAttestError.openSSLFailure("BIO_new failed", detail: drainOpenSSLErrors())
    }
    defer { BIO_free(output) }
    guard CMS_verify(cms.pointer, nil, store, nil, output, flags) == 1 else { return nil }
    var data: UnsafeMutablePointer<CChar>?
    // BIO_get_mem_data is a macro over BIO_ctrl(BIO_CTRL_INFO); the pointer stays owned by the BIO.
    let length = BIO_ctrl(output, BIO_CTRL_INFO, 0, &data)
    guard length > 0, let data else { return [] }
    return data.withMemoryRebound(to: UInt8.self, capacity: length) {
        Array(UnsafeBufferPointer(start: $0, count: length))
    }
}

/// Signs `content` as an attached CMS SignedData (for the simulator's receipts): the signer's certificate and
/// `chainDER` go in the certificate set, signed attributes are included, and the result is DER.
func signCMSSignedData(
    _ content: [UInt8],
    signerCertificateDER: [UInt8],
    signerKeyPKCS8: [UInt8],
    chainDER: [[UInt8]]
) throws -> [UInt8] {
    func certificate(_ der: [UInt8]) throws -> OpaquePointer {
        // d2i_X509 returns a new X509 the caller owns (freed with X509_free).
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_X509(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            throw AppAttestError.invalidArgument("a receipt signing certificate is not DER")
        }
        return parsed
    }
    let signer = try certificate(signerCertificateDER)
    defer { X509_free(signer) }
    // d2i_AutoPrivateKey returns a new EVP_PKEY the caller owns (freed with EVP_PKEY_free).
    let key: OpaquePointer? = signerKeyPKCS8.withUnsafeBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
    }
    guard let key else {
        throw AppAttestError.openSSLFailure("the receipt signing key did not import", detail: drainOpenSSLErrors())
    }
    defer { EVP_PKEY_free(key) }
    // The stack owns its certificates once pushed: sk_X509_pop_free releases them.
    guard let stack = COpenSSL_sk_X509_new_null() else {
        throw AppAttestError.openSSLFailure("sk_X509_new_null failed", detail: drainOpenSSLErrors())
    }
    defer { COpenSSL_sk_X509_pop_free(stack) }
    for der in chainDER {
        let extra = try certificate(der)
        guard COpenSSL_sk_X509_push(stack, extra) > 0 else {
            X509_free(extra)
            throw AppAttestError.openSSLFailure("sk_X509_push failed", detail: drainOpenSSLErrors())
        }
    }
    return try content.withUnsafeBytes { raw -> [UInt8] in
        // A read-only memory BIO over `content`, freed before the buffer goes away.
        guard let input = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
            throw AppAttestError.openSSLFailure("BIO_new_mem_buf failed", detail: drainOpenSSLErrors())
        }
        defer { BIO_free(input) }
        // CMS_sign returns a new CMS_ContentInfo the caller owns; it takes its own references to signer, key, certs.
        guard let cms = CMS_sign(signer, key, stack, input, UInt32(CMS_BINARY)) else {
            throw AppAttestError.openSSLFailure("CMS_sign failed", detail: drainOpenSSLErrors())
        }
        defer { CMS_ContentInfo_free(cms) }
        let length = i2d_CMS_ContentInfo(cms, nil)
        guard length > 0 else {
            throw AppAttestError.openSSLFailure("i2d_CMS_ContentInfo failed", detail: drainOpenSSLErrors())
        }
        var out = [UInt8](repeating: 0, count: Int(length))
        out.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            _ = i2d_CMS_ContentInfo(cms, &cursor)
        }
        return out
    }
}
