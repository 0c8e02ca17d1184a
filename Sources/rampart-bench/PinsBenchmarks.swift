import Foundation
import RampartCrypto
import RampartX509

/// `rampart-bench pins`: certificates parsed and pinned per second, as a multiple of the cost of one SHA-256 over the
/// same DER bytes (the floor: a pin is a SHA-256 of part of those bytes).
enum PinsBenchmarks {
    static func run(_ options: BenchOptions) {
        guard let chain = sampleChain() else {
            print("  could not load or build a sample chain")
            return
        }
        for (label, certificate) in zip(["leaf", "intermediate", "root"], chain) {
            let der = certificate.derBytes
            let pinned = measure(seconds: options.seconds) {
                _ = try? Certificate(derEncoded: der).spkiSHA256
            }
            let parsed = measure(seconds: options.seconds) { _ = try? Certificate(derEncoded: der) }
            let floor = measure(seconds: options.seconds) { _ = SHA256.hash(der) }
            let name = "\(label) (\(certificate.publicKeyDescription), \(der.count) B)"
            print("  \(name.padding(toLength: 34, withPad: " ", startingAt: 0)) parse+pin \(formatRate(pinned)) /s")
            print("  \("".padding(toLength: 34, withPad: " ", startingAt: 0)) parse     \(formatRate(parsed)) /s")
            print("  \("".padding(toLength: 34, withPad: " ", startingAt: 0)) SHA-256   \(formatRate(floor)) /s")
            print(
                String(format: "  %@ ratio: one parse+pin costs %.1f SHA-256s of the certificate", "", floor / pinned))
        }
        let pem = Array(chain.map(\.pemString).joined().utf8)
        let files = measure(seconds: options.seconds) {
            _ = try? Certificate.parseAll(pem).map(\.spkiSHA256)
        }
        let floor = measure(seconds: options.seconds) { _ = SHA256.hash(pem) }
        print(
            "  PEM chain file (\(chain.count) certs, \(pem.count) B): \(formatRate(files * Double(chain.count))) certs/s"
        )
        print(String(format: "    ratio: one chain costs %.1f SHA-256s of the file", floor / files))
    }

    /// Examples/sample-chain.pem when run from the package, else a chain built in memory.
    static func sampleChain() -> [Certificate]? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for path in ["Examples/sample-chain.pem", root.appendingPathComponent("Examples/sample-chain.pem").path] {
            if let data = FileManager.default.contents(atPath: path), let chain = try? Certificate.parseAll(Array(data))
            {
                return chain
            }
        }
        let key = ECPrivateKey(curve: .p256)
        guard let name = try? DistinguishedName(attributes: [.init(.NameAttribute.commonName, "bench")]),
            let certificate = try? CertificateBuilder(
                subject: name, issuer: name, publicKey: key.publicKey, notBefore: Date(),
                notAfter: Date() + 86_400
            ).sign(with: key)
        else { return nil }
        return [certificate]
    }
}
