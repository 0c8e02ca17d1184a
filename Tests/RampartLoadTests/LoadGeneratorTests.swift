import Foundation
import RampartAppAttest
import RampartAttestService
import Testing

@testable import rampart_load

struct LoadResponseParserTests {
    private func parse(_ text: String, closed: Bool = false) throws -> LoadResponseParser.Outcome {
        try LoadResponseParser.parse(Array(text.utf8), closed: closed)
    }

    @Test("a Content-Length answer: status, lower-cased headers, body, bytes consumed")
    func contentLength() throws {
        let text = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nRampart-Next-Challenge: abc\r\n\r\n{}NEXT"
        guard case .response(let response, let consumed) = try parse(text) else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.status == 200)
        #expect(response.headers["rampart-next-challenge"] == "abc")
        #expect(response.body == Array("{}".utf8))
        #expect(response.keepAlive)
        #expect(consumed == text.utf8.count - 4)
    }

    @Test("a chunked answer is reassembled")
    func chunked() throws {
        let text = "HTTP/1.1 401 Unauthorized\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n"
        guard case .response(let response, let consumed) = try parse(text) else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.status == 401)
        #expect(response.body == Array("abcde".utf8))
        #expect(consumed == text.utf8.count)
    }

    @Test("incomplete heads and bodies wait for more bytes")
    func incomplete() throws {
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n") == .incomplete)
        #expect(try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab") == .incomplete)
        #expect(try parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab") == .incomplete)
    }

    @Test("Connection: close and HTTP/1.0 end keep-alive; a body without length ends at the close")
    func connectionClose() throws {
        guard
            case .response(let closing, _) = try parse(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        else {
            Issue.record("expected an answer")
            return
        }
        #expect(!closing.keepAlive)
        #expect(try parse("HTTP/1.0 200 OK\r\n\r\nabc") == .incomplete)
        guard case .response(let old, _) = try parse("HTTP/1.0 200 OK\r\n\r\nabc", closed: true) else {
            Issue.record("expected an answer")
            return
        }
        #expect(old.body == Array("abc".utf8))
        #expect(!old.keepAlive)
    }

    @Test("204 has no body even with bytes after the head")
    func noContent() throws {
        guard case .response(let response, let consumed) = try parse("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1") else {
            Issue.record("expected an answer")
            return
        }
        #expect(response.body.isEmpty)
        #expect(consumed == "HTTP/1.1 204 No Content\r\n\r\n".utf8.count)
    }

    @Test(
        "malformed answers are errors that say what was wrong",
        arguments: [
            ("SMTP 220 hello\r\n\r\n", "not an HTTP/1.x status line"),
            ("HTTP/1.1 200 OK\r\nno colon\r\n\r\n", "a header line without ':'"),
            ("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", "an unusable Content-Length"),
            ("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "an unusable chunk size"),
        ])
    func malformed(text: String, message: String) {
        #expect {
            _ = try parse(text)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test("a close before a whole answer is an error")
    func closedEarly() {
        #expect(throws: LoadError.self) {
            _ = try parse("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nab", closed: true)
        }
        #expect(throws: LoadError.self) { _ = try parse("HTTP/1.1 200", closed: true) }
    }
}

struct LoadOptionsTests {
    @Test("defaults: two round trips through the Envoy shape, one key per worker (at least 16)")
    func defaults() throws {
        let options = try #require(
            try LoadOptions.parse(["--server", "http://localhost:8080/", "--simulator", "/tmp/ca"]))
        #expect(options.servers == [try LoadServerAddress("http://127.0.0.1:8080")])
        #expect(options.flow == .twoRoundTrips)
        #expect(options.requestPath == "/ext-authz/api/points/use")
        #expect(options.keyCount == 16)
        var wide = options
        wide.concurrency = 64
        #expect(wide.keyCount == 64)
        wide.gateway = .direct
        #expect(wide.requestPath == "/api/points/use")
    }

    @Test("every option is read")
    func everyOption() throws {
        let options = try #require(
            try LoadOptions.parse([
                "--server", "http://127.0.0.1:1", "--server", "http://127.0.0.1:2", "--admin", "http://127.0.0.1:3",
                "--server-pid", "42", "--database-process", "postgres", "--simulator", "/tmp/ca", "--team-id", "T",
                "--bundle-id", "B", "--keys", "5", "--concurrency", "3", "--seconds", "1.5", "--warmup", "0",
                "--flow", "one-round-trip", "--gateway", "direct", "--target", "/v1/demo/points/use",
                "--subject-header", "X-User", "--body", "{}",
            ]))
        #expect(options.servers.map(\.port) == [1, 2])
        #expect(options.admins.map(\.port) == [3])
        #expect(options.serverPIDs == [42])
        #expect(options.databaseProcess == "postgres")
        #expect(options.teamID == "T" && options.bundleID == "B")
        #expect(options.keyCount == 5 && options.concurrency == 3)
        #expect(options.seconds == 1.5 && options.warmup == 0)
        #expect(options.flow == .oneRoundTrip && options.gateway == .direct)
        #expect(options.requestPath == "/v1/demo/points/use")
        #expect(options.subjectHeader == "X-User" && options.body == "{}")
        #expect(try LoadOptions.parse(["--help"]) == nil)
    }

    @Test(
        "bad arguments are refused with what to do",
        arguments: [
            (["--simulator", "/tmp/ca"], "--server URL is required"),
            (["--server", "http://127.0.0.1:1"], "--simulator DIR is required"),
            (["--server", "https://127.0.0.1:1"], "must be an http:// URL"),
            (["--server", "http://127.0.0.1"], "needs a port"),
            (["--server", "http://example.com:80"], "IPv4 address or localhost"),
            (["--concurrency", "0"], "--concurrency must be a whole number in 1...4096"),
            (["--seconds", "900"], "--seconds must be a number in 0.1...600.0"),
            (["--flow", "three"], "--flow must be two-round-trips or one-round-trip"),
            (["--gateway", "nginx"], "--gateway must be envoy or direct"),
            (["--target", "api"], "--target must be a path starting with '/'"),
            (["--keys"], "--keys needs a value"),
            (["--frobnicate"], "unknown argument '--frobnicate'"),
        ])
    func refused(arguments: [String], message: String) {
        #expect {
            _ = try LoadOptions.parse(arguments)
        } throws: { error in
            "\(error)".contains(message)
        }
    }
}

struct LoadSamplerTests {
    @Test("/proc/PID/stat: utime + stime after the last ')' of the command name")
    func statLine() throws {
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        let line = "1234 (rampart (x) y) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 9 0 1 2 3"
        #expect(LoadSampler.cpuSeconds(statLine: line) == 300 / ticks)
        #expect(LoadSampler.cpuSeconds(statLine: "garbage") == nil)
        #expect(try #require(LoadSampler.cpuSeconds(pid: getpid())) >= 0)
        #expect(LoadSampler.commandName(pid: getpid()) != nil)
    }

    @Test("/metrics: samples by name and labels; the stage counters by stage")
    func metrics() {
        let text = """
            # HELP rampart_stage_cpu_seconds_total x
            rampart_stage_cpu_seconds_total{stage="ecdsa"} 1.5
            rampart_stage_cpu_seconds_total{stage="store"} 0.25
            rampart_verdicts_total{kind="assertion",reason="accepted"} 12
            """
        let samples = LoadSampler.metrics(text)
        #expect(samples["rampart_verdicts_total{kind=\"assertion\",reason=\"accepted\"}"] == 12)
        #expect(LoadSampler.stageSeconds(samples) == ["ecdsa": 1.5, "store": 0.25])
    }

    @Test("percentiles are nearest-rank")
    func percentiles() {
        let values = (1...100).map(Double.init)
        #expect(LoadRun.percentile(values, 0.5) == 50)
        #expect(LoadRun.percentile(values, 0.99) == 99)
        #expect(LoadRun.percentile(values, 1) == 100)
        #expect(LoadRun.percentile([], 0.5) == 0)
    }
}

/// Both flows against a real `AttestationServer` on loopback (in this process): keys register, every protected
/// request is allowed, the one-round-trip flow fetches challenges only for each key's first request.
@Suite(.serialized)
struct LoadFlowTests {
    private static func withServer(
        _ body: (LoadOptions, AttestationServer) throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rampart-load-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try AppAttestSimulator(keptIn: folder)
        var configuration = ServiceConfiguration()
        configuration.listen = "127.0.0.1:0"
        configuration.adminListen = "127.0.0.1:0"
        configuration.database = "sqlite::memory:"
        configuration.teamId = "BENCH12345"
        configuration.bundleId = "com.rampart.bench"
        configuration.environment = "development"
        configuration.root = folder.appendingPathComponent("root.pem").path
        configuration.subject = .header("X-User-Id")
        configuration.demo = true
        configuration.limits = RequestLimits(
            challengesPerAddressPerMinute: 0, challengesPerSubjectPerMinute: 0, failuresPerAddressPerMinute: 0)
        configuration.connectionsPerAddress = 0
        let server = try AttestationServer(configuration: configuration, verifier: try configuration.makeVerifier())
        var options = LoadOptions()
        options.servers = [try LoadServerAddress("http://127.0.0.1:\(server.port)")]
        options.admins = [try LoadServerAddress("http://127.0.0.1:\(server.adminPort)")]
        options.serverPIDs = [getpid()]
        options.simulator = folder.path
        options.concurrency = 2
        options.keys = 3
        options.seconds = 0.4
        options.warmup = 0.1
        do {
            try body(options, server)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("two round trips: a challenge per protected request, all allowed", arguments: LoadGateway.allCases)
    func twoRoundTrips(gateway: LoadGateway) async throws {
        try await Self.withServer { options, _ in
            var options = options
            options.gateway = gateway
            if gateway == .direct { options.target = "/v1/demo/points/use" }
            let report = try LoadRun.run(options)
            #expect(report.keys == 3)
            #expect(report.protectedRequests > 0)
            #expect(report.refused == 0, "\(report.refusedByCode)")
            #expect(report.errors == 0, "\(report.firstError ?? "")")
            #expect(report.challengeRequests == report.protectedRequests)
            #expect(report.connectionsOpened <= 2 + 3, "connections are kept alive")
            #expect(report.serverCPUMicrosecondsPerRequest != nil)
        }
    }

    @Test("one round trip: the next challenge of each answer signs the next request")
    func oneRoundTrip() async throws {
        try await Self.withServer { options, _ in
            var options = options
            options.flow = .oneRoundTrip
            let report = try LoadRun.run(options)
            #expect(report.protectedRequests > 3)
            #expect(report.refused == 0, "\(report.refusedByCode)")
            #expect(report.errors == 0, "\(report.firstError ?? "")")
            // Each key fetched a challenge for its first request, in the warm-up or the window.
            #expect(report.challengeRequests <= 3)
        }
    }

    @Test("an unknown key is refused, and the refusal names its Rampart-Error code")
    func refusedByCode() async throws {
        try await Self.withServer { options, _ in
            let simulator = try AppAttestSimulator(keptIn: URL(fileURLWithPath: options.simulator ?? ""))
            let app = LoadApp(options: options, simulator: simulator)
            let connection = LoadConnection(options.servers[0])
            var key = LoadKey(subject: "registered", teamID: options.teamID, bundleID: options.bundleID)
            try app.register(key, on: connection)
            let allowed = try app.protectedRequest(&key, on: connection)
            #expect(allowed == LoadApp.Outcome(status: 200, code: nil, fetchedChallenge: true))
            #expect(key.nextChallenge != nil)
            var stranger = LoadKey(subject: "stranger", teamID: options.teamID, bundleID: options.bundleID)
            let unknown = try app.protectedRequest(&stranger, on: connection)
            #expect(unknown == LoadApp.Outcome(status: 401, code: "unknownKey", fetchedChallenge: true))
            #expect(stranger.nextChallenge == nil)
        }
    }
}
