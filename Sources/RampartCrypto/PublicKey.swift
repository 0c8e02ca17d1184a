public import Foundation

/// A public key of any type Rampart verifies with, read from a SubjectPublicKeyInfo whose type is only known at run
/// time: EC (P-256, P-384, P-521), RSA, RSA-PSS, Ed25519 or Ed448.
///
/// X.509 and CMS verification use it: decode the certificate's SPKI once, then check each signature with the
/// ``SignatureAlgorithm`` its `AlgorithmIdentifier` names.
///
/// ```swift
/// let key = try PublicKey(spkiDER: certificate.subjectPublicKeyInfoBytes)
/// let ok = key.isValidSignature(signature, for: tbsBytes, algorithm: .ecdsaWithSHA256)
/// ```
public struct PublicKey: Sendable {
    /// The family of a ``PublicKey``.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case ec = "EC"
            case rsa = "RSA"
            case rsaPSS = "RSA-PSS"
            case ed25519 = "Ed25519"
            case ed448 = "Ed448"
        }

        let backing: Backing

        /// An elliptic-curve key on a NIST prime curve (`id-ecPublicKey`).
        public static let ec = Kind(backing: .ec)
        /// An RSA key (`rsaEncryption`), usable with PKCS#1 v1.5 and PSS.
        public static let rsa = Kind(backing: .rsa)
        /// An RSA key restricted to PSS (`id-RSASSA-PSS`), possibly to one hash and a minimum salt length.
        public static let rsaPSS = Kind(backing: .rsaPSS)
        /// An Ed25519 key (`id-Ed25519`).
        public static let ed25519 = Kind(backing: .ed25519)
        /// An Ed448 key (`id-Ed448`).
        public static let ed448 = Kind(backing: .ed448)

        /// `EC`, `RSA`, `RSA-PSS`, `Ed25519` or `Ed448`.
        public var description: String { backing.rawValue }
    }

    let key: BackendKey
    /// The key's family.
    public let kind: Kind
    /// The curve, for an EC key; nil otherwise.
    public let ecCurve: ECCurve?

    /// The smallest RSA modulus imported, in bits. Keys this small can be described (for pins and inventories) but
    /// are refused for verification below ``RSAPublicKey/minimumVerificationBitCount``.
    public static let minimumRSABitCount = 1024
    /// The largest RSA modulus imported, in bits (DoS bound: verification cost grows with the square of the size).
    public static let maximumRSABitCount = 16384

    init(key: BackendKey) throws {
        switch key.family {
        case .ec:
            guard let curve = key.ecCurve else {
                throw CryptoError.unsupportedAlgorithm(
                    "the EC key is not on P-256, P-384 or P-521; Rampart supports only those curves")
            }
            guard key.usesNamedCurve else {
                throw CryptoError.unsupportedAlgorithm(
                    "the EC key spells out explicit curve parameters; RFC 5480 requires a named curve OID")
            }
            self.kind = .ec
            self.ecCurve = curve
        case .rsa, .rsaPSS:
            let bits = key.bitCount
            guard bits >= Self.minimumRSABitCount, bits <= Self.maximumRSABitCount else {
                throw CryptoError.invalidKey(
                    "RSA keys must be \(Self.minimumRSABitCount)…\(Self.maximumRSABitCount) bits; this one is \(bits)")
            }
            self.kind = key.family == .rsa ? .rsa : .rsaPSS
            self.ecCurve = nil
        case .ed25519:
            self.kind = .ed25519
            self.ecCurve = nil
        case .ed448:
            self.kind = .ed448
            self.ecCurve = nil
        case nil:
            throw CryptoError.unsupportedAlgorithm(
                "the key type is not one Rampart verifies with (EC P-256/384/521, RSA, RSA-PSS, Ed25519, Ed448)")
        }
        self.key = key
    }

    /// Decodes a DER SubjectPublicKeyInfo and detects its type.
    ///
    /// ```
    /// SubjectPublicKeyInfo ::= SEQUENCE {
    ///     algorithm         AlgorithmIdentifier,
    ///     subjectPublicKey  BIT STRING }
    /// ```
    /// (RFC 5280 section 4.1.) The input must be strict DER with no trailing bytes, at most 16 KiB. EC points are
    /// checked to lie on their curve; compressed points are accepted.
    ///
    /// - Parameter spkiDER: The SubjectPublicKeyInfo bytes.
    /// - Throws: ``CryptoError/Code/invalidKey`` for malformed input or an RSA size outside
    ///   ``minimumRSABitCount``…``maximumRSABitCount``; ``CryptoError/Code/unsupportedAlgorithm`` for other key
    ///   types or curves.
    public init(spkiDER: some ContiguousBytes) throws {
        try self.init(key: Backend.importSPKI(spkiDER.withUnsafeBytes { Array($0) }))
    }

    /// Decodes a PEM `PUBLIC KEY` block (RFC 7468 section 13) holding a SubjectPublicKeyInfo.
    ///
    /// - Parameter pemRepresentation: Exactly one `-----BEGIN PUBLIC KEY-----` block, optionally surrounded by
    ///   whitespace.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` when the text is not one such block; otherwise as
    ///   ``init(spkiDER:)``.
    public init(pemRepresentation: String) throws {
        try self.init(spkiDER: PEMBlock.decode(pemRepresentation, label: PEMBlock.publicKeyLabel))
    }

    /// Wraps an EC public key.
    ///
    /// - Parameter key: The key.
    public init(_ key: ECPublicKey) {
        self.key = key.key
        self.kind = .ec
        self.ecCurve = key.curve
    }

    /// Wraps an Ed25519 public key.
    ///
    /// - Parameter key: The key.
    public init(_ key: Ed25519PublicKey) {
        self.key = key.key
        self.kind = .ed25519
        self.ecCurve = nil
    }

    /// Wraps an RSA public key.
    ///
    /// - Parameter key: The key.
    public init(_ key: RSAPublicKey) {
        self.key = key.key
        self.kind = key.isPSSOnly ? .rsaPSS : .rsa
        self.ecCurve = nil
    }

    /// The DER SubjectPublicKeyInfo as OpenSSL encodes it (EC points uncompressed).
    ///
    /// - Important: For SPKI pins, hash the SubjectPublicKeyInfo bytes exactly as they appear in the certificate,
    ///   not this re-encoding.
    public var derRepresentation: [UInt8] { key.spkiDER }

    /// The PEM `PUBLIC KEY` block of ``derRepresentation``, with 64-character lines.
    public var pemRepresentation: String { key.spkiPEM }

    /// The key size in bits: the modulus for RSA, the field size for EC, 253 for Ed25519, 456 for Ed448.
    public var bitCount: Int { key.bitCount }

    /// The key as an ``ECPublicKey``, when it is one.
    public var ecPublicKey: ECPublicKey? { ecCurve.map { ECPublicKey(key: key, curve: $0) } }

    /// The key as an ``RSAPublicKey``, when it is RSA or RSA-PSS.
    public var rsaPublicKey: RSAPublicKey? { kind == .rsa || kind == .rsaPSS ? RSAPublicKey(key: key) : nil }

    /// The key as an ``Ed25519PublicKey``, when it is one.
    public var ed25519PublicKey: Ed25519PublicKey? { kind == .ed25519 ? Ed25519PublicKey(key: key) : nil }

    /// Checks a signature made with `algorithm`.
    ///
    /// The algorithm must fit the key: ECDSA for EC keys, PKCS#1 v1.5 or PSS for RSA keys, PSS only for RSA-PSS
    /// keys (whose own parameter restrictions OpenSSL enforces), Ed25519 and Ed448 for their keys. Any mismatch is
    /// a rejection, never an error, so a verifier fails closed.
    ///
    /// - Important: RSA keys below ``RSAPublicKey/minimumVerificationBitCount`` bits never verify.
    /// - Parameters:
    ///   - signature: The signature (DER `ECDSA-Sig-Value` for ECDSA).
    ///   - message: The signed bytes, as received; they are hashed here as `algorithm` says.
    ///   - algorithm: The signature algorithm named next to the signature.
    /// - Returns: `true` only when the signature is valid for this key, message and algorithm.
    public func isValidSignature(
        _ signature: some ContiguousBytes,
        for message: some ContiguousBytes,
        algorithm: SignatureAlgorithm
    ) -> Bool {
        Backend.verifyWithAlgorithm(key, algorithm: algorithm, signature: signature, message: message)
    }
}

extension PublicKey: CustomStringConvertible {
    /// `EC P-256`, `RSA 2048`, `RSA-PSS 3072`, `Ed25519` or `Ed448`.
    public var description: String {
        switch kind {
        case .ec: "EC \(ecCurve?.rawValue ?? "?")"
        case .rsa, .rsaPSS: "\(kind) \(bitCount)"
        default: kind.description
        }
    }
}

extension PublicKey: Equatable {
    /// Whether both are the same key (compares the DER SubjectPublicKeyInfo).
    public static func == (lhs: PublicKey, rhs: PublicKey) -> Bool { lhs.derRepresentation == rhs.derRepresentation }
}
