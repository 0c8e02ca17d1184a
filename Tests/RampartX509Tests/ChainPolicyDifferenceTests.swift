import Foundation
import RampartChainVerification
import RampartCrypto
import RampartX509
import TestSupport
import Testing

/// Every rule that differs between ``ChainPolicy/apple`` and ``ChainPolicy/webPKI`` (the table in
/// docs/chain-policies.md), each checked under both policies: the verdict, the certificate and the rule's source in
/// the message.
struct ChainPolicyDifferenceTests {
    typealias Helpers = ChainPolicyTests

    /// A chain built to break exactly one rule.
    struct Scenario {
        var chain: [Certificate]
        var anchors: [Certificate]
        var host = Helpers.host
    }

    /// One rule of the table: what each policy answers and the source its refusal names.
    struct Rule: CustomTestStringConvertible, Sendable {
        let name: String
        /// nil when trusted.
        let apple: ChainFailure.Reason?
        let webPKI: ChainFailure.Reason?
        /// The certificate a refusal concerns.
        let index: Int
        /// Words the refusal's message must hold (its source).
        let source: String
        var testDescription: String { name }
    }

    static let rules: [Rule] = [
        Rule(name: "subject CN not a SAN", apple: nil, webPKI: .hostnameMismatch, index: 0, source: "BR 7.1.4.3"),
        Rule(name: "leaf cA TRUE", apple: nil, webPKI: .leafIsCA, index: 0, source: "BR 7.1.2.7.8"),
        Rule(name: "serial number zero", apple: nil, webPKI: .malformedCertificate, index: 0, source: "4.1.2.2"),
        Rule(
            name: "non-critical nameConstraints", apple: nil, webPKI: .nameConstraints, index: 1,
            source: "RFC 5280 4.2.1.10"),
        Rule(
            name: "non-critical nameConstraints still constrain", apple: .nameConstraints, webPKI: .nameConstraints,
            index: 0, source: ""),
        Rule(name: "nameConstraints in a leaf", apple: nil, webPKI: .nameConstraints, index: 0, source: "4.2.1.10"),
        Rule(
            name: "wildcard SAN over an excluded name", apple: nil, webPKI: .nameConstraints, index: 0,
            source: "policy webpki"),
        Rule(
            name: "non-critical policyConstraints", apple: nil, webPKI: .malformedCertificate, index: 1,
            source: "RFC 5280 4.2.1.11"),
        Rule(
            name: "root authorityKeyIdentifier unequal to its subjectKeyIdentifier", apple: nil,
            webPKI: .malformedCertificate, index: 1, source: "BR 7.1.2.1.3"),
        Rule(name: "root with extendedKeyUsage", apple: nil, webPKI: .wrongPurpose, index: 1, source: "BR 7.1.2.1.2"),
        Rule(name: "leaf lists anyExtendedKeyUsage", apple: nil, webPKI: .wrongPurpose, index: 0, source: "7.1.2.7.10"),
        Rule(name: "critical extendedKeyUsage", apple: nil, webPKI: .wrongPurpose, index: 0, source: "BR 7.1.2.7.6"),
        Rule(
            name: "SAN dNSName with an underscore", apple: nil, webPKI: .malformedCertificate, index: 0,
            source: "RFC 5280 4.2.1.6"),
        Rule(
            name: "leaf valid for 826 days, issued after 2019-07-01", apple: .validityPeriodTooLong, webPKI: nil,
            index: 0, source: "HT210176"),
        Rule(
            name: "leaf without extendedKeyUsage, issued after 2019-07-01", apple: .wrongPurpose, webPKI: nil,
            index: 0, source: "HT210176"),
    ]

    static func nameConstraintsExtension(_ base: String, excluded: Bool, critical: Bool) -> Certificate.Extension {
        Certificate.Extension(
            oid: .X509Extension.nameConstraints, critical: critical,
            value: Helpers.nameConstraints(dnsName: base, excluded: excluded))
    }

    // swift-format-ignore: FunctionBodyLength
    static func scenario(_ rule: Rule) throws -> Scenario {
        let root = try Helpers.ca("Policy Root")
        func direct(_ configure: (inout CertificateBuilder) -> Void) throws -> Scenario {
            Scenario(chain: [try Helpers.leaf(under: root, configure: configure)], anchors: [root.certificate])
        }
        func through(
            _ intermediate: Helpers.Issuer, _ configure: (inout CertificateBuilder) -> Void = { _ in }
        ) throws -> Scenario {
            Scenario(
                chain: [try Helpers.leaf(under: intermediate, configure: configure), intermediate.certificate],
                anchors: [root.certificate])
        }
        switch rule.name {
        case "subject CN not a SAN":
            return try direct { $0.subject = (try? Helpers.name("good")) ?? $0.subject }
        case "leaf cA TRUE":
            return try direct {
                $0.basicConstraints = BasicConstraints(isCA: true)
                $0.subjectKeyIdentifier = [1, 2, 3, 4]
            }
        case "serial number zero":
            return Scenario(chain: [try Helpers.leaf(under: root, serialNumber: [0])], anchors: [root.certificate])
        case "non-critical nameConstraints":
            let ca = try Helpers.ca(
                "Policy Lax CA", issuer: root,
                extra: [nameConstraintsExtension("policy.test", excluded: false, critical: false)])
            return try through(ca)
        case "non-critical nameConstraints still constrain":
            let ca = try Helpers.ca(
                "Policy Lax CA", issuer: root,
                extra: [nameConstraintsExtension("other.test", excluded: false, critical: false)])
            return try through(ca)
        case "nameConstraints in a leaf":
            return try direct {
                $0.extraExtensions = [nameConstraintsExtension("policy.test", excluded: false, critical: true)]
            }
        case "wildcard SAN over an excluded name":
            let ca = try Helpers.ca(
                "Policy Constrained CA", issuer: root,
                extra: [nameConstraintsExtension(Helpers.host, excluded: true, critical: true)])
            var scenario = try through(ca) { $0.subjectAlternativeNames = [.dnsName("*.policy.test")] }
            scenario.host = "other.policy.test"
            return scenario
        case "non-critical policyConstraints":
            // PolicyConstraints ::= SEQUENCE { requireExplicitPolicy [0] SkipCerts } with SkipCerts 5.
            let ca = try Helpers.ca(
                "Policy PC CA", issuer: root,
                extra: [
                    Certificate.Extension(
                        oid: .X509Extension.policyConstraints, critical: false, value: [0x30, 0x03, 0x80, 0x01, 0x05])
                ])
            return try through(ca)
        case "root authorityKeyIdentifier unequal to its subjectKeyIdentifier":
            let key = ECPrivateKey(curve: .p256)
            let subject = try Helpers.name("Policy AKI Root")
            let keyID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: key.publicKey.derRepresentation)
            var builder = CertificateBuilder(
                subject: subject, issuer: subject, publicKey: key.publicKey, notBefore: Helpers.start,
                notAfter: Helpers.start + 3650 * Helpers.day)
            builder.basicConstraints = BasicConstraints(isCA: true)
            builder.keyUsage = [.keyCertSign, .crlSign]
            builder.subjectKeyIdentifier = keyID
            builder.authorityKeyIdentifier = [0x01, 0x02, 0x03, 0x04]
            let akiRoot = Helpers.Issuer(
                certificate: try builder.sign(with: key), key: key, name: subject, keyID: keyID)
            return Scenario(chain: [try Helpers.leaf(under: akiRoot)], anchors: [akiRoot.certificate])
        case "root with extendedKeyUsage":
            let key = ECPrivateKey(curve: .p256)
            let subject = try Helpers.name("Policy EKU Root")
            let keyID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: key.publicKey.derRepresentation)
            var builder = CertificateBuilder(
                subject: subject, issuer: subject, publicKey: key.publicKey, notBefore: Helpers.start,
                notAfter: Helpers.start + 3650 * Helpers.day)
            builder.basicConstraints = BasicConstraints(isCA: true)
            builder.keyUsage = [.keyCertSign, .crlSign]
            builder.subjectKeyIdentifier = keyID
            builder.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth])
            let ekuRoot = Helpers.Issuer(
                certificate: try builder.sign(with: key), key: key, name: subject, keyID: keyID)
            return Scenario(chain: [try Helpers.leaf(under: ekuRoot)], anchors: [ekuRoot.certificate])
        case "leaf lists anyExtendedKeyUsage":
            return try direct {
                $0.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth, .ExtendedKeyUsage.any])
            }
        case "critical extendedKeyUsage":
            return try direct {
                $0.extendedKeyUsage = nil
                $0.extraExtensions = [
                    Certificate.Extension(
                        oid: .X509Extension.extendedKeyUsage, critical: true,
                        value: ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth]).derEncoded)
                ]
            }
        case "SAN dNSName with an underscore":
            var scenario = try direct {
                $0.subject = (try? Helpers.name("a_b.policy.test")) ?? $0.subject
                $0.subjectAlternativeNames = [.dnsName("a_b.policy.test")]
            }
            scenario.host = "a_b.policy.test"
            return scenario
        case "leaf valid for 826 days, issued after 2019-07-01":
            return Scenario(
                chain: [try Helpers.leaf(under: root, notAfter: Helpers.start + 826 * Helpers.day)],
                anchors: [root.certificate])
        case "leaf without extendedKeyUsage, issued after 2019-07-01":
            return try direct { $0.extendedKeyUsage = nil }
        default:
            throw PKIError(message: "no scenario for \(rule.name)")
        }
    }

    @Test("each rule that differs, under apple and under webpki", arguments: rules)
    func difference(_ rule: Rule) throws {
        let scenario = try Self.scenario(rule)
        for (policy, expected) in [(ChainPolicy.apple, rule.apple), (.webPKI, rule.webPKI)] {
            let verdict = try Helpers.verify(
                scenario.chain, anchors: scenario.anchors, purpose: .tlsServer(hostname: scenario.host),
                options: .init(policy: policy))
            guard let expected else {
                #expect(verdict.isTrusted, "\(policy): \(verdict.failure?.description ?? "")")
                continue
            }
            let failure = try #require(verdict.failure, "\(policy): trusted, expected \(expected)")
            #expect(failure.reason == expected, "\(policy): \(failure)")
            #expect(failure.certificateIndex == rule.index, "\(policy): \(failure)")
            if !rule.source.isEmpty {
                #expect(failure.message.contains(rule.source), "\(policy): \(failure.message)")
                #expect(failure.message.contains("policy \(policy)"), "\(policy): \(failure.message)")
            }
        }
    }

    @Test("apple's limits stop at their dates: a leaf issued before 2019-07-01 may run 1,000 days without an EKU")
    func appleDates() throws {
        let issued = Date(timeIntervalSince1970: 1_546_300_800)  // 2019-01-01
        let rootKey = ECPrivateKey(curve: .p256)
        let rootName = try Helpers.name("Policy 2018 Root")
        let rootID = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: rootKey.publicKey.derRepresentation)
        var rootBuilder = CertificateBuilder(
            subject: rootName, issuer: rootName, publicKey: rootKey.publicKey, notBefore: issued - 365 * Helpers.day,
            notAfter: issued + 3650 * Helpers.day)
        rootBuilder.basicConstraints = BasicConstraints(isCA: true)
        rootBuilder.keyUsage = [.keyCertSign, .crlSign]
        rootBuilder.subjectKeyIdentifier = rootID
        let root = Helpers.Issuer(
            certificate: try rootBuilder.sign(with: rootKey), key: rootKey, name: rootName, keyID: rootID)
        let key = ECPrivateKey(curve: .p256)
        var builder = CertificateBuilder(
            subject: try Helpers.name(Helpers.host), issuer: root.name, publicKey: key.publicKey, notBefore: issued,
            notAfter: issued + 1_000 * Helpers.day)
        builder.basicConstraints = BasicConstraints(isCA: false)
        builder.keyUsage = [.digitalSignature]
        builder.subjectAlternativeNames = [.dnsName(Helpers.host)]
        builder.authorityKeyIdentifier = root.keyID
        let leaf = try builder.sign(with: root.key)
        let verdict = try Helpers.verify([leaf], anchors: [root.certificate], at: issued + Helpers.day)
        #expect(verdict.isTrusted, "\(verdict.failure?.description ?? "")")
        // 825 days and trustd's hour of slip are allowed; 826 days are not.
        let today = try Helpers.ca("Policy Root")
        let edge = try Helpers.leaf(under: today, notAfter: Helpers.start + 825 * Helpers.day + 3_600)
        #expect(try Helpers.verify([edge], anchors: [today.certificate]).isTrusted)
    }

    @Test("under the system store, apple allows a leaf issued from 2020-09-01 398 days, not 399")
    func systemStoreValidity() throws {
        let root = try Helpers.ca("Policy Root")
        let verifier = try ChainVerifier(trustAnchors: [root.certificate])
        let short = try Helpers.leaf(under: root, notAfter: Helpers.start + 398 * Helpers.day)
        let long = try Helpers.leaf(under: root, notAfter: Helpers.start + 399 * Helpers.day)
        let path = { (leaf: Certificate) in [leaf, root.certificate] }
        let purpose = ChainVerifier.Purpose.tlsServer(hostname: Helpers.host)
        #expect(verifier.policyFailure(path: path(short), purpose: purpose, anchor: .system) == nil)
        let failure = try #require(verifier.policyFailure(path: path(long), purpose: purpose, anchor: .system))
        #expect(failure.reason == .validityPeriodTooLong)
        #expect(failure.message.contains("at most 398 days"))
        #expect(failure.message.contains("HT211025"))
        #expect(verifier.policyFailure(path: path(long), purpose: purpose, anchor: .given) == nil)
        let webPKI = try ChainVerifier(trustAnchors: [root.certificate], options: .init(policy: .webPKI))
        #expect(webPKI.policyFailure(path: path(long), purpose: purpose, anchor: .system) == nil)
    }

    @Test("a private-CA leaf CN=good outside its SAN is trusted under apple and refused under webpki citing BR 7.1.4.3")
    func privateCA() throws {
        let root = try Helpers.ca("Private Root")
        let leaf = try Helpers.leaf(under: root) {
            $0.subject = (try? Helpers.name("good")) ?? $0.subject
            $0.subjectAlternativeNames = [.dnsName("api.rampart.test"), .dnsName("*.cdn.rampart.test")]
        }
        for host in ["api.rampart.test", "x.cdn.rampart.test"] {
            let purpose = ChainVerifier.Purpose.tlsServer(hostname: host)
            #expect(try Helpers.verify([leaf], anchors: [root.certificate], purpose: purpose).isTrusted)
            let failure = try #require(
                try Helpers.verify(
                    [leaf], anchors: [root.certificate], purpose: purpose, options: .init(policy: .webPKI)
                ).failure)
            #expect(failure.reason == .hostnameMismatch)
            #expect(failure.message.contains("subject CN \"good\" is not one of its subjectAltName dNSNames"))
            #expect(failure.message.contains("policy webpki: BR 7.1.4.3"))
        }
        // Under apple the CN never names the server either.
        let byCN = try #require(
            try Helpers.verify([leaf], anchors: [root.certificate], purpose: .tlsServer(hostname: "good")).failure)
        #expect(byCN.reason == .hostnameMismatch)
    }
}
