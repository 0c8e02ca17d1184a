import Foundation
import RampartChainVerification
import RampartCrypto
import RampartPinning
import RampartX509

/// Chain evaluation + pin check per second, cold and with the verified-signature cache, as multiples of the ECDSA
/// P-256 verification they are built on (a three-certificate chain holds two signatures to check).
enum TrustBenchmarks {
    struct Chain {
        let root: Certificate
        let intermediate: Certificate
        let leaf: Certificate
    }

    static func makeChain() throws -> Chain {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let rootKey = ECPrivateKey(curve: .p256)
        let intermediateKey = ECPrivateKey(curve: .p256)
        let leafKey = ECPrivateKey(curve: .p256)
        let rootName = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Bench Root")])
        let intermediateName = try DistinguishedName(attributes: [
            .init(.NameAttribute.commonName, "Bench Intermediate")
        ])
        let rootID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: rootKey.publicKey.derRepresentation)
        let intermediateID = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: intermediateKey.publicKey.derRepresentation)
        var root = CertificateBuilder(
            subject: rootName, issuer: rootName, publicKey: rootKey.publicKey, notBefore: start,
            notAfter: start.addingTimeInterval(86_400 * 3650))
        root.basicConstraints = BasicConstraints(isCA: true)
        root.keyUsage = [.keyCertSign, .crlSign]
        root.subjectKeyIdentifier = rootID
        var intermediate = CertificateBuilder(
            subject: intermediateName, issuer: rootName, publicKey: intermediateKey.publicKey, notBefore: start,
            notAfter: start.addingTimeInterval(86_400 * 1825))
        intermediate.basicConstraints = BasicConstraints(isCA: true, pathLengthConstraint: 0)
        intermediate.keyUsage = [.keyCertSign, .crlSign]
        intermediate.subjectKeyIdentifier = intermediateID
        intermediate.authorityKeyIdentifier = rootID
        var leaf = CertificateBuilder(
            subject: try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "bench.rampart.test")]),
            issuer: intermediateName, publicKey: leafKey.publicKey, notBefore: start,
            notAfter: start.addingTimeInterval(86_400 * 365))
        leaf.basicConstraints = BasicConstraints(isCA: false)
        leaf.keyUsage = [.digitalSignature]
        leaf.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth])
        leaf.subjectAlternativeNames = [.dnsName("bench.rampart.test")]
        leaf.subjectKeyIdentifier = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: leafKey.publicKey.derRepresentation)
        leaf.authorityKeyIdentifier = intermediateID
        return Chain(
            root: try root.sign(with: rootKey), intermediate: try intermediate.sign(with: rootKey),
            leaf: try leaf.sign(with: intermediateKey))
    }

    static func run(_ options: BenchOptions) {
        do {
            try measureAll(options)
        } catch {
            print("  trust benchmark setup failed: \(error)")
        }
    }

    static func measureAll(_ options: BenchOptions) throws {
        let chain = try makeChain()
        let presented = [chain.leaf, chain.intermediate]
        let time = Date(timeIntervalSince1970: 1_780_272_000)
        let host = "bench.rampart.test"
        let configuration = try PinConfiguration(policies: [
            PinPolicy(
                domain: host,
                caPins: [
                    try Pin(kind: .spkiSHA256, base64: chain.intermediate.spkiSHA256),
                    try Pin(kind: .spkiSHA256, base64: chain.root.spkiSHA256),
                ])
        ])
        let cold = try PinValidator(
            configuration: configuration, trustAnchors: [chain.root],
            options: .init(signatureCacheCapacity: 0, certificateCacheCapacity: 0))
        let signatures = try PinValidator(
            configuration: configuration, trustAnchors: [chain.root], options: .init(certificateCacheCapacity: 0))
        let cached = try PinValidator(configuration: configuration, trustAnchors: [chain.root])
        guard cold.evaluate(chain: presented, host: host, at: time).outcome == .pinned,
            cached.evaluate(chain: presented, host: host, at: time).outcome == .pinned
        else {
            print("  the benchmark chain was not allowed; nothing measured")
            return
        }
        let coldVerifier = cold.defaultVerifier
        let signatureVerifier = signatures.defaultVerifier
        let cachedVerifier = cached.defaultVerifier

        let key = ECPrivateKey(curve: .p256)
        let message = SecureRandom.bytes(count: 32)
        let signature = try key.signature(for: message)
        let publicKey = key.publicKey
        // The floor is one plain EVP_DigestVerify, as each certificate signature in the chain costs OpenSSL; the
        // reused contexts of `isValidSignature` would make it faster than any chain check can be.
        let verifyRate = measure(seconds: options.seconds) {
            _ = publicKey.isValidSignatureWithFreshContext(signature, for: message)
        }

        let purpose = ChainVerifier.Purpose.tlsServer(hostname: host)
        let rows: [(String, Double)] = [
            (
                "chain evaluation, cold",
                measure(seconds: options.seconds) {
                    _ = coldVerifier.verify(chain: presented, at: time, purpose: purpose)
                }
            ),
            (
                "chain evaluation, sig cache",
                measure(seconds: options.seconds) {
                    _ = signatureVerifier.verify(chain: presented, at: time, purpose: purpose)
                }
            ),
            (
                "chain evaluation, sig+cert cache",
                measure(seconds: options.seconds) {
                    _ = cachedVerifier.verify(chain: presented, at: time, purpose: purpose)
                }
            ),
            (
                "chain + pin check, cold",
                measure(seconds: options.seconds) { _ = cold.evaluate(chain: presented, host: host, at: time) }
            ),
            (
                "chain + pin check, sig cache",
                measure(seconds: options.seconds) { _ = signatures.evaluate(chain: presented, host: host, at: time) }
            ),
            (
                "chain + pin check, sig+cert cache",
                measure(seconds: options.seconds) { _ = cached.evaluate(chain: presented, host: host, at: time) }
            ),
        ]
        print(
            "  \("ECDSA P-256 verify (floor)".padding(toLength: 34, withPad: " ", startingAt: 0)) \(formatRate(verifyRate)) ops/s"
        )
        for (name, rate) in rows {
            let cost = verifyRate / rate
            print(
                "  \(name.padding(toLength: 34, withPad: " ", startingAt: 0)) \(formatRate(rate)) ops/s"
                    + String(format: "   = %5.2f × one P-256 verify (the chain holds 2 signatures)", cost))
        }
        let coldPins = rows[3].1
        print(
            String(
                format: "  speed-up on chain + pins: signature cache %.2f×, both caches %.2f×", rows[4].1 / coldPins,
                rows[5].1 / coldPins))
        if let statistics = cachedVerifier.signatureCacheStatistics {
            print("  cache: \(statistics.hits) hits, \(statistics.misses) misses")
        }
    }
}
