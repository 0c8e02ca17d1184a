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
        let ed25519 = Ed25519PrivateKey()
        let ed25519Public = ed25519.publicKey
        guard let sig256 = try? p256.signature(for: message), let sig384 = try? p384.signature(for: message),
            let raw256 = try? p256.rawSignature(for: message), let edSignature = try? ed25519.signature(for: message),
            let rsa = try? RSAPrivateKey(bitCount: 2048),
            let rsaPKCS1 = try? rsa.signature(for: message, algorithm: .sha256WithRSAEncryption),
            let rsaPSS = try? rsa.signature(for: message, algorithm: .rsaPSSWithSHA256)
        else {
            print("  setting up keys and signatures failed")
            return
        }
        let rsaPublic = rsa.publicKey
        let spki = p256Public.derRepresentation
        let x963 = p256Public.x963Representation
        let oneKiB = SecureRandom.bytes(count: 1024)
        let key = SymmetricKey()
        let preparedKey = HMACKey(key)
        let token = SecureRandom.bytes(count: 56)  // the size of a sealed challenge's MAC input
        let password = Array("correct horse battery staple".utf8)
        let salt = SecureRandom.bytes(count: 16)
        let peer = ECPrivateKey(curve: .p256).publicKey
        let fast: [(String, () -> Void)] = [
            ("SHA-256 of 1 KiB", { _ = SHA256.hash(oneKiB) }),
            ("HMAC-SHA-256 of 1 KiB", { _ = HMAC.authenticationCode(for: oneKiB, key: key) }),
            ("HMAC-SHA-256 of 56 B", { _ = HMAC.authenticationCode(for: token, key: key) }),
            ("HMAC-SHA-256 of 56 B, HMACKey", { _ = preparedKey.authenticationCode(for: token) }),
            ("AES-256-GCM seal 1 KiB", { _ = try? AEAD.seal(oneKiB, using: key) }),
            ("ECDSA P-256 sign", { _ = try? p256.signature(for: message) }),
            // The floors: one plain EVP_DigestVerifyInit + EVP_DigestVerify each, a context made per call.
            ("ECDSA P-256 verify", { _ = p256Public.isValidSignatureWithFreshContext(sig256, for: message) }),
            ("ECDSA P-384 verify", { _ = p384Public.isValidSignatureWithFreshContext(sig384, for: message) }),
            // What `isValidSignature` costs on a long-lived key: EVP_PKEY_verify on one of its reused contexts.
            ("ECDSA P-256 verify, reused ctx", { _ = p256Public.isValidSignature(sig256, for: message) }),
            ("ECDSA P-256 verify r‖s, reused", { _ = p256Public.isValidRawSignature(raw256, for: message) }),
            ("ECDSA P-384 verify, reused ctx", { _ = p384Public.isValidSignature(sig384, for: message) }),
            ("ECDH P-256", { _ = try? p256.sharedSecretFromKeyAgreement(with: peer) }),
            ("Ed25519 sign", { _ = try? ed25519.signature(for: message) }),
            ("Ed25519 verify", { _ = ed25519Public.isValidSignature(edSignature, for: message) }),
            (
                "RSA-2048 PKCS#1 v1.5 verify",
                { _ = rsaPublic.isValidSignature(rsaPKCS1, for: message, algorithm: .sha256WithRSAEncryption) }
            ),
            (
                "RSA-2048 PSS verify",
                { _ = rsaPublic.isValidSignature(rsaPSS, for: message, algorithm: .rsaPSSWithSHA256) }
            ),
            ("P-256 SPKI import", { _ = try? PublicKey(spkiDER: spki) }),
            ("P-256 X9.63 import", { _ = try? ECPublicKey(x963Representation: x963, curve: .p256) }),
        ]
        for (name, body) in fast {
            let rate = measure(seconds: options.seconds, body)
            print("  \(pad(name)) \(formatRate(rate)) ops/s  \(formatLatency(1 / rate))")
        }
        // Password KDFs cost tens to hundreds of milliseconds each: time whole calls instead of batches of 16.
        let slow: [(String, () -> Void)] = [
            (
                "PBKDF2-SHA-256, 600,000 iter.",
                {
                    _ = try? PBKDF2.deriveKey(
                        password: password, salt: salt, iterationCount: 600_000, outputByteCount: 32)
                }
            ),
            (
                "PBKDF2-SHA-512, 210,000 iter.",
                {
                    _ = try? PBKDF2.deriveKey(
                        password: password, salt: salt, iterationCount: 210_000, outputByteCount: 64, using: .sha512)
                }
            ),
            (
                "scrypt N=2^14 r=8 p=1 (16 MiB)",
                {
                    _ = try? Scrypt.deriveKey(
                        password: password, salt: salt, parameters: .init(cost: 1 << 14, blockSize: 8, parallelism: 1),
                        outputByteCount: 32)
                }
            ),
            (
                "scrypt N=2^17 r=8 p=1 (128 MiB)",
                { _ = try? Scrypt.deriveKey(password: password, salt: salt, outputByteCount: 32) }
            ),
        ]
        for (name, body) in slow {
            let seconds = measureEach(seconds: options.seconds, body)
            print("  \(pad(name)) \(String(format: "%12.2f", 1 / seconds)) ops/s  \(formatLatency(seconds))")
        }
    }

    private static func pad(_ name: String) -> String { name.padding(toLength: 32, withPad: " ", startingAt: 0) }

    /// Runs `body` at least twice and until about `seconds` have passed; returns the mean seconds per call.
    private static func measureEach(seconds: Double, _ body: () -> Void) -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        var runs = 0
        var elapsed = Duration.zero
        while runs < 2 || elapsed < .milliseconds(Int(seconds * 1000)) {
            body()
            runs += 1
            elapsed = clock.now - start
        }
        let total = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return total / Double(runs)
    }

    private static func formatLatency(_ seconds: Double) -> String {
        seconds >= 1e-3 ? String(format: "%9.2f ms/op", seconds * 1e3) : String(format: "%9.2f µs/op", seconds * 1e6)
    }
}
