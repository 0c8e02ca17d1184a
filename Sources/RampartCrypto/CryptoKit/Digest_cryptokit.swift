#if canImport(CryptoKit) || RAMPART_CRYPTOKIT_BACKEND
#if canImport(CryptoKit)
internal import CryptoKit
#else
internal import RampartAppleSimulation
#endif

extension CryptoKitBackend {
    /// One running CryptoKit hash; CryptoKit's hash functions are value types, so a copy is a copy of the state.
    final class DigestContext: CryptoBackendDigestContext {
        private enum State {
            case sha256(CKSHA256)
            case sha384(CKSHA384)
            case sha512(CKSHA512)
        }

        private var state: State

        init(_ algorithm: DigestAlgorithm) {
            switch algorithm {
            case .sha256: state = .sha256(CKSHA256())
            case .sha384: state = .sha384(CKSHA384())
            case .sha512: state = .sha512(CKSHA512())
            }
        }

        private init(state: State) { self.state = state }

        func copy() -> DigestContext { DigestContext(state: state) }

        func update(_ bytes: UnsafeRawBufferPointer) {
            switch state {
            case .sha256(var hasher):
                hasher.update(bufferPointer: bytes)
                state = .sha256(hasher)
            case .sha384(var hasher):
                hasher.update(bufferPointer: bytes)
                state = .sha384(hasher)
            case .sha512(var hasher):
                hasher.update(bufferPointer: bytes)
                state = .sha512(hasher)
            }
        }

        func finalize() -> [UInt8] {
            switch state {
            case .sha256(let hasher): Array(hasher.finalize())
            case .sha384(let hasher): Array(hasher.finalize())
            case .sha512(let hasher): Array(hasher.finalize())
            }
        }
    }
}

#endif
