#if !canImport(COpenSSL) || RAMPART_CRYPTOKIT_BACKEND
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import RampartAppleSimulation
#endif
internal import Foundation

/// The CryptoKit backend's key: the neutral types (``ECPublicKey``, ``ECPrivateKey``, ``PublicKey``) hold one.
typealias BackendKey = CryptoKitKey

/// A P-256 key held by CryptoKit. The CryptoKit backend handles EC keys on P-256 only; every other key type and curve
/// is refused with ``CryptoError/Code/unsupportedAlgorithm`` before a ``CryptoKitKey`` exists (see
/// <doc:ChoosingPrimitives>, "Two backends").
///
/// `@unchecked Sendable`: immutable after `init`; CryptoKit's keys are values that may be used from any thread.
final class CryptoKitKey: @unchecked Sendable {
    enum Material {
        case p256Private(P256.Signing.PrivateKey)
        case p256Public(P256.Signing.PublicKey)
    }

    let material: Material

    init(_ material: Material) { self.material = material }

    var publicKey: P256.Signing.PublicKey {
        switch material {
        case .p256Private(let key): key.publicKey
        case .p256Public(let key): key
        }
    }

    var family: KeyFamily? { .ec }
    var ecCurve: ECCurve? { .p256 }
    var usesNamedCurve: Bool { true }
    var bitCount: Int { 256 }
    /// CryptoKit validates the scalar and the point on import, so a held key pair is always consistent.
    func checkKeyPair() -> Bool { true }

    var encodedPublicPoint: [UInt8] { Array(publicKey.x963Representation) }
    var spkiDER: [UInt8] { Array(publicKey.derRepresentation) }
    var spkiPEM: String { PEMBlock.encode(spkiDER, label: PEMBlock.publicKeyLabel) }

    func ecPrivateScalar(curve: ECCurve) throws -> [UInt8] {
        guard case .p256Private(let key) = material else {
            throw CryptoError.invalidKey("the key holds no private scalar")
        }
        return Array(key.rawRepresentation)
    }

    func pkcs8DER() throws -> [UInt8] {
        guard case .p256Private(let key) = material else {
            throw CryptoError.invalidKey("the key holds no private key")
        }
        return Array(key.derRepresentation)
    }

    func publicOnly() -> CryptoKitKey { CryptoKitKey(.p256Public(publicKey)) }

    /// Edwards keys never reach this backend (their imports throw), so these are unreachable.
    var rawPublicKey: [UInt8] { preconditionFailure("the CryptoKit backend holds no Ed25519 keys") }
    func rawPrivateKey() throws -> [UInt8] { throw CryptoError.unsupportedAlgorithm(ed25519Unsupported) }
}

/// The refusal for every curve but P-256 on this backend.
func unsupportedCurve(_ curve: ECCurve) -> CryptoError {
    CryptoError.unsupportedAlgorithm(
        "\(curve.rawValue) needs the OpenSSL backend; on Apple platforms Rampart's CryptoKit backend handles P-256 only"
    )
}

func importECPublicKey(curve: ECCurve, point: [UInt8]) throws -> CryptoKitKey {
    guard curve == .p256 else { throw unsupportedCurve(curve) }
    guard point.first == 0x04 else {
        throw CryptoError.unsupportedAlgorithm(
            "compressed P-256 points need the OpenSSL backend (CryptoKit reads them from iOS 16); send 04‖X‖Y")
    }
    do {
        return CryptoKitKey(.p256Public(try P256.Signing.PublicKey(x963Representation: point)))
    } catch {
        throw CryptoError.invalidKey("the bytes are not a point on P-256")
    }
}

/// Decodes a DER SubjectPublicKeyInfo holding a P-256 key (strict DER, no trailing bytes, named curve), read with
/// the same ``SPKIShape`` reader the OpenSSL backend uses; every other key type is unsupported here.
func importSPKI(_ der: [UInt8]) throws -> CryptoKitKey {
    guard !der.isEmpty, der.count <= maximumSPKIByteCount else {
        throw CryptoError.invalidKey("a SubjectPublicKeyInfo must be 1…\(maximumSPKIByteCount) bytes; got \(der.count)")
    }
    try StrictDER.validate(der)
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
    case .ed25519: throw CryptoError.unsupportedAlgorithm(ed25519Unsupported)
    case nil:
        throw CryptoError.unsupportedAlgorithm(
            "only EC P-256 SubjectPublicKeyInfos are read on Apple platforms (CryptoKit backend); RSA, RSA-PSS, "
                + "Ed448 and other curves need the OpenSSL backend")
    }
}

func importPKCS8(_ der: [UInt8]) throws -> CryptoKitKey {
    guard !der.isEmpty, der.count <= maximumPKCS8ByteCount else {
        throw CryptoError.invalidKey(
            "a PKCS#8 PrivateKeyInfo must be 1…\(maximumPKCS8ByteCount) bytes; got \(der.count)")
    }
    try StrictDER.validate(der)
    do {
        return CryptoKitKey(.p256Private(try P256.Signing.PrivateKey(derRepresentation: der)))
    } catch {
        throw CryptoError.invalidKey(
            "the PrivateKeyInfo is not a P-256 key CryptoKit can read (other key types need the OpenSSL backend)")
    }
}

func generateECKey(curve: ECCurve) -> CryptoKitKey {
    guard curve == .p256 else {
        preconditionFailure("\(unsupportedCurve(curve).reason): generate P-256 keys on Apple platforms")
    }
    return CryptoKitKey(.p256Private(P256.Signing.PrivateKey()))
}

func importECPrivateScalar(_ scalar: [UInt8], curve: ECCurve) throws -> CryptoKitKey {
    guard curve == .p256 else { throw unsupportedCurve(curve) }
    do {
        return CryptoKitKey(.p256Private(try P256.Signing.PrivateKey(rawRepresentation: scalar)))
    } catch {
        throw CryptoError.invalidKey("the private scalar must be 32 big-endian bytes in 1…n−1 for P-256")
    }
}

func derSignature(fromRaw raw: [UInt8], curve: ECCurve) -> [UInt8]? {
    ECDSASignatureEncoding.der(fromRaw: raw, curve: curve)
}

func rawSignature(fromDER der: [UInt8], curve: ECCurve) throws -> [UInt8] {
    try ECDSASignatureEncoding.raw(fromDER: der, curve: curve)
}

/// Verifies a DER ECDSA signature; CryptoKit's P-256 hashes with SHA-256, so any other digest is a rejection here.
func verifySignature(
    _ key: CryptoKitKey,
    digest: DigestAlgorithm?,
    signature: some ContiguousBytes,
    message: some ContiguousBytes
) -> Bool {
    guard digest == .sha256,
        let raw = try? ECDSASignatureEncoding.raw(fromDER: signature.withUnsafeBytes { Array($0) }, curve: .p256),
        let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
    else { return false }
    return key.publicKey.isValidSignature(parsed, for: message.withUnsafeBytes { Array($0) })
}

func signMessage(_ key: CryptoKitKey, digest: DigestAlgorithm?, message: some ContiguousBytes) throws -> [UInt8] {
    guard case .p256Private(let privateKey) = key.material else {
        throw CryptoError.invalidKey("a public key cannot sign")
    }
    guard digest == .sha256 else {
        throw CryptoError.unsupportedAlgorithm(
            "ECDSA P-256 signs with SHA-256 only on Apple platforms (CryptoKit backend); \(digest.map { "\($0)" } ?? "no digest") needs the OpenSSL backend"
        )
    }
    do {
        return Array(try privateKey.signature(for: message.withUnsafeBytes { Array($0) }).derRepresentation)
    } catch {
        throw CryptoError.invalidParameter("CryptoKit could not sign: \(error)")
    }
}

func deriveSharedSecret(privateKey: CryptoKitKey, peer: CryptoKitKey) throws -> [UInt8] {
    guard case .p256Private(let signing) = privateKey.material else {
        throw CryptoError.invalidKey("key agreement needs a private key")
    }
    do {
        let agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: signing.rawRepresentation)
        let peerKey = try P256.KeyAgreement.PublicKey(x963Representation: peer.publicKey.x963Representation)
        return try agreement.sharedSecretFromKeyAgreement(with: peerKey).withUnsafeBytes { Array($0) }
    } catch {
        throw CryptoError.invalidKey("the peer public key failed validation for key agreement")
    }
}

func verifyWithAlgorithm(
    _ key: CryptoKitKey,
    algorithm: SignatureAlgorithm,
    signature: some ContiguousBytes,
    message: some ContiguousBytes
) -> Bool {
    switch algorithm.backing {
    case .ecdsa(let digest): verifySignature(key, digest: digest, signature: signature, message: message)
    default: false
    }
}
#endif
