public import Foundation
internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/aes
/// A container for Advanced Encryption Standard (AES) ciphers.
public enum AES {
    // https://developer.apple.com/documentation/cryptokit/aes/gcm
    /// The Advanced Encryption Standard (AES) Galois Counter Mode (GCM) cipher suite.
    ///
    /// The simulation seals with RampartCrypto's AES-128-GCM and AES-256-GCM; a 192-bit key throws
    /// ``CryptoKitError/incorrectKeySize`` (RampartCrypto does not offer AES-192).
    public enum GCM {
        // https://developer.apple.com/documentation/cryptokit/aes/gcm/nonce
        /// A value used once during a cryptographic operation and then discarded.
        public struct Nonce: ContiguousBytes, Sequence, Sendable {
            let bytes: [UInt8]

            // https://developer.apple.com/documentation/cryptokit/aes/gcm/nonce/init()
            /// Creates a new random nonce (12 bytes).
            public init() { self.bytes = SecureRandom.bytes(count: AEADAlgorithm.nonceByteCount) }

            // https://developer.apple.com/documentation/cryptokit/aes/gcm/nonce/init(data:)
            /// Creates a nonce from the given data.
            ///
            /// - Parameter data: The bytes of the nonce, at least 12.
            /// - Throws: ``CryptoKitError/incorrectParameterSize`` when the data is shorter than 12 bytes (or longer
            ///   than RampartCrypto's 128-byte GCM limit).
            public init<D: DataProtocol>(data: D) throws {
                let bytes = Array(data)
                guard bytes.count >= AEADAlgorithm.nonceByteCount, bytes.count <= AEADAlgorithm.maximumGCMNonceByteCount
                else { throw CryptoKitError.incorrectParameterSize }
                self.bytes = bytes
            }

            /// Calls `body` with the nonce bytes.
            ///
            /// - Parameter body: The closure.
            /// - Returns: What `body` returns.
            public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
                try bytes.withUnsafeBytes(body)
            }

            /// An iterator over the nonce bytes.
            ///
            /// - Returns: The iterator.
            public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
        }

        // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox
        /// A secure container for your data that you can access using a cipher.
        public struct SealedBox: Sendable {
            // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox/nonce
            /// The nonce used to encrypt the data.
            public let nonce: AES.GCM.Nonce
            // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox/ciphertext
            /// The encrypted data.
            public let ciphertext: Data
            // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox/tag
            /// An authentication tag.
            public let tag: Data

            // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox/combined
            /// The nonce, encrypted data and tag; available only when the nonce is the default 12 bytes.
            public var combined: Data? {
                guard nonce.bytes.count == AEADAlgorithm.nonceByteCount else { return nil }
                return Data(nonce.bytes) + ciphertext + tag
            }

            // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox/init(nonce:ciphertext:tag:)
            /// Creates a sealed box from the given tag, nonce, and ciphertext.
            ///
            /// - Parameters:
            ///   - nonce: The nonce.
            ///   - ciphertext: The encrypted data.
            ///   - tag: The 16-byte authentication tag.
            /// - Throws: ``CryptoKitError/incorrectParameterSize`` when the tag is not 16 bytes.
            public init<C: DataProtocol, T: DataProtocol>(nonce: AES.GCM.Nonce, ciphertext: C, tag: T) throws {
                guard tag.count == AEADAlgorithm.tagByteCount else { throw CryptoKitError.incorrectParameterSize }
                self.nonce = nonce
                self.ciphertext = Data(ciphertext)
                self.tag = Data(tag)
            }

            // https://developer.apple.com/documentation/cryptokit/aes/gcm/sealedbox/init(combined:)
            /// Creates a sealed box from the combined bytes of a 12-byte nonce, encrypted data and 16-byte tag.
            ///
            /// - Parameter combined: The combined bytes.
            /// - Throws: ``CryptoKitError/incorrectParameterSize`` when shorter than nonce plus tag.
            public init<D: DataProtocol>(combined: D) throws {
                let bytes = Array(combined)
                guard bytes.count >= AEADAlgorithm.nonceByteCount + AEADAlgorithm.tagByteCount else {
                    throw CryptoKitError.incorrectParameterSize
                }
                self.nonce = try AES.GCM.Nonce(data: bytes.prefix(AEADAlgorithm.nonceByteCount))
                self.ciphertext = Data(
                    bytes.dropFirst(AEADAlgorithm.nonceByteCount).dropLast(AEADAlgorithm.tagByteCount))
                self.tag = Data(bytes.suffix(AEADAlgorithm.tagByteCount))
            }
        }

        // https://developer.apple.com/documentation/cryptokit/aes/gcm/seal(_:using:nonce:authenticating:)
        /// Secures the given plaintext message with encryption and an authentication tag that covers both the
        /// encrypted data and additional data.
        ///
        /// - Parameters:
        ///   - message: The plaintext data to seal.
        ///   - key: A 128- or 256-bit key.
        ///   - nonce: The nonce; a random one when nil.
        ///   - authenticatedData: Additional data to be authenticated.
        /// - Returns: The sealed message.
        /// - Throws: ``CryptoKitError/incorrectKeySize`` for other key sizes.
        public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
            _ message: Plaintext,
            using key: SymmetricKey,
            nonce: AES.GCM.Nonce? = nil,
            authenticating authenticatedData: AuthenticatedData
        ) throws -> AES.GCM.SealedBox {
            let algorithm = try algorithm(for: key)
            let nonce = nonce ?? AES.GCM.Nonce()
            do {
                let box = try AEAD.seal(
                    Array(message), using: key.key, nonce: nonce.bytes, authenticating: Array(authenticatedData),
                    algorithm: algorithm)
                return try SealedBox(nonce: nonce, ciphertext: box.ciphertext, tag: box.tag)
            } catch let error as CryptoKitError {
                throw error
            } catch {
                throw CryptoKitError.from(error)
            }
        }

        // https://developer.apple.com/documentation/cryptokit/aes/gcm/seal(_:using:nonce:)
        /// Secures the given plaintext message with encryption and an authentication tag.
        ///
        /// - Parameters:
        ///   - message: The plaintext data to seal.
        ///   - key: A 128- or 256-bit key.
        ///   - nonce: The nonce; a random one when nil.
        /// - Returns: The sealed message.
        /// - Throws: ``CryptoKitError/incorrectKeySize`` for other key sizes.
        public static func seal<Plaintext: DataProtocol>(
            _ message: Plaintext,
            using key: SymmetricKey,
            nonce: AES.GCM.Nonce? = nil
        ) throws -> AES.GCM.SealedBox {
            try seal(message, using: key, nonce: nonce, authenticating: [UInt8]())
        }

        // https://developer.apple.com/documentation/cryptokit/aes/gcm/open(_:using:authenticating:)
        /// Decrypts the message and verifies the authenticity of both the encrypted message and additional data.
        ///
        /// - Parameters:
        ///   - sealedBox: The sealed box to open.
        ///   - key: The cryptographic key that was used to seal the message.
        ///   - authenticatedData: Additional data that was authenticated.
        /// - Returns: The original plaintext message.
        /// - Throws: ``CryptoKitError/authenticationFailure`` when the tag does not verify;
        ///   ``CryptoKitError/incorrectKeySize`` for a key of another size.
        public static func open<AuthenticatedData: DataProtocol>(
            _ sealedBox: AES.GCM.SealedBox,
            using key: SymmetricKey,
            authenticating authenticatedData: AuthenticatedData
        ) throws -> Data {
            let algorithm = try algorithm(for: key)
            let box = RampartCrypto.SealedBox(
                nonce: sealedBox.nonce.bytes, ciphertext: Array(sealedBox.ciphertext), tag: Array(sealedBox.tag))
            do {
                return Data(
                    try AEAD.open(box, using: key.key, authenticating: Array(authenticatedData), algorithm: algorithm))
            } catch {
                throw CryptoKitError.from(error)
            }
        }

        // https://developer.apple.com/documentation/cryptokit/aes/gcm/open(_:using:)
        /// Decrypts the message and verifies its authenticity.
        ///
        /// - Parameters:
        ///   - sealedBox: The sealed box to open.
        ///   - key: The cryptographic key that was used to seal the message.
        /// - Returns: The original plaintext message.
        /// - Throws: ``CryptoKitError/authenticationFailure`` when the tag does not verify.
        public static func open(_ sealedBox: AES.GCM.SealedBox, using key: SymmetricKey) throws -> Data {
            try open(sealedBox, using: key, authenticating: [UInt8]())
        }

        private static func algorithm(for key: SymmetricKey) throws -> AEADAlgorithm {
            switch key.bitCount {
            case 128: .aes128GCM
            case 256: .aes256GCM
            default: throw CryptoKitError.incorrectKeySize
            }
        }
    }
}

// https://developer.apple.com/documentation/cryptokit/chachapoly
/// An implementation of the ChaCha20-Poly1305 cipher.
public enum ChaChaPoly {
    // https://developer.apple.com/documentation/cryptokit/chachapoly/nonce
    /// A value used once during a cryptographic operation and then discarded.
    public struct Nonce: ContiguousBytes, Sequence, Sendable {
        let bytes: [UInt8]

        // https://developer.apple.com/documentation/cryptokit/chachapoly/nonce/init()
        /// Creates a new random nonce.
        public init() { self.bytes = SecureRandom.bytes(count: AEADAlgorithm.nonceByteCount) }

        // https://developer.apple.com/documentation/cryptokit/chachapoly/nonce/init(data:)
        /// Creates a nonce from the given data.
        ///
        /// - Parameter data: A 12-byte data representation of the nonce.
        /// - Throws: ``CryptoKitError/incorrectParameterSize`` if the data isn't 12 bytes long.
        public init<D: DataProtocol>(data: D) throws {
            guard data.count == AEADAlgorithm.nonceByteCount else { throw CryptoKitError.incorrectParameterSize }
            self.bytes = Array(data)
        }

        /// Calls `body` with the nonce bytes.
        ///
        /// - Parameter body: The closure.
        /// - Returns: What `body` returns.
        public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
            try bytes.withUnsafeBytes(body)
        }

        /// An iterator over the nonce bytes.
        ///
        /// - Returns: The iterator.
        public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
    }

    // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox
    /// A secure container for your data that you access using a cipher.
    public struct SealedBox: Sendable {
        // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox/nonce
        /// The nonce used to encrypt the data.
        public let nonce: ChaChaPoly.Nonce
        // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox/ciphertext
        /// The encrypted data.
        public let ciphertext: Data
        // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox/tag
        /// An authentication tag.
        public let tag: Data

        // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox/combined
        /// A combined element composed of the nonce, encrypted data, and authentication tag.
        public var combined: Data { Data(nonce.bytes) + ciphertext + tag }

        // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox/init(nonce:ciphertext:tag:)
        /// Creates a sealed box from the given tag, nonce, and ciphertext.
        ///
        /// - Parameters:
        ///   - nonce: The nonce.
        ///   - ciphertext: The encrypted data.
        ///   - tag: An authentication tag (16 bytes).
        /// - Throws: ``CryptoKitError/incorrectParameterSize`` when the tag is not 16 bytes.
        public init<C: DataProtocol, T: DataProtocol>(nonce: ChaChaPoly.Nonce, ciphertext: C, tag: T) throws {
            guard tag.count == AEADAlgorithm.tagByteCount else { throw CryptoKitError.incorrectParameterSize }
            self.nonce = nonce
            self.ciphertext = Data(ciphertext)
            self.tag = Data(tag)
        }

        // https://developer.apple.com/documentation/cryptokit/chachapoly/sealedbox/init(combined:)
        /// Creates a sealed box from the combined bytes of a nonce, encrypted data and tag.
        ///
        /// - Parameter combined: The combined bytes.
        /// - Throws: ``CryptoKitError/incorrectParameterSize`` when shorter than nonce plus tag.
        public init<D: DataProtocol>(combined: D) throws {
            let bytes = Array(combined)
            guard bytes.count >= AEADAlgorithm.nonceByteCount + AEADAlgorithm.tagByteCount else {
                throw CryptoKitError.incorrectParameterSize
            }
            self.nonce = try ChaChaPoly.Nonce(data: bytes.prefix(AEADAlgorithm.nonceByteCount))
            self.ciphertext = Data(bytes.dropFirst(AEADAlgorithm.nonceByteCount).dropLast(AEADAlgorithm.tagByteCount))
            self.tag = Data(bytes.suffix(AEADAlgorithm.tagByteCount))
        }
    }

    // https://developer.apple.com/documentation/cryptokit/chachapoly/seal(_:using:nonce:authenticating:)
    /// Secures the given plaintext message with encryption and an authentication tag that covers both the encrypted
    /// data and additional data.
    ///
    /// - Parameters:
    ///   - message: The plaintext data to seal.
    ///   - key: A 256-bit key.
    ///   - nonce: The nonce; a random one when nil.
    ///   - authenticatedData: Additional data to be authenticated.
    /// - Returns: The sealed message.
    /// - Throws: ``CryptoKitError/incorrectKeySize`` for a key that is not 256 bits.
    public static func seal<Plaintext: DataProtocol, AuthenticatedData: DataProtocol>(
        _ message: Plaintext,
        using key: SymmetricKey,
        nonce: ChaChaPoly.Nonce? = nil,
        authenticating authenticatedData: AuthenticatedData
    ) throws -> ChaChaPoly.SealedBox {
        guard key.bitCount == 256 else { throw CryptoKitError.incorrectKeySize }
        let nonce = nonce ?? ChaChaPoly.Nonce()
        do {
            let box = try AEAD.seal(
                Array(message), using: key.key, nonce: nonce.bytes, authenticating: Array(authenticatedData),
                algorithm: .chaCha20Poly1305)
            return try SealedBox(nonce: nonce, ciphertext: box.ciphertext, tag: box.tag)
        } catch let error as CryptoKitError {
            throw error
        } catch {
            throw CryptoKitError.from(error)
        }
    }

    // https://developer.apple.com/documentation/cryptokit/chachapoly/seal(_:using:nonce:)
    /// Secures the given plaintext message with encryption and an authentication tag.
    ///
    /// - Parameters:
    ///   - message: The plaintext data to seal.
    ///   - key: A 256-bit key.
    ///   - nonce: The nonce; a random one when nil.
    /// - Returns: The sealed message.
    /// - Throws: ``CryptoKitError/incorrectKeySize`` for a key that is not 256 bits.
    public static func seal<Plaintext: DataProtocol>(
        _ message: Plaintext,
        using key: SymmetricKey,
        nonce: ChaChaPoly.Nonce? = nil
    ) throws -> ChaChaPoly.SealedBox {
        try seal(message, using: key, nonce: nonce, authenticating: [UInt8]())
    }

    // https://developer.apple.com/documentation/cryptokit/chachapoly/open(_:using:authenticating:)
    /// Decrypts the message and verifies the authenticity of both the encrypted message and additional data.
    ///
    /// - Parameters:
    ///   - sealedBox: The sealed box to open.
    ///   - key: The cryptographic key that was used to seal the message.
    ///   - authenticatedData: Additional data that was authenticated.
    /// - Returns: The original plaintext message.
    /// - Throws: ``CryptoKitError/authenticationFailure`` when the tag does not verify.
    public static func open<AuthenticatedData: DataProtocol>(
        _ sealedBox: ChaChaPoly.SealedBox,
        using key: SymmetricKey,
        authenticating authenticatedData: AuthenticatedData
    ) throws -> Data {
        guard key.bitCount == 256 else { throw CryptoKitError.incorrectKeySize }
        let box = RampartCrypto.SealedBox(
            nonce: sealedBox.nonce.bytes, ciphertext: Array(sealedBox.ciphertext), tag: Array(sealedBox.tag))
        do {
            return Data(
                try AEAD.open(
                    box, using: key.key, authenticating: Array(authenticatedData), algorithm: .chaCha20Poly1305))
        } catch {
            throw CryptoKitError.from(error)
        }
    }

    // https://developer.apple.com/documentation/cryptokit/chachapoly/open(_:using:)
    /// Decrypts the message and verifies its authenticity.
    ///
    /// - Parameters:
    ///   - sealedBox: The sealed box to open.
    ///   - key: The cryptographic key that was used to seal the message.
    /// - Returns: The original plaintext message.
    /// - Throws: ``CryptoKitError/authenticationFailure`` when the tag does not verify.
    public static func open(_ sealedBox: ChaChaPoly.SealedBox, using key: SymmetricKey) throws -> Data {
        try open(sealedBox, using: key, authenticating: [UInt8]())
    }
}
