public import Foundation
internal import RampartCrypto
public import RampartX509

/// Whether a connection would be allowed, and why.
public struct PinningDecision: Sendable {
    /// What happened. New outcomes are additive.
    public struct Outcome: Hashable, Sendable, CustomStringConvertible {
        enum Backing: String, Hashable, Sendable {
            case pinned
            case notPinned
            case pinsExpired
            case reportOnlyMismatch
            case defaultEvaluationFailed
            case pinMismatch
            case deniedKey
        }

        let backing: Backing

        /// Allowed: the chain is trusted and matches the policy's pins.
        public static let pinned = Outcome(backing: .pinned)
        /// Allowed: the chain is trusted and no policy covers the host, so pinning does not apply.
        public static let notPinned = Outcome(backing: .notPinned)
        /// Allowed: the chain is trusted and the policy's pins have expired (TrustKit's expiration date).
        public static let pinsExpired = Outcome(backing: .pinsExpired)
        /// Allowed: the chain is trusted, the pins do not match, and the policy is report-only.
        public static let reportOnlyMismatch = Outcome(backing: .reportOnlyMismatch)
        /// Refused: the default chain evaluation failed (pinning never loosens it).
        public static let defaultEvaluationFailed = Outcome(backing: .defaultEvaluationFailed)
        /// Refused: the chain is trusted but matches none of the policy's pins.
        public static let pinMismatch = Outcome(backing: .pinMismatch)
        /// Refused: a certificate of the chain has a key on the signed pin set's deny list (a revoked key).
        public static let deniedKey = Outcome(backing: .deniedKey)

        /// Whether the connection would go ahead.
        public var isAllowed: Bool { self != .defaultEvaluationFailed && self != .pinMismatch && self != .deniedKey }

        /// The outcome's stable name, e.g. `pinMismatch`.
        public var description: String { backing.rawValue }
    }

    /// What happened.
    public let outcome: Outcome
    /// The host name evaluated (lowercased, without a trailing dot).
    public let host: String
    /// The policy that applied, if any.
    public let policy: PinPolicy?
    /// The default evaluation's verdict.
    public let chainVerdict: ChainVerdict
    /// On a pin mismatch (enforced or report-only): what the chain holds and what was expected.
    public let mismatch: PinMismatch?
    /// The certificates as presented.
    public let presented: [Certificate]
    /// The validation time.
    public let time: Date

    /// Whether the connection would go ahead.
    public var isAllowed: Bool { outcome.isAllowed }

    /// A message saying what happened and, on refusal, what to do.
    public var message: String {
        let applied = policy.map { "policy \($0.domain)\($0.includesSubdomains ? " (includes subdomains)" : "")" }
        switch outcome {
        case .pinned:
            return "allowed: the chain is trusted and matches the pins of \(applied ?? "the policy")"
        case .notPinned:
            return "allowed: the chain is trusted; no pinned domain covers \(host), so pinning does not apply"
        case .pinsExpired:
            let date = policy?.expirationDate.map { $0.formatted(.iso8601) } ?? ""
            return "allowed: the chain is trusted; the pins of \(applied ?? "the policy") expired at \(date) and "
                + "are no longer enforced: ship fresh pins"
        case .reportOnlyMismatch:
            return "allowed (report-only): " + (mismatch?.message ?? "pin mismatch")
        case .defaultEvaluationFailed:
            let reason = chainVerdict.failure?.description ?? "untrusted"
            return "refused: the default evaluation failed before pinning: \(reason)"
        case .deniedKey:
            return "refused: a certificate of the chain has a key on the pin set's deny list (revoked); the server "
                + "must move to a new key"
        default:
            return "refused: " + (mismatch?.message ?? "pin mismatch")
        }
    }

    /// The TrustKit failure report of this decision, or nil when no pinned domain applied or nothing failed.
    ///
    /// - Parameters:
    ///   - port: The server port.
    ///   - appBundleID: The app's bundle identifier.
    ///   - appVersion: The app's version.
    ///   - appVendorID: The vendor identifier (TrustKit sends `identifierForVendor`).
    /// - Returns: The report.
    public func failureReport(
        port: Int = 443,
        appBundleID: String = "",
        appVersion: String = "",
        appVendorID: String = ""
    ) -> PinFailureReport? {
        guard let policy, outcome != .pinned, outcome != .pinsExpired else { return nil }
        let chain = (chainVerdict.path ?? presented).map(\.pemString)
        let pins = policy.allPins
        return PinFailureReport(
            appBundleID: appBundleID,
            appVersion: appVersion,
            appPlatform: Self.platformName,
            appPlatformVersion: Self.platformVersion,
            appVendorID: appVendorID,
            trustkitVersion: "rampart",
            dateTime: Self.reportTime(time),
            hostname: host,
            port: port,
            notedHostname: policy.domain,
            includeSubdomains: policy.includesSubdomains,
            enforcePinning: !policy.isReportOnly,
            validatedCertificateChain: chain,
            knownPins: pins.map { "\($0.kind == .spkiSHA256 ? "pin-sha256" : "cert-sha256")=\"\($0.base64)\"" },
            validationResult: outcome == .defaultEvaluationFailed ? 2 : 1,
            knownPinsExpirationDate: policy.expirationDate.map { String($0.formatted(.iso8601).prefix(10)) })
    }

    /// TrustKit's `app-platform` for the platform this runs on, as TrustKit's `TSKBackgroundReporter.m` names them
    /// (`IOS` wherever `TARGET_OS_IPHONE` holds and it is neither tvOS nor watchOS: iOS, Mac Catalyst, visionOS;
    /// `TVOS`, `WATCHOS`, `MACOS`), and `LINUX` for the server-side tools, where TrustKit does not run.
    static let platformName: String = {
        #if os(tvOS)
        "TVOS"
        #elseif os(watchOS)
        "WATCHOS"
        #elseif os(iOS) || os(visionOS)
        "IOS"
        #elseif os(macOS)
        "MACOS"
        #else
        "LINUX"
        #endif
    }()

    /// `app-platform-version`: the operating system's version, `major.minor.patch`, as TrustKit reports it.
    static let platformVersion: String = {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        return "\(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    }()

    static func reportTime(_ date: Date) -> String {
        let text = date.formatted(.iso8601)
        return text
    }
}

/// A pin failure report in TrustKit's JSON format (`TSKPinFailureReport`, itself RFC 7469's report plus app fields).
///
/// `validation-result` uses TrustKit's codes: 1 = no pin matched, 2 = the certificate chain was invalid.
public struct PinFailureReport: Codable, Hashable, Sendable {
    /// `app-bundle-id`.
    public let appBundleID: String
    /// `app-version`.
    public let appVersion: String
    /// `app-platform`.
    public let appPlatform: String
    /// `app-platform-version`.
    public let appPlatformVersion: String
    /// `app-vendor-id`.
    public let appVendorID: String
    /// `trustkit-version`.
    public let trustkitVersion: String
    /// `date-time`, `yyyy-MM-ddTHH:mm:ssZ`.
    public let dateTime: String
    /// `hostname`: the host connected to.
    public let hostname: String
    /// `port`.
    public let port: Int
    /// `noted-hostname`: the pinned domain whose policy applied.
    public let notedHostname: String
    /// `include-subdomains`.
    public let includeSubdomains: Bool
    /// `enforce-pinning`: false in report-only mode.
    public let enforcePinning: Bool
    /// `validated-certificate-chain`: PEM certificates, leaf first.
    public let validatedCertificateChain: [String]
    /// `known-pins`: `pin-sha256="…"` entries.
    public let knownPins: [String]
    /// `validation-result`: 1 no matching pin, 2 invalid chain.
    public let validationResult: Int
    /// `known-pins-expiration-date`, `yyyy-MM-dd`.
    public let knownPinsExpirationDate: String?

    enum CodingKeys: String, CodingKey {
        case appBundleID = "app-bundle-id"
        case appVersion = "app-version"
        case appPlatform = "app-platform"
        case appPlatformVersion = "app-platform-version"
        case appVendorID = "app-vendor-id"
        case trustkitVersion = "trustkit-version"
        case dateTime = "date-time"
        case hostname
        case port
        case notedHostname = "noted-hostname"
        case includeSubdomains = "include-subdomains"
        case enforcePinning = "enforce-pinning"
        case validatedCertificateChain = "validated-certificate-chain"
        case knownPins = "known-pins"
        case validationResult = "validation-result"
        case knownPinsExpirationDate = "known-pins-expiration-date"
    }
}

/// What a trusted chain holds and what its policy expected, when no pin matched.
public struct PinMismatch: Hashable, Sendable {
    /// One certificate of the verified path with its pins.
    public struct ChainPin: Hashable, Sendable {
        /// Its index in the verified path (0 = leaf).
        public let index: Int
        /// Its subject, as `openssl x509 -noout -subject` prints it.
        public let subject: String
        /// Its SPKI pin.
        public let spki: Pin
        /// Its whole-certificate pin.
        public let certificate: Pin
    }

    /// The lists that failed: `NSPinnedCAIdentities`, `NSPinnedLeafIdentities` or both.
    public let failedLists: [String]
    /// The verified path's certificates and their pins.
    public let chainPins: [ChainPin]
    /// The pins the policy expected (CA pins, then leaf pins).
    public let expectedPins: [Pin]
    /// The policy's domain.
    public let domain: String

    /// Checks `path` against `policy`; nil when the pins match.
    init?(policy: PinPolicy, path: [Certificate]) {
        var failed: [String] = []
        if let pins = policy.caPins {
            let cas = path.dropFirst()
            if !pins.contains(where: { pin in cas.contains { pin.matches($0) } }) {
                failed.append("NSPinnedCAIdentities")
            }
        }
        if let pins = policy.leafPins {
            if !pins.contains(where: { pin in path.first.map { pin.matches($0) } ?? false }) {
                failed.append("NSPinnedLeafIdentities")
            }
        }
        if let pins = policy.chainPins {
            if !pins.contains(where: { pin in path.contains { pin.matches($0) } }) {
                failed.append("the chain pins")
            }
        }
        guard !failed.isEmpty else { return nil }
        failedLists = failed
        domain = policy.domain
        expectedPins = policy.allPins
        chainPins = path.enumerated().compactMap { index, certificate in
            guard let spki = try? Pin(kind: .spkiSHA256, digest: Self.spkiDigest(certificate)),
                let whole = try? Pin(kind: .certificateSHA256, digest: certificate.fingerprintSHA256)
            else { return nil }
            return ChainPin(index: index, subject: "\(certificate.subject)", spki: spki, certificate: whole)
        }
    }

    static func spkiDigest(_ certificate: Certificate) -> [UInt8] { SHA256.hash(certificate.subjectPublicKeyInfoBytes) }

    /// OkHttp's message: the chain's pins, then the expected pins, then what to do.
    public var message: String {
        var lines = [
            "certificate pinning failure for \(domain) (\(failedLists.joined(separator: " and ")) matched nothing)"
        ]
        lines.append("  Peer certificate chain:")
        for entry in chainPins {
            let shown = expectedPins.contains { $0.kind == .certificateSHA256 } ? entry.certificate : entry.spki
            lines.append("    \(entry.spki): \(entry.subject)")
            if shown != entry.spki { lines.append("    \(shown)") }
        }
        lines.append("  Pinned certificates for \(domain):")
        for pin in expectedPins { lines.append("    \(pin)") }
        lines.append(
            "  If the server's keys changed on purpose, ship the new pins (`rampart pinset`); otherwise the "
                + "connection may be intercepted.")
        return lines.joined(separator: "\n")
    }
}

extension PinConfiguration {
    /// What iOS would do with a connection to `host`, given the default evaluation's verdict: the pin policy of the
    /// host, with Apple's `NSPinnedDomains` semantics and TrustKit's report-only mode and expiration date.
    ///
    /// Pinning only ever tightens: a chain that failed the default evaluation is refused whatever the pins say, and
    /// report-only mode never lets such a chain through. The verdict comes from the platform (SecTrust on Apple, via
    /// RampartApple's delegate) or from RampartChainVerification's `ChainVerifier` (servers and tools); this
    /// decision is the same code for both.
    ///
    /// - Parameters:
    ///   - host: The host name the client connected to.
    ///   - presented: The certificates the server presented, leaf first.
    ///   - verdict: The default evaluation's verdict (with the verified path, leaf first, when trusted).
    ///   - time: The validation time (for pin expiry).
    /// - Returns: The decision, with the policy that applied and, on a mismatch, the chain's and expected pins.
    public func decision(
        host: String, presented: [Certificate], verdict: ChainVerdict, at time: Date
    ) -> PinningDecision {
        let name = PinPolicy.normalize(host)
        let policy = policy(for: name)
        guard let path = verdict.path else {
            return PinningDecision(
                outcome: .defaultEvaluationFailed, host: name, policy: policy, chainVerdict: verdict,
                mismatch: nil, presented: presented, time: time)
        }
        guard let policy else {
            return PinningDecision(
                outcome: .notPinned, host: name, policy: nil, chainVerdict: verdict, mismatch: nil,
                presented: presented, time: time)
        }
        if let expiration = policy.expirationDate, expiration < time {
            return PinningDecision(
                outcome: .pinsExpired, host: name, policy: policy, chainVerdict: verdict, mismatch: nil,
                presented: presented, time: time)
        }
        let mismatch = PinMismatch(policy: policy, path: path)
        let outcome: PinningDecision.Outcome
        if mismatch == nil {
            outcome = .pinned
        } else {
            outcome = policy.isReportOnly ? .reportOnlyMismatch : .pinMismatch
        }
        return PinningDecision(
            outcome: outcome, host: name, policy: policy, chainVerdict: verdict, mismatch: mismatch,
            presented: presented, time: time)
    }
}

extension Pin {
    /// Whether this pin matches `certificate` (its SPKI, or its whole DER for certificate pins).
    ///
    /// - Parameter certificate: The certificate.
    /// - Returns: `true` on a match.
    public func matches(_ certificate: Certificate) -> Bool {
        switch kind {
        case .certificateSHA256: return digest == certificate.fingerprintSHA256
        default: return digest == PinMismatch.spkiDigest(certificate)
        }
    }
}
