import Foundation
import RampartAppAttest
import RampartRequestSigning
import TestSupport
import Testing

/// The request Traefik's ForwardAuth middleware sends, reproduced against a real `rampart serve` (Traefik is not
/// packaged for Debian; Caddy's `forward_auth`, which is, runs for real in ``GatewayCaddyTests``). From Traefik's
/// documentation and `pkg/middlewares/auth/forward.go`: `GET <address>` (the address as configured, no query of its
/// own), every header of the original request (Go's canonical case) except hop-by-hop ones, `X-Forwarded-For`,
/// `X-Forwarded-Method`, `X-Forwarded-Proto`, `X-Forwarded-Host` and `X-Forwarded-Uri` taken from the request itself
/// (`trustForwardHeader: false`), and with `forwardBody: true` the body with its `Content-Length`. Any 2xx allows,
/// and `authResponseHeaders` are copied onto the forwarded request. The address and lists come from
/// `docs/examples/traefik.yml`.
@Suite(.serialized, .enabled(if: ServeProcess.available, "needs the rampart binary (swift build)"))
struct ForwardAuthShapeTests {
    let simulator: AppAttestSimulator
    let address: String
    let authResponseHeaders: Set<String>

    init() throws {
        simulator = try AppAttestSimulator()
        let lines = try Gateway.example("traefik.yml").components(separatedBy: "\n")
        let check = try #require(lines.firstIndex { $0.contains("rampart-check:") })
        let addressLine = try #require(lines[check...].first { $0.contains("address:") })
        address = addressLine.components(separatedBy: "\"")[1]
        let list = try #require(lines[check...].firstIndex { $0.contains("authResponseHeaders:") })
        authResponseHeaders = Set(
            lines[(list + 1)...].prefix { $0.trimmingCharacters(in: .whitespaces).hasPrefix("- ") }
                .map { String($0.trimmingCharacters(in: .whitespaces).dropFirst(2)) })
        #expect(lines[check...].contains { $0.contains("trustForwardHeader: false") })
    }

    /// The check Traefik sends for `original` arriving from 203.0.113.7.
    func check(_ original: SignedRequest, port: UInt16, forwardBody: Bool) async throws -> RawHTTP.Response {
        var headers = original.headers
        headers["X-User-Id"] = "alice"  // set by the your-authentication middleware before this one
        headers["User-Agent"] = "PointsApp/1.0"
        headers["X-Forwarded-For"] = "203.0.113.7"
        headers["X-Forwarded-Method"] = original.method
        headers["X-Forwarded-Proto"] = "https"
        headers["X-Forwarded-Host"] = "api.example.com"
        headers["X-Forwarded-Uri"] = original.target
        let path = try #require(URL(string: address)?.path)
        guard
            let answer = await RawHTTP.request(
                port: port, "GET", path, body: forwardBody ? original.body : [], headers: headers)
        else { throw ServeProcessError("no answer to the ForwardAuth check") }
        return answer
    }

    func setUp() async throws -> (ServeChild, GatewayStory) {
        let serve = try await GatewayService.start(simulator: simulator)
        let app = SigningApp(simulator: simulator, authentication: ["X-User-Id": "alice"])
        try await app.register(port: serve.port)
        return (serve, GatewayStory(name: "Traefik", port: serve.port, app: app, passesStatus: true))
    }

    @Test("the documented middleware: /forward-auth, and every verdict header copied onto the forwarded request")
    func documentedConfiguration() {
        #expect(address == "http://127.0.0.1:8080/forward-auth")
        #expect(
            authResponseHeaders
                == [
                    "Rampart-Subject", "Rampart-Key-Id", "Rampart-Counter", "Rampart-Environment", "Rampart-Platform",
                    "Rampart-Policy", "Rampart-Verified-Digest", "Rampart-Next-Challenge",
                ])
    }

    @Test("without forwardBody: allowed over the Content-Digest header, which is handed upstream")
    func withoutBody() async throws {
        let (serve, story) = try await setUp()
        do {
            let body = Array(#"{"amount":1000}"#.utf8)
            let request = try await story.signed("POST", "/api/points/use?dry=1", body: body)
            let allowed = try await check(request, port: serve.port, forwardBody: false)
            #expect(allowed.status == 200, "\(allowed.body)")
            #expect(allowed.headers["rampart-subject"] == "alice")
            #expect(allowed.headers["rampart-verified-digest"] == RequestSignature.contentDigest(of: body))
            for name in authResponseHeaders {
                #expect(allowed.headers[name.lowercased()] != nil, "the allow answer lacks \(name)")
            }
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("with forwardBody: the body is checked; a changed one is 401 digestMismatch")
    func withBody() async throws {
        let (serve, story) = try await setUp()
        do {
            let body = Array(#"{"amount":1000}"#.utf8)
            let good = try await story.signed("POST", "/api/points/use", body: body)
            #expect(try await check(good, port: serve.port, forwardBody: true).status == 200)
            var changed = try await story.signed("POST", "/api/points/use", body: body)
            changed.body = Array(#"{"amount":9999}"#.utf8)
            let refused = try await check(changed, port: serve.port, forwardBody: true)
            #expect(refused.status == 401)
            #expect(refused.headers["rampart-error"] == "digestMismatch")
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("a Rampart-Subject the client sent does not change the subject; X-Forwarded-Uri carries the query")
    func forgedSubjectAndQuery() async throws {
        let (serve, story) = try await setUp()
        do {
            var request = try await story.signed("DELETE", "/api/points/7?reason=a%26b")
            request.headers["Rampart-Subject"] = "mallory"
            let allowed = try await check(request, port: serve.port, forwardBody: false)
            #expect(allowed.status == 200, "\(allowed.body)")
            #expect(allowed.headers["rampart-subject"] == "alice")
            var query = try await story.signed("DELETE", "/api/points/7?reason=a%26b")
            query.target = "/api/points/7?reason=a%26c"
            let refused = try await check(query, port: serve.port, forwardBody: false)
            #expect(refused.status == 401)
            #expect(refused.headers["rampart-error"] == "invalidAssertion")
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("Caddy's shape: GET /forward-auth?<original query> is accepted and the route matches on the original path")
    func caddyQuery() async throws {
        let (serve, story) = try await setUp()
        do {
            let request = try await story.signed("POST", "/api/points/use?dry=1")
            var headers = request.headers
            headers["X-User-Id"] = "alice"
            headers["X-Forwarded-Method"] = "POST"
            headers["X-Forwarded-Uri"] = "/api/points/use?dry=1"
            let allowed = try #require(
                await RawHTTP.request(port: serve.port, "GET", "/forward-auth?dry=1", headers: headers))
            #expect(allowed.status == 200, "\(allowed.body)")
            #expect(allowed.headers["rampart-policy"] == "require-assertion")
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }

    @Test("the sidecar POST /v1/verify gives the same verdict as JSON on the internal listener")
    func sidecar() async throws {
        let (serve, story) = try await setUp()
        do {
            let body = Array(#"{"action":"point_use","amount":1000}"#.utf8)
            func verify(_ request: SignedRequest) async throws -> RawHTTP.Response {
                let document = try JSONSerialization.data(withJSONObject: [
                    "method": request.method, "target": request.target, "headers": request.headers,
                    "body": Data(request.body).base64EncodedString(), "subject": "alice",
                ])
                return try #require(
                    await RawHTTP.request(
                        port: serve.adminPort, "POST", "/v1/verify", body: Array(document),
                        headers: ["Content-Type": "application/json"]))
            }
            let allowed = try await verify(try await story.signed("POST", "/api/points/use?dry=1", body: body))
            #expect(allowed.status == 200, "\(allowed.body)")
            let object = try JSONSerialization.jsonObject(with: Data(allowed.body.utf8)) as? [String: Any]
            #expect(object?["allow"] as? Bool == true)
            #expect(object?["subject"] as? String == "alice")
            #expect(object?["verifiedDigest"] as? String == RequestSignature.contentDigest(of: body))
            #expect(object?["nextChallenge"] as? String != nil)
            var changed = try await story.signed("POST", "/api/points/use?dry=1", body: body)
            changed.body = Array("{}".utf8)
            let refused = try await verify(changed)
            #expect(refused.status == 401)
            #expect(refused.body.contains(#""error":"digestMismatch""#))
        } catch {
            await serve.stop()
            throw error
        }
        await serve.stop()
    }
}
