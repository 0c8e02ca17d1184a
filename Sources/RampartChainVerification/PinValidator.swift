public import Foundation
import RampartCrypto
public import RampartPinning
public import RampartX509

/// Decides whether a connection would be allowed: the default chain evaluation first, then the pin policy of the
/// host, with Apple's `NSPinnedDomains` semantics and TrustKit's report-only mode and expiration date.
///
/// Pinning only ever tightens: a chain that fails the default evaluation is refused whatever the pins say, and
/// report-only mode never lets such a chain through.
///
/// ```swift
/// let validator = try PinValidator(configuration: configuration, trustAnchors: roots)
/// let decision = validator.evaluate(chain: presented, host: "api.example.com", at: Date())
/// if !decision.isAllowed { print(decision.message) }
/// ```
public struct PinValidator: Sendable {
    /// The policies.
    public let configuration: PinConfiguration
    /// The verifier of the default evaluation (the device's trust store).
    public let defaultVerifier: ChainVerifier
    private let ownAnchorVerifiers: [String: ChainVerifier]

    /// Creates a validator.
    ///
    /// - Parameters:
    ///   - configuration: The pin policies.
    ///   - trustAnchors: The anchors of the default evaluation (what the device trusts).
    ///   - options: Chain verifier options (system store, signature cache, and the policy: ``ChainPolicy/apple``
    ///     by default, what iOS's evaluation accepts).
    /// - Throws: `X509Error` when an anchor (given, or an own anchor of a policy) cannot be loaded.
    public init(
        configuration: PinConfiguration,
        trustAnchors: [Certificate],
        options: ChainVerifier.Options = ChainVerifier.Options()
    ) throws {
        self.configuration = configuration
        self.defaultVerifier = try ChainVerifier(trustAnchors: trustAnchors, options: options)
        var own: [String: ChainVerifier] = [:]
        var ownOptions = options
        ownOptions.includeSystemTrustStore = false
        for policy in configuration.policies where !policy.ownAnchors.isEmpty {
            own[policy.domain] = try ChainVerifier(trustAnchorDER: policy.ownAnchors, options: ownOptions)
        }
        self.ownAnchorVerifiers = own
    }

    /// Evaluates a presented chain for `host`.
    ///
    /// - Parameters:
    ///   - chain: The certificates the server presented, leaf first.
    ///   - host: The host name the client connected to.
    ///   - time: The validation time.
    /// - Returns: The decision, with the policy that applied and, on a mismatch, the chain's and expected pins.
    public func evaluate(chain: [Certificate], host: String, at time: Date) -> PinningDecision {
        let name = PinPolicy.normalize(host)
        let policy = configuration.policy(for: name)
        let verifier = policy.flatMap { ownAnchorVerifiers[$0.domain] } ?? defaultVerifier
        let verdict = verifier.verify(chain: chain, at: time, purpose: .tlsServer(hostname: name))
        return configuration.decision(host: host, presented: chain, verdict: verdict, at: time)
    }
}
