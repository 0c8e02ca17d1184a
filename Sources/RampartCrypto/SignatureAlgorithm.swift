/// A signature scheme with its parameters, as named by an X.509 or CMS `AlgorithmIdentifier`.
///
/// Use it with ``PublicKey/isValidSignature(_:for:algorithm:)`` when the key type is only known at run time (a
/// certificate's SubjectPublicKeyInfo). ECDSA signatures here are DER `ECDSA-Sig-Value`s, as X.509 and CMS carry
/// them; for raw `r ‖ s` use ``ECPublicKey/isValidRawSignature(_:for:digest:)``.
///
/// New algorithms are additive: this is a struct over a private representation, not a public enum.
public struct SignatureAlgorithm: Hashable, Sendable {
    enum Backing: Hashable, Sendable {
        case ecdsa(DigestAlgorithm)
        case rsaPKCS1v15(DigestAlgorithm)
        case rsaPSS(digest: DigestAlgorithm, mgf1Digest: DigestAlgorithm, saltByteCount: Int)
        case ed25519
        case ed448
    }

    let backing: Backing

    /// ECDSA with SHA-256, DER signature (`ecdsa-with-SHA256`, 1.2.840.10045.4.3.2).
    public static let ecdsaWithSHA256 = SignatureAlgorithm(backing: .ecdsa(.sha256))
    /// ECDSA with SHA-384, DER signature (`ecdsa-with-SHA384`, 1.2.840.10045.4.3.3).
    public static let ecdsaWithSHA384 = SignatureAlgorithm(backing: .ecdsa(.sha384))
    /// ECDSA with SHA-512, DER signature (`ecdsa-with-SHA512`, 1.2.840.10045.4.3.4).
    public static let ecdsaWithSHA512 = SignatureAlgorithm(backing: .ecdsa(.sha512))
    /// RSASSA-PKCS1-v1_5 with SHA-256 (`sha256WithRSAEncryption`, 1.2.840.113549.1.1.11).
    public static let sha256WithRSAEncryption = SignatureAlgorithm(backing: .rsaPKCS1v15(.sha256))
    /// RSASSA-PKCS1-v1_5 with SHA-384 (`sha384WithRSAEncryption`, 1.2.840.113549.1.1.12).
    public static let sha384WithRSAEncryption = SignatureAlgorithm(backing: .rsaPKCS1v15(.sha384))
    /// RSASSA-PKCS1-v1_5 with SHA-512 (`sha512WithRSAEncryption`, 1.2.840.113549.1.1.13).
    public static let sha512WithRSAEncryption = SignatureAlgorithm(backing: .rsaPKCS1v15(.sha512))
    /// RSASSA-PSS with SHA-256, MGF1-SHA-256 and a 32-byte salt (the RFC 4055 / RFC 8017 common profile).
    public static let rsaPSSWithSHA256 = SignatureAlgorithm(
        backing: .rsaPSS(digest: .sha256, mgf1Digest: .sha256, saltByteCount: 32))
    /// RSASSA-PSS with SHA-384, MGF1-SHA-384 and a 48-byte salt.
    public static let rsaPSSWithSHA384 = SignatureAlgorithm(
        backing: .rsaPSS(digest: .sha384, mgf1Digest: .sha384, saltByteCount: 48))
    /// RSASSA-PSS with SHA-512, MGF1-SHA-512 and a 64-byte salt.
    public static let rsaPSSWithSHA512 = SignatureAlgorithm(
        backing: .rsaPSS(digest: .sha512, mgf1Digest: .sha512, saltByteCount: 64))
    /// Ed25519 (RFC 8032, `id-Ed25519`, 1.3.101.112): the message is signed whole, not pre-hashed.
    public static let ed25519 = SignatureAlgorithm(backing: .ed25519)
    /// Ed448 (RFC 8032, `id-Ed448`, 1.3.101.113), with an empty context.
    public static let ed448 = SignatureAlgorithm(backing: .ed448)

    /// The largest PSS salt accepted (DoS and sanity bound): larger than any hash, smaller than any RSA key allows.
    public static let maximumPSSSaltByteCount = 1024

    /// RSASSA-PSS with explicit parameters, as an `RSASSA-PSS-params` structure (RFC 4055 section 3.1) spells them.
    ///
    /// The trailer field must be 1 (`0xBC`); that is the only value RFC 4055 allows, so it is not a parameter.
    ///
    /// - Parameters:
    ///   - digest: The message hash.
    ///   - mgf1Digest: The hash inside MGF1; the same as `digest` when nil.
    ///   - saltByteCount: The salt length in bytes; the hash length when nil.
    /// - Returns: The algorithm.
    /// - Throws: ``CryptoError/Code/invalidParameter`` when the salt length is negative or above
    ///   ``maximumPSSSaltByteCount``.
    public static func rsaPSS(
        digest: DigestAlgorithm,
        mgf1Digest: DigestAlgorithm? = nil,
        saltByteCount: Int? = nil
    ) throws -> SignatureAlgorithm {
        let salt = saltByteCount ?? digest.byteCount
        guard salt >= 0, salt <= maximumPSSSaltByteCount else {
            throw CryptoError.invalidParameter(
                "an RSA-PSS salt must be 0…\(maximumPSSSaltByteCount) bytes; got \(salt)")
        }
        return SignatureAlgorithm(
            backing: .rsaPSS(digest: digest, mgf1Digest: mgf1Digest ?? digest, saltByteCount: salt))
    }

    /// The hash applied to the message before signing; nil for Ed25519 and Ed448, which sign the message itself.
    public var digest: DigestAlgorithm? {
        switch backing {
        case .ecdsa(let digest), .rsaPKCS1v15(let digest), .rsaPSS(let digest, _, _): digest
        case .ed25519, .ed448: nil
        }
    }
}

extension SignatureAlgorithm: CustomStringConvertible {
    /// A readable name such as `ECDSA with SHA-256` or `RSASSA-PSS (SHA-256, MGF1-SHA-256, salt 32)`.
    public var description: String {
        switch backing {
        case .ecdsa(let digest): "ECDSA with \(digest)"
        case .rsaPKCS1v15(let digest): "RSASSA-PKCS1-v1_5 with \(digest)"
        case .rsaPSS(let digest, let mgf1, let salt): "RSASSA-PSS (\(digest), MGF1-\(mgf1), salt \(salt))"
        case .ed25519: "Ed25519"
        case .ed448: "Ed448"
        }
    }
}
