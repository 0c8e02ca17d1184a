public import RampartPinning
import RampartX509

#if canImport(Security)
public import Foundation
import Security
#else
public import Foundation
public import RampartAppleSimulation
#endif

/// A `URLSession` delegate that pins: the platform's default trust evaluation first, then RampartPinning's
/// ``PinConfiguration/decision(host:presented:verdict:at:)`` over the chain it built.
///
/// It only translates. For a server-trust challenge it sets the policy's own anchors if it has any
/// (`SecTrustSetAnchorCertificates`, anchors only), runs `SecTrustEvaluateWithError`, parses each certificate of
/// `SecTrustCopyCertificateChain` with RampartX509 (pins hash the certificate's own SubjectPublicKeyInfo bytes, never
/// a rebuilt key), and hands the verdict to the same decision the server-side `PinValidator` uses. An allowed
/// decision answers `.useCredential` with `URLCredential(trust:)`; a refused one `.cancelAuthenticationChallenge`.
/// Every other challenge gets `.performDefaultHandling`. Report-only mismatches, expired pins and refusals reach
/// `report`, the way TrustKit reports; build a TrustKit JSON body with ``PinningDecision/failureReport(port:appBundleID:appVersion:appVendorID:)``.
///
/// ```swift
/// let pins = try PinConfiguration(contentsOf: pinsData)
/// let delegate = PinningURLSessionDelegate(configuration: pins) { decision in
///     Logger.pinning.error("\(decision.message)")
/// }
/// let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
/// ```
///
/// - Important: Pinning only tightens: a chain the default evaluation refuses is refused whatever the pins say, and
///   report-only mode never lets such a chain through.
public final class PinningURLSessionDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    /// The pins and policies in force, by domain (the adopted signed set's when created with an updater).
    public var configuration: PinConfiguration { pins().configuration }
    private let pins: @Sendable () -> ActivePinSet
    private let now: @Sendable () -> Date
    private let report: (@Sendable (PinningDecision) -> Void)?

    /// Creates a delegate for `configuration`.
    ///
    /// - Parameters:
    ///   - configuration: The pinned domains.
    ///   - now: The clock for pin expiry (inject a fixed one in tests); the current time by default.
    ///   - report: Called with every decision that is not a plain success: a report-only mismatch, expired pins, a
    ///     pin mismatch or a failed default evaluation of a pinned or unpinned host.
    public init(
        configuration: PinConfiguration,
        now: @escaping @Sendable () -> Date = { Date() },
        report: (@Sendable (PinningDecision) -> Void)? = nil
    ) {
        let active = ActivePinSet(configuration: configuration)
        self.pins = { active }
        self.now = now
        self.report = report
    }

    /// Creates a delegate that enforces the pins a ``PinSetUpdater`` holds: the shipped ones, or the last signed
    /// update it adopted (with its deny list). Updates offered to the updater apply to the next challenge — the same
    /// code a server-side check runs (RampartPinning's ``ActivePinSet/decision(host:presented:verdict:at:)``).
    ///
    /// - Parameters:
    ///   - updater: The app's updater.
    ///   - now: The clock for pin expiry; the current time by default.
    ///   - report: As for ``init(configuration:now:report:)``.
    public init(
        updater: PinSetUpdater, now: @escaping @Sendable () -> Date = { Date() },
        report: (@Sendable (PinningDecision) -> Void)? = nil
    ) {
        self.pins = { updater.active }
        self.now = now
        self.report = report
    }

    /// Answers a session-level challenge (`URLSessionDelegate`).
    ///
    /// - Parameters:
    ///   - session: The session.
    ///   - challenge: The challenge.
    ///   - completionHandler: Called once with the disposition and credential.
    public func urlSession(
        _ session: URLSession,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let answer = evaluate(challenge)
        completionHandler(answer.disposition, answer.credential)
    }

    /// Answers a task-level challenge (`URLSessionTaskDelegate`), exactly as the session-level one.
    ///
    /// - Parameters:
    ///   - session: The session.
    ///   - task: The task.
    ///   - challenge: The challenge.
    ///   - completionHandler: Called once with the disposition and credential.
    public func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        let answer = evaluate(challenge)
        completionHandler(answer.disposition, answer.credential)
    }

    /// What the delegate answers to `challenge`, with the pinning decision behind it (nil for challenges that are
    /// not server trust).
    ///
    /// - Parameter challenge: The challenge.
    /// - Returns: The disposition, the credential (for `.useCredential`) and the decision.
    public func evaluate(
        _ challenge: URLAuthenticationChallenge
    ) -> (disposition: URLSession.AuthChallengeDisposition, credential: URLCredential?, decision: PinningDecision?) {
        let space = challenge.protectionSpace
        guard space.authenticationMethod == NSURLAuthenticationMethodServerTrust, let trust = space.serverTrust else {
            return (.performDefaultHandling, nil, nil)
        }
        let decision = decide(host: space.host, trust: trust)
        if decision.outcome != .pinned, decision.outcome != .notPinned { report?(decision) }
        return decision.isAllowed
            ? (.useCredential, URLCredential(trust: trust), decision) : (.cancelAuthenticationChallenge, nil, decision)
    }

    /// The `NSPinnedDomains` property list of the configuration (`NSAppTransportSecurity` → `NSPinnedDomains`), to
    /// merge into the app's Info.plist so that iOS enforces the same pins before this delegate runs.
    ///
    /// - Returns: The XML property list.
    /// - Throws: ``PinningError`` with code `unsupportedFormat` when a policy uses what `NSPinnedDomains` cannot
    ///   express (report-only mode, an expiration date, own anchors, report URIs, certificate pins).
    public func pinnedDomainsPropertyList() throws -> Data { try configuration.plistData() }

    private func decide(host: String, trust: SecTrust) -> PinningDecision {
        let time = now()
        let active = pins()
        let configuration = active.configuration
        // The anchors go in before anything reads the chain: SecTrustCopyCertificateChain evaluates a trust that needs
        // it (OSX/sec/Security/SecTrust.c:2118-2131), so reading first would evaluate once against the system's
        // anchors and again after they change.
        if let policy = configuration.policy(for: host), !policy.ownAnchors.isEmpty {
            let anchors = policy.ownAnchors.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
            guard anchors.count == policy.ownAnchors.count,
                SecTrustSetAnchorCertificates(trust, anchors as CFArray) == errSecSuccess,
                SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess
            else {
                return refusal(
                    host: host, presented: certificates(of: trust) ?? [], time: time,
                    "the policy's own anchors could not be set")
            }
        }
        var error: CFError?
        let trusted = SecTrustEvaluateWithError(trust, &error)
        // After the evaluation the chain is the one it built: the verified path when trusted, and trustd's best path
        // otherwise (trust/trustd/SecTrustServer.c:1456), which may end in a store root the server did not send and
        // lacks presented certificates that are not on it. iOS has no call for the certificates as presented once the
        // trust is evaluated, so a refusal reports that path as the presented chain.
        guard let chain = certificates(of: trust) else {
            return refusal(
                host: host, presented: [], time: time,
                "a presented certificate is not strict DER X.509 (RampartX509 refused it), so its pins cannot be read")
        }
        guard trusted else {
            let reason = error.map { Self.reason(CFErrorGetCode($0)) } ?? .other
            let message = error.map { CFErrorCopyDescription($0) as String } ?? "the default trust evaluation failed"
            let failure = ChainFailure(reason: reason, certificateIndex: nil, message: message)
            return active.decision(host: host, presented: chain, verdict: .untrusted(failure), at: time)
        }
        return active.decision(host: host, presented: chain, verdict: .trusted(path: chain), at: time)
    }

    /// The certificates of the trust's chain, parsed from their DER; nil if one does not parse.
    private func certificates(of trust: SecTrust) -> [Certificate]? {
        let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
        var parsed: [Certificate] = []
        for certificate in chain {
            let der = SecCertificateCopyData(certificate) as Data
            guard let value = try? Certificate(derEncoded: Array(der)) else { return nil }
            parsed.append(value)
        }
        return parsed.isEmpty ? nil : parsed
    }

    private func refusal(host: String, presented: [Certificate], time: Date, _ message: String) -> PinningDecision {
        let failure = ChainFailure(reason: .malformedCertificate, certificateIndex: nil, message: message)
        return pins().decision(host: host, presented: presented, verdict: .untrusted(failure), at: time)
    }

    /// The chain failure reason of a Security trust error code.
    private static func reason(_ code: CFIndex) -> ChainFailure.Reason {
        switch OSStatus(truncatingIfNeeded: code) {
        case errSecCertificateExpired: .expired
        case errSecCertificateNotValidYet: .notYetValid
        case errSecHostNameMismatch: .hostnameMismatch
        default: .other
        }
    }
}
