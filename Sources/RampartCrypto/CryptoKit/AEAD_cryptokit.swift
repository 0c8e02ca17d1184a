#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import RampartAppleSimulation
#endif
internal import Foundation

extension CryptoKitBackend {
    /// CryptoKit's AES-GCM nonces are at least 12 bytes (`AES.GCM.Nonce(data:)` throws below that); the neutral API's
    /// 1…11-byte GCM nonces are refused on this backend rather than silently changed.
    static func checkCryptoKitNonce(_ algorithm: AEADAlgorithm, nonce: [UInt8]) throws {
        if algorithm != .chaCha20Poly1305, nonce.count < AEADAlgorithm.nonceByteCount {
            throw CryptoError.unsupportedAlgorithm(
                "AES-GCM nonces shorter than 12 bytes need the OpenSSL backend; CryptoKit takes 12…"
                    + "\(AEADAlgorithm.maximumGCMNonceByteCount) bytes (got \(nonce.count)); use 12 random bytes")
        }
    }

    static func aeadSeal(
        _ algorithm: AEADAlgorithm,
        key: SymmetricKey,
        nonce: [UInt8],
        plaintext: some ContiguousBytes,
        aad: some ContiguousBytes
    ) throws -> SealedBox {
        try checkCryptoKitNonce(algorithm, nonce: nonce)
        let message = plaintext.withUnsafeBytes { Array($0) }
        let associated = aad.withUnsafeBytes { Array($0) }
        do {
            switch algorithm {
            case .chaCha20Poly1305:
                let box = try ChaChaPoly.seal(
                    message, using: key.cryptoKitKey, nonce: ChaChaPoly.Nonce(data: nonce), authenticating: associated)
                return SealedBox(nonce: nonce, ciphertext: Array(box.ciphertext), tag: Array(box.tag))
            case .aes128GCM, .aes256GCM:
                let box = try AES.GCM.seal(
                    message, using: key.cryptoKitKey, nonce: AES.GCM.Nonce(data: nonce), authenticating: associated)
                return SealedBox(nonce: nonce, ciphertext: Array(box.ciphertext), tag: Array(box.tag))
            }
        } catch {
            throw CryptoError.invalidParameter("CryptoKit refused to seal with \(algorithm.rawValue): \(error)")
        }
    }

    static func aeadOpen(
        _ algorithm: AEADAlgorithm,
        key: SymmetricKey,
        box: SealedBox,
        aad: some ContiguousBytes
    ) throws -> [UInt8] {
        try checkCryptoKitNonce(algorithm, nonce: box.nonce)
        let associated = aad.withUnsafeBytes { Array($0) }
        let opened: Data
        do {
            switch algorithm {
            case .chaCha20Poly1305:
                let sealed = try ChaChaPoly.SealedBox(
                    nonce: ChaChaPoly.Nonce(data: box.nonce), ciphertext: box.ciphertext, tag: box.tag)
                opened = try ChaChaPoly.open(sealed, using: key.cryptoKitKey, authenticating: associated)
            case .aes128GCM, .aes256GCM:
                let sealed = try AES.GCM.SealedBox(
                    nonce: AES.GCM.Nonce(data: box.nonce), ciphertext: box.ciphertext, tag: box.tag)
                opened = try AES.GCM.open(sealed, using: key.cryptoKitKey, authenticating: associated)
            }
        } catch {
            // CryptoKit throws authenticationFailure for a bad tag; nothing is returned, as with OpenSSL.
            throw CryptoError.authenticationFailure()
        }
        return Array(opened)
    }
}

#endif
