import RampartCrypto
import RampartHTTP

extension ServiceRouter {
    /// What answers a route, and what a middleware hands a request on to: the router (the service and its
    /// settings), the request, and the request's ``Outcome``, which handlers and middleware fill in for the metrics
    /// and the access log.
    typealias Handler = @Sendable (ServiceRouter, HTTPRequest, inout Outcome) async throws -> HTTPResponse
}

/// A step wrapped around a handler: it may answer itself, refuse by throwing, or call `next` and look at what came
/// back (hummingbird's `RouterMiddleware`, over the router's own request and outcome types).
protocol RouteMiddleware: Sendable {
    /// Answers `request`, calling `next` for the rest of the chain when it lets the request through.
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse
}

extension Array where Element == any RouteMiddleware {
    /// `handler` inside these middleware, the first element outermost.
    func wrapping(_ handler: @escaping ServiceRouter.Handler) -> ServiceRouter.Handler {
        reversed().reduce(handler) { next, middleware in
            { router, request, outcome in
                try await middleware.respond(to: request, &outcome, router: router, next: next)
            }
        }
    }
}

/// A route's path, matched byte for byte (Swift's string `==` and `hasPrefix` compare canonical equivalence, under
/// which other spellings of a path would match): literal text with at most one `{name}` parameter.
///
/// A parameter at the end matches the rest of the path, `/` included, or nothing (`/ext-authz/{target}` is every
/// path under the prefix); one followed by literal text matches at least one byte.
struct RoutePattern: Hashable, Sendable, CustomStringConvertible {
    /// The pattern as registered, e.g. `/v1/keys/{keyId}/unblock`: the route's name in metrics and logs.
    let description: String
    let prefix: [UInt8]
    let suffix: [UInt8]
    let hasParameter: Bool

    init(_ text: String) {
        description = text
        if let open = text.firstIndex(of: "{"), let close = text[open...].firstIndex(of: "}") {
            precondition(!text[text.index(after: close)...].contains("{"), "\(text): at most one parameter")
            prefix = Array(text[..<open].utf8)
            suffix = Array(text[text.index(after: close)...].utf8)
            hasParameter = true
        } else {
            prefix = Array(text.utf8)
            suffix = []
            hasParameter = false
        }
    }

    /// How many literal bytes the pattern has: where two patterns match, the one with more wins.
    var literalByteCount: Int { prefix.count + suffix.count }

    /// The parameter's bytes (empty for a pattern without one) when `path` matches, else nil.
    func match(_ path: [UInt8]) -> ArraySlice<UInt8>? {
        guard hasParameter else { return path == prefix ? path[path.endIndex...] : nil }
        let least = literalByteCount + (suffix.isEmpty ? 0 : 1)
        guard path.count >= least, path.starts(with: prefix), path.suffix(suffix.count).elementsEqual(suffix) else {
            return nil
        }
        return path[prefix.count..<(path.count - suffix.count)]
    }
}

/// Collects the service's routes once, hummingbird-style (`routes.post("/v1/challenges", use: …)`), in groups that
/// say which listener serves them and which middleware wraps them.
struct Router {
    /// Why a group's routes exist, for the route lists the OpenAPI document is checked against.
    enum Role: Hashable, Sendable {
        /// Apps, gateways and monitoring.
        case publicAPI
        /// The trusted backend on the internal listener.
        case internalAPI
        /// Operators on the internal listener.
        case operatorAPI
    }

    /// One registered method of one route.
    struct Declaration: Sendable {
        let method: String
        let pattern: RoutePattern
        let listeners: Set<ServiceRouter.Listener>
        let role: Role
        /// Whether the OpenAPI document lists it (the gateway checks answer every method it lists and `HEAD` and
        /// `OPTIONS`).
        let documented: Bool
        let handler: ServiceRouter.Handler
    }

    /// A path that answers `410 endpointRemoved` on every listener, for every method.
    struct Removal: Sendable {
        let pattern: RoutePattern
        let message: String
    }

    private(set) var declarations: [Declaration] = []
    private(set) var removals: [Removal] = []

    /// Registers the routes `body` adds to a group served by `listeners`, each wrapped in `middleware` (the first
    /// outermost).
    mutating func group(
        _ listeners: Set<ServiceRouter.Listener>, role: Role, middleware: [any RouteMiddleware] = [],
        _ body: (inout RouteGroup) -> Void
    ) {
        var group = RouteGroup(listeners: listeners, role: role, middleware: middleware)
        body(&group)
        declarations += group.declarations
    }

    /// Registers a path that was removed: every request to it is `410 endpointRemoved` with `message`.
    mutating func removed(_ path: String, message: String) {
        removals.append(Removal(pattern: RoutePattern(path), message: message))
    }

    /// The routes of one group, added with ``get(_:use:)``, ``post(_:use:)`` or ``on(_:methods:documenting:use:)``.
    struct RouteGroup {
        let listeners: Set<ServiceRouter.Listener>
        let role: Role
        let middleware: [any RouteMiddleware]
        fileprivate(set) var declarations: [Declaration] = []

        mutating func get(_ path: String, use handler: @escaping ServiceRouter.Handler) {
            on(path, methods: ["GET"], use: handler)
        }

        mutating func post(_ path: String, use handler: @escaping ServiceRouter.Handler) {
            on(path, methods: ["POST"], use: handler)
        }

        /// Registers `handler` for each of `methods`; the OpenAPI document lists `documenting` (all of them when
        /// nil).
        mutating func on(
            _ path: String, methods: [String], documenting: [String]? = nil,
            use handler: @escaping ServiceRouter.Handler
        ) {
            let pattern = RoutePattern(path)
            let wrapped = middleware.wrapping(handler)
            for method in methods {
                declarations.append(
                    Declaration(
                        method: method, pattern: pattern, listeners: listeners, role: role,
                        documented: documenting?.contains(method) ?? true, handler: wrapped))
            }
        }
    }

    /// Every documented route as `METHOD pattern`, in registration order, once each.
    func documentedRoutes(where include: (Declaration) -> Bool) -> [String] {
        var seen: Set<String> = []
        return declarations.filter { $0.documented && include($0) }.map { "\($0.method) \($0.pattern)" }.filter {
            seen.insert($0).inserted
        }
    }
}

/// One listener's routes, frozen for lookup: a request costs a dictionary lookup for a literal path, or a scan of
/// the few patterns with a parameter.
struct Routes: Sendable {
    /// A route pattern on this listener and what each of its methods does.
    struct Endpoint: Sendable {
        let pattern: RoutePattern
        /// The methods in registration order (the `Allow` header of a 405 lists them so).
        var methods: [String]
        var handlers: [String: ServiceRouter.Handler]
    }

    let listener: ServiceRouter.Listener
    private var literal: [[UInt8]: Endpoint] = [:]
    /// Most literal bytes first, so `/v1/keys/{keyId}/unblock` is tried before `/v1/keys/{keyId}`.
    private var parameterized: [Endpoint] = []
    /// Patterns served by another listener, for a 404 that says where they are.
    private let elsewhere: [RoutePattern]
    private let removals: [Router.Removal]

    init(_ router: Router, listener: ServiceRouter.Listener) {
        self.listener = listener
        var endpoints: [Endpoint] = []
        for declaration in router.declarations where declaration.listeners.contains(listener) {
            if let index = endpoints.firstIndex(where: { $0.pattern == declaration.pattern }) {
                precondition(
                    endpoints[index].handlers[declaration.method] == nil,
                    "\(declaration.method) \(declaration.pattern) is registered twice on the \(listener) listener")
                endpoints[index].methods.append(declaration.method)
                endpoints[index].handlers[declaration.method] = declaration.handler
            } else {
                endpoints.append(
                    Endpoint(
                        pattern: declaration.pattern, methods: [declaration.method],
                        handlers: [declaration.method: declaration.handler]))
            }
        }
        for endpoint in endpoints where !endpoint.pattern.hasParameter {
            literal[endpoint.pattern.prefix] = endpoint
        }
        parameterized = endpoints.filter(\.pattern.hasParameter).sorted {
            $0.pattern.literalByteCount > $1.pattern.literalByteCount
        }
        var seen = Set(endpoints.map(\.pattern))
        elsewhere = router.declarations.map(\.pattern).filter { seen.insert($0).inserted }
        removals = router.removals
    }

    /// The endpoint `path` names on this listener, and its parameter's bytes.
    func endpoint(for path: [UInt8]) -> (Endpoint, ArraySlice<UInt8>)? {
        if let found = literal[path] { return (found, path[path.endIndex...]) }
        for endpoint in parameterized {
            if let parameter = endpoint.pattern.match(path) { return (endpoint, parameter) }
        }
        return nil
    }

    /// Runs the handler of the route `request` names: a path no route matches is 404 `notFound` (or 410
    /// `endpointRemoved`), a method the route does not answer 405 `methodNotAllowed` with `Allow`.
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter
    ) async throws -> HTTPResponse {
        let path = Array(request.path.utf8)
        guard let (endpoint, parameter) = self.endpoint(for: path) else { throw notFound(request.path, path) }
        outcome.route = endpoint.pattern.description
        outcome.parameter = parameter
        guard let handler = endpoint.handlers.first(where: { $0.key.hasSameUTF8(as: request.method) })?.value else {
            let allowed = endpoint.methods.joined(separator: ", ")
            // RFC 9110 15.5.6: a 405 "MUST generate an Allow header field" listing the target's methods.
            throw RouteRefusal(
                .service(.methodNotAllowed), "\(endpoint.pattern) accepts \(allowed)", headers: ["Allow": allowed])
        }
        return try await handler(router, request, &outcome)
    }

    private func notFound(_ text: String, _ path: [UInt8]) -> AttestServiceError {
        if let removal = removals.first(where: { $0.pattern.match(path) != nil }) {
            return .endpointRemoved(removal.message)
        }
        let matching = elsewhere.filter { $0.match(path) != nil }
        if let pattern = matching.max(by: { $0.literalByteCount < $1.literalByteCount }) {
            return .notFound(
                "\(pattern) is not on the \(listener) listener; operator routes and /metrics are on the admin "
                    + "listener (--admin-listen)")
        }
        return .notFound("no route \(text.prefix(64)); see the OpenAPI document")
    }
}
