import Foundation
import RampartChainVerification
import RampartCrypto
import RampartX509
import TestSupport
import Testing

/// Rampart-side policy on top of OpenSSL, and messages that say what is true: each test asserts the reason, the
/// certificate and the words of the message.
struct ChainPolicyTests {
    /// 2026-01-01T00:00:00Z.
    static let start = Date(timeIntervalSince1970: 1_767_225_600)
    static let day: TimeInterval = 86_400
    static let host = "api.policy.test"

    struct Issuer {
        let certificate: Certificate
        let key: ECPrivateKey
        let name: DistinguishedName
        let keyID: [UInt8]
    }

    static func name(_ text: String) throws -> DistinguishedName {
        try DistinguishedName(attributes: [.init(.NameAttribute.commonName, text)])
    }

    /// A CA, self-signed when `issuer` is nil.
    static func ca(
        _ commonName: String, issuer: Issuer? = nil, usage: KeyUsage = [.keyCertSign, .crlSign],
        extra: [Certificate.Extension] = [], key: ECPrivateKey = ECPrivateKey(curve: .p256)
    ) throws -> Issuer {
        let subject = try name(commonName)
        let keyID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: key.publicKey.derRepresentation)
        var builder = CertificateBuilder(
            subject: subject, issuer: issuer?.name ?? subject, publicKey: key.publicKey, notBefore: start,
            notAfter: start + 3650 * day)
        builder.basicConstraints = BasicConstraints(isCA: true)
        builder.keyUsage = usage
        builder.subjectKeyIdentifier = keyID
        if let issuer { builder.authorityKeyIdentifier = issuer.keyID }
        builder.extraExtensions = extra
        let certificate = try builder.sign(with: issuer?.key ?? key)
        return Issuer(certificate: certificate, key: key, name: subject, keyID: keyID)
    }

    /// A TLS leaf for `host` under `issuer`, adjusted by `configure`.
    static func leaf(
        under issuer: Issuer, notAfter: Date? = nil, subjectPublicKeyInfo: [UInt8]? = nil,
        serialNumber: [UInt8]? = nil, configure: (inout CertificateBuilder) -> Void = { _ in }
    ) throws -> Certificate {
        let key = ECPrivateKey(curve: .p256)
        var builder = CertificateBuilder(
            subject: try name(host), issuer: issuer.name,
            subjectPublicKeyInfo: subjectPublicKeyInfo ?? key.publicKey.derRepresentation, notBefore: start,
            notAfter: notAfter ?? start + 365 * day, serialNumber: serialNumber)
        builder.basicConstraints = BasicConstraints(isCA: false)
        builder.keyUsage = [.digitalSignature]
        builder.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth])
        builder.subjectAlternativeNames = [.dnsName(host)]
        builder.authorityKeyIdentifier = issuer.keyID
        configure(&builder)
        return try builder.sign(with: issuer.key)
    }

    static func verify(
        _ chain: [Certificate], anchors: [Certificate], at time: Date = start + day,
        purpose: ChainVerifier.Purpose = .tlsServer(hostname: host), options: ChainVerifier.Options = .init()
    ) throws -> ChainVerdict {
        try ChainVerifier(trustAnchors: anchors, options: options).verify(chain: chain, at: time, purpose: purpose)
    }

    /// DER of a one-subtree NameConstraints: `[tag] { GeneralSubtree { dNSName base } }` (lengths under 128).
    static func nameConstraints(dnsName base: String, excluded: Bool) -> [UInt8] {
        let dns: [UInt8] = [0x82, UInt8(base.utf8.count)] + Array(base.utf8)
        let subtree: [UInt8] = [0x30, UInt8(dns.count)] + dns
        let subtrees: [UInt8] = [excluded ? 0xA1 : 0xA0, UInt8(subtree.count)] + subtree
        return [0x30, UInt8(subtrees.count)] + subtrees
    }

    /// An RSA SubjectPublicKeyInfo of `bits` bits from the `openssl` tool.
    static func rsaSPKI(bits: Int) throws -> [UInt8] {
        let key = try OpenSSLCLI.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:\(bits)"])
        let spki = try OpenSSLCLI.run(["pkey", "-pubout", "-outform", "DER"], input: key.output)
        return Array(spki.output)
    }

    @Test("notAfter is inclusive: trusted at the exact notAfter, expired one second later with both times named")
    func notAfterInclusive() throws {
        let root = try Self.ca("Policy Root")
        let end = Self.start + 10 * Self.day
        let leaf = try Self.leaf(under: root, notAfter: end)
        #expect(try Self.verify([leaf], anchors: [root.certificate], at: end).isTrusted)
        #expect(try Self.verify([leaf], anchors: [root.certificate], at: end + 0.5).isTrusted)
        let failure = try #require(try Self.verify([leaf], anchors: [root.certificate], at: end + 1).failure)
        #expect(failure.reason == .expired)
        #expect(failure.certificateIndex == 0)
        #expect(
            failure.message.contains("expired at 2026-01-11T00:00:00Z; the validation time is 2026-01-11T00:00:01Z"))
    }

    @Test("wrongPurpose says what is wrong: an EKU without serverAuth, or a keyUsage unfit for TLS with no EKU")
    func wrongPurposeMessages() throws {
        let root = try Self.ca("Policy Root")
        let clientOnly = try Self.leaf(under: root) {
            $0.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.clientAuth])
        }
        let first = try #require(try Self.verify([clientOnly], anchors: [root.certificate]).failure)
        #expect(first.reason == .wrongPurpose)
        #expect(first.certificateIndex == 0)
        #expect(first.message.contains("its extendedKeyUsage lists clientAuth but not serverAuth"))

        let noEKU = try Self.leaf(under: root) {
            $0.extendedKeyUsage = nil
            $0.keyUsage = [.crlSign]
        }
        let second = try #require(try Self.verify([noEKU], anchors: [root.certificate]).failure)
        #expect(second.reason == .wrongPurpose)
        #expect(
            second.message.contains("its keyUsage allows none of digitalSignature, keyEncipherment and keyAgreement"))
        #expect(!second.message.contains("extendedKeyUsage"))
    }

    @Test(
        "a presented CA issuer without keyCertSign is keyUsage at its index, not missingIntermediate or notACA; so is the anchor"
    )
    func refusedIssuer() throws {
        let root = try Self.ca("Policy Root")
        let intermediate = try Self.ca("Policy Signing CA", issuer: root, usage: [.digitalSignature])
        let leaf = try Self.leaf(under: intermediate)
        let failure = try #require(
            try Self.verify([leaf, intermediate.certificate], anchors: [root.certificate]).failure)
        #expect(failure.reason == .keyUsage)
        #expect(failure.certificateIndex == 1)
        #expect(
            failure.message.contains("certificate 1 (CN=Policy Signing CA) was presented as the issuer of the leaf"))
        #expect(failure.message.contains("keyUsage lacks keyCertSign"))

        let weakRoot = try Self.ca("Policy Weak Root", usage: [.digitalSignature])
        let direct = try Self.leaf(under: weakRoot)
        let anchor = try #require(try Self.verify([direct], anchors: [weakRoot.certificate]).failure)
        #expect(anchor.reason == .keyUsage)
        #expect(anchor.certificateIndex == 1)
        #expect(anchor.message.contains("the trust anchor, certificate 1, (CN=Policy Weak Root)"))
    }

    @Test("a not-CA issuer is notACA, and the message says basicConstraints is missing")
    func notACA() throws {
        let root = try Self.ca("Policy Root")
        let key = ECPrivateKey(curve: .p256)
        let keyID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: key.publicKey.derRepresentation)
        var builder = CertificateBuilder(
            subject: try Self.name("Policy Not A CA"), issuer: root.name, publicKey: key.publicKey,
            notBefore: Self.start, notAfter: Self.start + 3650 * Self.day)
        builder.subjectKeyIdentifier = keyID
        builder.authorityKeyIdentifier = root.keyID
        let notCA = Issuer(
            certificate: try builder.sign(with: root.key), key: key, name: try Self.name("Policy Not A CA"),
            keyID: keyID)
        let leaf = try Self.leaf(under: notCA)
        let failure = try #require(try Self.verify([leaf, notCA.certificate], anchors: [root.certificate]).failure)
        #expect(failure.reason == .notACA)
        #expect(failure.certificateIndex == 1)
        #expect(failure.message.contains("it has no basicConstraints extension"))
    }

    @Test("a name-constraint refusal names the name and the constraining CA")
    func nameConstraintMessages() throws {
        let root = try Self.ca("Policy Root")
        let excluding = try Self.ca(
            "Policy Constrained CA", issuer: root,
            extra: [
                Certificate.Extension(
                    oid: .X509Extension.nameConstraints, critical: true,
                    value: Self.nameConstraints(dnsName: Self.host, excluded: true))
            ])
        let leaf = try Self.leaf(under: excluding)
        let failure = try #require(try Self.verify([leaf, excluding.certificate], anchors: [root.certificate]).failure)
        #expect(failure.reason == .nameConstraints)
        #expect(failure.certificateIndex == 0)
        #expect(
            failure.message.contains(
                "has the name api.policy.test, which certificate 1 (CN=Policy Constrained CA) excludes"))

        // A wildcard that could match the excluded name is refused too (OpenSSL accepts it).
        let wildcard = try Self.leaf(under: excluding) { $0.subjectAlternativeNames = [.dnsName("*.policy.test")] }
        let second = try #require(
            try Self.verify(
                [wildcard, excluding.certificate], anchors: [root.certificate],
                purpose: .tlsServer(hostname: "other.policy.test"), options: .init(policy: .webPKI)
            ).failure)
        #expect(second.reason == .nameConstraints)
        #expect(second.message.contains("*.policy.test matches api.policy.test, which certificate 1"))
        #expect(second.message.contains("(CN=Policy Constrained CA) excludes"))

        let noncritical = try Self.ca(
            "Policy Lax CA", issuer: root,
            extra: [
                Certificate.Extension(
                    oid: .X509Extension.nameConstraints, critical: false,
                    value: Self.nameConstraints(dnsName: "policy.test", excluded: false))
            ])
        let third = try #require(
            try Self.verify(
                [try Self.leaf(under: noncritical), noncritical.certificate], anchors: [root.certificate],
                options: .init(policy: .webPKI)
            ).failure)
        #expect(third.reason == .nameConstraints)
        #expect(third.certificateIndex == 1)
        #expect(third.message.contains("carries nameConstraints that are not marked critical"))
    }

    @Test("unhandledCriticalExtension names the extension's identifier")
    func unhandledCriticalExtension() throws {
        let root = try Self.ca("Policy Root")
        let leaf = try Self.leaf(under: root) {
            $0.extraExtensions = [
                Certificate.Extension(oid: "1.3.6.1.4.1.55555.7", critical: true, value: [0x05, 0x00])
            ]
        }
        let failure = try #require(try Self.verify([leaf], anchors: [root.certificate]).failure)
        #expect(failure.reason == .unhandledCriticalExtension)
        #expect(failure.certificateIndex == 0)
        #expect(failure.message.contains("the critical extension 1.3.6.1.4.1.55555.7"))
    }

    @Test(
        "weakKey names the key: RSA 1024 (OpenSSL's level 2), RSA 2052 (the web PKI's multiple of 8)",
        .enabled(if: OpenSSLCLI.available, "the openssl tool is not installed"))
    func weakKey() throws {
        let root = try Self.ca("Policy Root")
        let small = try Self.leaf(under: root, subjectPublicKeyInfo: try Self.rsaSPKI(bits: 1024))
        let first = try #require(try Self.verify([small], anchors: [root.certificate]).failure)
        #expect(first.reason == .weakKey)
        #expect(first.certificateIndex == 0)
        #expect(first.message.contains("(RSA 1024)"))

        let odd = try Self.leaf(under: root, subjectPublicKeyInfo: try Self.rsaSPKI(bits: 2052))
        // Apple trusts it (trustd's minimum is a size, not a multiple); the web PKI refuses it.
        #expect(try Self.verify([odd], anchors: [root.certificate]).isTrusted)
        let second = try #require(
            try Self.verify([odd], anchors: [root.certificate], options: .init(policy: .webPKI)).failure)
        #expect(second.reason == .weakKey)
        #expect(second.message.contains("has an RSA 2052 key"))
        #expect(second.message.contains("divisible by 8"))
        #expect(
            try Self.verify([odd], anchors: [root.certificate], purpose: .none, options: .init(policy: .webPKI))
                .isTrusted)
    }

    @Test("chainTooLong names the intermediate beyond maximumPathLength; self-issued ones are not counted")
    func chainTooLong() throws {
        let root = try Self.ca("Policy Root")
        let first = try Self.ca("Policy CA 1", issuer: root)
        let second = try Self.ca("Policy CA 2", issuer: first)
        let leaf = try Self.leaf(under: second)
        let chain = [leaf, second.certificate, first.certificate]
        let failure = try #require(
            try Self.verify(chain, anchors: [root.certificate], options: .init(maximumPathLength: 3)).failure)
        #expect(failure.reason == .chainTooLong)
        #expect(failure.certificateIndex == 2)
        #expect(failure.message.contains("certificate 2 (CN=Policy CA 1) is intermediate 2 of the path, but at most 1"))
        #expect(try Self.verify(chain, anchors: [root.certificate], options: .init(maximumPathLength: 4)).isTrusted)
    }

    @Test("an intermediate given as the trust anchor ends the path (partial chain)")
    func partialChain() throws {
        let root = try Self.ca("Policy Root")
        let intermediate = try Self.ca("Policy Issuing CA", issuer: root)
        let leaf = try Self.leaf(under: intermediate)
        let verdict = try Self.verify([leaf, root.certificate], anchors: [intermediate.certificate])
        #expect(verdict.path == [leaf, intermediate.certificate])
    }

    @Test("path building backtracks: an expired first candidate issuer does not sink a chain with a valid one")
    func backtracking() throws {
        let root = try Self.ca("Policy Root")
        let key = ECPrivateKey(curve: .p256)
        let keyID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: key.publicKey.derRepresentation)
        func issuing(notAfter: Date) throws -> Certificate {
            var builder = CertificateBuilder(
                subject: try Self.name("Policy Issuing CA"), issuer: root.name, publicKey: key.publicKey,
                notBefore: Self.start, notAfter: notAfter)
            builder.basicConstraints = BasicConstraints(isCA: true)
            builder.keyUsage = [.keyCertSign]
            builder.subjectKeyIdentifier = keyID
            builder.authorityKeyIdentifier = root.keyID
            return try builder.sign(with: root.key)
        }
        let expired = try issuing(notAfter: Self.start + Self.day / 2)
        let valid = try issuing(notAfter: Self.start + 3650 * Self.day)
        let issuer = Issuer(certificate: valid, key: key, name: try Self.name("Policy Issuing CA"), keyID: keyID)
        let leaf = try Self.leaf(under: issuer)
        let verdict = try Self.verify([leaf, expired, valid], anchors: [root.certificate])
        #expect(verdict.path == [leaf, valid, root.certificate])
    }

    @Test(
        "the web PKI profile applies to TLS only: a CA leaf is leafIsCA, a zero serial malformed; both fine for none")
    func webPKIForTLSOnly() throws {
        let webPKI = ChainVerifier.Options(policy: .webPKI)
        let root = try Self.ca("Policy Root")
        let caLeaf = try Self.leaf(under: root) {
            $0.basicConstraints = BasicConstraints(isCA: true)
            $0.subjectKeyIdentifier = [1, 2, 3, 4]
        }
        let first = try #require(try Self.verify([caLeaf], anchors: [root.certificate], options: webPKI).failure)
        #expect(first.reason == .leafIsCA)
        #expect(first.certificateIndex == 0)
        #expect(first.message.contains("is a CA certificate (basicConstraints cA TRUE)"))
        #expect(try Self.verify([caLeaf], anchors: [root.certificate], purpose: .none, options: webPKI).isTrusted)

        let zero = try Self.leaf(under: root, serialNumber: [0])
        let second = try #require(try Self.verify([zero], anchors: [root.certificate], options: webPKI).failure)
        #expect(second.reason == .malformedCertificate)
        #expect(second.message.contains("has a serial number that is zero"))
        #expect(try Self.verify([zero], anchors: [root.certificate], purpose: .none, options: webPKI).isTrusted)
    }

    @Test("a subject CN that is not a SAN entry: trusted under apple, hostnameMismatch naming the CN under webpki")
    func commonName() throws {
        let root = try Self.ca("Policy Root")
        let leaf = try Self.leaf(under: root) { $0.subject = (try? Self.name("Other.Policy.Test")) ?? $0.subject }
        #expect(try Self.verify([leaf], anchors: [root.certificate]).isTrusted)
        let failure = try #require(
            try Self.verify([leaf], anchors: [root.certificate], options: .init(policy: .webPKI)).failure)
        #expect(failure.reason == .hostnameMismatch)
        #expect(failure.message.contains("subject CN \"Other.Policy.Test\" is not one of its subjectAltName dNSNames"))
    }
}
