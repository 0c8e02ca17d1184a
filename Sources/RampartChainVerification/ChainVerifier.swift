package import Foundation
import RampartCrypto
package import RampartX509

/// Evaluates certificate chains the way a TLS client must before any pinning: builds a path from the leaf through
/// the presented intermediates to a trust anchor, checks every signature, validity period, basicConstraints,
/// keyUsage, extendedKeyUsage and name constraint, and matches the host name against the leaf's subjectAltName.
///
/// The engine is OpenSSL's `X509_STORE` / `X509_verify_cert` with RFC 5280 strict checks and security level 2; the
/// host check follows RFC 6125 against SAN entries only, never the subject CN, as iOS does. Rampart builds the
/// candidate paths itself (with backtracking, bounded), accepts any trust anchor as the end of a path (it need not be
/// self-signed), and applies the rules of ``Options/policy`` on top: ``ChainPolicy/apple`` (the default, what iOS
/// accepts) or ``ChainPolicy/webPKI`` (the Baseline Requirements and RFC 5280 pedantry, <doc:LimboConformance>).
/// Each refusal comes back as a ``ChainFailure`` with a precise ``ChainFailure/Reason`` and the index of the
/// certificate concerned.
///
/// A verified-signature cache, keyed by the bytes of the issuer and subject certificates, lets repeated evaluations of
/// chains that share intermediates skip the repeated public-key operations.
public struct ChainVerifier: Sendable {
    /// The most intermediates one evaluation accepts (DoS bound, checked before any parsing): 16.
    public static let maximumIntermediateCount = 16
    /// The longest host name checked (RFC 1035): 253 characters.
    public static let maximumHostnameLength = 253

    /// What the chain is evaluated for.
    public struct Purpose: Hashable, Sendable, CustomStringConvertible {
        let hostname: String?

        /// No extendedKeyUsage purpose and no host name: the chain itself only (used by App Attest, whose leaf
        /// carries no serverAuth EKU).
        public static let none = Purpose(hostname: nil)

        /// A TLS server certificate for `hostname`: serverAuth extendedKeyUsage and an RFC 6125 match of a DNS or IP
        /// subjectAltName. The name is lowercased and one trailing dot removed.
        ///
        /// - Parameter hostname: The DNS name or IP address literal the client connected to.
        /// - Returns: The purpose.
        public static func tlsServer(hostname: String) -> Purpose {
            var name = hostname.lowercased()
            if name.hasSuffix(".") { name.removeLast() }
            return Purpose(hostname: name)
        }

        /// `none` or `tlsServer(host)`.
        public var description: String { hostname.map { "tlsServer(\($0))" } ?? "none" }

        static func isIPAddress(_ text: String) -> Bool {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }) { return true }
            return text.contains(":")
                && text.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || byte == 0x3A || byte == 0x2E
                }
        }

        /// Nil when the host name is acceptable, else why not.
        var hostnameProblem: String? {
            guard let hostname else { return nil }
            guard !hostname.isEmpty, hostname.utf8.count <= ChainVerifier.maximumHostnameLength else {
                return "the host name must be 1 to \(ChainVerifier.maximumHostnameLength) characters"
            }
            if Self.isIPAddress(hostname) { return nil }
            let labels = hostname.split(separator: ".", omittingEmptySubsequences: false)
            for label in labels {
                guard !label.isEmpty, label.utf8.count <= 63 else {
                    return "every label of the host name must be 1 to 63 characters"
                }
                let allowed = label.utf8.allSatisfy { byte in
                    (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
                }
                guard allowed, !label.hasPrefix("-"), !label.hasSuffix("-") else {
                    return "the host name may hold only letters, digits, '-' and '_' (no wildcards; punycode for IDNs)"
                }
            }
            return nil
        }
    }

    /// How a verifier is set up.
    public struct Options: Hashable, Sendable {
        /// Also trust the system's CA bundle (OpenSSL's default paths, e.g. `/etc/ssl/certs`). Off by default:
        /// Rampart trusts only the anchors it is given unless asked.
        public var includeSystemTrustStore: Bool
        /// How many verified (issuer, subject) signatures to remember; 0 turns the cache off.
        public var signatureCacheCapacity: Int
        /// How many parsed certificates (by DER) to keep, so that a repeated intermediate or leaf is not decoded
        /// again; 0 turns this cache off.
        public var certificateCacheCapacity: Int
        /// The most certificates a built path may hold, leaf and anchor included; self-issued intermediates (key
        /// rollover) are not counted, as for pathLenConstraint (RFC 5280 6.1.4 (l)).
        public var maximumPathLength: Int
        /// The rules that judge a chain on top of the engine: ``ChainPolicy/apple`` (the default) or
        /// ``ChainPolicy/webPKI``.
        public var policy: ChainPolicy

        /// Creates options.
        ///
        /// - Parameters:
        ///   - includeSystemTrustStore: Whether the system CA bundle is trusted too.
        ///   - signatureCacheCapacity: Verified-signature cache size; 0 disables it.
        ///   - certificateCacheCapacity: Parsed-certificate cache size; 0 disables it.
        ///   - maximumPathLength: The longest acceptable path.
        ///   - policy: Apple's SSL server policy (the default) or the strict Web PKI profile.
        public init(
            includeSystemTrustStore: Bool = false,
            signatureCacheCapacity: Int = 1024,
            certificateCacheCapacity: Int = 256,
            maximumPathLength: Int = 10,
            policy: ChainPolicy = .apple
        ) {
            self.includeSystemTrustStore = includeSystemTrustStore
            self.signatureCacheCapacity = signatureCacheCapacity
            self.certificateCacheCapacity = certificateCacheCapacity
            self.maximumPathLength = maximumPathLength
            self.policy = policy
        }
    }

    let engine: OpenSSLChainEngine
    /// The options the verifier was created with.
    public let options: Options

    /// Creates a verifier over trust anchors given as DER (for callers that hold no parsed ``Certificate``).
    ///
    /// - Parameters:
    ///   - trustAnchorDER: Self-signed root certificates, DER-encoded.
    ///   - options: Trust store, cache and length settings.
    /// - Throws: ``X509Error`` with code `invalidCertificate` when an anchor is not a certificate, or `unsupported`
    ///   when the system trust store cannot be loaded.
    public init(trustAnchorDER: [[UInt8]], options: Options = Options()) throws {
        self.engine = try OpenSSLChainEngine(
            anchorDER: trustAnchorDER,
            includeSystemTrustStore: options.includeSystemTrustStore,
            signatureCacheCapacity: options.signatureCacheCapacity,
            certificateCacheCapacity: options.certificateCacheCapacity)
        self.options = options
    }

    /// Hits and misses of the verified-signature cache so far (nil when the cache is off).
    public var signatureCacheStatistics: (hits: Int, misses: Int)? { engine.cacheStatistics }

    /// Empties the verified-signature and parsed-certificate caches.
    public func clearSignatureCache() { engine.clearCache() }

    /// Evaluates DER certificates and returns the built path as DER.
    ///
    /// - Parameters:
    ///   - leaf: The leaf, DER.
    ///   - intermediates: The presented intermediates, DER.
    ///   - time: The validation time.
    ///   - purpose: What the chain is for.
    ///   - parsed: Certificates already parsed, by DER (the rest of a path is parsed here for the policy checks).
    ///   - revocationLists: DER CRLs to apply to the leaf.
    /// - Returns: The built path, or the refusal.
    package func evaluateDER(
        leaf: [UInt8],
        intermediates: [[UInt8]],
        at time: Date,
        purpose: Purpose,
        parsed: [[UInt8]: Certificate] = [:],
        revocationLists: [[UInt8]] = []
    ) -> RawChainResult {
        guard intermediates.count <= Self.maximumIntermediateCount else {
            return .untrusted(
                reason: .chainTooLong, openSSLCode: 0, index: nil, certificate: nil,
                text: "more than \(Self.maximumIntermediateCount) intermediates were presented")
        }
        if let problem = purpose.hostnameProblem {
            return .untrusted(reason: .invalidHostname, openSSLCode: 0, index: nil, certificate: nil, text: problem)
        }
        // OpenSSL's depth counts the certificates above the leaf, excluding the anchor; it is only the DoS bound
        // here, since Rampart applies maximumPathLength itself (self-issued intermediates not counted).
        return engine.evaluate(
            leaf: leaf, intermediates: intermediates, at: time, purpose: purpose,
            maximumDepth: Self.maximumIntermediateCount + 1, revocationLists: revocationLists
        ) { derPath in
            var path: [Certificate] = []
            for (index, der) in derPath.enumerated() {
                guard let certificate = parsed[der] ?? (try? Certificate(derEncoded: der)) else {
                    return RawChainFailure(
                        reason: .malformedCertificate, index: index, certificate: nil,
                        text: "certificate \(index) of the built path could not be parsed by Rampart's strict DER "
                            + "reader", isAnchor: index == derPath.count - 1, isFinalMessage: true)
                }
                path.append(certificate)
            }
            let anchored = derPath.last.map { engine.isExplicitAnchor($0) ? AnchorSource.given : .system } ?? .given
            guard let failure = policyFailure(path: path, purpose: purpose, anchor: anchored) else {
                return nil
            }
            return RawChainFailure(
                reason: failure.reason, index: failure.certificateIndex,
                certificate: failure.certificateIndex.flatMap { $0 < derPath.count ? derPath[$0] : nil },
                text: failure.message, isFinalMessage: true)
        }
    }
}
