// The decision table needs server-trust challenges built from a chain, which only the simulation can make (on a
// device they come from a TLS handshake), so these tests run where RampartAppleSimulation exists: on Linux.
#if canImport(RampartAppleSimulation)
import Foundation
import RampartApple
@_spi(Testing) import RampartAppleSimulation
import RampartPinning
import RampartX509
import Synchronization
import TestSupport
import Testing

/// Builds challenges from the test PKI as the URL loading system would: a SecTrust over the presented chain with an
/// SSL policy for the host, evaluated at the PKI's validation time.
struct TrustFixture {
    let pki: TestPKI

    init() throws {
        pki = try TestPKI.shared.get()
        // The simulated device trusts the test root only (not Debian's bundle, not the "other" root).
        SimulatedTrustStore.install([try secCertificate("root")], includesSystemBundle: false)
    }

    func secCertificate(_ name: String) throws -> SecCertificate {
        try #require(SecCertificateCreateWithData(nil, Data(try pki.der(name)) as CFData))
    }

    func chain(_ name: String) throws -> [SecCertificate] {
        let certificates = try Certificate.parseAll(Array(try pki.text("\(name)-chain.pem").utf8))
        return try certificates.map { try #require(SecCertificateCreateWithData(nil, Data($0.derBytes) as CFData)) }
    }

    func spki(_ name: String) throws -> Pin {
        try Pin(kind: .spkiSHA256, base64: try Certificate(derEncoded: try pki.der(name)).spkiSHA256)
    }

    func challenge(chain name: String, host: String) throws -> URLAuthenticationChallenge {
        var trust: SecTrust?
        let status = SecTrustCreateWithCertificates(
            try chain(name) as CFArray as CFTypeRef, SecPolicyCreateSSL(true, host as CFString), &trust)
        #expect(status == errSecSuccess)
        let created = try #require(trust)
        #expect(SecTrustSetVerifyDate(created, TestPKI.validationTime as CFDate) == errSecSuccess)
        return URLAuthenticationChallenge(
            protectionSpace: URLProtectionSpace(simulatedServerTrust: created, host: host),
            proposedCredential: nil, previousFailureCount: 0)
    }
}

/// Collects the decisions a delegate reports.
final class ReportLog: Sendable {
    private let entries = Mutex<[PinningDecision]>([])
    var decisions: [PinningDecision] { entries.withLock { $0 } }
    func append(_ decision: PinningDecision) { entries.withLock { $0.append(decision) } }
}

/// One row of the decision table.
struct DelegateCase: CustomTestStringConvertible, Sendable {
    let name: String
    let chain: String
    let host: String
    let policies: @Sendable (TrustFixture) throws -> [PinPolicy]
    let disposition: URLSession.AuthChallengeDisposition
    let outcome: PinningDecision.Outcome
    let reported: Bool

    var testDescription: String { name }
}

private let expiry = TestPKI.validationTime.addingTimeInterval(-86_400)

private let decisionTable: [DelegateCase] = [
    DelegateCase(
        name: "good chain, CA pin on the intermediate", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "good.rampart.test", caPins: [try $0.spki("intermediate")])] },
        disposition: .useCredential, outcome: .pinned, reported: false),
    DelegateCase(
        name: "good chain, CA pin on the root the server did not send", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "good.rampart.test", caPins: [try $0.spki("root")])] },
        disposition: .useCredential, outcome: .pinned, reported: false),
    DelegateCase(
        name: "good chain, leaf pin", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "good.rampart.test", leafPins: [try $0.spki("good")])] },
        disposition: .useCredential, outcome: .pinned, reported: false),
    DelegateCase(
        name: "wrong pin", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "good.rampart.test", caPins: [try $0.spki("otherroot")])] },
        disposition: .cancelAuthenticationChallenge, outcome: .pinMismatch, reported: true),
    DelegateCase(
        name: "the leaf's pin in the CA list matches nothing", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "good.rampart.test", caPins: [try $0.spki("good")])] },
        disposition: .cancelAuthenticationChallenge, outcome: .pinMismatch, reported: true),
    DelegateCase(
        name: "the intermediate's pin in the leaf list matches nothing", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "good.rampart.test", leafPins: [try $0.spki("intermediate")])] },
        disposition: .cancelAuthenticationChallenge, outcome: .pinMismatch, reported: true),
    DelegateCase(
        name: "one-level subdomain is covered by includesSubdomains", chain: "good", host: "good.rampart.test",
        policies: {
            [PinPolicy(domain: "rampart.test", includesSubdomains: true, caPins: [try $0.spki("otherroot")])]
        },
        disposition: .cancelAuthenticationChallenge, outcome: .pinMismatch, reported: true),
    DelegateCase(
        name: "subdomain without includesSubdomains is not pinned", chain: "good", host: "good.rampart.test",
        policies: { [PinPolicy(domain: "rampart.test", caPins: [try $0.spki("otherroot")])] },
        disposition: .useCredential, outcome: .notPinned, reported: false),
    DelegateCase(
        name: "report-only mismatch is allowed and reported", chain: "good", host: "good.rampart.test",
        policies: {
            [PinPolicy(domain: "good.rampart.test", caPins: [try $0.spki("otherroot")], isReportOnly: true)]
        },
        disposition: .useCredential, outcome: .reportOnlyMismatch, reported: true),
    DelegateCase(
        name: "expired pins are no longer enforced, and reported", chain: "good", host: "good.rampart.test",
        policies: {
            [PinPolicy(domain: "good.rampart.test", caPins: [try $0.spki("otherroot")], expirationDate: expiry)]
        },
        disposition: .useCredential, outcome: .pinsExpired, reported: true),
    DelegateCase(
        name: "untrusted chain is refused even with a matching pin", chain: "untrusted",
        host: "untrusted.rampart.test",
        policies: { [PinPolicy(domain: "untrusted.rampart.test", leafPins: [try $0.spki("untrusted")])] },
        disposition: .cancelAuthenticationChallenge, outcome: .defaultEvaluationFailed, reported: true),
    DelegateCase(
        name: "report-only never lets an untrusted chain through", chain: "untrusted", host: "untrusted.rampart.test",
        policies: {
            [PinPolicy(domain: "untrusted.rampart.test", leafPins: [try $0.spki("untrusted")], isReportOnly: true)]
        },
        disposition: .cancelAuthenticationChallenge, outcome: .defaultEvaluationFailed, reported: true),
    DelegateCase(
        name: "expired certificate is refused", chain: "expired", host: "expired.rampart.test",
        policies: { _ in [] }, disposition: .cancelAuthenticationChallenge, outcome: .defaultEvaluationFailed,
        reported: true),
    DelegateCase(
        name: "wrong host is refused", chain: "good", host: "wrong.example.test", policies: { _ in [] },
        disposition: .cancelAuthenticationChallenge, outcome: .defaultEvaluationFailed, reported: true),
    DelegateCase(
        name: "own anchors trust a chain the device does not", chain: "other", host: "good.rampart.test",
        policies: {
            [
                PinPolicy(
                    domain: "good.rampart.test", caPins: [try $0.spki("otherintermediate")],
                    ownAnchors: [try $0.pki.der("otherroot")])
            ]
        },
        disposition: .useCredential, outcome: .pinned, reported: false),
    DelegateCase(
        name: "own anchors replace the device's store", chain: "good", host: "good.rampart.test",
        policies: {
            [
                PinPolicy(
                    domain: "good.rampart.test", caPins: [try $0.spki("intermediate")],
                    ownAnchors: [try $0.pki.der("otherroot")])
            ]
        },
        disposition: .cancelAuthenticationChallenge, outcome: .defaultEvaluationFailed, reported: true),
    DelegateCase(
        name: "without own anchors the other root is not trusted", chain: "other", host: "good.rampart.test",
        policies: { _ in [] }, disposition: .cancelAuthenticationChallenge, outcome: .defaultEvaluationFailed,
        reported: true),
]

@Suite("PinningURLSessionDelegate")
struct PinningURLSessionDelegateTests {
    let fixture: TrustFixture

    init() throws { fixture = try TrustFixture() }

    @Test("the pinning decision table, session level", arguments: decisionTable)
    func sessionLevel(row: DelegateCase) throws {
        let log = ReportLog()
        let delegate = PinningURLSessionDelegate(
            configuration: try PinConfiguration(policies: try row.policies(fixture)),
            now: { TestPKI.validationTime }, report: { log.append($0) })
        let answer = Mutex<(URLSession.AuthChallengeDisposition, Bool)?>(nil)
        delegate.urlSession(.shared, didReceive: try fixture.challenge(chain: row.chain, host: row.host)) {
            disposition, credential in answer.withLock { $0 = (disposition, credential != nil) }
        }
        let (disposition, hasCredential) = try #require(answer.withLock { $0 })
        #expect(disposition == row.disposition)
        #expect(hasCredential == (row.disposition == .useCredential))
        #expect(log.decisions.map(\.outcome) == (row.reported ? [row.outcome] : []))
        let decision = try #require(delegate.evaluate(try fixture.challenge(chain: row.chain, host: row.host)).decision)
        #expect(decision.outcome == row.outcome)
    }

    @Test("the task-level method answers as the session-level one", arguments: decisionTable)
    func taskLevel(row: DelegateCase) throws {
        let delegate = PinningURLSessionDelegate(
            configuration: try PinConfiguration(policies: try row.policies(fixture)), now: { TestPKI.validationTime })
        let answer = Mutex<URLSession.AuthChallengeDisposition?>(nil)
        delegate.urlSession(
            .shared, task: URLSessionTask(), didReceive: try fixture.challenge(chain: row.chain, host: row.host)
        ) { disposition, _ in answer.withLock { $0 = disposition } }
        #expect(answer.withLock { $0 } == row.disposition)
    }

    @Test("a challenge that is not server trust gets default handling and no decision")
    func otherChallenge() throws {
        let delegate = PinningURLSessionDelegate(configuration: try PinConfiguration(policies: []))
        let space = URLProtectionSpace(
            host: "good.rampart.test", port: 443, protocol: "https", realm: "api",
            authenticationMethod: NSURLAuthenticationMethodHTTPBasic)
        let challenge = URLAuthenticationChallenge(
            protectionSpace: space, proposedCredential: nil, previousFailureCount: 0)
        let answer = delegate.evaluate(challenge)
        #expect(answer.disposition == .performDefaultHandling)
        #expect(answer.credential == nil)
        #expect(answer.decision == nil)
    }

    @Test("a failed evaluation carries Security's error code and message into the decision")
    func failureReason() throws {
        let delegate = PinningURLSessionDelegate(configuration: try PinConfiguration(policies: []))
        let decision = try #require(
            delegate.evaluate(try fixture.challenge(chain: "expired", host: "expired.rampart.test")).decision)
        #expect(decision.chainVerdict.failure?.reason == .expired)
        let mismatch = try #require(
            delegate.evaluate(try fixture.challenge(chain: "good", host: "wrong.example.test")).decision)
        #expect(mismatch.chainVerdict.failure?.reason == .hostnameMismatch)
    }

    @Test("one evaluation per challenge, after the policy's own anchors are set", arguments: decisionTable)
    func oneEvaluation(row: DelegateCase) throws {
        let delegate = PinningURLSessionDelegate(
            configuration: try PinConfiguration(policies: try row.policies(fixture)), now: { TestPKI.validationTime })
        let challenge = try fixture.challenge(chain: row.chain, host: row.host)
        _ = delegate.evaluate(challenge)
        #expect(try #require(challenge.protectionSpace.serverTrust).simulatedEvaluationCount == 1)
    }

    @Test("the NSPinnedDomains property list of the configuration")
    func pinnedDomains() throws {
        let pin = try fixture.spki("intermediate")
        let delegate = PinningURLSessionDelegate(
            configuration: try PinConfiguration(policies: [
                PinPolicy(domain: "good.rampart.test", includesSubdomains: true, caPins: [pin])
            ]))
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: delegate.pinnedDomainsPropertyList(), format: nil)
                as? [String: Any])
        let ats = try #require(plist["NSAppTransportSecurity"] as? [String: Any])
        let domains = try #require(ats["NSPinnedDomains"] as? [String: Any])
        let domain = try #require(domains["good.rampart.test"] as? [String: Any])
        #expect(domain["NSIncludesSubdomains"] as? Bool == true)
        let identities = try #require(domain["NSPinnedCAIdentities"] as? [[String: String]])
        #expect(identities == [["SPKI-SHA256-BASE64": pin.base64]])
    }
}

@Suite("SecTrust simulation")
struct SecTrustSimulationTests {
    let fixture: TrustFixture

    init() throws { fixture = try TrustFixture() }

    @Test("SecCertificateCreateWithData refuses what is not DER X.509 and SecCertificateCopyData returns the bytes")
    func certificates() throws {
        #expect(SecCertificateCreateWithData(nil, Data([0x30, 0x00]) as CFData) == nil)
        let der = try fixture.pki.der("good")
        let certificate = try #require(SecCertificateCreateWithData(nil, Data(der) as CFData))
        #expect(Array(SecCertificateCopyData(certificate)) == der)
    }

    @Test("SecTrustCreateWithCertificates takes certificates only (errSecParam otherwise)")
    func createParameters() throws {
        var trust: SecTrust?
        #expect(SecTrustCreateWithCertificates([] as CFArray as CFTypeRef, nil, &trust) == errSecParam)
        #expect(SecTrustCreateWithCertificates(["x"] as CFArray as CFTypeRef, nil, &trust) == errSecParam)
        #expect(trust == nil)
        #expect(SecTrustCreateWithCertificates(try fixture.secCertificate("good"), nil, &trust) == errSecSuccess)
        #expect(trust != nil)
    }

    @Test("evaluation: chain after success, CFError codes on failure, anchors and anchors-only")
    func evaluation() throws {
        let challenge = try fixture.challenge(chain: "good", host: "good.rampart.test")
        let trust = try #require(challenge.protectionSpace.serverTrust)
        // Reading the chain evaluates first (SecTrust.c:2118-2131): the built path, anchor included, not the two
        // certificates presented; the explicit evaluation that follows reuses that result (SecTrust.c:968-976).
        #expect(SecTrustCopyCertificateChain(trust)?.count == 3)
        #expect(trust.simulatedEvaluationCount == 1)
        var error: CFError?
        #expect(SecTrustEvaluateWithError(trust, &error))
        #expect(error == nil)
        #expect(trust.simulatedEvaluationCount == 1)
        #expect(SecTrustCopyCertificateChain(trust)?.count == 3)
        // Anchors of its own replace the store...
        #expect(SecTrustSetAnchorCertificates(trust, [try fixture.secCertificate("otherroot")] as CFArray) == 0)
        #expect(!SecTrustEvaluateWithError(trust, &error))
        #expect(error.map { CFErrorGetCode($0) } == CFIndex(errSecNotTrusted))
        #expect(error.map { CFErrorGetDomain($0) } == "NSOSStatusErrorDomain")
        // ...unless the store's anchors are reenabled.
        #expect(SecTrustSetAnchorCertificatesOnly(trust, false) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(trust, &error))
        #expect(SecTrustSetAnchorCertificates(trust, ["not a certificate"] as CFArray) == errSecParam)
        // A nil array (SecTrust.h: `CFArrayRef __nullable`) returns to the store's anchors.
        #expect(SecTrustSetAnchorCertificates(trust, [try fixture.secCertificate("otherroot")] as CFArray) == 0)
        #expect(!SecTrustEvaluateWithError(trust, nil))
        #expect(SecTrustSetAnchorCertificates(trust, nil) == errSecSuccess)
        #expect(SecTrustEvaluateWithError(trust, nil))
        // The verify date decides validity.
        #expect(SecTrustSetVerifyDate(trust, Date(timeIntervalSince1970: 4_102_444_800) as CFDate) == 0)
        #expect(!SecTrustEvaluateWithError(trust, &error))
        #expect(error.map { CFErrorGetCode($0) } == CFIndex(errSecCertificateExpired))
        #expect(
            !SecTrustEvaluateWithError(
                try #require(
                    try fixture.challenge(chain: "good", host: "other.example").protectionSpace.serverTrust), &error))
        #expect(error.map { CFErrorGetCode($0) } == CFIndex(errSecHostNameMismatch))
        #expect(
            !SecTrustEvaluateWithError(
                try #require(
                    try fixture.challenge(chain: "notyet", host: "notyet.rampart.test").protectionSpace.serverTrust),
                nil))
    }
}
#endif
