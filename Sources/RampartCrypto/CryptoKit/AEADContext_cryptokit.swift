#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
internal import Foundation

extension CryptoKitBackend {
    /// The CryptoKit side of ``AEADContext``: CryptoKit keeps no key schedule across calls, so each message is one
    /// `seal`/`open` under the kept key. The front end has checked every size.
    final class AEADContext: CryptoBackendAEADContext {
        private let algorithm: AEADAlgorithm
        private let key: SymmetricKey

        init(algorithm: AEADAlgorithm, key: SymmetricKey, encrypting: Bool) throws {
            self.algorithm = algorithm
            self.key = key
        }

        func seal(
            _ input: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            associatedData: UnsafeRawBufferPointer,
            tag: UnsafeMutableRawBufferPointer
        ) throws {
            let box = try aeadSeal(
                algorithm, key: key, nonce: Array(nonce), plaintext: Array(input), aad: Array(associatedData))
            box.ciphertext.withUnsafeBytes { output.copyMemory(from: $0) }
            box.tag.withUnsafeBytes { tag.copyMemory(from: $0) }
        }

        func open(
            _ input: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            associatedData: UnsafeRawBufferPointer,
            tag: UnsafeRawBufferPointer
        ) throws -> Bool {
            let box = SealedBox(nonce: Array(nonce), ciphertext: Array(input), tag: Array(tag))
            do {
                var plaintext = try aeadOpen(algorithm, key: key, box: box, aad: Array(associatedData))
                defer { plaintext.withUnsafeMutableBytes { cleanse($0) } }
                plaintext.withUnsafeBytes { output.copyMemory(from: $0) }
                return true
            } catch let error as CryptoError where error.code == .authenticationFailure {
                cleanse(output)
                return false
            }
        }
    }
}

@available(*, unavailable)
extension CryptoKitBackend.AEADContext: Sendable {}
#endif
