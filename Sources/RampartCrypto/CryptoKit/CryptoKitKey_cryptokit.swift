#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import RampartAppleSimulation
#endif
internal import Foundation

/// A key held by CryptoKit: a P-256 key pair or public key, or an Ed25519 public key (verification only). Every
/// other key type and curve is refused with ``CryptoError/Code/unsupportedAlgorithm`` before a ``CryptoKitKey``
/// exists (see <doc:ChoosingPrimitives>, "Two backends").
///
/// `@unchecked Sendable`: immutable after `init`; CryptoKit's keys are values that may be used from any thread.
final class CryptoKitKey: CryptoBackendKey, @unchecked Sendable {
    enum Material {
        case p256Private(P256.Signing.PrivateKey)
        case p256Public(P256.Signing.PublicKey)
        case ed25519Public(Curve25519.Signing.PublicKey)
    }

    let material: Material

    init(_ material: Material) { self.material = material }

    /// The P-256 public key, or `nil` for an Ed25519 key.
    var p256PublicKey: P256.Signing.PublicKey? {
        switch material {
        case .p256Private(let key): key.publicKey
        case .p256Public(let key): key
        case .ed25519Public: nil
        }
    }

    var isEd25519: Bool {
        if case .ed25519Public = material { true } else { false }
    }

    var family: KeyFamily? { isEd25519 ? .ed25519 : .ec }
    var ecCurve: ECCurve? { isEd25519 ? nil : .p256 }
    var usesNamedCurve: Bool { true }
    /// As OpenSSL counts them: 256 for P-256, 253 for Ed25519.
    var bitCount: Int { isEd25519 ? 253 : 256 }
    /// CryptoKit validates the scalar and the point on import, so a held key pair is always consistent.
    func checkKeyPair() -> Bool { true }

    /// `04 ‖ X ‖ Y` for P-256; the 32-byte encoded point for Ed25519 (what OpenSSL's encoded public key is).
    var encodedPublicPoint: [UInt8] {
        switch material {
        case .p256Private(let key): Array(key.publicKey.x963Representation)
        case .p256Public(let key): Array(key.x963Representation)
        case .ed25519Public(let key): Array(key.rawRepresentation)
        }
    }

    var spkiDER: [UInt8] {
        switch material {
        case .p256Private(let key): Array(key.publicKey.derRepresentation)
        case .p256Public(let key): Array(key.derRepresentation)
        case .ed25519Public(let key): SPKIShape.ed25519Prefix + Array(key.rawRepresentation)
        }
    }

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

    func publicOnly() -> CryptoKitKey {
        guard case .p256Private(let key) = material else { return self }
        return CryptoKitKey(.p256Public(key.publicKey))
    }

    /// The Ed25519 encoded point (only Ed25519 keys are asked for it).
    var rawPublicKey: [UInt8] { encodedPublicPoint }
    /// Ed25519 private keys never reach this backend (their imports throw).
    func rawPrivateKey() throws -> [UInt8] { throw CryptoError.unsupportedAlgorithm(ed25519SigningUnsupported) }
}

extension CryptoKitBackend {
    /// The refusal for every curve but P-256 on this backend.
    static func unsupportedCurve(_ curve: ECCurve) -> CryptoError {
        CryptoError.unsupportedAlgorithm(
            "\(curve.rawValue) needs the OpenSSL backend; on Apple platforms Rampart's CryptoKit backend handles P-256 only"
        )
    }

    static func importECPublicKey(curve: ECCurve, point: [UInt8]) throws -> CryptoKitKey {
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
    static func importSPKI(_ der: [UInt8]) throws -> CryptoKitKey {
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
        case nil:
            throw CryptoError.unsupportedAlgorithm(
                "only EC P-256 and Ed25519 SubjectPublicKeyInfos are read on Apple platforms (CryptoKit backend); "
                    + "RSA, RSA-PSS, Ed448 and other curves need the OpenSSL backend")
        }
    }

    static func importPKCS8(_ der: [UInt8]) throws -> CryptoKitKey {
        guard !der.isEmpty, der.count <= maximumPKCS8ByteCount else {
            throw CryptoError.invalidKey(
                "a PKCS#8 PrivateKeyInfo must be 1…\(maximumPKCS8ByteCount) bytes; got \(der.count)")
        }
        try requireStrictDER(der)
        do {
            return CryptoKitKey(.p256Private(try P256.Signing.PrivateKey(derRepresentation: der)))
        } catch {
            throw CryptoError.invalidKey(
                "the PrivateKeyInfo is not a P-256 key CryptoKit can read (other key types need the OpenSSL backend)")
        }
    }

    /// Imports a raw Ed25519 public key into CryptoKit; Ed448 (which CryptoKit lacks) is refused.
    static func importRawEdDSAPublicKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> CryptoKitKey {
        guard variant == .ed25519 else {
            throw CryptoError.unsupportedAlgorithm("Ed448 needs the OpenSSL backend (CryptoKit has no Ed448)")
        }
        guard bytes.count == variant.keyByteCount else {
            throw CryptoError.invalidKey(
                "a raw \(variant.name) public key is \(variant.keyByteCount) bytes; got \(bytes.count)")
        }
        do {
            return CryptoKitKey(.ed25519Public(try Curve25519.Signing.PublicKey(rawRepresentation: bytes)))
        } catch {
            throw CryptoError.invalidKey("CryptoKit refused the Ed25519 public key")
        }
    }

    static func generateECKey(curve: ECCurve) -> CryptoKitKey {
        guard curve == .p256 else {
            preconditionFailure("\(unsupportedCurve(curve).reason): generate P-256 keys on Apple platforms")
        }
        return CryptoKitKey(.p256Private(P256.Signing.PrivateKey()))
    }

    static func importECPrivateScalar(_ scalar: [UInt8], curve: ECCurve) throws -> CryptoKitKey {
        guard curve == .p256 else { throw unsupportedCurve(curve) }
        do {
            return CryptoKitKey(.p256Private(try P256.Signing.PrivateKey(rawRepresentation: scalar)))
        } catch {
            throw CryptoError.invalidKey("the private scalar must be 32 big-endian bytes in 1…n−1 for P-256")
        }
    }

    static func derSignature(fromRaw raw: [UInt8], curve: ECCurve) -> [UInt8]? {
        ECDSASignatureEncoding.der(fromRaw: raw, curve: curve)
    }

    static func rawSignature(fromDER der: [UInt8], curve: ECCurve) throws -> [UInt8] {
        try ECDSASignatureEncoding.raw(fromDER: der, curve: curve)
    }

    /// Verifies a DER ECDSA signature; CryptoKit's P-256 hashes with SHA-256, so any other digest is a rejection here.
    static func verifySignature(
        _ key: CryptoKitKey,
        digest: DigestAlgorithm?,
        signature: some ContiguousBytes,
        message: some ContiguousBytes
    ) -> Bool {
        guard digest == .sha256, let publicKey = key.p256PublicKey,
            let raw = try? ECDSASignatureEncoding.raw(fromDER: signature.withUnsafeBytes { Array($0) }, curve: .p256),
            let parsed = try? P256.Signing.ECDSASignature(rawRepresentation: raw)
        else { return false }
        return publicKey.isValidSignature(parsed, for: message.withUnsafeBytes { Array($0) })
    }

    /// CryptoKit keeps no verification contexts to reuse, so the "fresh context" path is the only path.
    static func verifySignatureWithFreshContext(
        _ key: CryptoKitKey,
        digest: DigestAlgorithm?,
        signature: some ContiguousBytes,
        message: some ContiguousBytes
    ) -> Bool {
        verifySignature(key, digest: digest, signature: signature, message: message)
    }

    /// Verifies an RFC 8032 Ed25519 signature with CryptoKit's `Curve25519.Signing.PublicKey` (verification is
    /// deterministic, so CryptoKit's randomized signing does not matter here); anything but 64 bytes is a rejection.
    static func verifyEd25519(
        _ key: CryptoKitKey, signature: some ContiguousBytes, message: some ContiguousBytes
    ) -> Bool {
        guard case .ed25519Public(let publicKey) = key.material else { return false }
        let signatureBytes = signature.withUnsafeBytes { Array($0) }
        guard signatureBytes.count == 64 else { return false }
        return publicKey.isValidSignature(signatureBytes, for: message.withUnsafeBytes { Array($0) })
    }

    static func signMessage(
        _ key: CryptoKitKey, digest: DigestAlgorithm?, message: some ContiguousBytes
    ) throws -> [UInt8] {
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

    static func deriveSharedSecret(privateKey: CryptoKitKey, peer: CryptoKitKey) throws -> [UInt8] {
        guard case .p256Private(let signing) = privateKey.material else {
            throw CryptoError.invalidKey("key agreement needs a private key")
        }
        do {
            let agreement = try P256.KeyAgreement.PrivateKey(rawRepresentation: signing.rawRepresentation)
            guard let peerPublic = peer.p256PublicKey else {
                throw CryptoError.invalidKey("key agreement needs a P-256 peer key")
            }
            let peerKey = try P256.KeyAgreement.PublicKey(x963Representation: peerPublic.x963Representation)
            return try agreement.sharedSecretFromKeyAgreement(with: peerKey).withUnsafeBytes { Array($0) }
        } catch {
            throw CryptoError.invalidKey("the peer public key failed validation for key agreement")
        }
    }

    static func verifyWithAlgorithm(
        _ key: CryptoKitKey,
        algorithm: SignatureAlgorithm,
        signature: some ContiguousBytes,
        message: some ContiguousBytes
    ) -> Bool {
        switch algorithm.backing {
        case .ecdsa(let digest): verifySignature(key, digest: digest, signature: signature, message: message)
        case .ed25519: verifyEd25519(key, signature: signature, message: message)
        default: false
        }
    }
}

#endif
