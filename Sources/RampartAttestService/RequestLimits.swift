import Foundation

/// How much an unauthenticated client can make the service do: challenge issuance and failed checks, per client
/// address and per subject. Each limit is a rate per minute (a token bucket: a minute's allowance may be used at
/// once, then it refills steadily); 0 switches a limit off.
///
/// Failures are charged to the client address, never to the key or the subject a request names: key ids are not
/// secret and the subject is a field the client fills in, so charging either would let anyone lock a stranger out.
/// Address limits apply when the HTTP layer knows the address (``AttestationSubmission/clientAddress``); library
/// callers that pass none are not limited by address. An IPv6 client is charged by its network, the first
/// ``ipv6PrefixLength`` bits of its address (a /64 by default): one subscriber or host is routinely given a whole /64,
/// so counting single addresses would give it 2^64 budgets.
public struct RequestLimits: Sendable, Hashable {
    /// Challenges one client address may be issued per minute (default 120).
    public var challengesPerAddressPerMinute: Int
    /// Challenges one subject may be issued per minute, from all addresses together (default 60).
    public var challengesPerSubjectPerMinute: Int
    /// Formerly the most challenges a subject could hold at once. Challenges are now sealed tokens that take no
    /// storage until used, so nothing is trimmed: their expiry bounds them and the spent set makes each one-time.
    /// It is always 16 and setting it does nothing; a configuration file that sets
    /// `limits.outstandingChallengesPerSubject` gets ``ServiceConfiguration/Warning/outstandingChallengesPerSubject``
    /// at start.
    @available(*, deprecated, message: "has no effect since challenges are sealed tokens; remove it")
    public var outstandingChallengesPerSubject: Int {
        get { 16 }
        set {}  // Ignored: nothing reads it.
    }
    /// Unauthenticated failures (bad or used challenges, unknown keys, wrong subjects, signatures that do not verify,
    /// malformed objects) one client address may cause per minute before its requests get 429 (default 30).
    public var failuresPerAddressPerMinute: Int
    /// How many leading bits of an IPv6 address name one budget (default 64, 32...128; 128 counts single
    /// addresses). IPv4 addresses are always counted one by one.
    public var ipv6PrefixLength: Int = 64

    /// The defaults.
    public static let `default` = RequestLimits()

    /// Creates limits.
    ///
    /// - Parameters:
    ///   - challengesPerAddressPerMinute: Issuance per address.
    ///   - challengesPerSubjectPerMinute: Issuance per subject.
    ///   - failuresPerAddressPerMinute: Unauthenticated failures per address.
    public init(
        challengesPerAddressPerMinute: Int = 120, challengesPerSubjectPerMinute: Int = 60,
        failuresPerAddressPerMinute: Int = 30
    ) {
        self.challengesPerAddressPerMinute = challengesPerAddressPerMinute
        self.challengesPerSubjectPerMinute = challengesPerSubjectPerMinute
        self.failuresPerAddressPerMinute = failuresPerAddressPerMinute
    }

    /// The budget an address is charged to: an IPv4 address itself, an IPv6 address's first ``ipv6PrefixLength``
    /// bits (as `2001:db8:1:2::/64`), any other text itself.
    ///
    /// - Parameter address: The client address as the server reports it (canonical text).
    /// - Returns: The key of the address's budget.
    public func budgetKey(for address: String) -> [UInt8] {
        var v6 = in6_addr()
        guard address.utf8.contains(UInt8(ascii: ":")), address.utf8.count <= 64, inet_pton(AF_INET6, address, &v6) == 1
        else { return Array(address.utf8) }
        let prefix = min(max(ipv6PrefixLength, 0), 128)
        withUnsafeMutableBytes(of: &v6) { bytes in
            for index in 0..<16 {
                let kept = min(max(prefix - index * 8, 0), 8)
                bytes[index] &= kept == 8 ? 0xFF : ~(0xFF >> kept)
            }
        }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return Array(address.utf8) }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } + Array("/\(prefix)".utf8)
    }

    /// Creates limits; `outstandingChallengesPerSubject` is ignored (see the property).
    @available(
        *, deprecated, message: "outstandingChallengesPerSubject has no effect since challenges are sealed tokens"
    )
    public init(
        challengesPerAddressPerMinute: Int = 120, challengesPerSubjectPerMinute: Int = 60,
        outstandingChallengesPerSubject: Int, failuresPerAddressPerMinute: Int = 30
    ) {
        self.init(
            challengesPerAddressPerMinute: challengesPerAddressPerMinute,
            challengesPerSubjectPerMinute: challengesPerSubjectPerMinute,
            failuresPerAddressPerMinute: failuresPerAddressPerMinute)
    }
}
