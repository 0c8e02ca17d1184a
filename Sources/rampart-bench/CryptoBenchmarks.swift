import Foundation
import RampartCrypto

/// The OpenSSL floors: the cost of the primitives Rampart's operations are built from.
enum CryptoBenchmarks {
    static func run(_ options: BenchOptions) {
        let message = SecureRandom.bytes(count: 32)
        let p256 = ECPrivateKey(curve: .p256)
        let p384 = ECPrivateKey(curve: .p384)
        let p256Public = p256.publicKey
        let p384Public = p384.publicKey
        guard let sig256 = try? p256.signature(for: message), let sig384 = try? p384.signature(for: message) else {
            print("signing failed")
            return
        }
        let oneKiB = SecureRandom.bytes(count: 1024)
        let key = SymmetricKey()
        let rows: [(String, () -> Void)] = [
            ("SHA-256 of 1 KiB", { _ = SHA256.hash(oneKiB) }),
            ("ECDSA P-256 verify", { _ = p256Public.isValidSignature(sig256, for: message) }),
            ("ECDSA P-384 verify", { _ = p384Public.isValidSignature(sig384, for: message) }),
            ("AES-256-GCM seal 1 KiB", { _ = try? AEAD.seal(oneKiB, using: key) }),
        ]
        for (name, body) in rows {
            print(
                "  \(name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(formatRate(measure(seconds: options.seconds, body))) ops/s"
            )
        }
    }
}
