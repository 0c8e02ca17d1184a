import Foundation
import RampartRequestSigning
import Synchronization
import Testing

@testable import RampartAttestService

/// Issue 29 item 3: each route registered once in a listener group, middleware wrapped around handlers in a stated
/// order, and error codes typed from the handler that refuses to the body and `Rampart-Error`.
struct RouterTests {
    let service: AttestationService

    init() throws {
        service = AttestationService(
            store: try SQLiteAttestationStore(path: temporarySQLitePath()), verifier: FakeVerifier())
    }

    /// A log whose lines the test reads.
    final class Lines: Sendable {
        let received = Mutex<[String]>([])
        func append(_ line: String) { received.withLock { $0.append(line) } }
        var all: [String] { received.withLock { $0 } }
    }

    /// Appends its name to a shared trace on the way in and on the way out (or when what it wraps throws).
    struct Probe: RouteMiddleware {
        let name: String
        let trace: Trace

        func respond(
            to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
            next: ServiceRouter.Handler
        ) async throws -> HTTPResponse {
            trace.append("\(name) in")
            do {
                let response = try await next(router, request, &outcome)
                trace.append("\(name) out \(response.status)")
                return response
            } catch {
                trace.append("\(name) threw \(HTTPResponseError.code(for: error))")
                throw error
            }
        }
    }

    final class Trace: Sendable {
        let entries = Mutex<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    static func code(_ response: HTTPResponse) -> String? {
        guard case .object(let fields)? = try? JSONValue(parsing: response.body),
            case .string(let code)? = fields["error"]
        else { return nil }
        return code
    }

    /// A concrete path for a route pattern.
    static func path(_ pattern: String) -> String {
        pattern.replacingOccurrences(of: "{keyId}", with: String(repeating: "A", count: 43))
            .replacingOccurrences(of: "{target}", with: "api/x")
    }

    @Test("every route is registered once per listener, and the route lists are the registrations")
    func registeredOnce() {
        var seen: [ServiceRouter.Listener: Set<String>] = [:]
        for declaration in ServiceRouter.router.declarations {
            for listener in declaration.listeners {
                let route = "\(declaration.method) \(declaration.pattern)"
                #expect(seen[listener, default: []].insert(route).inserted, "\(route) twice on \(listener)")
            }
        }
        #expect(Set(ServiceRouter.routes).count == ServiceRouter.routes.count)
        #expect(
            Set(ServiceRouter.routes)
                == Set(ServiceRouter.publicRoutes + ServiceRouter.internalRoutes + ServiceRouter.operatorRoutes))
        #expect(ServiceRouter.internalRoutes == ["POST /v1/verify", "POST /v1/challenges", "POST /v1/attestations"])
        #expect(
            ServiceRouter.operatorRoutes == [
                "GET /metrics", "GET /v1/keys/{keyId}", "POST /v1/keys/{keyId}/unblock",
            ])
        // The demo registers its own routes, on the public listener only.
        #expect(ServiceRouter.publicRoutes.contains("POST /v1/demo/points/use"))
        #expect(!ServiceRouter.internalRoutes.contains { $0.contains("/demo/") })
    }

    @Test("each registered route resolves on the listeners of its groups and on no other")
    func membership() {
        let declarations = ServiceRouter.router.declarations
        for declaration in declarations {
            let path = Array(Self.path(declaration.pattern.description).utf8)
            for listener in [ServiceRouter.Listener.publicAPI, .admin] {
                let expected = declarations.contains {
                    $0.method == declaration.method && $0.pattern == declaration.pattern
                        && $0.listeners.contains(listener)
                }
                let found = ServiceRouter.listenerRoutes[listener.backing]?.endpoint(for: path)
                let served = found.map {
                    $0.0.pattern == declaration.pattern && $0.0.methods.contains(declaration.method)
                }
                #expect((served ?? false) == expected, "\(declaration.method) \(declaration.pattern) on \(listener)")
            }
        }
    }

    @Test("patterns match bytes: a trailing parameter takes the rest or nothing, an inner one at least a byte")
    func patterns() {
        let keys = RoutePattern("/v1/keys/{keyId}")
        let unblock = RoutePattern("/v1/keys/{keyId}/unblock")
        let literal = RoutePattern("/healthz")
        #expect(literal.match(Array("/healthz".utf8)) == [])
        #expect(literal.match(Array("/healthz/".utf8)) == nil)
        // "é" as one scalar and as e + combining acute are equal Strings, different paths.
        #expect(RoutePattern("/caf\u{E9}").match(Array("/cafe\u{301}".utf8)) == nil)
        #expect(keys.match(Array("/v1/keys/".utf8)) == [])
        #expect(keys.match(Array("/v1/keys/a/b".utf8)).map(Array.init) == Array("a/b".utf8))
        #expect(unblock.match(Array("/v1/keys//unblock".utf8)) == nil)
        #expect(unblock.match(Array("/v1/keys///unblock".utf8)).map(Array.init) == Array("/".utf8))
        #expect(unblock.match(Array("/v1/keys/unblock".utf8)) == nil)
        #expect(unblock.match(Array("/v1/keys/k/unblock".utf8)).map(Array.init) == Array("k".utf8))
        let admin = ServiceRouter.listenerRoutes[.admin]
        #expect(admin?.endpoint(for: Array("/v1/keys/k/unblock".utf8))?.0.pattern == unblock)
        #expect(admin?.endpoint(for: Array("/v1/keys/unblock".utf8))?.0.pattern == keys)
    }

    @Test("a route of the other listener is 404 notFound saying where it is; an unknown path says there is none")
    func wrongListener() async {
        let publicRouter = ServiceRouter(service: service)
        let admin = ServiceRouter(service: service, listener: .admin)
        let verify = await publicRouter.respond(to: HTTPRequest(method: "POST", path: "/v1/verify"))
        #expect(verify.status == 404)
        #expect(Self.code(verify) == "notFound")
        #expect(verify.bodyText.contains("/v1/verify is not on the public listener"))
        #expect(verify.headers["Rampart-Error"] == "notFound")
        let gateway = await admin.respond(to: HTTPRequest(method: "GET", path: "/ext-authz/api/x"))
        #expect(gateway.status == 404)
        #expect(gateway.bodyText.contains("/ext-authz/{target} is not on the admin listener"))
        let unknown = await publicRouter.respond(to: HTTPRequest(method: "GET", path: "/v2/nothing"))
        #expect(unknown.status == 404)
        #expect(unknown.bodyText.contains("no route /v2/nothing"))
        for router in [publicRouter, admin] {
            let removed = await router.respond(to: HTTPRequest(method: "GET", path: "/v1/assertions"))
            #expect(removed.status == 410)
            #expect(Self.code(removed) == "endpointRemoved")
        }
        #expect(service.metrics.prometheusText.contains(#"route="unmatched",status="404""#))
    }

    @Test("a method the route does not answer is 405 with Allow in registration order; HEAD only on the gateways")
    func methodNotAllowed() async {
        let router = ServiceRouter(service: service)
        let health = await router.respond(to: HTTPRequest(method: "HEAD", path: "/healthz"))
        #expect(health.status == 405)
        #expect(health.headers["Allow"] == "GET")
        #expect(health.headers["Rampart-Error"] == "methodNotAllowed")
        let trace = await router.respond(to: HTTPRequest(method: "TRACE", path: "/forward-auth"))
        #expect(trace.status == 405)
        #expect(trace.headers["Allow"] == "GET, POST, PUT, DELETE, PATCH, HEAD, OPTIONS")
        let head = await router.respond(to: HTTPRequest(method: "HEAD", path: "/forward-auth"))
        #expect(head.status != 405)
        #expect(service.metrics.prometheusText.contains(#"route="/healthz",status="405""#))
    }

    @Test("group middleware wraps the group's handlers in order, the first outermost, and only that group's")
    func groupOrder() async throws {
        let trace = Trace()
        var router = Router()
        router.group(
            [.publicAPI], role: .publicAPI,
            middleware: [Probe(name: "a", trace: trace), Probe(name: "b", trace: trace)]
        ) {
            routes in
            routes.get("/wrapped") { _, _, _ in
                trace.append("handler")
                return HTTPResponse(status: 200)
            }
        }
        router.group([.publicAPI], role: .publicAPI) { routes in
            routes.get("/bare") { _, _, _ in HTTPResponse(status: 204) }
        }
        let routes = Routes(router, listener: .publicAPI)
        var outcome = ServiceRouter.Outcome(route: "unmatched")
        let owner = ServiceRouter(service: service)
        _ = try await routes.respond(to: HTTPRequest(method: "GET", path: "/wrapped"), &outcome, router: owner)
        #expect(trace.all == ["a in", "b in", "handler", "b out 200", "a out 200"])
        _ = try await routes.respond(to: HTTPRequest(method: "GET", path: "/bare"), &outcome, router: owner)
        #expect(trace.all.count == 5)
        #expect(outcome.route == "/bare")
    }

    @Test("the service's middleware: access log outside the error mapping, the error mapping outside the metrics")
    func serviceOrder() async {
        #expect(
            ServiceRouter.middleware.map { ObjectIdentifier(type(of: $0)) } == [
                ObjectIdentifier(AccessLogMiddleware.self), ObjectIdentifier(ErrorMappingMiddleware.self),
                ObjectIdentifier(MetricsMiddleware.self),
            ])
        // Inside the error mapping a refusal is still the typed error; outside it, it is the mapped answer.
        let trace = Trace()
        var router = Router()
        router.group([.publicAPI], role: .publicAPI) { routes in
            routes.get("/refuse") { _, _, _ in throw RouteRefusal(.insufficientPoints, "not enough points") }
        }
        let routes = Routes(router, listener: .publicAPI)
        let chain =
            ([Probe(name: "outside", trace: trace), ErrorMappingMiddleware(), Probe(name: "inside", trace: trace)]
            as [any RouteMiddleware]).wrapping { router, request, outcome in
                try await routes.respond(to: request, &outcome, router: router)
            }
        var outcome = ServiceRouter.Outcome(route: "unmatched")
        let response = try? await chain(
            ServiceRouter(service: service), HTTPRequest(method: "GET", path: "/refuse"), &outcome)
        #expect(trace.all == ["outside in", "inside in", "inside threw insufficientPoints", "outside out 409"])
        #expect(response?.headers["Rampart-Error"] == "insufficientPoints")
        #expect(outcome.code == "insufficientPoints")
    }

    @Test("the access log line and the metrics carry the code and status of a refusal thrown by a middleware")
    func loggedAndCounted() async {
        let lines = Lines()
        let admin = ServiceRouter(
            service: service, listener: .admin, operatorToken: "k3J9-pQ2x_Lm7vR4tY8wZ1aB6cD0eF5g",
            log: ServiceLog(sink: lines.append))
        let response = await admin.respond(to: HTTPRequest(method: "GET", path: "/metrics"))
        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == "Bearer")
        #expect(response.headers["Rampart-Error"] == "unauthorized")
        #expect(Self.code(response) == "unauthorized")
        let line = lines.all.last ?? ""
        #expect(line.contains(#""route":"/metrics""#))
        #expect(line.contains(#""status":401"#))
        #expect(line.contains(#""code":"unauthorized""#))
        #expect(service.metrics.prometheusText.contains(#"route="/metrics",status="401""#))
    }

    @Test("typed codes: a thrown error's code gives the status, the body's error and Rampart-Error")
    func typedCodes() {
        struct Unexpected: Error {}
        #expect(HTTPResponseError.code(for: AttestServiceError.keyNotFound("x")) == .service(.keyNotFound))
        #expect(HTTPResponseError.code(for: RouteRefusal(.unauthorized, "x")) == .unauthorized)
        #expect(HTTPResponseError.code(for: Unexpected()) == .internalError)
        for code in ErrorCode.answerable {
            let response = HTTPResponseError.response(for: RouteRefusal(code, "m"))
            #expect(response.status == code.status, "\(code)")
            #expect(response.headers["Rampart-Error"] == code.description)
            #expect(Self.code(response) == code.description)
        }
        #expect(ServiceRouter.errorCodes == ErrorCode.answerable.map(\.description))
        let unexpected = HTTPResponseError.response(for: Unexpected())
        #expect(unexpected.status == 500)
        #expect(Self.code(unexpected) == "internalError")
    }
}
