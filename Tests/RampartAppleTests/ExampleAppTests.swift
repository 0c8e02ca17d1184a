import Foundation
import RampartAppAttest
import RampartApple
@_spi(Testing) import RampartAppleSimulation
@_spi(Testing) import RampartAttestClient
import RampartAttestService
import RampartCrypto
import RampartPinning
import RampartPointsCore
import RampartSecretStore
import RampartX509
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The example app's logic (Examples/iOSApp/Sources/Core) with the real adapters over the simulation, against a
/// running rampart serve: sign in, token in the Keychain, register, spend points with signed requests.
@Suite(.serialized)
struct ExampleAppTests {
    static let teamID = "TEAM123456"
    static let bundleID = "com.example.rampart.points"

    static var infoPlist: Data {
        get throws {
            try Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                    .appendingPathComponent("../../Examples/iOSApp/Info.plist").standardizedFileURL)
        }
    }

    @Test("the example's Info.plist pins what rampart pinset writes for the sample chain, and its API base URL reads")
    func configuration() throws {
        let environment = try AppEnvironment(infoPlist: try Self.infoPlist)
        #expect(environment.baseURL.absoluteString == "https://api.sample.rampart.example")
        let policy = try #require(environment.pinning.configuration.policy(for: "api.sample.rampart.example"))
        let chain = try Certificate.parseAll(
            Array(
                try Data(
                    contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                        .appendingPathComponent("../../Examples/sample-chain.pem").standardizedFileURL)))
        let expected = try chain.dropFirst().map { try Pin(kind: .spkiSHA256, base64: $0.spkiSHA256) }
        #expect(policy.caPins == expected)
        #expect(policy.includesSubdomains)
        #expect(environment.pinning.configuration.lint(at: Date(), chain: chain).isEmpty)
    }

    @Test(
        "behind the docs' nginx and rampart.json: sign in, signed use, token feed, users switching on one device",
        .enabled(if: ExampleStack.available, "needs nginx and python3 (scripts/install-deps.sh) and the rampart binary")
    )
    func behindNginx() async throws {
        try await ExampleStack.run { stack in
            let simulation = stack.simulation
            try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
                try await SimulatedAppAttest.$current.withValue(simulation) {
                    let environment = try AppEnvironment(infoPlist: try Self.infoPlist)
                    let model = PointsModel(
                        transport: stack.transport, device: environment.device, secrets: environment.secrets)
                    #expect(await model.restore().user == nil)
                    let wrong = await model.signIn(user: "alice", password: "nope")
                    #expect(wrong.user == nil)
                    #expect(wrong.status.contains("refused the password for 'alice'"), "\(wrong.status)")

                    let alice = await model.signIn(user: "alice", password: "alice-secret")
                    #expect(alice.status == "Signed in as alice; App Attest key registered", "\(alice.status)")
                    #expect(alice.canSign)
                    let used = await model.use(100)
                    #expect(used.status == "Use 100 points: 200, the API was told the user is alice", "\(used.status)")
                    let feed = await model.readFeed()
                    #expect(feed.status == "Feed: 200, the API was told the user is alice", "\(feed.status)")
                    #expect(await model.readFeed().status.hasPrefix("Feed: 200"), "the kept token")

                    // Bob signs in on the same device: his own key; before, every request answered 409 then 403.
                    _ = await model.signOut()
                    let bob = await model.signIn(user: "bob", password: "bob-secret")
                    #expect(bob.status == "Signed in as bob; App Attest key registered", "\(bob.status)")
                    #expect(await model.use(5).status == "Use 5 points: 200, the API was told the user is bob")
                    #expect(await model.readFeed().status == "Feed: 200, the API was told the user is bob")
                    _ = await model.signOut()
                    _ = await model.signIn(user: "alice", password: "alice-secret")
                    #expect(await model.use(1).status == "Use 1 points: 200, the API was told the user is alice")

                    // Restarted: the session comes back from the Keychain.
                    let relaunched = PointsModel(
                        transport: stack.transport, device: environment.device, secrets: environment.secrets)
                    #expect(await relaunched.restore().user == "alice")
                    #expect(await relaunched.use(2).status.hasSuffix("the API was told the user is alice"))

                    let out = await model.signOut()
                    #expect(out.user == nil && !out.canSign)
                    #expect(await model.use(1).status == "Sign in first")

                    // One key each, kept in the Keychain under the user's id.
                    let service = "\(AttestedClient.keyIDService)/points"
                    let aliceKey = try await environment.secrets.secret(service: service, account: "alice")
                    let bobKey = try await environment.secrets.secret(service: service, account: "bob")
                    #expect(aliceKey != nil && bobKey != nil && aliceKey != bobKey)
                }
            }
        }
    }

    @Test(
        "access tokens through nginx: fetched once, kept, replaced once the device's clock passes refreshAt",
        .enabled(if: ExampleStack.available, "needs nginx and python3 (scripts/install-deps.sh) and the rampart binary")
    )
    func accessTokensBehindNginx() async throws {
        try await ExampleStack.run { stack in
            let simulation = stack.simulation
            try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
                try await SimulatedAppAttest.$current.withValue(simulation) {
                    let environment = try AppEnvironment(infoPlist: try Self.infoPlist)
                    let now = Locked(Date())
                    let authorization = SessionStore.Session.basic(user: "alice", password: "alice-secret")
                        .authorization
                    let client = AttestedClient(
                        transport: stack.transport, device: environment.device, secrets: environment.secrets,
                        clock: { now.withLock { $0 } },
                        credentials: {
                            .init(user: "alice", headers: [HTTPField(name: "Authorization", value: authorization)])
                        })
                    let first = try await client.accessToken()
                    // docs/examples/rampart.json: 900 s tokens, replaced a minute before they expire.
                    #expect(abs(first.expiresAt.timeIntervalSince(Date()) - 900) < 30)
                    #expect(abs(first.refreshAt.timeIntervalSince(first.expiresAt) + 60) < 30)
                    #expect(try await client.accessToken() == first)
                    let feed = try await client.sendWithAccessToken("GET", PointsService.feedTarget)
                    #expect(feed.status == 200)
                    #expect(String(decoding: feed.body, as: UTF8.self).contains(#""rampart-subject": "alice""#))

                    now.withLock { $0 = first.refreshAt }
                    let second = try await client.accessToken()
                    #expect(second.token != first.token)
                    #expect(try await client.sendWithAccessToken("GET", PointsService.feedTarget).status == 200)
                }
            }
        }
    }

    @Test(
        "without App Attest (the iOS Simulator): signed in, but nothing signed is sent, and the screen says why",
        .enabled(if: ExampleStack.available, "needs nginx and python3 (scripts/install-deps.sh) and the rampart binary")
    )
    func simulatorWithoutAppAttest() async throws {
        try await ExampleStack.run { stack in
            let simulation = stack.simulation
            simulation.isSupported = false
            try await SimulatedKeychain.$current.withValue(SimulatedKeychain()) {
                try await SimulatedAppAttest.$current.withValue(simulation) {
                    let environment = try AppEnvironment(infoPlist: try Self.infoPlist)
                    let model = PointsModel(
                        transport: stack.transport, device: environment.device, secrets: environment.secrets)
                    let screen = await model.signIn(user: "alice", password: "alice-secret")
                    #expect(screen.user == "alice")
                    #expect(!screen.canSign)
                    #expect(screen.status == PointsModel.unsupportedMessage)
                    #expect(await model.use(1).status == PointsModel.unsupportedMessage)
                    #expect(
                        try await environment.secrets.secret(
                            service: "\(AttestedClient.keyIDService)/points", account: "alice") == nil)
                }
            }
        }
    }
}

/// The backend guide's setup, as docs/examples print it: `rampart serve --config rampart.json` (the simulator's
/// root, development keys, a scratch store), the echo API `upstream.py`, and nginx with `nginx.conf` (HTTP Basic
/// users alice and bob) in front of both. Skipped, saying so, without nginx, python3 or the rampart binary.
struct ExampleStack {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func executable(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin"]).map { "\($0)/\(name)" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static var available: Bool {
        executable("nginx") != nil && executable("python3") != nil && ServeProcess.available
    }

    let simulation: SimulatedAppAttest
    let transport: LoopbackTransport
    let serve: ServeProcess

    static func run(_ body: (ExampleStack) async throws -> Void) async throws {
        let directory = ScratchDirectory.uniquePath("example-stack")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let simulation = SimulatedAppAttest(
            simulator: try AppAttestSimulator(), teamID: ExampleAppTests.teamID, bundleID: ExampleAppTests.bundleID)

        // rampart serve with docs/examples/rampart.json, for this app and the simulator's CA.
        let text = try String(contentsOf: root.appendingPathComponent("docs/examples/rampart.json"), encoding: .utf8)
        var configuration = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        configuration["database"] = "sqlite:\(directory)/attest.db"
        let configurationPath = directory + "/rampart.json"
        try JSONSerialization.data(withJSONObject: configuration).write(to: URL(fileURLWithPath: configurationPath))
        let rootPath = directory + "/root.pem"
        try Data(simulation.simulator.rootCertificate.pemString.utf8).write(to: URL(fileURLWithPath: rootPath))
        let serve = try await ServeProcess.start([
            "--config", configurationPath, "--root", rootPath, "--team-id", ExampleAppTests.teamID, "--bundle-id",
            ExampleAppTests.bundleID, "--environment", "development",
        ])

        // The echo API.
        let upstream = try SpawnedProcess(
            try #require(executable("python3")),
            arguments: [root.appendingPathComponent("docs/examples/upstream.py").path, "0"], standardOutput: .pipe)
        let portLine = try #require(upstream.standardOutput).availableData
        let upstreamPort = try #require(
            UInt16(String(decoding: portLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))

        // nginx with docs/examples/nginx.conf: only the ports and the password file are the test's.
        let port = try ReservedPort().port
        var site = try String(contentsOf: root.appendingPathComponent("docs/examples/nginx.conf"), encoding: .utf8)
        for (key, value) in [
            ("127.0.0.1:8080", "127.0.0.1:\(serve.port)"), ("127.0.0.1:9000", "127.0.0.1:\(upstreamPort)"),
            ("/etc/nginx/api.htpasswd", directory + "/api.htpasswd"),
        ] {
            #expect(site.contains(key), "docs/examples/nginx.conf no longer holds \(key)")
            site = site.replacingOccurrences(of: key, with: value)
        }
        site = site.replacingOccurrences(
            of: #"listen [^;]*8000;"#, with: "listen 127.0.0.1:\(port);", options: .regularExpression)
        try Data(site.utf8).write(to: URL(fileURLWithPath: directory + "/site.conf"))
        try Data("alice:{PLAIN}alice-secret\nbob:{PLAIN}bob-secret\n".utf8).write(
            to: URL(fileURLWithPath: directory + "/api.htpasswd"))
        let main = """
            daemon off;
            worker_processes 1;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log notice;
            events { worker_connections 256; }
            http {
                access_log off;
                client_body_temp_path \(directory)/client_body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                include \(directory)/site.conf;
            }

            """
        try Data(main.utf8).write(to: URL(fileURLWithPath: directory + "/nginx.conf"))
        let nginx = try SpawnedProcess(
            try #require(executable("nginx")), arguments: ["-c", directory + "/nginx.conf", "-p", directory],
            standardError: .file(directory + "/nginx.stderr"))
        let transport = LoopbackTransport(port: port)
        var listening = false
        for _ in 0..<100 where !listening {
            if (try? await transport.send(TransportRequest(method: "GET", target: "/api/health"))) != nil {
                listening = true
            } else {
                try await Task.sleep(nanoseconds: 50_000_000)
            }
        }
        let stack = ExampleStack(simulation: simulation, transport: transport, serve: serve)
        do {
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
            try #require(listening, "nginx did not listen: \(log)")
            try await body(stack)
        } catch {
            _ = await nginx.stop()
            _ = await upstream.stop()
            await serve.stop()
            throw error
        }
        _ = await nginx.stop()
        _ = await upstream.stop()
        await serve.stop()
    }
}

/// The example's requests over a plain socket, one connection per request (`Connection: close`, the answer read to
/// its end). FoundationNetworking's `URLSession` on Linux never completes a request answered 401 with
/// `WWW-Authenticate` (it waits on the authentication challenge; cancelling it loses the answer), which is how the
/// docs' proxies answer a wrong password; on Apple platforms the app's pinned `URLSession` returns the 401.
struct LoopbackTransport: AttestedClientTransport {
    let port: UInt16

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let port = port
        return try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try Self.exchange(request, port: port) }) }.start()
        }
    }

    static func exchange(_ request: TransportRequest, port: UInt16) throws -> TransportResponse {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw AttestedClientError.transportFailure("socket() failed") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw AttestedClientError.transportFailure("nothing listens on port \(port)") }
        var head = "\(request.method) \(request.target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for field in request.headers { head += "\(field.name): \(field.value)\r\n" }
        head += "Content-Length: \(request.body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + request.body
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw AttestedClientError.transportFailure("the request could not be sent") }
            sent += count
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        guard let end = answer.firstRange(of: Array("\r\n\r\n".utf8)) else {
            throw AttestedClientError.transportFailure("no HTTP answer")
        }
        let lines = String(decoding: answer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusWords = (lines.first ?? "").split(separator: " ")
        guard statusWords.count >= 2, let status = Int(statusWords[1]) else {
            throw AttestedClientError.transportFailure("no status line")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon]).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { "\($0), \(value)" } ?? value
        }
        return TransportResponse(status: status, headers: headers, body: Array(answer[end.upperBound...]))
    }
}
