// Server-trust challenges are built from a chain, which only the simulation can make, so these run on Linux.
#if canImport(RampartAppleSimulation)
import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartPinning
import RampartX509
import TestSupport
import Testing

/// After a failed evaluation SecTrust's chain is trustd's best path (trust/trustd/SecTrustServer.c:1456), not the
/// certificates the trust was created with.
@Suite("SecTrust best path after a failed evaluation")
struct TrustBestPathTests {
    let fixture: TrustFixture

    init() throws { fixture = try TrustFixture() }

    func der(_ chain: CFArray?) -> [[UInt8]] {
        ((chain as? [SecCertificate]) ?? []).map { Array(SecCertificateCopyData($0)) }
    }

    @Test("a host name mismatch: the path up to the store's root, which the server did not send")
    func hostnameMismatch() throws {
        let trust = try #require(
            try fixture.challenge(chain: "good", host: "wrong.example.test").protectionSpace.serverTrust)
        var error: CFError?
        #expect(!SecTrustEvaluateWithError(trust, &error))
        #expect(error.map { CFErrorGetCode($0) } == CFIndex(errSecHostNameMismatch))
        let pki = fixture.pki
        #expect(
            der(SecTrustCopyCertificateChain(trust)) == [
                try pki.der("good"), try pki.der("intermediate"), try pki.der("root"),
            ])
    }

    @Test("an expired leaf: the built path; an unrelated certificate the server sent is not on it")
    func expiredWithExtraCertificate() throws {
        var certificates = try fixture.chain("expired")
        certificates.append(try fixture.secCertificate("otherroot"))
        var trust: SecTrust?
        #expect(
            SecTrustCreateWithCertificates(
                certificates as CFArray as CFTypeRef, SecPolicyCreateSSL(true, "expired.rampart.test" as CFString),
                &trust) == errSecSuccess)
        let created = try #require(trust)
        #expect(SecTrustSetVerifyDate(created, TestPKI.validationTime as CFDate) == errSecSuccess)
        #expect(!SecTrustEvaluateWithError(created, nil))
        let chain = der(SecTrustCopyCertificateChain(created))
        #expect(chain.first == (try fixture.pki.der("expired")))
        #expect(chain.last == (try fixture.pki.der("root")))
        #expect(!chain.contains(try fixture.pki.der("otherroot")))
    }

    @Test("the delegate's refusal carries the evaluation's path, as a device gives it")
    func delegateRefusal() throws {
        let delegate = PinningURLSessionDelegate(configuration: try PinConfiguration(policies: []))
        let decision = try #require(
            delegate.evaluate(try fixture.challenge(chain: "good", host: "wrong.example.test")).decision)
        #expect(decision.outcome == .defaultEvaluationFailed)
        #expect(decision.presented.map(\.derBytes).last == (try fixture.pki.der("root")))
    }
}
#endif
