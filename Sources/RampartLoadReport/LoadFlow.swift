/// How a protected request gets its challenge: `rampart-load --flow` and `rampart-bench service --flow` take the raw
/// values, and ``LoadReport/flow`` names one.
package enum LoadFlow: String, CaseIterable, Sendable {
    /// `POST /v1/challenges`, then the signed request: two round trips per protected request.
    case twoRoundTrips = "two-round-trips"
    /// The challenge is the `Rampart-Next-Challenge` of the key's previous answer: one round trip (a challenge is
    /// fetched only when the previous answer carried none).
    case oneRoundTrip = "one-round-trip"

    /// The raw values as a list for a message or `--help`: `two-round-trips or one-round-trip`.
    package static let names = allCases.map(\.rawValue).joined(separator: " or ")
}
