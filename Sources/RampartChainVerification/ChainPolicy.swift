/// Which rules judge a chain on top of the shared engine: Apple's SSL server policy (what an iPhone accepts) or a
/// strict Web PKI profile (the CA/Browser Forum Baseline Requirements and RFC 5280 pedantry that x509-limbo tests).
///
/// Both run on the same engine (path building, signatures, validity, basicConstraints, keyUsage of CAs, the TLS
/// server purpose, name constraints, critical extensions, RSA 2048 and no SHA-1, and the host name against the
/// subjectAltName only). ``apple`` then adds only what trustd's SSL server policy adds (`SecPolicyCreateSSL` in
/// `apple-oss-distributions/Security`, OSX/sec/Security/SecPolicy.c, checked by trust/trustd/SecPolicyServer.c):
/// the validity limits and the serverAuth extendedKeyUsage of "Requirements for trusted certificates in iOS 13 and
/// macOS 10.15" and "About upcoming limits on trusted certificates", and EC keys of 256 bits or more. ``webPKI``
/// adds the Baseline Requirements and RFC 5280 rules each refusal names instead (<doc:ChainPolicies> lists every
/// difference with its source).
///
/// The default of ``ChainVerifier/Options`` and of ``PinValidator`` is ``apple``: a pinning tool must say
/// "untrusted" where the phone does, and not elsewhere.
public struct ChainPolicy: Hashable, Sendable, CustomStringConvertible {
    enum Backing: String, Hashable, Sendable, CaseIterable {
        case apple
        case webPKI = "webpki"
    }

    let backing: Backing

    /// Apple's SSL server policy as trustd applies it: the default.
    public static let apple = ChainPolicy(backing: .apple)
    /// The CA/Browser Forum Baseline Requirements and RFC 5280 pedantry (what `rampart-limbo --policy webpki` scores).
    public static let webPKI = ChainPolicy(backing: .webPKI)

    /// Every policy, by the name `--policy` takes.
    public static let all: [ChainPolicy] = Backing.allCases.map { ChainPolicy(backing: $0) }

    /// The policy named `name` (`apple` or `webpki`, as `--policy` takes it), or nil.
    ///
    /// - Parameter name: The policy's name.
    public init?(name: String) {
        guard let backing = Backing(rawValue: name) else { return nil }
        self.backing = backing
    }

    init(backing: Backing) { self.backing = backing }

    /// The policy's name: `apple` or `webpki`.
    public var description: String { backing.rawValue }
}
