public import Foundation

/// A NIST prime curve for ECDSA and ECDH.
public enum ECCurve: String, Sendable, CaseIterable, Hashable {
    /// P-256 (secp256r1, prime256v1): App Attest credential keys.
    case p256 = "P-256"
    /// P-384 (secp384r1): the App Attest root and intermediate.
    case p384 = "P-384"
    /// P-521 (secp521r1).
    case p521 = "P-521"

    /// The byte length of one coordinate or of the private scalar.
    public var coordinateByteCount: Int {
        switch self {
        case .p256: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// The hash ECDSA conventionally pairs with this curve (SHA-256, SHA-384, SHA-512).
    public var defaultDigest: DigestAlgorithm {
        switch self {
        case .p256: .sha256
        case .p384: .sha384
        case .p521: .sha512
        }
    }
}

/// An ECDSA public key on a NIST curve.
public struct ECPublicKey: Sendable {
    let key: BackendKey
    /// The curve the key lies on.
    public let curve: ECCurve

    init(key: BackendKey, curve: ECCurve) {
        self.key = key
        self.curve = curve
    }

    /// Imports an uncompressed (`04 ‖ X ‖ Y`) or compressed ANSI X9.63 point.
    ///
    /// - Parameters:
    ///   - x963Representation: The encoded point.
    ///   - curve: The curve it lies on.
    /// - Throws: ``CryptoError/Code/invalidKey`` when the bytes are not a point on `curve`.
    public init(x963Representation: some ContiguousBytes, curve: ECCurve) throws {
        let bytes = x963Representation.withUnsafeBytes { Array($0) }
        let expected = [1 + 2 * curve.coordinateByteCount, 1 + curve.coordinateByteCount]
        guard SPKIShape.isAllowedPointForm(bytes, curve: curve) else {
            throw CryptoError.invalidKey(
                "an X9.63 \(curve.rawValue) point is \(expected[0]) bytes (04‖X‖Y) or \(expected[1]) (compressed); got \(bytes.count)"
            )
        }
        self.key = try Backend.importECPublicKey(curve: curve, point: bytes)
        self.curve = curve
    }

    /// Imports a DER SubjectPublicKeyInfo holding an EC key on a named NIST curve.
    ///
    /// The input must be strict DER with no trailing bytes; the point must lie on the curve (compressed points are
    /// accepted and re-encoded uncompressed).
    ///
    /// - Parameter derRepresentation: The SPKI DER.
    /// - Throws: ``CryptoError/Code/invalidKey`` for malformed input or other key types;
    ///   ``CryptoError/Code/unsupportedAlgorithm`` for EC keys on other curves.
    public init(derRepresentation: some ContiguousBytes) throws {
        let decoded = try PublicKey(spkiDER: derRepresentation)
        guard let key = decoded.ecPublicKey else {
            throw CryptoError.invalidKey("the SubjectPublicKeyInfo holds a \(decoded.kind) key, not EC")
        }
        self = key
    }

    /// Imports a PEM `PUBLIC KEY` block holding an EC SubjectPublicKeyInfo.
    ///
    /// - Parameter pemRepresentation: One `-----BEGIN PUBLIC KEY-----` block.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for bad PEM; otherwise as ``init(derRepresentation:)``.
    public init(pemRepresentation: String) throws {
        try self.init(derRepresentation: PEMBlock.decode(pemRepresentation, label: PEMBlock.publicKeyLabel))
    }

    /// The uncompressed X9.63 point, `04 ‖ X ‖ Y`.
    public var x963Representation: [UInt8] { key.encodedPublicPoint }

    /// The DER SubjectPublicKeyInfo (uncompressed point, named curve).
    public var derRepresentation: [UInt8] { key.spkiDER }

    /// The PEM `PUBLIC KEY` block of ``derRepresentation``.
    public var pemRepresentation: String { key.spkiPEM }

    /// Checks a DER-encoded ECDSA signature (`SEQUENCE { r INTEGER, s INTEGER }`, strict DER).
    ///
    /// - Parameters:
    ///   - signature: The DER signature.
    ///   - message: The signed message; it is hashed with `digest` here.
    ///   - digest: The hash; the curve's ``ECCurve/defaultDigest`` when nil.
    /// - Returns: `true` when the signature is valid.
    public func isValidSignature(
        _ signature: some ContiguousBytes,
        for message: some ContiguousBytes,
        digest: DigestAlgorithm? = nil
    ) -> Bool {
        Backend.verifySignature(key, digest: digest ?? curve.defaultDigest, signature: signature, message: message)
    }

    /// The same check as ``isValidSignature(_:for:digest:)``, through a verification context made for this call alone.
    ///
    /// The OpenSSL backend keeps initialised verification contexts with each key and reuses them; this runs the
    /// one-shot `EVP_DigestVerifyInit` + `EVP_DigestVerify` path instead, so that the benchmarks' floor stays the cost
    /// of the plain OpenSSL primitive and tests can hold both paths to the same verdicts. The CryptoKit backend has
    /// no contexts and verifies as ``isValidSignature(_:for:digest:)`` does.
    ///
    /// - Parameters:
    ///   - signature: The DER signature.
    ///   - message: The signed message; it is hashed with `digest` here.
    ///   - digest: The hash; the curve's ``ECCurve/defaultDigest`` when nil.
    /// - Returns: `true` when the signature is valid.
    package func isValidSignatureWithFreshContext(
        _ signature: some ContiguousBytes,
        for message: some ContiguousBytes,
        digest: DigestAlgorithm? = nil
    ) -> Bool {
        Backend.verifySignatureWithFreshContext(
            key, digest: digest ?? curve.defaultDigest, signature: signature, message: message)
    }

    /// Checks an IEEE P1363 signature: `r ‖ s`, each left-padded to ``ECCurve/coordinateByteCount`` bytes (the
    /// form of JOSE/WebAuthn ES256 and of CryptoKit's `rawRepresentation`).
    ///
    /// - Parameters:
    ///   - signature: Exactly `2 × coordinateByteCount` bytes; any other length is a rejection.
    ///   - message: The signed message; it is hashed with `digest` here.
    ///   - digest: The hash; the curve's ``ECCurve/defaultDigest`` when nil.
    /// - Returns: `true` when the signature is valid (`r` and `s` must be in 1…n−1).
    public func isValidRawSignature(
        _ signature: some ContiguousBytes,
        for message: some ContiguousBytes,
        digest: DigestAlgorithm? = nil
    ) -> Bool {
        guard let der = Backend.derSignature(fromRaw: signature.withUnsafeBytes { Array($0) }, curve: curve) else {
            return false
        }
        return isValidSignature(der, for: message, digest: digest)
    }
}

/// An ECDSA private key on a NIST curve, generated by OpenSSL.
public struct ECPrivateKey: Sendable {
    let key: BackendKey
    /// The curve of the key.
    public let curve: ECCurve

    /// Generates a fresh key pair.
    ///
    /// - Parameter curve: The curve; P-256 by default.
    public init(curve: ECCurve = .p256) {
        self.key = Backend.generateECKey(curve: curve)
        self.curve = curve
    }

    init(key: BackendKey, curve: ECCurve) {
        self.key = key
        self.curve = curve
    }

    /// Imports a raw private scalar and computes its public point.
    ///
    /// - Parameters:
    ///   - rawRepresentation: The scalar `d`, big-endian, exactly ``ECCurve/coordinateByteCount`` bytes.
    ///   - curve: The curve.
    /// - Throws: ``CryptoError/Code/invalidKey`` for a wrong length, `d = 0` or `d ≥ n`.
    public init(rawRepresentation: some ContiguousBytes, curve: ECCurve) throws {
        let scalar = rawRepresentation.withUnsafeBytes { Array($0) }
        guard scalar.count == curve.coordinateByteCount else {
            throw CryptoError.invalidKey(
                "a raw \(curve.rawValue) private key is \(curve.coordinateByteCount) bytes; got \(scalar.count)")
        }
        self.key = try Backend.importECPrivateScalar(scalar, curve: curve)
        self.curve = curve
    }

    /// Imports an unencrypted PKCS#8 `PrivateKeyInfo` (RFC 5208) holding an EC key on P-256, P-384 or P-521.
    ///
    /// The input must be strict DER with no trailing bytes, and the key pair must pass OpenSSL's full check (scalar
    /// in range, public point matching).
    ///
    /// - Parameter pkcs8DERRepresentation: The PrivateKeyInfo DER.
    /// - Throws: ``CryptoError/Code/invalidKey`` for malformed input, another key type, or an inconsistent key;
    ///   ``CryptoError/Code/unsupportedAlgorithm`` for other curves.
    public init(pkcs8DERRepresentation: some ContiguousBytes) throws {
        let key = try Backend.importPKCS8(pkcs8DERRepresentation.withUnsafeBytes { Array($0) })
        guard key.family == .ec else { throw CryptoError.invalidKey("the PrivateKeyInfo does not hold an EC key") }
        guard let curve = key.ecCurve, key.usesNamedCurve else {
            throw CryptoError.unsupportedAlgorithm(
                "the EC private key is not on P-256, P-384 or P-521 named by OID (explicit parameters are refused)")
        }
        guard key.checkKeyPair() else {
            throw CryptoError.invalidKey("the EC private key fails OpenSSL's key-pair check")
        }
        self.key = key
        self.curve = curve
    }

    /// Imports a PEM `PRIVATE KEY` block (RFC 7468 section 10) holding an unencrypted PKCS#8 EC key.
    ///
    /// - Parameter pemRepresentation: One `-----BEGIN PRIVATE KEY-----` block.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for bad PEM; otherwise as ``init(pkcs8DERRepresentation:)``.
    public init(pemRepresentation: String) throws {
        var der = try PEMBlock.decode(pemRepresentation, label: PEMBlock.privateKeyLabel)
        defer { der.withUnsafeMutableBytes { Backend.cleanse($0) } }
        try self.init(pkcs8DERRepresentation: der)
    }

    /// The private scalar `d`, big-endian, ``ECCurve/coordinateByteCount`` bytes. Treat it as a secret.
    public var rawRepresentation: [UInt8] {
        guard let scalar = try? key.ecPrivateScalar(curve: curve) else {
            preconditionFailure("OpenSSL could not export an EC private key it holds")
        }
        return scalar
    }

    /// The unencrypted PKCS#8 `PrivateKeyInfo` DER (with the public key inside the SEC 1 `ECPrivateKey`). Treat it as
    /// a secret.
    public var pkcs8DERRepresentation: [UInt8] {
        guard let der = try? key.pkcs8DER() else {
            preconditionFailure("OpenSSL could not encode an EC private key it holds")
        }
        return der
    }

    /// The PEM `PRIVATE KEY` block of ``pkcs8DERRepresentation``. Treat it as a secret.
    public var pemRepresentation: String {
        var der = pkcs8DERRepresentation
        defer { der.withUnsafeMutableBytes { Backend.cleanse($0) } }
        return PEMBlock.encode(der, label: PEMBlock.privateKeyLabel)
    }

    /// The matching public key.
    public var publicKey: ECPublicKey {
        // Re-import the public half so the public key object holds no private scalar.
        // Force-unwrap avoided: a point OpenSSL just produced always imports.
        guard let key = try? Backend.importECPublicKey(curve: curve, point: key.encodedPublicPoint) else {
            preconditionFailure("OpenSSL could not re-import its own public key")
        }
        return ECPublicKey(key: key, curve: curve)
    }

    /// Signs `message` and returns a DER signature.
    ///
    /// - Parameters:
    ///   - message: The message; it is hashed with `digest` here.
    ///   - digest: The hash; the curve's ``ECCurve/defaultDigest`` when nil.
    /// - Returns: The DER `ECDSA-Sig-Value`.
    /// - Throws: ``CryptoError/Code/openSSLFailure`` if signing fails.
    public func signature(for message: some ContiguousBytes, digest: DigestAlgorithm? = nil) throws -> [UInt8] {
        try Backend.signMessage(key, digest: digest ?? curve.defaultDigest, message: message)
    }

    /// Signs `message` and returns an IEEE P1363 signature, `r ‖ s`, each ``ECCurve/coordinateByteCount`` bytes.
    ///
    /// - Parameters:
    ///   - message: The message; it is hashed with `digest` here.
    ///   - digest: The hash; the curve's ``ECCurve/defaultDigest`` when nil.
    /// - Returns: The `2 × coordinateByteCount`-byte signature.
    /// - Throws: ``CryptoError/Code/openSSLFailure`` if signing fails.
    public func rawSignature(for message: some ContiguousBytes, digest: DigestAlgorithm? = nil) throws -> [UInt8] {
        try Backend.rawSignature(fromDER: signature(for: message, digest: digest), curve: curve)
    }

    /// Computes the ECDH shared secret with a peer's public key (SEC 1 section 3.3.1: the x-coordinate of `d·Q`).
    ///
    /// - Important: The result is raw key-agreement output, not a key. Derive keys from it with ``HKDF``, binding
    ///   both public keys and the protocol in `info`.
    /// - Parameter peer: The other side's public key, on the same curve.
    /// - Returns: The shared secret, ``ECCurve/coordinateByteCount`` bytes.
    /// - Throws: ``CryptoError/Code/invalidKey`` when the peer key is on another curve or fails validation.
    public func sharedSecretFromKeyAgreement(with peer: ECPublicKey) throws -> SymmetricKey {
        guard peer.curve == curve else {
            throw CryptoError.invalidKey(
                "the peer key is on \(peer.curve.rawValue) but this key is on \(curve.rawValue); both must match")
        }
        var secret = try Backend.deriveSharedSecret(privateKey: key, peer: peer.key)
        defer { secret.withUnsafeMutableBytes { Backend.cleanse($0) } }
        return SymmetricKey(bytes: secret)
    }
}

extension ECPrivateKey: CustomStringConvertible {
    /// `ECPrivateKey(P-256)`, never the scalar.
    public var description: String { "ECPrivateKey(\(curve.rawValue))" }
}
