import Foundation
import RampartHTTP
import RampartRequestSigning

extension ServiceRouter {
    /// The policies of the demo routes when no configured route matches them (the guide's failure-policy table:
    /// point use requires an assertion, a balance read is allowed with limits).
    public static let demoPolicies: [String: RoutePolicy] = [
        "/v1/demo/points/use": .requireAssertion,
        "/v1/demo/points/balance": .limited,
    ]

    /// Registers the demo routes on the public listener. They are always registered, so a wrong method is 405 as
    /// on any route; without `--demo` (``demo`` false) they answer 404 `notFound` saying so.
    static func declareDemoRoutes(on router: inout Router) {
        router.group([.publicAPI], role: .publicAPI) { routes in
            for route in ["/v1/demo/points/use", "/v1/demo/points/balance"] {
                routes.post(route) { router, request, outcome in try await router.demoPoints(route, request, &outcome) }
            }
        }
    }

    /// A demo route (`--demo` only): a signed request to the service itself, under the policy of the matching
    /// configured route or else ``demoPolicies``. The user is the request's subject.
    ///
    /// `POST /v1/demo/points/use` takes `{"amount": N}` and spends N points; `POST /v1/demo/points/balance` takes
    /// an empty body (or `{}`) and reads the balance.
    func demoPoints(_ route: String, _ request: HTTPRequest, _ outcome: inout Outcome) async throws -> HTTPResponse {
        guard demo else {
            throw AttestServiceError.notFound(
                "\(route) is a demo route; it exists only with `rampart serve --demo` (and in `rampart demo`)")
        }
        let target = try RequestTarget(request.target)
        let configured = try routeTable.policy(method: request.method, target: target, headers: request.headers)
        let policy = configured.rule != nil ? configured.policy : (Self.demoPolicies[route] ?? .requireAssertion)
        outcome.policy = policy
        var amount = 0
        if route == "/v1/demo/points/use" {
            let fields = try RequestFields(body: request.body)
            try fields.refuseUnknownFields(allowing: ["amount"])
            guard case .number(let number)? = fields.values["amount"], number.rounded() == number, number >= 1,
                number <= Double(DemoPoints.maximumAmount)
            else {
                throw AttestServiceError.invalidField(
                    "'amount' must be a whole number of points, 1...\(DemoPoints.maximumAmount)")
            }
            amount = Int(number)
        } else if !request.body.isEmpty {
            try RequestFields(body: request.body).refuseUnknownFields(allowing: [])
        }
        let verdict = try await decide(
            method: request.method, target: request.target, headers: request.headers, body: .seen(request.body),
            policy: policy, clientAddress: forwardedClient(request), fromTrustedPeer: isTrustedPeer(request), &outcome)
        let allowance: GatewayAllowance
        switch verdict {
        case .refuse:
            return Self.response(for: verdict, nginx: false, &outcome)
        case .allow(let allowed):
            allowance = allowed
        }
        guard let user = allowance.subject else {
            let refusal = Refusal(.subjectRequired, "the demo needs a user: \(subjects.source.explanation)")
            return Self.response(for: .refuse(GatewayRefusal(refusal)), nginx: false, &outcome)
        }
        outcome.code = allowance.limitedRefusal.map { "limited:\($0)" } ?? "accepted"
        let balance: Int
        if amount > 0 {
            guard let remaining = points.use(amount, by: user) else {
                throw RouteRefusal(
                    .insufficientPoints, "the balance is lower than \(amount) points; nothing was spent")
            }
            balance = remaining
        } else {
            balance = points.balance(of: user)
        }
        var response = JSONBody.response(
            status: 200,
            PointsBody(
                userId: user, used: amount, balance: balance, counter: allowance.counter, policy: policy.rawValue,
                attested: allowance.keyID != nil))
        response.headers.merge(allowance.headers) { $1 }
        return response
    }

    struct PointsBody: Encodable {
        let userId: String
        let used: Int
        let balance: Int
        let counter: UInt32?
        let policy: String
        let attested: Bool
    }
}
