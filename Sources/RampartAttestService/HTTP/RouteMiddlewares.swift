import Foundation
import RampartCrypto
import RampartHTTP

/// Every answer's line in the access log, written after the error mapping has made the answer, so the line has the
/// final status and code. Outermost: it also times the whole answer.
struct AccessLogMiddleware: RouteMiddleware {
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse {
        let start = ContinuousClock.now
        let response = try await next(router, request, &outcome)
        router.log.write(
            ServiceLog.Event(
                time: ServiceLog.timestamp(), level: response.status >= 500 ? "error" : "info", event: "request",
                route: outcome.route, method: request.method, status: response.status, code: outcome.code,
                policy: outcome.policy?.rawValue, keyFingerprint: outcome.keyFingerprint,
                durationMs: ServiceRouter.seconds(since: start) * 1000, message: nil))
        return response
    }
}

/// The one place a thrown error becomes an answer: its typed code gives the status, the JSON body and
/// `Rampart-Error`, and the outcome's code; a store failure and a bug (an error that is not the service's own) are
/// also logged as errors. Errors from anything inside it, the router's 404 and 405 included, come out as answers.
struct ErrorMappingMiddleware: RouteMiddleware {
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse {
        do {
            return try await next(router, request, &outcome)
        } catch {
            let code = HTTPResponseError.code(for: error)
            outcome.code = code.description
            switch code {
            case .service(.storeFailure):
                router.log.write(
                    level: "error", event: "storeFailure", message: (error as? AttestServiceError)?.detail)
            case .internalError:
                router.log.write(level: "error", event: "internalError", message: String(describing: type(of: error)))
            default: break
            }
            return HTTPResponseError.response(for: error)
        }
    }
}

/// Counts every answer in `rampart_http_requests_total` and its duration, by route pattern and status. Inside the
/// error mapping, it sees a refusal as the error thrown and counts the status that error's typed code maps to.
struct MetricsMiddleware: RouteMiddleware {
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse {
        let start = ContinuousClock.now
        do {
            let response = try await next(router, request, &outcome)
            router.service.metrics.recordRequest(
                route: outcome.route, status: response.status, seconds: ServiceRouter.seconds(since: start))
            return response
        } catch {
            router.service.metrics.recordRequest(
                route: outcome.route, status: HTTPResponseError.code(for: error).status,
                seconds: ServiceRouter.seconds(since: start))
            throw error
        }
    }
}

/// Refuses a request to the internal listener that a web page could have made a browser send: one carrying
/// `Origin` (browsers add it to every cross-site and every non-GET request), and one whose `Host` is neither
/// loopback nor one of the router's admin hosts (DNS rebinding: the page's own name resolving to this machine). With
/// ``JSONOnlyMiddleware`` (a `POST` must be `application/json`, which no page can send across sites without a
/// preflight this listener never answers), it keeps browsers out; the backend's and operators' clients send none
/// of these.
struct CrossOriginMiddleware: RouteMiddleware {
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse {
        if request.headers["origin"] != nil {
            throw AttestServiceError.crossOriginRequest(
                "the internal listener refuses requests that carry Origin (a browser sent it for a web page); call "
                    + "it from your backend or an operator's tool, which send no Origin")
        }
        if let host = request.headers["host"], !router.isAllowedAdminHost(host) {
            throw AttestServiceError.crossOriginRequest(
                "the internal listener answers only Host localhost, a loopback address, its own listen address or "
                    + "a name in adminHosts; this Host is none of them (DNS rebinding?). Call it by one of those "
                    + "names, or add the name your backend uses to adminHosts")
        }
        return try await next(router, request, &outcome)
    }
}

/// The operator check of the internal listener's routes: with a token configured, the whole `Authorization` header
/// must be `Bearer <token>`, else 401 `unauthorized` with `WWW-Authenticate: Bearer`.
///
/// Both sides are hashed with SHA-256 and the digests compared with ``ConstantTime/isEqual(_:_:)``, so neither the
/// position of the first wrong byte nor the token's length shows in the timing. Without a token the internal
/// listener is open: it is then bound to loopback (``ServiceConfiguration/validate()`` refuses anything else).
struct OperatorTokenMiddleware: RouteMiddleware {
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse {
        if let operatorToken = router.operatorToken {
            let presented = SHA256.hash(Array((request.headers["authorization"] ?? "").utf8))
            let expected = SHA256.hash(Array("Bearer \(operatorToken)".utf8))
            guard ConstantTime.isEqual(presented, expected) else {
                throw RouteRefusal(
                    .unauthorized,
                    "this operator route needs 'Authorization: Bearer <operator token>' with the configured token",
                    headers: ["WWW-Authenticate": "Bearer"])
            }
        }
        return try await next(router, request, &outcome)
    }
}

/// Refuses a `POST` to the internal listener that is not `application/json` (see ``CrossOriginMiddleware``).
struct JSONOnlyMiddleware: RouteMiddleware {
    func respond(
        to request: HTTPRequest, _ outcome: inout ServiceRouter.Outcome, router: ServiceRouter,
        next: ServiceRouter.Handler
    ) async throws -> HTTPResponse {
        if request.method.hasSameUTF8(as: "POST") {
            let type = (request.headers["content-type"] ?? "").split(separator: ";", maxSplits: 1).first.map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard type == "application/json" else {
                throw AttestServiceError.unsupportedMediaType(
                    "a POST to the internal listener must be sent with 'Content-Type: application/json' (also with "
                        + "an empty body), so that no web page can make a browser send it")
            }
        }
        return try await next(router, request, &outcome)
    }
}
