// The seam between RampartCrypto's front end (the public types: AEAD, HMAC, ECPublicKey, …) and the library that
// does the work, declared the way swift-crypto declares its own: each backend is a type conforming to one protocol,
// and one typealias picks the backend a platform builds with. The front end validates every input (sizes, limits,
// nonce lengths) once, before it calls the backend; a backend refuses only what its library cannot do.
internal import Foundation

/// The backend a platform builds with: CryptoKit on Apple platforms (no OpenSSL in an app), OpenSSL (with
/// libargon2) on Linux.
#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
typealias Backend = CryptoKitBackend
#else
typealias Backend = OpenSSLBackend
#endif

/// The key every asymmetric front-end type (``ECPublicKey``, ``ECPrivateKey``, ``PublicKey``, …) holds.
typealias BackendKey = Backend.Key

/// What a backend provides. Every requirement's inputs have been checked by the front end.
protocol CryptoBackend {
    /// A public or private key of one of the families in ``KeyFamily``.
    associatedtype Key: CryptoBackendKey
    /// One running hash.
    associatedtype DigestContext: CryptoBackendDigestContext
    /// An HMAC key prepared for many codes.
    associatedtype PreparedHMAC: CryptoBackendPreparedHMAC
    /// A keyed AEAD context working in caller-owned buffers.
    associatedtype AEADContext: CryptoBackendAEADContext

    // MARK: Randomness and memory

    /// Fills `buffer` from the system CSPRNG.
    static func fillRandom(_ buffer: UnsafeMutableRawBufferPointer)
    /// Compares two buffers of equal length in time independent of their contents.
    static func constantTimeEqual(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool
    /// Overwrites `buffer` with zeros through a call the optimizer may not remove.
    static func cleanse(_ buffer: UnsafeMutableRawBufferPointer)

    // MARK: MACs and key derivation

    /// HMAC of `data` under `key` (RFC 2104).
    static func hmac(_ algorithm: DigestAlgorithm, key: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> [UInt8]
    /// HKDF (RFC 5869); `length` is within 1…255 × the hash length.
    static func hkdf(
        _ algorithm: DigestAlgorithm, key: [UInt8], salt: [UInt8], info: [UInt8], length: Int
    ) throws
        -> [UInt8]
    /// PBKDF2 with HMAC (RFC 8018 section 5.2).
    static func pbkdf2(
        _ algorithm: DigestAlgorithm, password: [UInt8], salt: [UInt8], iterations: Int, length: Int
    )
        throws -> [UInt8]
    /// scrypt (RFC 7914); the parameters satisfy RFC 7914's constraints and `maximumMemory`.
    static func scrypt(
        password: [UInt8], salt: [UInt8], cost: Int, blockSize: Int, parallelism: Int, maximumMemory: Int, length: Int
    ) throws -> [UInt8]
    /// Argon2id (RFC 9106).
    static func argon2idHash(
        password: [UInt8], salt: [UInt8], parameters: Argon2Parameters, count: Int
    ) throws
        -> SymmetricKey

    // MARK: AEAD

    /// Seals `plaintext`; the key and nonce sizes fit `algorithm`.
    static func aeadSeal(
        _ algorithm: AEADAlgorithm, key: SymmetricKey, nonce: [UInt8], plaintext: some ContiguousBytes,
        aad: some ContiguousBytes
    ) throws -> SealedBox
    /// Opens `box`, or throws ``CryptoError/Code/authenticationFailure`` and returns nothing.
    static func aeadOpen(
        _ algorithm: AEADAlgorithm, key: SymmetricKey, box: SealedBox, aad: some ContiguousBytes
    )
        throws -> [UInt8]

    // MARK: Keys

    /// An EC public key from its SEC 1 point encoding.
    static func importECPublicKey(curve: ECCurve, point: [UInt8]) throws -> Key
    /// An EC private key from its big-endian scalar.
    static func importECPrivateScalar(_ scalar: [UInt8], curve: ECCurve) throws -> Key
    /// A public key from a DER SubjectPublicKeyInfo of at most ``maximumSPKIByteCount`` bytes.
    static func importSPKI(_ der: [UInt8]) throws -> Key
    /// A private key from a DER PKCS #8 PrivateKeyInfo of at most ``maximumPKCS8ByteCount`` bytes.
    static func importPKCS8(_ der: [UInt8]) throws -> Key
    /// An EdDSA public key from its raw bytes.
    static func importRawEdDSAPublicKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> Key
    /// An EdDSA private key from its raw seed.
    static func importRawEdDSAPrivateKey(_ bytes: [UInt8], variant: EdDSAVariant) throws -> Key
    /// A new EC key pair.
    static func generateECKey(curve: ECCurve) -> Key
    /// A new EdDSA key pair.
    static func generateEdDSAKey(_ variant: EdDSAVariant) -> Key
    /// A new RSA key pair.
    static func generateRSAKey(bitCount: Int) throws -> Key

    // MARK: Signatures and key agreement

    /// An ECDSA signature converted from IEEE P1363 (`r ‖ s`) to DER, or nil when `raw` is not one.
    static func derSignature(fromRaw raw: [UInt8], curve: ECCurve) -> [UInt8]?
    /// An ECDSA signature converted from DER to IEEE P1363.
    static func rawSignature(fromDER der: [UInt8], curve: ECCurve) throws -> [UInt8]
    /// Verifies a signature over `message` hashed with `digest` (nil for one-shot schemes such as Ed25519).
    static func verifySignature(
        _ key: Key, digest: DigestAlgorithm?, signature: some ContiguousBytes, message: some ContiguousBytes
    ) -> Bool
    /// The same verdict as ``verifySignature(_:digest:signature:message:)`` through a context made for this one call.
    static func verifySignatureWithFreshContext(
        _ key: Key, digest: DigestAlgorithm?, signature: some ContiguousBytes, message: some ContiguousBytes
    ) -> Bool
    /// Verifies a signature with `algorithm`; a key of another family is a rejection.
    static func verifyWithAlgorithm(
        _ key: Key, algorithm: SignatureAlgorithm, signature: some ContiguousBytes, message: some ContiguousBytes
    ) -> Bool
    /// Signs `message` (hashed with `digest`; nil for one-shot schemes); ECDSA signatures are DER.
    static func signMessage(_ key: Key, digest: DigestAlgorithm?, message: some ContiguousBytes) throws -> [UInt8]
    /// Signs with an RSA private key (PKCS #1 v1.5 or PSS).
    static func signRSA(_ key: Key, algorithm: SignatureAlgorithm, message: some ContiguousBytes) throws -> [UInt8]
    /// ECDH: the shared secret of `privateKey` and `peer`.
    static func deriveSharedSecret(privateKey: Key, peer: Key) throws -> [UInt8]
}

/// A backend's key.
protocol CryptoBackendKey: AnyObject, Sendable {
    var family: KeyFamily? { get }
    var ecCurve: ECCurve? { get }
    var usesNamedCurve: Bool { get }
    var bitCount: Int { get }
    func checkKeyPair() -> Bool
    var encodedPublicPoint: [UInt8] { get }
    var spkiDER: [UInt8] { get }
    var spkiPEM: String { get }
    var rawPublicKey: [UInt8] { get }
    func rawPrivateKey() throws -> [UInt8]
    func ecPrivateScalar(curve: ECCurve) throws -> [UInt8]
    func pkcs8DER() throws -> [UInt8]
    func publicOnly() -> Self
}

/// A backend's running hash; a copy continues independently.
protocol CryptoBackendDigestContext: AnyObject {
    init(_ algorithm: DigestAlgorithm)
    func copy() -> Self
    func update(_ bytes: UnsafeRawBufferPointer)
    func finalize() -> [UInt8]
}

/// A backend's HMAC key, prepared once for many codes.
protocol CryptoBackendPreparedHMAC: AnyObject, Sendable {
    init(key: SymmetricKey, algorithm: DigestAlgorithm)
    func authenticationCode(for data: UnsafeRawBufferPointer) -> [UInt8]
}

/// A backend's keyed AEAD context. The front end (``AEADContext``) has checked the key, nonce, tag and buffer sizes
/// and the direction before any call.
protocol CryptoBackendAEADContext: AnyObject {
    init(algorithm: AEADAlgorithm, key: SymmetricKey, encrypting: Bool) throws
    func seal(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, tag: UnsafeMutableRawBufferPointer
    ) throws
    func open(
        _ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, nonce: UnsafeRawBufferPointer,
        associatedData: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer
    ) throws -> Bool
}
