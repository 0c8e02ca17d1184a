public import Foundation
public import RampartX509

/// One finding of ``PinConfiguration/lint(at:chain:host:)``: the mistakes that make pinned apps fail in production.
public struct PinLintWarning: Hashable, Sendable, CustomStringConvertible {
    /// The finding's stable code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable, CaseIterable {
            case singlePin
            case leafWithoutBackup
            case appleDomain
            case pinnedCAExpired
            case pinnedCAExpiringSoon
            case publicSuffix
            case malformedPin
            case noPinMatchesChain
            case emptyPinList
        }

        let backing: Backing

        /// A domain with one pin: when that key changes the app cannot connect until an update ships.
        public static let singlePin = Code(backing: .singlePin)
        /// Leaf pins only, and none of them outside the server's current chain: a renewed key bricks the app.
        public static let leafWithoutBackup = Code(backing: .leafWithoutBackup)
        /// A pinned host under apple.com or icloud.com: Apple changes its keys without notice and asks apps not to
        /// pin them.
        public static let appleDomain = Code(backing: .appleDomain)
        /// A pinned CA certificate of the given chain has expired.
        public static let pinnedCAExpired = Code(backing: .pinnedCAExpired)
        /// A pinned CA certificate of the given chain expires within ``PinConfiguration/lintExpiryWindow``.
        public static let pinnedCAExpiringSoon = Code(backing: .pinnedCAExpiringSoon)
        /// `includeSubdomains` on a public suffix (a TLD, `co.uk`, `github.io`, …): it pins every registrant's hosts.
        public static let publicSuffix = Code(backing: .publicSuffix)
        /// A pin that is not the base64 of 32 bytes: the configuration cannot be loaded at all.
        public static let malformedPin = Code(backing: .malformedPin)
        /// A pin list none of whose pins matches the given chain: the connection would be refused today.
        public static let noPinMatchesChain = Code(backing: .noPinMatchesChain)
        /// A pin list that is present but empty: iOS (and `rampart check`) then refuse every connection to the domain.
        public static let emptyPinList = Code(backing: .emptyPinList)

        /// The code's stable name, e.g. `singlePin`.
        public var description: String { backing.rawValue }

        /// Every code, in the order `rampart lint --help` lists them.
        public static var allCases: [Code] { Backing.allCases.map { Code(backing: $0) } }
    }

    /// The code.
    public let code: Code
    /// The domain concerned (empty when the configuration could not be read).
    public let domain: String
    /// What is wrong and what to do.
    public let message: String

    /// Creates a warning.
    ///
    /// - Parameters:
    ///   - code: The code.
    ///   - domain: The domain concerned, or empty.
    ///   - message: What is wrong and what to do.
    public init(code: Code, domain: String, message: String) {
        self.code = code
        self.domain = domain
        self.message = message
    }

    /// `domain: message [code]`.
    public var description: String { "\(domain.isEmpty ? "" : "\(domain): ")\(message) [\(code)]" }
}

extension PinConfiguration {
    /// How close to its expiry a pinned CA certificate is flagged (``PinLintWarning/Code/pinnedCAExpiringSoon``):
    /// 90 days, about one app-release cycle plus the time users take to update.
    public static let lintExpiryWindow: TimeInterval = 90 * 86400

    /// Public suffixes `includeSubdomains` must not sit on, beyond single-label names (every TLD is one): the
    /// registries and hosting platforms where unrelated parties own sibling names. A subset of the Public Suffix List
    /// (publicsuffix.org), chosen for the hosts apps talk to; extend it when you pin under another shared suffix.
    public static let knownPublicSuffixes: Set<String> = [
        "co.uk", "org.uk", "ac.uk", "gov.uk", "me.uk", "com.au", "net.au", "org.au", "edu.au", "gov.au", "co.nz",
        "co.jp", "ne.jp", "or.jp", "ac.jp", "go.jp", "co.kr", "or.kr", "ne.kr", "go.kr", "com.cn", "net.cn", "org.cn",
        "gov.cn", "com.tw", "com.hk", "com.sg", "com.br", "com.mx", "com.ar", "co.in", "co.za", "com.tr", "co.il",
        "github.io", "githubusercontent.com", "gitlab.io", "herokuapp.com", "appspot.com", "cloudfront.net",
        "azurewebsites.net", "blogspot.com", "netlify.app", "vercel.app", "pages.dev", "workers.dev",
        "firebaseapp.com", "web.app", "s3.amazonaws.com", "elasticbeanstalk.com", "fly.dev", "onrender.com",
    ]

    /// Checks the configuration for the mistakes that cause outages, optionally against the chain a server presents
    /// today.
    ///
    /// - Parameters:
    ///   - time: The time expiry is judged at.
    ///   - chain: The server's certificates (leaf first), for the checks that need them; empty to skip those.
    ///   - host: The host `chain` is for; nil uses every DNS name of the chain's leaf.
    /// - Returns: The warnings, by domain then code; empty when the configuration is clean.
    public func lint(at time: Date, chain: [Certificate] = [], host: String? = nil) -> [PinLintWarning] {
        var warnings: [PinLintWarning] = []
        let leafNames: [String] =
            host.map { [$0] }
            ?? (chain.first?.extensions.subjectAlternativeNames ?? []).compactMap {
                if case .dnsName(let name) = $0 { return name }
                return nil
            }
        for policy in policies {
            func warn(_ code: PinLintWarning.Code, _ message: String) {
                warnings.append(PinLintWarning(code: code, domain: policy.domain, message: message))
            }
            for (list, name) in [
                (policy.caPins, "the CA pin list (NSPinnedCAIdentities)"),
                (policy.leafPins, "the leaf pin list (NSPinnedLeafIdentities)"),
                (policy.chainPins, "the chain pin list"),
            ] where list?.isEmpty == true {
                warn(
                    .emptyPinList,
                    "\(name) is present but empty, so no chain can match it and every connection to this domain is "
                        + "refused. Put the pins in it (rampart pinset), or remove the list")
            }
            let pins = policy.allPins
            if pins.count == 1 {
                warn(
                    .singlePin,
                    "one pin only; when that key changes the app cannot connect until an update ships. Add a backup "
                        + "pin: the key of a spare certificate kept offline, or of another CA (rampart pinset "
                        + "--backup-pin)")
            }
            if policy.domain == "apple.com" || policy.domain.hasSuffix(".apple.com") || policy.domain == "icloud.com"
                || policy.domain.hasSuffix(".icloud.com")
            {
                warn(
                    .appleDomain,
                    "Apple's hosts change keys without notice and Apple asks apps not to pin them; remove this policy")
            }
            if policy.includesSubdomains && Self.isPublicSuffix(policy.domain) {
                warn(
                    .publicSuffix,
                    "includeSubdomains on a public suffix pins every registrant's hosts under it; pin your own "
                        + "registered domain instead")
            }
            let covered = chain.isEmpty || leafNames.contains { policy.covers($0.lowercased()) }
            guard !chain.isEmpty, covered else {
                if policy.caPins == nil, policy.chainPins == nil, let leaf = policy.leafPins, leaf.count < 2 {
                    warn(
                        .leafWithoutBackup,
                        "leaf pins only, with no backup; a renewed server key bricks the app. Pin the CA keys, or add "
                            + "the key of a spare certificate")
                }
                continue
            }
            if policy.caPins == nil, policy.chainPins == nil, let leaf = policy.leafPins,
                leaf.allSatisfy({ pin in chain.contains { pin.matches($0) } })
            {
                warn(
                    .leafWithoutBackup,
                    "leaf pins only, and every one is a key of the server's current chain; a renewed key bricks the "
                        + "app. Add the key of a spare certificate that is not deployed yet, or pin the CA keys")
            }
            for (list, name, candidates) in [
                (policy.caPins, "the CA pins", Array(chain.dropFirst())),
                (policy.leafPins, "the leaf pins", Array(chain.prefix(1))),
                (policy.chainPins, "the chain pins", chain),
            ] {
                guard let list, !list.isEmpty else { continue }
                if !list.contains(where: { pin in candidates.contains { pin.matches($0) } }) {
                    warn(
                        .noPinMatchesChain,
                        "none of \(name) matches the given chain: connections would be refused today. Recompute them "
                            + "with rampart pinset, or check that the chain is the one the server presents")
                }
            }
            for certificate in chain.dropFirst()
            where (policy.caPins ?? policy.chainPins ?? []).contains(where: {
                $0.matches(certificate)
            }) {
                if certificate.notAfter < time {
                    warn(
                        .pinnedCAExpired,
                        "the pinned CA \(certificate.subject) expired at \(certificate.notAfter.formatted(.iso8601)); "
                            + "pin its successor's key before the server changes chains")
                } else if certificate.notAfter.timeIntervalSince(time) < Self.lintExpiryWindow {
                    warn(
                        .pinnedCAExpiringSoon,
                        "the pinned CA \(certificate.subject) expires at \(certificate.notAfter.formatted(.iso8601)), "
                            + "within 90 days; ship its successor's key as a backup pin now")
                }
            }
        }
        return warnings
    }

    /// Whether `domain` is a public suffix: a single label (a TLD), or one of ``knownPublicSuffixes``.
    static func isPublicSuffix(_ domain: String) -> Bool {
        !domain.contains(".") || knownPublicSuffixes.contains(domain)
    }
}
