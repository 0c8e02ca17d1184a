/// How a route treats App Attest, from the guide's failure-policy table: general reads are allowed with limits,
/// sensitive actions require a valid assertion.
///
/// Policies are ordered from the laxest to the strictest (``open`` < ``limited`` < ``token`` <
/// ``requireAssertion``); where a request could be read as more than one route, the strictest applies
/// (``RouteTable``).
public enum RoutePolicy: String, Hashable, Codable, CaseIterable {
    /// No App Attest check at all.
    case open
    /// Allowed whatever the assertion says; the verdict is checked when present, logged and counted, and failures
    /// still raise the key's risk score.
    case limited
    /// Allowed with a valid access token from `POST /v1/tokens` in `Rampart-Token`, or a signed request that
    /// verifies.
    case token
    /// Allowed only with a signed request that verifies: the challenge is consumed and the counter advanced first.
    case requireAssertion = "require-assertion"

    /// The policy's rank, from 0 (``open``) to 3 (``requireAssertion``).
    var strictness: Int {
        switch self {
        case .open: 0
        case .limited: 1
        case .token: 2
        case .requireAssertion: 3
        }
    }

    /// The policy names, as configuration spells them.
    static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension RoutePolicy: Sendable {}
