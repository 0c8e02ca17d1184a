/// How a protected route treats App Attest, from the guide's failure-policy table: general reads are allowed with
/// limits, point use requires a valid assertion.
public enum RoutePolicy: String, Hashable, Codable, CaseIterable {
    /// No App Attest check at all.
    case open
    /// Allowed whatever the assertion says; the verdict is checked when present, logged and counted, and failures
    /// still raise the key's risk score.
    case limited
    /// Allowed only with an assertion that verifies: the challenge is consumed and the counter advanced first.
    case requireAssertion = "require-assertion"
}

extension RoutePolicy: Sendable {}
