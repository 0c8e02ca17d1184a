public import Foundation

/// An Ed25519 public key (RFC 8032).
public struct Ed25519PublicKey: Sendable {
    let key: BackendKey

    init(key: BackendKey) { self.key = key }

    /// Imports the 32-byte encoded point.
    ///
    /// - Parameter rawRepresentation: The 32 bytes.
    /// - Throws: ``CryptoError/Code/invalidKey`` for any other length.
    public init(rawRepresentation: some ContiguousBytes) throws {
        self.key = try Backend.importRawEdDSAPublicKey(
            rawRepresentation.withUnsafeBytes { Array($0) }, variant: .ed25519)
    }

    /// Imports a DER SubjectPublicKeyInfo holding an Ed25519 key (`id-Ed25519`, RFC 8410).
    ///
    /// - Parameter derRepresentation: The SPKI DER (strict DER, no trailing bytes).
    /// - Throws: ``CryptoError/Code/invalidKey`` for malformed input or another key type.
    public init(derRepresentation: some ContiguousBytes) throws {
        let decoded = try PublicKey(spkiDER: derRepresentation)
        guard let key = decoded.ed25519PublicKey else {
            throw CryptoError.invalidKey("the SubjectPublicKeyInfo holds a \(decoded.kind) key, not Ed25519")
        }
        self = key
    }

    /// Imports a PEM `PUBLIC KEY` block holding an Ed25519 SubjectPublicKeyInfo.
    ///
    /// - Parameter pemRepresentation: One `-----BEGIN PUBLIC KEY-----` block.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for bad PEM; otherwise as ``init(derRepresentation:)``.
    public init(pemRepresentation: String) throws {
        try self.init(derRepresentation: PEMBlock.decode(pemRepresentation, label: PEMBlock.publicKeyLabel))
    }

    /// The 32-byte encoded point.
    public var rawRepresentation: [UInt8] { key.rawPublicKey }

    /// The DER SubjectPublicKeyInfo (44 bytes).
    public var derRepresentation: [UInt8] { key.spkiDER }

    /// The PEM `PUBLIC KEY` block.
    public var pemRepresentation: String { key.spkiPEM }

    /// Checks a 64-byte Ed25519 signature over `message`.
    ///
    /// OpenSSL rejects non-canonical `S` (S ≥ L) and points that do not decode, so signatures are not malleable. On
    /// Apple platforms CryptoKit's `Curve25519.Signing.PublicKey` verifies (making Ed25519 signatures needs the
    /// OpenSSL backend; see <doc:ChoosingPrimitives>).
    ///
    /// - Parameters:
    ///   - signature: The 64-byte signature `R ‖ S`.
    ///   - message: The whole message (Ed25519 hashes it internally with SHA-512).
    /// - Returns: `true` when the signature is valid.
    public func isValidSignature(_ signature: some ContiguousBytes, for message: some ContiguousBytes) -> Bool {
        Backend.verifyWithAlgorithm(key, algorithm: .ed25519, signature: signature, message: message)
    }
}

/// An Ed25519 private key (RFC 8032).
public struct Ed25519PrivateKey: Sendable {
    let key: BackendKey

    /// Generates a fresh key from OpenSSL's CSPRNG.
    public init() { self.key = Backend.generateEdDSAKey(.ed25519) }

    /// Imports a 32-byte private key (the RFC 8032 seed).
    ///
    /// - Parameter rawRepresentation: The 32-byte seed.
    /// - Throws: ``CryptoError/Code/invalidKey`` for any other length.
    public init(rawRepresentation: some ContiguousBytes) throws {
        self.key = try Backend.importRawEdDSAPrivateKey(
            rawRepresentation.withUnsafeBytes { Array($0) }, variant: .ed25519)
    }

    /// Imports a PEM `PRIVATE KEY` block holding an Ed25519 PKCS#8 key, as `openssl genpkey -algorithm ed25519`
    /// writes it.
    ///
    /// RFC 8410 section 7: `OneAsymmetricKey ::= SEQUENCE { version 0, privateKeyAlgorithm { id-Ed25519 },
    /// privateKey OCTET STRING (CurvePrivateKey ::= OCTET STRING of 32 bytes) }` — for Ed25519 without attributes or
    /// a public key that is always the same 16-byte prefix and the seed, which is what is accepted.
    ///
    /// - Parameter pemRepresentation: One `-----BEGIN PRIVATE KEY-----` block.
    /// - Throws: ``CryptoError/Code/invalidEncoding`` for bad PEM, ``CryptoError/Code/invalidKey`` for a key that is
    ///   not an unencrypted Ed25519 PKCS#8 key.
    public init(pemRepresentation: String) throws {
        let der = try PEMBlock.decode(pemRepresentation, label: PEMBlock.privateKeyLabel)
        let prefix: [UInt8] = [
            0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
        ]
        guard der.count == prefix.count + 32, der.starts(with: prefix) else {
            throw CryptoError.invalidKey(
                "the PRIVATE KEY is not an unencrypted Ed25519 PKCS#8 key (RFC 8410); make one with "
                    + "`openssl genpkey -algorithm ed25519`")
        }
        try self.init(rawRepresentation: der.suffix(32))
    }

    /// The 32-byte seed. Treat it as a secret.
    public var rawRepresentation: [UInt8] {
        guard let seed = try? key.rawPrivateKey() else {
            preconditionFailure("OpenSSL could not export an Ed25519 key it holds")
        }
        return seed
    }

    /// The matching public key.
    public var publicKey: Ed25519PublicKey {
        guard let key = try? Backend.importRawEdDSAPublicKey(key.rawPublicKey, variant: .ed25519) else {
            preconditionFailure("OpenSSL could not re-import its own Ed25519 public key")
        }
        return Ed25519PublicKey(key: key)
    }

    /// Signs `message` (deterministic: the same key and message always give the same signature).
    ///
    /// - Parameter message: The whole message.
    /// - Returns: The 64-byte signature.
    /// - Throws: ``CryptoError/Code/openSSLFailure`` if OpenSSL fails.
    public func signature(for message: some ContiguousBytes) throws -> [UInt8] {
        try Backend.signMessage(key, digest: nil, message: message)
    }
}

extension Ed25519PrivateKey: CustomStringConvertible {
    /// `Ed25519PrivateKey`, never the seed.
    public var description: String { "Ed25519PrivateKey" }
}
