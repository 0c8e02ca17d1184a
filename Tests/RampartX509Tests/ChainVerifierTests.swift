import Foundation
import RampartChainVerification
import RampartCrypto
import RampartX509
import TestSupport
import Testing

/// One row of the badssl.com table, reproduced with the local test PKI.
struct ChainCase: CustomTestStringConvertible, Sendable {
    let leaf: String
    let host: String
    let expected: ChainFailure.Reason?
    let index: Int?
    var testDescription: String { "\(leaf) for \(host) → \(expected?.description ?? "trusted")" }
}

struct ChainVerifierTests {
    static let table: [ChainCase] = [
        ChainCase(leaf: "good", host: "good.rampart.test", expected: nil, index: nil),
        ChainCase(leaf: "good", host: "api.good.rampart.test", expected: nil, index: nil),
        ChainCase(leaf: "good", host: "GOOD.rampart.test.", expected: nil, index: nil),
        ChainCase(leaf: "good", host: "127.0.0.1", expected: nil, index: nil),
        ChainCase(leaf: "expired", host: "expired.rampart.test", expected: .expired, index: 0),
        ChainCase(leaf: "notyet", host: "notyet.rampart.test", expected: .notYetValid, index: 0),
        ChainCase(leaf: "wronghost", host: "wrong.host.badssl.rampart.test", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "good", host: "a.b.good.rampart.test", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "good", host: "127.0.0.2", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "cnonly", host: "good.rampart.test", expected: .hostnameMismatch, index: 0),
        ChainCase(leaf: "selfsigned", host: "selfsigned.rampart.test", expected: .selfSigned, index: 0),
        ChainCase(leaf: "untrusted", host: "untrusted.rampart.test", expected: .untrustedRoot, index: 1),
        ChainCase(leaf: "notaca", host: "notaca.rampart.test", expected: .notACA, index: 1),
        ChainCase(leaf: "clientauth", host: "clientauth.rampart.test", expected: .wrongPurpose, index: 0),
        ChainCase(leaf: "good", host: "-bad-.rampart.test", expected: .invalidHostname, index: nil),
        ChainCase(leaf: "good", host: "*.good.rampart.test", expected: .invalidHostname, index: nil),
    ]

    static func intermediates(of leaf: String, pki: TestPKI) throws -> [[UInt8]] {
        let documents = try PEMDocument.parseAll(pki.text("\(leaf)-chain.pem"))
        return documents.dropFirst().map(\.derBytes)
    }

    @Test("badssl.com table, with and without the signature cache", arguments: table, [0, 64])
    func badssl(_ row: ChainCase, cacheCapacity: Int) throws {
        let pki = try TestPKI.shared.get()
        let verifier = try ChainVerifier(
            trustAnchorDER: [pki.der("root"), pki.der("otherroot")],
            options: .init(signatureCacheCapacity: cacheCapacity))
        let result = verifier.evaluateDER(
            leaf: try pki.der(row.leaf), intermediates: try Self.intermediates(of: row.leaf, pki: pki),
            at: TestPKI.validationTime, purpose: .tlsServer(hostname: row.host))
        switch result {
        case .trusted(let path):
            #expect(row.expected == nil, "trusted, expected \(row.expected?.description ?? "")")
            #expect(path.count == 3)
            #expect(path.last == (try pki.der("root")))
        case .untrusted(let failure):
            #expect(failure.reason == row.expected, "got \(failure.reason) (\(failure.openSSLCode): \(failure.text))")
            #expect(failure.index == row.index)
        }
    }
}

struct ChainVerifierEdgeTests {
    static func verifier(cache: Int = 64) throws -> (ChainVerifier, TestPKI) {
        let pki = try TestPKI.shared.get()
        return (
            try ChainVerifier(
                trustAnchorDER: [pki.der("root")], options: .init(signatureCacheCapacity: cache)), pki
        )
    }

    static func reason(_ result: RawChainResult) -> (ChainFailure.Reason?, Int?) {
        if case .untrusted(let failure) = result { return (failure.reason, failure.index) }
        return (nil, nil)
    }

    @Test("a tampered leaf signature is badSignature at 0, with and without the cache", arguments: [0, 64])
    func tampered(cache: Int) throws {
        let (verifier, pki) = try Self.verifier(cache: cache)
        var leaf = try pki.der("good")
        leaf[leaf.count - 1] ^= 0x01
        let intermediate = try pki.der("intermediate")
        // Warm the cache with the genuine chain first: the tampered one must still fail.
        _ = verifier.evaluateDER(
            leaf: try pki.der("good"), intermediates: [intermediate], at: TestPKI.validationTime, purpose: .none)
        let result = verifier.evaluateDER(
            leaf: leaf, intermediates: [intermediate], at: TestPKI.validationTime, purpose: .none)
        #expect(Self.reason(result) == (.badSignature, 0))
    }

    @Test("a leaf presented without its intermediate is missingIntermediate at 0")
    func missingIntermediate() throws {
        let (verifier, pki) = try Self.verifier()
        let result = verifier.evaluateDER(
            leaf: try pki.der("good"), intermediates: [], at: TestPKI.validationTime,
            purpose: .tlsServer(hostname: "good.rampart.test"))
        #expect(Self.reason(result) == (.missingIntermediate, 0))
    }

    @Test("the validation time is injected: the good chain is expired in 2029 and not yet valid in 2024")
    func injectedTime() throws {
        let (verifier, pki) = try Self.verifier()
        let intermediates = [try pki.der("intermediate")]
        let later = verifier.evaluateDER(
            leaf: try pki.der("good"), intermediates: intermediates,
            at: Date(timeIntervalSince1970: 1_861_920_000), purpose: .none)
        #expect(Self.reason(later) == (.expired, 0))
        let earlier = verifier.evaluateDER(
            leaf: try pki.der("good"), intermediates: intermediates,
            at: Date(timeIntervalSince1970: 1_704_067_200), purpose: .none)
        #expect(Self.reason(earlier) == (.notYetValid, 0))
    }

    @Test("purpose none checks neither the host nor serverAuth (App Attest leaves have no EKU)")
    func purposeNone() throws {
        let (verifier, pki) = try Self.verifier()
        let result = verifier.evaluateDER(
            leaf: try pki.der("clientauth"), intermediates: [try pki.der("intermediate")],
            at: TestPKI.validationTime, purpose: .none)
        guard case .trusted(let path) = result else {
            Issue.record("expected trusted, got \(Self.reason(result))")
            return
        }
        #expect(path.count == 3)
    }

    @Test("the signature cache turns repeated evaluations into hits")
    func cacheHits() throws {
        let (verifier, pki) = try Self.verifier()
        for _ in 0..<3 {
            _ = verifier.evaluateDER(
                leaf: try pki.der("good"), intermediates: [try pki.der("intermediate")], at: TestPKI.validationTime,
                purpose: .tlsServer(hostname: "good.rampart.test"))
        }
        let statistics = try #require(verifier.signatureCacheStatistics)
        #expect(statistics.misses == 2)
        #expect(statistics.hits == 4)
        verifier.clearSignatureCache()
        #expect(verifier.signatureCacheStatistics?.hits == 0)
    }

    @Test("more intermediates than the limit is chainTooLong before any parsing")
    func tooManyIntermediates() throws {
        let (verifier, pki) = try Self.verifier()
        let many = Array(repeating: try pki.der("intermediate"), count: ChainVerifier.maximumIntermediateCount + 1)
        let result = verifier.evaluateDER(
            leaf: try pki.der("good"), intermediates: many, at: TestPKI.validationTime, purpose: .none)
        #expect(Self.reason(result).0 == .chainTooLong)
    }

    @Test("bytes that are not a certificate are malformedCertificate")
    func garbage() throws {
        let (verifier, pki) = try Self.verifier()
        let leaf = verifier.evaluateDER(
            leaf: [0x30, 0x00], intermediates: [], at: TestPKI.validationTime, purpose: .none)
        #expect(Self.reason(leaf).0 == .malformedCertificate)
        let trailing = try pki.der("good") + [0]
        let result = verifier.evaluateDER(leaf: trailing, intermediates: [], at: TestPKI.validationTime, purpose: .none)
        #expect(Self.reason(result).0 == .malformedCertificate)
    }

    @Test("an anchor that is not a certificate is refused with invalidCertificate")
    func badAnchor() {
        #expect(throws: X509Error.invalidCertificate("")) { try ChainVerifier(trustAnchorDER: [[0x30, 0x00]]) }
    }

    @Test("the system trust store loads and does not trust the test root")
    func systemStore() throws {
        let pki = try TestPKI.shared.get()
        let verifier = try ChainVerifier(trustAnchorDER: [], options: .init(includeSystemTrustStore: true))
        let result = verifier.evaluateDER(
            leaf: try pki.der("good"), intermediates: [try pki.der("intermediate")], at: TestPKI.validationTime,
            purpose: .tlsServer(hostname: "good.rampart.test"))
        #expect(Self.reason(result) == (.untrustedRoot, 1))
    }
}

/// The public `Certificate` API over chains made with ``CertificateBuilder``.
struct ChainVerifierBuilderTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)

    static func chain(leafValidity: TimeInterval = 86_400 * 365, eku: Bool = true) throws -> (Certificate, Certificate)
    {
        let rootKey = ECPrivateKey(curve: .p256)
        let leafKey = ECPrivateKey(curve: .p256)
        let rootName = try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "Builder Root")])
        let rootID = try CertificateBuilder.keyIdentifier(forSubjectPublicKeyInfo: rootKey.publicKey.derRepresentation)
        var root = CertificateBuilder(
            subject: rootName, issuer: rootName, publicKey: rootKey.publicKey, notBefore: start,
            notAfter: start.addingTimeInterval(86_400 * 3650))
        root.basicConstraints = BasicConstraints(isCA: true)
        root.keyUsage = [.keyCertSign, .crlSign]
        root.subjectKeyIdentifier = rootID
        var leaf = CertificateBuilder(
            subject: try DistinguishedName(attributes: [.init(.NameAttribute.commonName, "api.builder.test")]),
            issuer: rootName, publicKey: leafKey.publicKey, notBefore: start,
            notAfter: start.addingTimeInterval(leafValidity))
        leaf.keyUsage = [.digitalSignature]
        if eku { leaf.extendedKeyUsage = ExtendedKeyUsage([.ExtendedKeyUsage.serverAuth]) }
        leaf.subjectAlternativeNames = [.dnsName("api.builder.test")]
        leaf.subjectKeyIdentifier = try CertificateBuilder.keyIdentifier(
            forSubjectPublicKeyInfo: leafKey.publicKey.derRepresentation)
        leaf.authorityKeyIdentifier = rootID
        return (try root.sign(with: rootKey), try leaf.sign(with: rootKey))
    }

    @Test("a CertificateBuilder chain is trusted and the path holds the same Certificate values")
    func trusted() throws {
        let (root, leaf) = try Self.chain()
        let verdict = try ChainVerifier(trustAnchors: [root])
            .verify(
                chain: [leaf], at: Self.start.addingTimeInterval(86_400),
                purpose: .tlsServer(hostname: "api.builder.test"))
        #expect(verdict.path == [leaf, root])
        #expect(verdict.failure == nil)
    }

    @Test("an expired leaf says when it expired and what to do")
    func expiredMessage() throws {
        let (root, leaf) = try Self.chain(leafValidity: 3600)
        let verdict = try ChainVerifier(trustAnchors: [root])
            .verify(
                chain: [leaf], at: Self.start.addingTimeInterval(86_400),
                purpose: .tlsServer(hostname: "api.builder.test"))
        let failure = try #require(verdict.failure)
        #expect(failure.reason == .expired)
        #expect(failure.certificateIndex == 0)
        #expect(failure.message.contains("the leaf (CN=api.builder.test) expired at 2026-01-01T01:00:00Z"))
        #expect(failure.message.contains("renew the certificate"))
        #expect(failure.openSSLCode == 10)
    }

    @Test(
        "a leaf without extendedKeyUsage issued in 2026: webpki trusts it for TLS (RFC 5280: any purpose), apple refuses it (HT210176); both trust it for none"
    )
    func purpose() throws {
        let (root, leaf) = try Self.chain(eku: false)
        let time = Self.start.addingTimeInterval(86_400)
        let tls = ChainVerifier.Purpose.tlsServer(hostname: "api.builder.test")
        let webPKI = try ChainVerifier(trustAnchors: [root], options: .init(policy: .webPKI))
        #expect(webPKI.verify(chain: [leaf], at: time, purpose: tls).isTrusted)
        #expect(webPKI.verify(chain: [leaf], at: time, purpose: .none).isTrusted)
        let apple = try ChainVerifier(trustAnchors: [root])
        let failure = try #require(apple.verify(chain: [leaf], at: time, purpose: tls).failure)
        #expect(failure.reason == .wrongPurpose)
        #expect(failure.message.contains("has no extendedKeyUsage, but iOS 13 and later require"))
        #expect(apple.verify(chain: [leaf], at: time, purpose: .none).isTrusted)
    }

    @Test("an empty chain is refused, not a crash")
    func empty() throws {
        let (root, _) = try Self.chain()
        let verdict = try ChainVerifier(trustAnchors: [root]).verify(chain: [], at: Self.start, purpose: .none)
        #expect(verdict.failure?.reason == .other)
    }
}
