public import Foundation
internal import RampartCrypto

// https://developer.apple.com/documentation/cryptokit/hmac
/// A hash-based message authentication algorithm (simulated over RampartCrypto's HMAC; SHA-2 hash functions only).
public struct HMAC<H: HashFunction> {
    // https://developer.apple.com/documentation/cryptokit/hmac/mac
    /// An alias for the type of the message authentication code.
    public typealias MAC = HashedAuthenticationCode<H>

    // https://developer.apple.com/documentation/cryptokit/hmac/authenticationcode(for:using:)
    /// Computes a message authentication code for the given data.
    ///
    /// - Parameters:
    ///   - data: The data for which to compute the authentication code.
    ///   - key: The symmetric key used to secure the computation.
    /// - Returns: The message authentication code.
    // The data is any DataProtocol, as CryptoKit declares it (swift-crypto: Sources/Crypto/Message Authentication
    // Codes/HMAC/HMAC.swift:130, 146), not only ContiguousBytes: DispatchData and other non-contiguous data are taken.
    public static func authenticationCode<D: DataProtocol>(for data: D, using key: SymmetricKey) -> MAC {
        HashedAuthenticationCode(
            bytes: RampartCrypto.HMAC.authenticationCode(for: Array(data), key: key.key, using: algorithm))
    }

    // https://developer.apple.com/documentation/cryptokit/hmac/isvalidauthenticationcode(_:authenticating:using:)
    /// Returns a Boolean value indicating whether the given message authentication code is valid for a block of
    /// data (compared in constant time).
    ///
    /// - Parameters:
    ///   - authenticationCode: The authentication code to compare.
    ///   - authenticatedData: The data covered by the authentication code.
    ///   - key: The symmetric key for the authentication code.
    /// - Returns: `true` if the code is valid.
    public static func isValidAuthenticationCode<D: DataProtocol>(
        _ authenticationCode: MAC,
        authenticating authenticatedData: D,
        using key: SymmetricKey
    ) -> Bool {
        let expected = RampartCrypto.HMAC.authenticationCode(
            for: Array(authenticatedData), key: key.key, using: algorithm)
        return ConstantTime.isEqual(expected, authenticationCode.bytes)
    }

    static var algorithm: DigestAlgorithm {
        guard let named = H.self as? any RampartDigestNaming.Type else {
            preconditionFailure("the simulated HMAC supports SHA256, SHA384 and SHA512 only")
        }
        return named.rampartAlgorithm
    }
}

// https://developer.apple.com/documentation/cryptokit/hashedauthenticationcode
/// A hash-based message authentication code.
public struct HashedAuthenticationCode<H: HashFunction>: ContiguousBytes, Hashable, Sequence, Sendable {
    let bytes: [UInt8]

    // https://developer.apple.com/documentation/cryptokit/hashedauthenticationcode/bytecount
    /// The number of bytes in the message authentication code.
    public var byteCount: Int { bytes.count }

    /// Calls `body` with the code's bytes.
    ///
    /// - Parameter body: The closure.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }

    /// An iterator over the code's bytes.
    ///
    /// - Returns: The iterator.
    public func makeIterator() -> Array<UInt8>.Iterator { bytes.makeIterator() }
}

// https://developer.apple.com/documentation/cryptokit/hkdf
/// A standards-based implementation of an HMAC-based Key Derivation Function (HKDF), RFC 5869.
public struct HKDF<H: HashFunction> {
    // https://developer.apple.com/documentation/cryptokit/hkdf/derivekey(inputkeymaterial:salt:info:outputbytecount:)
    /// Derives a symmetric encryption key from a main key or passcode using HKDF key derivation with information and
    /// salt you specify.
    ///
    /// - Important: CryptoKit declares this non-throwing; an `outputByteCount` outside 1…255 × the digest length is a
    ///   programmer error and traps, in the simulation as in CryptoKit.
    /// - Parameters:
    ///   - inputKeyMaterial: The main key or passcode the derivation function uses to derive a key.
    ///   - salt: The salt to use for key derivation.
    ///   - info: The shared information to use for key derivation.
    ///   - outputByteCount: The length in bytes of the resulting symmetric key.
    /// - Returns: The derived symmetric key.
    public static func deriveKey<Salt: DataProtocol, Info: DataProtocol>(
        inputKeyMaterial: SymmetricKey,
        salt: Salt,
        info: Info,
        outputByteCount: Int
    ) -> SymmetricKey {
        do {
            let bytes = try RampartCrypto.HKDF.deriveKey(
                inputKeyMaterial: inputKeyMaterial.key, salt: Array(salt), info: Array(info),
                outputByteCount: outputByteCount, using: HMAC<H>.algorithm)
            return SymmetricKey(data: bytes)
        } catch {
            preconditionFailure("HKDF cannot derive \(outputByteCount) bytes: \(error)")
        }
    }

    // https://developer.apple.com/documentation/cryptokit/hkdf/derivekey(inputkeymaterial:info:outputbytecount:)
    /// Derives a symmetric encryption key from a main key or passcode using HKDF key derivation with information you
    /// specify (and an empty salt).
    ///
    /// - Parameters:
    ///   - inputKeyMaterial: The main key or passcode the derivation function uses to derive a key.
    ///   - info: The shared information to use for key derivation.
    ///   - outputByteCount: The length in bytes of the resulting symmetric key.
    /// - Returns: The derived symmetric key.
    public static func deriveKey<Info: DataProtocol>(
        inputKeyMaterial: SymmetricKey,
        info: Info,
        outputByteCount: Int
    ) -> SymmetricKey {
        deriveKey(inputKeyMaterial: inputKeyMaterial, salt: [UInt8](), info: info, outputByteCount: outputByteCount)
    }
}
