import Foundation
import RampartAppAttest
import TestSupport
import Testing

/// nginx (`auth_request`) in front of the echo upstream with `docs/examples/nginx.conf` as the docs print it: only the
/// ports and the password file are the test's. nginx runs unprivileged, its pid, logs and temporary files in a
/// scratch directory. Skipped, saying so, when nginx is not installed (scripts/install-deps.sh installs it; CI runs it).
@Suite(
    .serialized,
    .enabled(
        if: (NginxGateway.binary != nil && EchoUpstream.python != nil || Gateway.required) && ServeProcess.available,
        "needs nginx (apt-get install nginx; scripts/install-deps.sh), python3 and the rampart binary"))
struct GatewayNginxTests {
    let simulator: AppAttestSimulator

    init() throws { simulator = try AppAttestSimulator() }

    @Test("a signed request reaches the upstream with Rampart-Subject; the next challenge signs the next request")
    func signedRequests() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) { try await $0.signedRequestsPass() }
    }

    @Test(
        "method, path, query or body changed, replay and no assertion: refused by nginx with the code in Rampart-Error")
    func tampering() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) { try await $0.tamperingIsRefused() }
    }

    @Test("open routes pass; the client's X-User-Id and Rampart-* copies never reach the upstream")
    func openRoutes() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) {
            try await $0.openRoutesPassAndForgedHeadersAreDropped()
        }
    }

    @Test("'..;' and its other spellings never reach the upstream, with a token or without anything")
    func dotSegmentSpellings() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) {
            try await $0.dotSegmentSpellingsAreRefused()
        }
    }

    @Test("headers spelt with underscores (X_User_Id, Rampart_Key_Id) never reach the upstream")
    func underscoreSpellings() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) {
            try await $0.underscoreSpellingsAreDropped()
        }
    }

    @Test("a signed body sent chunked reaches the upstream whole and verifies; the next requests pass cleanly")
    func chunkedBody() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) { try await $0.chunkedBodiesVerify() }
    }

    @Test("three bursts of 200 concurrent requests through nginx: every one reaches the upstream, none is a 500")
    func bursts() async throws {
        // Every auth_request comes from 127.0.0.1: Rampart's cap of 64 connections per address closed the rest at
        // accept, and nginx answered those users 500 (issue 25 item 3).
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) { story in
            for burst in 1...3 {
                let statuses = await withTaskGroup(of: String.self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let answer = await RawHTTP.request(
                                port: story.port, "GET", "/api/health?burst=\(burst)&n=\(index)",
                                headers: GatewayStory.basicAlice)
                            guard let answer else { return "no answer" }
                            return EchoUpstream.Seen(answer) == nil ? "\(answer.status) not from the upstream" : "200"
                        }
                    }
                    var counts: [String: Int] = [:]
                    for await status in group { counts[status, default: 0] += 1 }
                    return counts
                }
                #expect(statuses == ["200": 200], "burst \(burst): \(statuses)")
            }
        }
    }

    @Test("a token from POST /v1/tokens through nginx opens a token route")
    func tokens() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) { try await $0.tokensOpenTokenRoutes() }
    }

    @Test("without its user's authentication nginx refuses before Rampart is asked")
    func unauthenticated() async throws {
        try await GatewayStory.run(NginxGateway.self, simulator: simulator) { story in
            let answer = try #require(await RawHTTP.request(port: story.port, "GET", "/api/health"))
            #expect(answer.status == 401)
            #expect(answer.headers["rampart-error"] == nil)
        }
    }
}

/// nginx started from `docs/examples/nginx.conf`.
struct NginxGateway: ProxyGateway {
    static let name = "nginx"
    static let passesStatus = false

    let child: ChildProcess
    let port: UInt16

    static var binary: String? { Gateway.executable("nginx") }

    static func start(rampartPort: UInt16, upstreamPort: UInt16) async throws -> NginxGateway {
        guard let binary else { throw ServeProcessError("nginx is not installed") }
        let directory = URL(fileURLWithPath: ScratchDirectory.uniquePath("nginx"), isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let (child, port) = try await Gateway.startListening("nginx") { port in
            let site = try Gateway.substitute(
                try Gateway.example("nginx.conf"),
                [
                    "listen 127.0.0.1:8000;": "listen 127.0.0.1:\(port);",
                    "127.0.0.1:8080": "127.0.0.1:\(rampartPort)",
                    "127.0.0.1:9000": "127.0.0.1:\(upstreamPort)",
                    "/etc/nginx/api.htpasswd": directory.appendingPathComponent("api.htpasswd").path,
                ])
            try Data(site.utf8).write(to: directory.appendingPathComponent("site.conf"))
            try Data("alice:{PLAIN}secret\n".utf8).write(to: directory.appendingPathComponent("api.htpasswd"))
            let path = directory.path
            let main = """
                daemon off;
                worker_processes 1;
                pid \(path)/nginx.pid;
                error_log stderr notice;
                events { worker_connections 2048; }
                http {
                    access_log off;
                    client_body_temp_path \(path)/client_body;
                    proxy_temp_path \(path)/proxy;
                    fastcgi_temp_path \(path)/fastcgi;
                    uwsgi_temp_path \(path)/uwsgi;
                    scgi_temp_path \(path)/scgi;
                    include \(path)/site.conf;
                }

                """
            try Data(main.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
            return try ChildProcess(
                "nginx", executable: binary, arguments: ["-p", path, "-c", "\(path)/nginx.conf", "-e", "stderr"],
                directory: directory)
        }
        return NginxGateway(child: child, port: port)
    }
}
