public import Foundation
internal import RampartChainVerification
internal import RampartX509
import Synchronization

// https://developer.apple.com/documentation/security/sectrust
/// An object used to evaluate trust (simulated over RampartChainVerification's `ChainVerifier`: the certificates,
/// policies, anchors and verify date set on it decide the result exactly as the functions below document).
public final class SecTrust: Sendable {
    struct State: Sendable {
        var certificates: [SecCertificate]
        var policies: [SecPolicy]
        var anchors: [SecCertificate]?
        var anchorsOnly = true
        var verifyDate: Date?
        /// The chain of the last evaluation: the built path when trusted, trustd's best path when not.
        var chain: [SecCertificate]?
        /// Whether ``chain`` is up to date: every setter marks the trust as needing evaluation, as
        /// `SecTrustSetNeedsEvaluation` does (OSX/sec/Security/SecTrust.c:380-387).
        var evaluated = false
        /// The last evaluation's failure (nil when trusted).
        var failure: CFError?
        /// How many evaluations ran, implicit ones included.
        var evaluations = 0
    }

    let state: Mutex<State>

    /// How many times the trust was evaluated, by `SecTrustEvaluateWithError` or implicitly by a function that needs
    /// an evaluation's result (not Apple's: a test hook).
    @_spi(Testing) public var simulatedEvaluationCount: Int { state.withLock { $0.evaluations } }

    init(certificates: [SecCertificate], policies: [SecPolicy]) {
        self.state = Mutex(State(certificates: certificates, policies: policies))
    }
}

// https://developer.apple.com/documentation/security/sectrustcreatewithcertificates(_:_:_:)
/// Creates a trust management object based on certificates and policies.
///
/// - Parameters:
///   - certificates: The certificate to be verified, plus any other certificates that might help; the one to verify
///     first. A `SecCertificate` or an array of them.
///   - policies: A `SecPolicy`, an array of them, or nil for the basic X.509 policy (path only).
///   - trust: On return, the trust management object.
/// - Returns: `errSecSuccess`, or `errSecParam` when `certificates` holds no certificate or anything else.
public func SecTrustCreateWithCertificates(
    _ certificates: CFTypeRef,
    _ policies: CFTypeRef?,
    _ trust: UnsafeMutablePointer<SecTrust?>
) -> OSStatus {
    guard let certificates = objects(certificates, of: SecCertificate.self), !certificates.isEmpty else {
        return errSecParam
    }
    var policyList: [SecPolicy] = []
    if let policies {
        guard let list = objects(policies, of: SecPolicy.self) else { return errSecParam }
        policyList = list
    }
    trust.pointee = SecTrust(certificates: certificates, policies: policyList)
    return errSecSuccess
}

/// A single `T` or an array of only `T`s, as Security's `CFTypeRef` parameters take them; nil for anything else.
private func objects<T>(_ value: Any, of type: T.Type) -> [T]? {
    if let single = value as? T { return [single] }
    guard let array = value as? [Any] else { return nil }
    let typed = array.compactMap { $0 as? T }
    return typed.count == array.count ? typed : nil
}

// https://developer.apple.com/documentation/security/sectrustsetanchorcertificates(_:_:)
/// Sets the anchor certificates used when evaluating a trust management object.
///
/// Calling this function disables trusting any anchors other than the ones given, unless
/// ``SecTrustSetAnchorCertificatesOnly(_:_:)`` is then called with `false`. The array is nullable, as SecTrust.h
/// declares it (`CFArrayRef __nullable anchorCertificates`): nil returns to the system's anchors and turns
/// anchors-only off (`_anchorsOnly = (anchorCertificates != NULL)`, OSX/sec/Security/SecTrust.c:403-437).
///
/// - Parameters:
///   - trust: The trust management object.
///   - anchorCertificates: The anchors (an array of `SecCertificate`); an empty array trusts no anchor; nil, the
///     system's.
/// - Returns: `errSecSuccess`, or `errSecParam` when the array holds anything but certificates.
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus {
    var anchors: [SecCertificate]?
    if let anchorCertificates {
        let certificates = anchorCertificates.compactMap { $0 as? SecCertificate }
        guard certificates.count == anchorCertificates.count else { return errSecParam }
        anchors = certificates
    }
    trust.state.withLock {
        $0.anchors = anchors
        $0.anchorsOnly = anchors != nil
        $0.chain = nil
        $0.evaluated = false
    }
    return errSecSuccess
}

// https://developer.apple.com/documentation/security/sectrustsetanchorcertificatesonly(_:_:)
/// Reenables trusting built-in anchor certificates.
///
/// - Parameters:
///   - trust: The trust management object.
///   - anchorCertificatesOnly: `true` to trust only the anchors set with ``SecTrustSetAnchorCertificates(_:_:)``;
///     `false` to trust the built-in (simulated store's) anchors as well.
/// - Returns: `errSecSuccess`.
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus {
    trust.state.withLock {
        $0.anchorsOnly = anchorCertificatesOnly
        $0.chain = nil
        $0.evaluated = false
    }
    return errSecSuccess
}

// https://developer.apple.com/documentation/security/sectrustsetverifydate(_:_:)
/// Sets the date and time against which the certificates in a trust management object are verified.
///
/// - Parameters:
///   - trust: The trust management object.
///   - verifyDate: The date and time to use when verifying the certificate (the current time by default).
/// - Returns: `errSecSuccess`.
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus {
    trust.state.withLock {
        $0.verifyDate = verifyDate
        $0.chain = nil
        $0.evaluated = false
    }
    return errSecSuccess
}

// https://developer.apple.com/documentation/security/sectrustcopycertificatechain(_:)
/// Returns the certificate chain of the trust's evaluation, evaluating first when the trust needs it, as Security does
/// (`SecTrustEvaluateIfNecessary` in OSX/sec/Security/SecTrust.c:2118-2131): after a successful evaluation the built
/// path (leaf first, anchor last); after a failed one trustd's best path (the certificates chained from the leaf
/// before the evaluation failed, which may end in a root the server did not send; see `bestPath`).
///
/// - Parameter trust: The trust management object.
/// - Returns: An array of `SecCertificate`.
public func SecTrustCopyCertificateChain(_ trust: SecTrust) -> CFArray? {
    if !trust.state.withLock({ $0.evaluated }) { _ = evaluate(trust) }
    return trust.state.withLock { $0.chain ?? $0.certificates }
}

// https://developer.apple.com/documentation/security/sectrustevaluatewitherror(_:_:)
/// Evaluates trust for the specified certificate and policies.
///
/// The chain must lead to an anchor (the ones set on the trust, and the simulated store's unless anchors-only), be
/// valid at the verify date, and satisfy every policy (for an SSL server policy with a host name, the leaf must be
/// for that name). On failure `error` receives a CFError in `NSOSStatusErrorDomain` whose code is
/// `errSecCertificateExpired`, `errSecCertificateNotValidYet`, `errSecHostNameMismatch` or `errSecNotTrusted`,
/// and whose description says why.
///
/// - Parameters:
///   - trust: The trust management object to evaluate.
///   - error: Receives the error when trust evaluation fails; pass nil to ignore it.
/// - Returns: `true` if the certificate is trusted; otherwise `false`.
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool {
    // Only when the trust needs it: SecTrustEvaluateInternal calls SecTrustEvaluateIfNecessary
    // (OSX/sec/Security/SecTrust.c:968-976), so a second call after an unchanged trust reports the first result.
    let previous: CFError?? = trust.state.withLock { $0.evaluated ? .some($0.failure) : .none }
    let failure = previous ?? evaluate(trust)
    error?.pointee = failure
    return failure == nil
}

/// Evaluates `trust`, keeps the resulting chain, and returns the failure (nil when trusted).
private func evaluate(_ trust: SecTrust) -> CFError? {
    let state = trust.state.withLock {
        $0.evaluations += 1
        return $0
    }
    let store = SimulatedTrustStore.current
    var anchors = (state.anchors ?? []).map(\.certificate)
    let useStore = state.anchors == nil || !state.anchorsOnly
    if useStore { anchors += store.extra.map(\.certificate) }
    let failure: (OSStatus, String)?
    var path: [SecCertificate] = []
    do {
        let verifier = try ChainVerifier(
            trustAnchors: anchors,
            options: ChainVerifier.Options(includeSystemTrustStore: useStore && store.includesSystemBundle))
        let hostname = state.policies.first { $0.server && $0.hostname != nil }?.hostname
        let purpose: ChainVerifier.Purpose = hostname.map { .tlsServer(hostname: $0) } ?? .none
        let verdict = verifier.verify(
            chain: state.certificates.map(\.certificate), at: state.verifyDate ?? Date(), purpose: purpose)
        switch verdict {
        case .trusted(let built):
            path = built.map { SecCertificate(der: $0.derBytes, certificate: $0) }
            failure = nil
        case .untrusted(let reason):
            failure = (status(for: reason.reason), reason.message)
            path = bestPath(verifier, state.certificates, at: state.verifyDate ?? Date(), purpose: purpose)
        }
    } catch let thrown {
        failure = (errSecNotTrusted, "the trust store could not be loaded: \(thrown)")
    }
    guard let failure else {
        trust.state.withLock {
            $0.chain = path
            $0.evaluated = true
            $0.failure = nil
        }
        return nil
    }
    let error = CFError(domain: osStatusErrorDomain, code: CFIndex(failure.0), description: failure.1)
    trust.state.withLock {
        $0.chain = path.isEmpty ? nil : path
        $0.evaluated = true
        $0.failure = error
    }
    return error
}

/// The chain a failed evaluation leaves on the trust: trustd's best path, the certificates it chained from the leaf
/// towards an anchor before the evaluation failed (`SecPathBuilderStep` returns `builder->bestPath`,
/// trust/trustd/SecTrustServer.c:1456, and `SecTrustCopyCertificateChain` gives it, OSX/sec/Security/SecTrust.c:2118-2131):
/// with a wrong host name or an expired leaf the whole path to the store's root, which the server need not have sent,
/// without the presented certificates that are not on it. Here it is the chain OpenSSL built when it refused; empty
/// (the certificates as created are then kept) when the refusal came from a policy check after the path was built.
private func bestPath(
    _ verifier: ChainVerifier, _ presented: [SecCertificate], at time: Date, purpose: ChainVerifier.Purpose
) -> [SecCertificate] {
    guard let leaf = presented.first else { return [] }
    let raw = verifier.evaluateDER(
        leaf: leaf.der, intermediates: presented.dropFirst().map(\.der), at: time, purpose: purpose)
    guard case .untrusted(let failure) = raw else { return [] }
    return failure.path.compactMap { der in
        if let given = presented.first(where: { $0.der == der }) { return given }
        return (try? Certificate(derEncoded: der)).map { SecCertificate(der: der, certificate: $0) }
    }
}

/// The status Security reports for a chain failure.
private func status(for reason: ChainFailure.Reason) -> OSStatus {
    switch reason {
    case .expired: errSecCertificateExpired
    case .notYetValid: errSecCertificateNotValidYet
    case .hostnameMismatch: errSecHostNameMismatch
    default: errSecNotTrusted
    }
}
