public import Foundation
internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/curve25519
/// An elliptic curve that enables X25519 key agreement and Ed25519 signatures (the simulation declares the part of
/// it Rampart calls: verifying Ed25519 signatures, over RampartCrypto's OpenSSL Ed25519).
public enum Curve25519 {
    // https://developer.apple.com/documentation/cryptokit/curve25519/signing
    /// A mechanism used to create or verify a cryptographic signature using Ed25519.
    public enum Signing {
        // https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey
        /// A Curve25519 public key used to verify cryptographic signatures.
        public struct PublicKey: Sendable {
            let key: Ed25519PublicKey

            // https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/init(rawrepresentation:)
            /// Creates a Curve25519 public key from a data representation.
            ///
            /// - Parameter rawRepresentation: The 32-byte encoded point.
            /// - Throws: ``CryptoKitError/incorrectKeySize`` for another length.
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {
                let bytes = rawRepresentation.withUnsafeBytes { Array($0) }
                guard bytes.count == 32 else { throw CryptoKitError.incorrectKeySize }
                do { self.key = try Ed25519PublicKey(rawRepresentation: bytes) } catch {
                    throw CryptoKitError.invalidParameter
                }
            }

            // https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/rawrepresentation
            /// A representation of the public key (the 32-byte encoded point).
            public var rawRepresentation: Data { Data(key.rawRepresentation) }

            // https://developer.apple.com/documentation/cryptokit/curve25519/signing/publickey/isvalidsignature(_:for:)
            /// Verifies an EdDSA signature over Curve25519.
            ///
            /// - Parameters:
            ///   - signature: The signature to check against the given data (64 bytes).
            ///   - data: The data covered by the signature.
            /// - Returns: A Boolean value that's `true` when the signature is valid for the given data.
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool {
                key.isValidSignature(Array(signature), for: Array(data))
            }
        }
    }
}
