import Foundation
import RampartAppAttest
import RampartRequestSigning
import TestSupport
import Testing

/// The requests Envoy's `ext_authz` filter (HTTP service) sends, reproduced byte for byte against a real
/// `rampart serve` (Envoy is not packaged for Debian). The shapes follow Envoy's documentation of `HttpService`,
/// `AuthorizationRequest` and `BufferSettings`: the check carries the original method, `path_prefix` followed by
/// the original path and query, `Host`, `Authorization`, a `Content-Length` of the check's own body (0 without
/// `with_request_body`), the headers matching `allowed_headers`, and with `with_request_body` the buffered body and
/// `x-envoy-auth-partial-body: false|true`. Only a 200 allows; its headers matching `allowed_upstream_headers` are
/// set on the upstream request. The prefix and the header lists are read from `docs/examples/envoy.yaml`.
@Suite(.serialized, .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
struct EnvoyShapeTests {
    /// What the tests read from docs/examples/envoy.yaml.
    struct Configuration {
        let pathPrefix: String
        let allowedHeaders: Set<String>
        let upstreamHeaders: Set<String>
        let clientHeadersOnSuccess: Set<String>
        let clientHeaders: Set<String>

        /// The `- exact: NAME` entries under the first line after `after` that contains `key`.
        static func list(_ lines: [String], key: String, after: String) throws -> Set<String> {
            guard let anchor = lines.firstIndex(where: { $0.contains(after) }),
                let start = lines[anchor...].firstIndex(where: { $0.contains(key) })
            else { throw ServeProcessError("envoy.yaml has no \(key) after \(after)") }
            var names: Set<String> = []
            for line in lines[(start + 1)...] {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed == "patterns:" { continue }
                guard trimmed.hasPrefix("- exact: ") else { break }
                names.insert(String(trimmed.dropFirst("- exact: ".count)))
            }
            return names
        }

        static func load() throws -> Configuration {
            let lines = try Gateway.example("envoy.yaml").components(separatedBy: "\n")
            guard let prefix = lines.first(where: { $0.contains("path_prefix:") }) else {
                throw ServeProcessError("envoy.yaml has no path_prefix")
            }
            return Configuration(
                pathPrefix: prefix.components(separatedBy: "path_prefix:")[1].trimmingCharacters(in: .whitespaces),
                allowedHeaders: try list(lines, key: "allowed_headers:", after: "name: envoy.filters.http.ext_authz"),
                upstreamHeaders: try list(lines, key: "allowed_upstream_headers:", after: "authorization_response:"),
                clientHeadersOnSuccess: try list(
                    lines, key: "allowed_client_headers_on_success:", after: "authorization_response:"),
                clientHeaders: try list(
                    lines, key: "allowed_client_headers:", after: "allowed_client_headers_on_success"))
        }
    }

    let configuration: Configuration
    let simulator: AppAttestSimulator

    init() throws {
        configuration = try Configuration.load()
        simulator = try AppAttestSimulator()
    }

    /// The check Envoy sends for `original` (the request after Envoy's other filters: `x-user-id` set by
    /// `jwt_authn`, `x-forwarded-for` appended by the connection manager).
    func check(
        _ original: SignedRequest, port: UInt16, withBody: Bool, maximumBytes: Int = 65536
    ) async throws -> RawHTTP.Response {
        var headers = original.headers.merging(["X-User-Id": "alice", "X-Forwarded-For": "203.0.113.7"]) { $1 }
        headers = headers.filter {
            configuration.allowedHeaders.contains($0.key.lowercased())
                || ["authorization", "host", "content-length"].contains($0.key.lowercased())
        }
        // Envoy's own headers on the check (HTTP/1.1, lower-case names).
        headers["x-envoy-expected-rq-timeout-ms"] = "1000"
        headers["x-request-id"] = UUID().uuidString.lowercased()
        headers["x-forwarded-proto"] = "http"
        var body: [UInt8] = []
        if withBody {
            body = Array(original.body.prefix(maximumBytes))
            headers["x-envoy-auth-partial-body"] = body.count < original.body.count ? "true" : "false"
        }
        let lowered = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        guard
            let answer = await RawHTTP.request(
                port: port, original.method, configuration.pathPrefix + original.target, body: body, headers: lowered)
        else { throw ServeProcessError("no answer to the Envoy check") }
        return answer
    }

    func setUp() async throws -> (ServeChild, GatewayStory) {
        let serve = try await GatewayService.start(simulator: simulator)
        let app = SigningApp(simulator: simulator, authentication: ["X-User-Id": "alice"])
        try await app.register(port: serve.port)
        return (serve, GatewayStory(name: "Envoy", port: serve.port, app: app, passesStatus: true))
    }

    @Test("the documented configuration: /ext-authz, the signature headers allowed, the verdict headers passed on")
    func documentedConfiguration() {
        #expect(configuration.pathPrefix == "/ext-authz")
        // The method overrides too: Rampart reads them as the stricter methods they may make the request.
        for name in [
            "rampart-key-id", "rampart-challenge", "rampart-assertion", "content-digest", "rampart-token",
            "x-http-method-override", "x-method-override", "x-http-method",
        ] {
            #expect(configuration.allowedHeaders.contains(name), "allowed_headers lacks \(name)")
        }
        for name in [
            "rampart-subject", "rampart-key-id", "rampart-counter", "rampart-policy", "rampart-environment",
            "rampart-verified-digest",
        ] {
            #expect(configuration.upstreamHeaders.contains(name), "allowed_upstream_headers lacks \(name)")
        }
        #expect(configuration.clientHeadersOnSuccess == ["rampart-next-challenge"])
        #expect(configuration.clientHeaders.contains("rampart-error"))
    }

    @Test("with_request_body: a signed request is allowed with the verdict headers; a changed body is digestMismatch")
    func withBody() async throws {
        let (serve, story) = try await setUp()
        do {
            let body = Array(#"{"action":"point_use","amount":1000}"#.utf8)
            let request = try await story.signed("POST", "/api/points/use?dry=1&note=a%20b", body: body)
            let allowed = try await check(request, port: serve.port, withBody: true)
            #expect(allowed.status == 200, "\(allowed.body)")
            #expect(allowed.headers["rampart-subject"] == "alice")
            #expect(allowed.headers["rampart-key-id"] == story.app.keyID)
            #expect(allowed.headers["rampart-counter"] == "1")
            #expect(allowed.headers["rampart-policy"] == "require-assertion")
            #expect(allowed.headers["rampart-verified-digest"] == RequestSignature.contentDigest(of: body))
            let next = try #require(allowed.headers["rampart-next-challenge"])

            var changed = try await story.signed("POST", "/api/points/use", body: body, challenge: next)
            changed.body = Array(#"{"action":"point_use","amount":9999}"#.utf8)
            let refused = try await check(changed, port: serve.port, withBody: true)
            #expect(refused.status == 401)
            #expect(refused.headers["rampart-error"] == "digestMismatch")
            #expect(refused.body.contains(#""error":"digestMismatch""#))
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("with_request_body and a body past max_request_bytes (partial): refused, the message says to raise it")
    func partialBody() async throws {
        let (serve, story) = try await setUp()
        do {
            let body = [UInt8](repeating: 0x61, count: 300)
            let request = try await story.signed("PUT", "/api/points/bulk", body: body)
            let refused = try await check(request, port: serve.port, withBody: true, maximumBytes: 100)
            #expect(refused.status == 401)
            #expect(refused.headers["rampart-error"] == "digestMismatch")
            #expect(refused.body.contains("max_request_bytes"))
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("without with_request_body: Content-Length 0, verified over the header, the digest handed upstream")
    func withoutBody() async throws {
        let (serve, story) = try await setUp()
        do {
            let body = Array(#"{"amount":5}"#.utf8)
            let request = try await story.signed("PATCH", "/api/points/7", body: body)
            let allowed = try await check(request, port: serve.port, withBody: false)
            #expect(allowed.status == 200, "\(allowed.body)")
            #expect(allowed.headers["rampart-verified-digest"] == RequestSignature.contentDigest(of: body))
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("the original method, path and query are what is verified; changing any after signing is invalidAssertion")
    func methodPathQuery() async throws {
        let (serve, story) = try await setUp()
        do {
            var method = try await story.signed("POST", "/api/points/use")
            method.method = "DELETE"
            var path = try await story.signed("POST", "/api/points/use")
            path.target = "/api/points/other"
            var query = try await story.signed("POST", "/api/points/use?amount=1")
            query.target = "/api/points/use?amount=2"
            var encoding = try await story.signed("POST", "/api/points/a%2Fb")
            encoding.target = "/api/points/a/b"
            for (name, request) in [("method", method), ("path", path), ("query", query), ("encoding", encoding)] {
                let refused = try await check(request, port: serve.port, withBody: true)
                #expect(refused.status == 401, "\(name): \(refused.status) \(refused.body)")
                #expect(refused.headers["rampart-error"] == "invalidAssertion", "\(name)")
            }
            let get = try await story.signed("GET", "/api/points/balance?currency=EUR")
            #expect(try await check(get, port: serve.port, withBody: true).status == 200)
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("replay is 409 challengeUsed, no assertion 401 assertionRequired, an open route 200 with policy open")
    func verdicts() async throws {
        let (serve, story) = try await setUp()
        do {
            let request = try await story.signed("POST", "/api/points/use")
            #expect(try await check(request, port: serve.port, withBody: true).status == 200)
            let replay = try await check(request, port: serve.port, withBody: true)
            #expect(replay.status == 409)
            #expect(replay.headers["rampart-error"] == "challengeUsed")
            let unsigned = try await check(
                SignedRequest(method: "POST", target: "/api/points/use", body: [], headers: [:]), port: serve.port,
                withBody: true)
            #expect(unsigned.status == 401)
            #expect(unsigned.headers["rampart-error"] == "assertionRequired")
            let open = try await check(
                SignedRequest(method: "GET", target: "/api/health", body: [], headers: [:]), port: serve.port,
                withBody: false)
            #expect(open.status == 200)
            #expect(open.headers["rampart-policy"] == "open")
            #expect(open.headers["rampart-key-id"] == nil)
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }
}
