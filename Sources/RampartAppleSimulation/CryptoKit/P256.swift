public import Foundation
internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/p256
/// An elliptic curve that enables NIST P-256 signatures and key agreement (simulated over RampartCrypto's ECDSA and
/// ECDH on P-256; signatures hash with SHA-256).
public enum P256 {
    // https://developer.apple.com/documentation/cryptokit/p256/signing
    /// A mechanism used to create or verify a cryptographic signature using the NIST P-256 elliptic curve digital
    /// signature algorithm (ECDSA).
    public enum Signing {
        // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey
        /// A P-256 private key used to create cryptographic signatures.
        public struct PrivateKey: Sendable {
            let key: ECPrivateKey

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(compactrepresentable:)
            /// Creates a random P-256 private key for signing.
            ///
            /// - Parameter compactRepresentable: Ignored by the simulation (every key it makes is a full point).
            public init(compactRepresentable: Bool = true) { self.key = ECPrivateKey(curve: .p256) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(rawrepresentation:)
            /// Creates a P-256 private key for signing from a data representation of the key.
            ///
            /// As swift-crypto does (apple/swift-crypto, Sources/Crypto/Keys/EC/BoringSSL/NISTCurvesKeys_boring.swift:202
            /// and 219-224): another length is ``CryptoKitError/incorrectParameterSize``, a scalar of 0 or ≥ n the
            /// library's own error, ``CryptoKitError/underlyingCoreCryptoError(error:)``.
            ///
            /// - Parameter rawRepresentation: The 32-byte scalar.
            /// - Throws: ``CryptoKitError/incorrectParameterSize`` for another length;
            ///   ``CryptoKitError/underlyingCoreCryptoError(error:)`` for a scalar out of range.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                let bytes = rawRepresentation.withUnsafeBytes { Array($0) }
                guard bytes.count == 32 else { throw CryptoKitError.incorrectParameterSize }
                do { self.key = try ECPrivateKey(rawRepresentation: bytes, curve: .p256) } catch {
                    throw CryptoKitError.underlyingCoreCryptoError(error: -1)
                }
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(derrepresentation:)
            /// Creates a P-256 private key for signing from a Distinguished Encoding Rules (DER) encoded
            /// representation (the simulation reads PKCS#8 `PrivateKeyInfo` only).
            ///
            /// - Parameter derRepresentation: The DER bytes.
            /// - Throws: ``CryptoKitError/invalidParameter`` for anything but a P-256 PKCS#8 key.
            public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 {
                do { self.key = try ECPrivateKey(pkcs8DERRepresentation: Array(derRepresentation)) } catch {
                    throw CryptoKitError.invalidParameter
                }
                guard key.curve == .p256 else { throw CryptoKitError.invalidParameter }
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/init(pemrepresentation:)
            /// Creates a P-256 private key for signing from a Privacy-Enhanced Mail (PEM) representation.
            ///
            /// - Parameter pemRepresentation: A `PRIVATE KEY` block.
            /// - Throws: ``CryptoKitError/invalidParameter`` for anything but a P-256 PKCS#8 key.
            public init(pemRepresentation: String) throws {
                do { self.key = try ECPrivateKey(pemRepresentation: pemRepresentation) } catch {
                    throw CryptoKitError.invalidParameter
                }
                guard key.curve == .p256 else { throw CryptoKitError.invalidParameter }
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/rawrepresentation
            /// A raw representation of the private key (the 32-byte scalar).
            public var rawRepresentation: Data { Data(key.rawRepresentation) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/derrepresentation
            /// A Distinguished Encoding Rules (DER) encoded representation of the private key (PKCS#8).
            public var derRepresentation: Data { Data(key.pkcs8DERRepresentation) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/pemrepresentation
            /// A Privacy-Enhanced Mail (PEM) representation of the private key.
            public var pemRepresentation: String { key.pemRepresentation }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/publickey
            /// The corresponding public key.
            public var publicKey: P256.Signing.PublicKey { PublicKey(key: key.publicKey) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/privatekey/signature(for:)
            /// Generates an elliptic curve digital signature algorithm (ECDSA) signature of the given data over the
            /// P-256 elliptic curve, using SHA-256 as the hash function.
            ///
            /// - Parameter data: The data to sign.
            /// - Returns: The signature corresponding to the data.
            /// - Throws: ``CryptoKitError/underlyingCoreCryptoError(error:)`` if signing fails.
            public func signature<D: DataProtocol>(for data: D) throws -> P256.Signing.ECDSASignature {
                do { return ECDSASignature(raw: try key.rawSignature(for: Array(data), digest: .sha256)) } catch {
                    throw CryptoKitError.underlyingCoreCryptoError(error: -1)
                }
            }
        }

        // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey
        /// A P-256 public key used to verify cryptographic signatures.
        public struct PublicKey: Sendable {
            let key: ECPublicKey

            init(key: ECPublicKey) { self.key = key }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(rawrepresentation:)
            /// Creates a P-256 public key for signing from a collection of bytes (`X ‖ Y`, 64 bytes).
            ///
            /// Another length is ``CryptoKitError/incorrectParameterSize``, as in swift-crypto (NISTCurvesKeys_boring.swift:426).
            ///
            /// - Parameter rawRepresentation: The 64 bytes.
            /// - Throws: ``CryptoKitError/incorrectParameterSize`` for another length;
            ///   ``CryptoKitError/underlyingCoreCryptoError(error:)`` for a point off the curve.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                let bytes = rawRepresentation.withUnsafeBytes { Array($0) }
                guard bytes.count == 64 else { throw CryptoKitError.incorrectParameterSize }
                try self.init(x963Representation: [0x04] + bytes)
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(x963representation:)
            /// Creates a P-256 public key for signing from an ANSI x9.63 representation (uncompressed, 65 bytes).
            ///
            /// As swift-crypto checks it (NISTCurvesKeys_boring.swift:394-401, 617-618, 528-533): a length other than
            /// 65 is ``CryptoKitError/incorrectParameterSize``, a first byte other than 04 ``CryptoKitError/incorrectKeySize``
            /// ("the same error CryptoKit throws on Apple platforms"), a point off the curve the library's own error.
            ///
            /// - Parameter x963Representation: `04 ‖ X ‖ Y`.
            /// - Throws: ``CryptoKitError/incorrectParameterSize``, ``CryptoKitError/incorrectKeySize`` or
            ///   ``CryptoKitError/underlyingCoreCryptoError(error:)``.
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
                let bytes = x963Representation.withUnsafeBytes { Array($0) }
                guard bytes.count == 65 else { throw CryptoKitError.incorrectParameterSize }
                guard bytes.first == 0x04 else { throw CryptoKitError.incorrectKeySize }
                do { self.key = try ECPublicKey(x963Representation: bytes, curve: .p256) } catch {
                    throw CryptoKitError.underlyingCoreCryptoError(error: -1)
                }
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(derrepresentation:)
            /// Creates a P-256 public key for signing from a Distinguished Encoding Rules (DER) encoded
            /// SubjectPublicKeyInfo.
            ///
            /// - Parameter derRepresentation: The DER bytes.
            /// - Throws: ``CryptoKitError/invalidParameter`` for anything but a P-256 key.
            public init<Bytes: RandomAccessCollection>(derRepresentation: Bytes) throws where Bytes.Element == UInt8 {
                do { self.key = try ECPublicKey(derRepresentation: Array(derRepresentation)) } catch {
                    throw CryptoKitError.invalidParameter
                }
                guard key.curve == .p256 else { throw CryptoKitError.invalidParameter }
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/init(pemrepresentation:)
            /// Creates a P-256 public key for signing from a Privacy-Enhanced Mail (PEM) representation.
            ///
            /// - Parameter pemRepresentation: A `PUBLIC KEY` block.
            /// - Throws: ``CryptoKitError/invalidParameter`` for anything but a P-256 key.
            public init(pemRepresentation: String) throws {
                do { self.key = try ECPublicKey(pemRepresentation: pemRepresentation) } catch {
                    throw CryptoKitError.invalidParameter
                }
                guard key.curve == .p256 else { throw CryptoKitError.invalidParameter }
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/rawrepresentation
            /// A full representation of the public key: `X ‖ Y`.
            public var rawRepresentation: Data { Data(key.x963Representation.dropFirst()) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/x963representation
            /// An ANSI x9.63 representation of the public key (uncompressed).
            public var x963Representation: Data { Data(key.x963Representation) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/derrepresentation
            /// A Distinguished Encoding Rules (DER) encoded SubjectPublicKeyInfo of the public key.
            public var derRepresentation: Data { Data(key.derRepresentation) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/pemrepresentation
            /// A Privacy-Enhanced Mail (PEM) representation of the public key.
            public var pemRepresentation: String { key.pemRepresentation }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/publickey/isvalidsignature(_:for:)
            /// Verifies an elliptic curve digital signature algorithm (ECDSA) signature on a block of data over the
            /// P-256 elliptic curve (SHA-256).
            ///
            /// - Parameters:
            ///   - signature: The signature to verify.
            ///   - data: The signed data.
            /// - Returns: `true` if the signature is valid for the given data.
            public func isValidSignature<D: DataProtocol>(_ signature: P256.Signing.ECDSASignature, for data: D) -> Bool
            {
                key.isValidRawSignature(signature.raw, for: Array(data), digest: .sha256)
            }
        }

        // https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature
        /// A P-256 elliptic curve digital signature algorithm (ECDSA) signature.
        public struct ECDSASignature: Sendable {
            let raw: [UInt8]

            init(raw: [UInt8]) { self.raw = raw }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/init(rawrepresentation:)
            /// Creates a P-256 digital signature from a raw representation (`r ‖ s`, 64 bytes).
            ///
            /// - Parameter rawRepresentation: The 64 bytes.
            /// - Throws: ``CryptoKitError/incorrectParameterSize`` for another length.
            public init<D: DataProtocol>(rawRepresentation: D) throws {
                guard rawRepresentation.count == 64 else { throw CryptoKitError.incorrectParameterSize }
                self.raw = Array(rawRepresentation)
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/init(derrepresentation:)
            /// Creates a P-256 digital signature from a Distinguished Encoding Rules (DER) encoded representation.
            ///
            /// As swift-crypto does (Sources/Crypto/Signatures/ECDSA.swift:94-101): bytes that are not a DER
            /// `ECDSA-Sig-Value` fail in the ASN.1 reader with a ``CryptoKitASN1Error``; an `r` or `s` longer than 32
            /// bytes is ``CryptoKitError/incorrectParameterSize``. (The simulation reads strict DER, and an integer
            /// longer than 66 bytes is an ASN.1 error here.)
            ///
            /// - Parameter derRepresentation: The DER `ECDSA-Sig-Value`.
            /// - Throws: ``CryptoKitASN1Error/invalidASN1Object`` or ``CryptoKitError/incorrectParameterSize``.
            public init<D: DataProtocol>(derRepresentation: D) throws {
                // Read with P-521's 66-byte components so that a well-formed but too long r or s is told apart.
                let wide: [UInt8]
                do {
                    wide = try ECDSASignatureEncoding.raw(fromDER: Array(derRepresentation), curve: .p521)
                } catch {
                    throw CryptoKitASN1Error.invalidASN1Object
                }
                let width = ECCurve.p521.coordinateByteCount
                let r = wide.prefix(width).drop { $0 == 0 }
                let s = wide.suffix(width).drop { $0 == 0 }
                guard r.count <= 32, s.count <= 32 else { throw CryptoKitError.incorrectParameterSize }
                self.raw =
                    [UInt8](repeating: 0, count: 32 - r.count) + r + [UInt8](repeating: 0, count: 32 - s.count) + s
            }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/rawrepresentation
            /// A raw data representation of a P-256 digital signature.
            public var rawRepresentation: Data { Data(raw) }

            // https://developer.apple.com/documentation/cryptokit/p256/signing/ecdsasignature/derrepresentation
            /// A Distinguished Encoding Rules (DER) encoded representation of a P-256 digital signature.
            public var derRepresentation: Data {
                guard let der = ECDSASignatureEncoding.der(fromRaw: raw, curve: .p256) else {
                    preconditionFailure("a 64-byte P-256 signature always encodes")
                }
                return Data(der)
            }
        }
    }

    // https://developer.apple.com/documentation/cryptokit/p256/keyagreement
    /// A mechanism used to create a shared secret between two users by performing NIST P-256 elliptic curve Diffie
    /// Hellman (ECDH) key exchange.
    public enum KeyAgreement {
        // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/privatekey
        /// A P-256 private key used for key agreement.
        public struct PrivateKey: Sendable {
            let key: ECPrivateKey

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/privatekey/init(compactrepresentable:)
            /// Creates a random P-256 private key for key agreement.
            ///
            /// - Parameter compactRepresentable: Ignored by the simulation.
            public init(compactRepresentable: Bool = true) { self.key = ECPrivateKey(curve: .p256) }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/privatekey/init(rawrepresentation:)
            /// Creates a P-256 private key for key agreement from a collection of bytes (the 32-byte scalar).
            ///
            /// - Parameter rawRepresentation: The scalar.
            /// - Throws: ``CryptoKitError/incorrectKeySize`` or ``CryptoKitError/invalidParameter``.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                self.key = try Signing.PrivateKey(rawRepresentation: rawRepresentation).key
            }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/privatekey/rawrepresentation
            /// A raw representation of the private key.
            public var rawRepresentation: Data { Data(key.rawRepresentation) }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/privatekey/publickey
            /// The corresponding public key.
            public var publicKey: P256.KeyAgreement.PublicKey { PublicKey(key: key.publicKey) }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/privatekey/sharedsecretfromkeyagreement(with:)
            /// Computes a shared secret with the provided public key from another party.
            ///
            /// - Parameter publicKeyShare: The public key from another party to be combined with the private key.
            /// - Returns: The computed shared secret (the x-coordinate, 32 bytes).
            /// - Throws: ``CryptoKitError/invalidParameter`` when the peer key fails validation.
            public func sharedSecretFromKeyAgreement(
                with publicKeyShare: P256.KeyAgreement.PublicKey
            ) throws
                -> SharedSecret
            {
                do { return SharedSecret(key: try key.sharedSecretFromKeyAgreement(with: publicKeyShare.key)) } catch {
                    throw CryptoKitError.invalidParameter
                }
            }
        }

        // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/publickey
        /// A P-256 public key used for key agreement.
        public struct PublicKey: Sendable {
            let key: ECPublicKey

            init(key: ECPublicKey) { self.key = key }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/publickey/init(x963representation:)
            /// Creates a P-256 public key for key agreement from an ANSI x9.63 representation.
            ///
            /// - Parameter x963Representation: `04 ‖ X ‖ Y`.
            /// - Throws: ``CryptoKitError/incorrectKeySize`` or ``CryptoKitError/invalidParameter``.
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {
                self.key = try Signing.PublicKey(x963Representation: x963Representation).key
            }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/publickey/x963representation
            /// An ANSI x9.63 representation of the public key.
            public var x963Representation: Data { Data(key.x963Representation) }

            // https://developer.apple.com/documentation/cryptokit/p256/keyagreement/publickey/rawrepresentation
            /// A full representation of the public key: `X ‖ Y`.
            public var rawRepresentation: Data { Data(key.x963Representation.dropFirst()) }
        }
    }
}

// https://developer.apple.com/documentation/cryptokit/sharedsecret
/// A key agreement result from which you can derive a symmetric cryptographic key.
public struct SharedSecret: ContiguousBytes, Sendable {
    let key: RampartCrypto.SymmetricKey

    /// Calls `body` with the raw shared secret.
    ///
    /// - Parameter body: The closure.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try key.withUnsafeBytes(body)
    }

    // https://developer.apple.com/documentation/cryptokit/sharedsecret/hkdfderivedsymmetrickey(using:salt:sharedinfo:outputbytecount:)
    /// Derives a symmetric encryption key from the secret using HKDF key derivation.
    ///
    /// - Parameters:
    ///   - hashFunction: The hash function to use for key derivation.
    ///   - salt: The salt to use for key derivation.
    ///   - sharedInfo: The shared information to use for key derivation.
    ///   - outputByteCount: The length in bytes of resulting symmetric key.
    /// - Returns: The derived symmetric key.
    public func hkdfDerivedSymmetricKey<H: HashFunction, Salt: DataProtocol, SI: DataProtocol>(
        using hashFunction: H.Type,
        salt: Salt,
        sharedInfo: SI,
        outputByteCount: Int
    ) -> SymmetricKey {
        HKDF<H>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: self), salt: salt, info: sharedInfo, outputByteCount: outputByteCount)
    }
}
